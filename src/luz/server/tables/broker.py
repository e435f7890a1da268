"""Brokers: how a process tells the others of its tables' changes, its seats' presence and its tables' chat (memory:
one process; Redis: several).

With Redis, each table has a channel of its own (Redis 7's sharded pub/sub: ``SPUBLISH``/``SSUBSCRIBE``, spread
over a cluster's shards by the channel's name), which a process subscribes to while it holds the table
(``hold``/``release``, from the registry's loading and eviction): a process hears the changes of the tables it
serves, not every table of the site, so its cost grows with its own tables. The turn's word to the players' "my
games" streams goes the same way, on each identity's channel, heard while the process holds a stream of that
identity (``watch``/``unwatch``, from watchers.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ..clock import SYSTEM_CLOCK, Clock
from .model import Change

log = logging.getLogger("luz.server")

EventHandler = Callable[[str, int, Change | None], Awaitable[None]]
"""Told that a table reached a version on another process (with the change, when it is one action)."""
PresenceHandler = Callable[[str, int, str], Awaitable[None]]
"""Told of another process's presence message about a seat (presence.py)."""
PlayersHandler = Callable[[list[str]], None]
"""Told that the turn changed at a table of these identities, on another process (watchers.py)."""
ChatHandler = Callable[[str, dict[str, Any]], Awaitable[None]]
"""Told of a chat message said at a table on another process (chat.py)."""


class Broker(Protocol):
    shared: bool
    """Whether other server processes hear this one (then a seat's player may be connected to another)."""

    async def publish(self, table_id: str, version: int, change: Change | None = None) -> None: ...
    async def presence(self, table_id: str, seat: int, kind: str) -> None:
        """``here``: this process has a connection of the seat; ``who``: does any process have one? ``away``: a
        bot plays the seat for its absent player."""

    async def players(self, players: list[str]) -> None:
        """The turn changed at a table of ``players`` (their "my games" streams look again, on any process)."""

    async def watch(self, player_id: str) -> None:
        """This process now holds a "my games" stream of ``player_id``: it hears the identity's word (subscribed
        before this returns)."""

    def unwatch(self, player_id: str) -> None:
        """This process no longer holds a stream of ``player_id``: its channel left (soon)."""

    async def seated(self, table_id: str, seats: list[int], here: bool) -> None:
        """Whether this process now holds a connection of each of ``seats`` (a mark with a lifetime, renewed while
        it does), so that any process can tell whether a player is at the table (``is_seated``)."""

    async def is_seated(self, table_id: str, seat: int) -> bool: ...
    async def spectators(self, table_id: str, count: int) -> None:
        """This process now holds ``count`` spectator connections of the table (with several processes, a
        contribution with a lifetime, renewed while the process lives)."""

    async def spectator_counts(self, table_ids: list[str]) -> dict[str, int]:
        """Each table's spectator connections, added up over the processes."""

    async def hold(self, table_id: str) -> None:
        """This process now holds the table: it hears its channel (subscribed before this returns)."""

    def release(self, table_id: str) -> None:
        """This process no longer holds the table: its channel left (soon)."""

    async def chat(self, table_id: str, message: dict[str, Any]) -> None:
        """Tell the other processes that hold the table of a chat message said here."""

    def on_chat(self, handler: ChatHandler) -> None:
        """Who hears the other processes' chat messages."""

    async def start(
        self, handler: EventHandler, presence: PresenceHandler | None = None, players: PlayersHandler | None = None
    ) -> None: ...
    async def close(self) -> None: ...


class MemoryBroker:
    """One server process: events stay in it."""

    shared = False

    def __init__(self) -> None:
        self.watching: dict[str, int] = {}
        """This process's spectator connections of each table that has some."""

    async def publish(self, table_id: str, version: int, change: Change | None = None) -> None:
        return None

    async def presence(self, table_id: str, seat: int, kind: str) -> None:
        return None

    async def players(self, players: list[str]) -> None:
        return None

    async def seated(self, table_id: str, seats: list[int], here: bool) -> None:
        return None

    async def is_seated(self, table_id: str, seat: int) -> bool:
        return False

    async def spectators(self, table_id: str, count: int) -> None:
        counted(self.watching, table_id, count)

    async def spectator_counts(self, table_ids: list[str]) -> dict[str, int]:
        return {table_id: self.watching.get(table_id, 0) for table_id in table_ids}

    async def hold(self, table_id: str) -> None:
        return None

    def release(self, table_id: str) -> None:
        return None

    async def watch(self, player_id: str) -> None:
        return None

    def unwatch(self, player_id: str) -> None:
        return None

    async def chat(self, table_id: str, message: dict[str, Any]) -> None:
        return None

    def on_chat(self, handler: ChatHandler) -> None:
        return None

    async def start(
        self, handler: EventHandler, presence: PresenceHandler | None = None, players: PlayersHandler | None = None
    ) -> None:
        return None

    async def close(self) -> None:
        return None


class RedisBroker:
    """Several server processes: each table's events, presence and chat on its own channel, each identity's word
    on its own (sharded pub/sub), heard while this process holds the table or a stream of the identity."""

    PLAYER = "luz:player:{}"
    """An identity's channel (sharded pub/sub): the turn changed at one of its tables."""
    TABLE = "luz:table:{}"
    """A table's channel (sharded pub/sub): its new versions, its seats' presence, its chat."""
    SEATED = "luz:seated:{}:{}"
    """The processes that hold a connection of a seat (a set of their origins): table, seat."""
    SEATED_SECONDS = 300
    """The mark's lifetime: renewed while the connection lasts (a process that died leaves none for long)."""
    WATCHING = "luz:watching:{}"
    """A process's spectator connections (a hash: table -> count), by its origin."""
    WATCHERS = "luz:watching"
    """The processes that count spectators: a sorted set of origins, scored by when their counts expire."""
    WATCHING_SECONDS = 90
    """The counts' lifetime, renewed a third of it before (a process that died stops counting within it)."""
    shared = True

    def __init__(self, url: str, clock: Clock = SYSTEM_CLOCK) -> None:
        import redis.asyncio as redis

        # A pool that waits for a free connection: the default one refuses a command when 100 are in use
        # (MaxConnectionsError), which a busy process reaches with its concurrent publishes.
        self.redis = redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(url, max_connections=64))
        self.origin = secrets.token_hex(8)
        self.clock = clock
        """The wall clock of the processes' spectator counts' lifetimes (``WATCHERS``' scores)."""
        self._task: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self.watching: dict[str, int] = {}
        """This process's spectator connections of each table that has some (written to ``WATCHING``)."""
        self._watching_lock = asyncio.Lock()
        self._renewal: asyncio.Task[None] | None = None
        self._pubsub: Any = self.redis.pubsub()
        self._wanted: set[str] = set()
        """The channels this process should hear: of the tables it holds, of the identities it has streams of."""
        self._subscribed: set[str] = set()
        """The channels it hears."""
        self._subscribing = asyncio.Lock()
        self._hearing = asyncio.Event()
        """Set when a channel is subscribed: the listener has something to hear."""
        self._chat: ChatHandler | None = None
        self.received = 0
        """Messages heard from Redis (a process's cost of the others' work: the bench's figure)."""

    async def publish(self, table_id: str, version: int, change: Change | None = None) -> None:
        event: dict[str, Any] = {"table": table_id, "version": version, "origin": self.origin}
        if change is not None:
            event["game_no"], event["action"] = change.game_no, change.action
            if change.clock is not None:
                event["clock"] = change.clock
        await self.redis.spublish(self.TABLE.format(table_id), json.dumps(event))

    async def presence(self, table_id: str, seat: int, kind: str) -> None:
        event = {"table": table_id, "seat": seat, "presence": kind, "origin": self.origin}
        await self.redis.spublish(self.TABLE.format(table_id), json.dumps(event))

    async def chat(self, table_id: str, message: dict[str, Any]) -> None:
        event = {"table": table_id, "chat": message, "origin": self.origin}
        await self.redis.spublish(self.TABLE.format(table_id), json.dumps(event))

    def on_chat(self, handler: ChatHandler) -> None:
        self._chat = handler

    async def players(self, players: list[str]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:  # one round trip; a channel each
            for player in players:
                pipe.spublish(self.PLAYER.format(player), json.dumps({"player": player, "origin": self.origin}))
            await pipe.execute()

    async def hold(self, table_id: str) -> None:
        await self._want(self.TABLE.format(table_id))

    def release(self, table_id: str) -> None:
        self._unwant(self.TABLE.format(table_id))

    async def watch(self, player_id: str) -> None:
        await self._want(self.PLAYER.format(player_id))

    def unwatch(self, player_id: str) -> None:
        self._unwant(self.PLAYER.format(player_id))

    async def _want(self, channel: str) -> None:
        self._wanted.add(channel)
        await self._resubscribe(channel)

    def _unwant(self, channel: str) -> None:
        self._wanted.discard(channel)
        task = asyncio.get_running_loop().create_task(self._resubscribe(channel))
        self._handlers.add(task)
        task.add_done_callback(self._handlers.discard)

    async def _resubscribe(self, channel: str) -> None:
        """Hear ``channel`` if it is wanted, else not (one change at a time: the last word is the wanted set's as
        it is when it runs, so a release followed by a hold never leaves a held table unheard)."""
        async with self._subscribing:
            if channel in self._wanted and channel not in self._subscribed:
                await self._pubsub.ssubscribe(channel)
                self._subscribed.add(channel)
                self._hearing.set()
            elif channel not in self._wanted and channel in self._subscribed:
                self._subscribed.discard(channel)
                await self._pubsub.sunsubscribe(channel)

    async def seated(self, table_id: str, seats: list[int], here: bool) -> None:
        if not seats:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for seat in seats:
                key = self.SEATED.format(table_id, seat)
                if here:
                    pipe.sadd(key, self.origin)
                    pipe.expire(key, self.SEATED_SECONDS)
                else:
                    pipe.srem(key, self.origin)
            await pipe.execute()

    async def is_seated(self, table_id: str, seat: int) -> bool:
        return bool(await self.redis.exists(self.SEATED.format(table_id, seat)))

    async def spectators(self, table_id: str, count: int) -> None:
        counted(self.watching, table_id, count)
        await self._write_watching([table_id])

    async def _write_watching(self, table_ids: list[str] | None) -> None:
        """Write this process's counts of ``table_ids`` (``None``: all of them, anew) and renew their lifetime.
        One write at a time, each of the counts as they are when it runs: the last one written is the latest."""
        key = self.WATCHING.format(self.origin)
        async with self._watching_lock, self.redis.pipeline(transaction=True) as pipe:
            if table_ids is None:
                pipe.delete(key)
                table_ids = list(self.watching)
            for table_id in table_ids:
                if table_id in self.watching:
                    pipe.hset(key, table_id, self.watching[table_id])
                else:
                    pipe.hdel(key, table_id)
            pipe.expire(key, self.WATCHING_SECONDS)
            pipe.zadd(self.WATCHERS, {self.origin: self.clock.now() + self.WATCHING_SECONDS})
            await pipe.execute()

    async def spectator_counts(self, table_ids: list[str]) -> dict[str, int]:
        if not table_ids:
            return {}
        await self.redis.zremrangebyscore(self.WATCHERS, "-inf", self.clock.now())  # the processes that stopped
        members: list[Any] = list(await self.redis.zrange(self.WATCHERS, 0, -1))
        origins = [member.decode() for member in members]
        totals = dict.fromkeys(table_ids, 0)
        async with self.redis.pipeline(transaction=False) as pipe:
            for origin in origins:
                pipe.hmget(self.WATCHING.format(origin), table_ids)
            for counts in await pipe.execute():
                for table_id, count in zip(table_ids, counts, strict=True):
                    totals[table_id] += int(count or 0)
        return totals

    async def _renew_watching(self) -> None:
        while True:
            await asyncio.sleep(self.WATCHING_SECONDS / 3)
            if self.watching:
                try:
                    await self._write_watching(None)
                except Exception:  # Redis unreachable for a moment: the next round renews
                    log.exception("spectator counts not renewed")

    async def start(
        self, handler: EventHandler, presence: PresenceHandler | None = None, players: PlayersHandler | None = None
    ) -> None:
        self._renewal = asyncio.create_task(self._renew_watching())
        pubsub = self._pubsub

        def spawn(work: Awaitable[None], what: str) -> None:
            async def run() -> None:
                try:
                    await work
                except Exception:  # one table's trouble must not stop the others
                    log.exception("%s event failed", what)

            # A task per event: a table's catch-up (a database read) never holds up the other tables'; events of
            # one table are put in order by its lock and version.
            task = asyncio.create_task(run())
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)

        async def listen() -> None:
            while True:  # a pub/sub connection's messages end when it hears no channel: wait for the next one
                if not pubsub.subscribed:
                    self._hearing.clear()
                    await self._hearing.wait()
                    continue
                await heard(pubsub)

        async def heard(pubsub: Any) -> None:
            async for message in pubsub.listen():
                if message.get("type") not in ("message", "smessage"):
                    continue
                self.received += 1
                event = json.loads(message["data"])
                if event.get("origin") == self.origin:
                    continue
                if "player" in event:
                    if players is not None:
                        players([str(event["player"])])
                elif "presence" in event:
                    if presence is not None:
                        spawn(presence(event["table"], int(event["seat"]), event["presence"]), "presence")
                elif "chat" in event:
                    if self._chat is not None and isinstance(event["chat"], dict):
                        spawn(self._chat(event["table"], event["chat"]), "chat")
                else:
                    change = None
                    if isinstance(event.get("action"), str) and isinstance(event.get("game_no"), int):
                        change = Change(event["game_no"], event["action"], event.get("clock"))
                    spawn(handler(event["table"], int(event["version"]), change), "table")

        self._task = asyncio.create_task(listen())

    async def close(self) -> None:
        if self._task:
            self._task.cancel()
        if self._renewal:
            self._renewal.cancel()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)  # none left reading a closed connection
        try:  # this process's spectators are gone: the counts say so now rather than when they expire
            await self.redis.zrem(self.WATCHERS, self.origin)
            await self.redis.delete(self.WATCHING.format(self.origin))
        except Exception:
            log.exception("spectator counts not withdrawn")
        log.info("broker: %d messages received from Redis", self.received)
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        await self.redis.aclose(close_connection_pool=True)


def counted(watching: dict[str, int], table_id: str, count: int) -> None:
    """Keep ``count`` spectators of ``table_id`` in ``watching`` (a table with none: not kept)."""
    if count > 0:
        watching[table_id] = count
    else:
        watching.pop(table_id, None)
