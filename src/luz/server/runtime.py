"""Live tables: the game of each table in memory, one writer at a time, views pushed to every connection.

Every change goes: check on the engine -> store (the action is durable) -> apply in memory -> acknowledge ->
broadcast each seat its own view. Events reach the other server processes through the broker.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

import orjson

from luz.engine import Action, Game, LuzError, Phase, ViewsJson, get_edition, parse_action, view
from luz.engine.record import to_record

from . import clocks
from .bots import BotPool, choose_for, is_quick, release_time, within_caps
from .history import results_of
from .settings import Settings
from .store import StaleVersion, Store, TableState

log = logging.getLogger("luz.server")
T = TypeVar("T")


class Refused(Exception):
    """An action or request the table refuses; ``code`` is machine-readable, the message is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Connection(Protocol):
    async def send_text(self, data: str) -> None: ...


Outbox = list[tuple[int | None, Connection, str]]
"""Messages for this process's connections: (seat or ``None`` for a spectator, connection, text)."""


def dumps(data: Any) -> str:
    """``data`` as JSON text (orjson: a few times faster than the standard library on views)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # what orjson does not write: an integer beyond 64 bits (a client's id, echoed)
        return json.dumps(data)


@dataclass(eq=False)
class TableRuntime:
    state: TableState
    game: Game | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    seats: dict[int, set[Connection]] = field(default_factory=dict)
    spectators: set[Connection] = field(default_factory=set)
    away: dict[int, asyncio.TimerHandle] = field(default_factory=dict)
    taken_over: set[int] = field(default_factory=set)
    """Human seats a bot plays for while their player is away."""
    elsewhere: dict[int, float] = field(default_factory=dict)
    """When each seat was last said to be connected to another server process (event loop time)."""
    opened: dict[Any, int] = field(default_factory=dict)
    """When each connection was opened (a counter): a seat's oldest is closed when it opens one too many."""
    thinking: Future[Any] | None = None
    """This table's bot move in a bot process, if any: a table has at most one there at a time (its fair share)."""
    creator: str | None = None
    """The client that created the table (known to the process it was created on): the bots of its tables share
    the bot processes' time as one (``BotPool``); ``None``: the table is a share of its own."""
    views: ViewsJson | None = None
    """Every seat's view of the game at ``views_version`` (built on first use at each version)."""
    views_version: int = -1

    def names(self) -> list[str]:
        return [s.name or (s.bot or "bot" if s.kind == "bot" else f"seat {s.seat}") for s in self.state.seats]

    def connected(self, seat: int) -> bool:
        return bool(self.seats.get(seat))


def build_game(state: TableState) -> Game | None:
    """The current game of a stored table, replayed through the rules from its seed and actions."""
    if state.seed is None:
        return None
    edition = get_edition(state.edition)
    game = Game(edition, state.players, edition.options(state.players, **state.options), seed=state.seed)
    for text in state.actions:
        game.apply(parse_action(text))
    return game


EventHandler = Callable[[str, int, "Change | None"], Awaitable[None]]
PresenceHandler = Callable[[str, int, str], Awaitable[None]]
FALLBACK_BOT = "heuristic"
"""Moves (in the server process, in milliseconds) for a bot that went over its time."""
PRESENCE_WAIT = 0.5
"""Seconds a process waits for another to say it has a seat's player, before a bot takes the seat over."""
SEND_SECONDS = 5.0
"""Seconds a message may take to go out to a connection before the connection is dropped (it can reconnect)."""


@dataclass(frozen=True)
class Change:
    """An action just stored, carried by its event: a process one version behind applies it without a read."""

    game_no: int
    action: str
    clock: dict[str, Any] | None = None
    """The table's clock after the action (clocks.py), if the table is timed."""


class Broker(Protocol):
    shared: bool
    """Whether other server processes hear this one (then a seat's player may be connected to another)."""

    async def publish(self, table_id: str, version: int, change: Change | None = None) -> None: ...
    async def presence(self, table_id: str, seat: int, kind: str) -> None:
        """``here``: this process has a connection of the seat; ``who``: does any process have one? ``away``: a
        bot plays the seat for its absent player."""

    async def start(self, handler: EventHandler, presence: PresenceHandler | None = None) -> None: ...
    async def close(self) -> None: ...


class MemoryBroker:
    """One server process: events stay in it."""

    shared = False

    async def publish(self, table_id: str, version: int, change: Change | None = None) -> None:
        return None

    async def presence(self, table_id: str, seat: int, kind: str) -> None:
        return None

    async def start(self, handler: EventHandler, presence: PresenceHandler | None = None) -> None:
        return None

    async def close(self) -> None:
        return None


class RedisBroker:
    """Several server processes: table events go through Redis pub/sub."""

    CHANNEL = "luz:table-events"
    shared = True

    def __init__(self, url: str) -> None:
        import redis.asyncio as redis

        # A pool that waits for a free connection: the default one refuses a command when 100 are in use
        # (MaxConnectionsError), which a busy process reaches with its concurrent publishes.
        self.redis = redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(url, max_connections=64))
        self.origin = secrets.token_hex(8)
        self._task: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[None]] = set()

    async def publish(self, table_id: str, version: int, change: Change | None = None) -> None:
        event: dict[str, Any] = {"table": table_id, "version": version, "origin": self.origin}
        if change is not None:
            event["game_no"], event["action"] = change.game_no, change.action
            if change.clock is not None:
                event["clock"] = change.clock
        await self.redis.publish(self.CHANNEL, json.dumps(event))

    async def presence(self, table_id: str, seat: int, kind: str) -> None:
        event = {"table": table_id, "seat": seat, "presence": kind, "origin": self.origin}
        await self.redis.publish(self.CHANNEL, json.dumps(event))

    async def start(self, handler: EventHandler, presence: PresenceHandler | None = None) -> None:
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(self.CHANNEL)

        async def handle(table_id: str, version: int, change: Change | None) -> None:
            try:
                await handler(table_id, version, change)
            except Exception:  # one table's trouble must not stop the others
                log.exception("table event failed")

        async def handle_presence(table_id: str, seat: int, kind: str) -> None:
            try:
                if presence is not None:
                    await presence(table_id, seat, kind)
            except Exception:
                log.exception("presence event failed")

        async def listen() -> None:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                event = json.loads(message["data"])
                if event.get("origin") == self.origin:
                    continue
                if "presence" in event:
                    task = asyncio.create_task(handle_presence(event["table"], int(event["seat"]), event["presence"]))
                    self._handlers.add(task)
                    task.add_done_callback(self._handlers.discard)
                else:
                    # A task per event: a table's catch-up (a database read) never holds up the other tables';
                    # events of one table are put in order by its lock and version.
                    change = None
                    if isinstance(event.get("action"), str) and isinstance(event.get("game_no"), int):
                        change = Change(event["game_no"], event["action"], event.get("clock"))
                    task = asyncio.create_task(handle(event["table"], int(event["version"]), change))
                    self._handlers.add(task)
                    task.add_done_callback(self._handlers.discard)

        self._task = asyncio.create_task(listen())

    async def close(self) -> None:
        if self._task:
            self._task.cancel()
        for task in list(self._handlers):
            task.cancel()
        await self.redis.aclose(close_connection_pool=True)


class Manager:
    """All live tables of this process."""

    def __init__(self, store: Store, broker: Broker, bots: BotPool | None, settings: Settings) -> None:
        self.store = store
        self.broker = broker
        self.bots = bots
        """The bot processes (``None``: bots move in this process)."""
        self.settings = settings
        self.tables: dict[str, TableRuntime] = {}
        self._load_lock = asyncio.Lock()
        self._opened = itertools.count()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.clocks = clocks.Clocks(self)
        self._store_inline = store.engine.dialect.name == "sqlite"

    # -- loading -----------------------------------------------------------------------------------------

    async def runtime(self, table_id: str) -> TableRuntime | None:
        """The live table ``table_id``, loaded from the database on first use."""
        runtime = self.tables.get(table_id)
        if runtime is not None:
            return runtime
        if "\x00" in table_id:  # no table's id; PostgreSQL refuses it in a query
            return None
        async with self._load_lock:
            if table_id not in self.tables:
                state = await asyncio.to_thread(self.store.load, table_id)
                if state is None:
                    return None
                self.tables[table_id] = TableRuntime(state, build_game(state))
                self.clocks.arm(self.tables[table_id])  # its turn's deadline, also when another process dies
            return self.tables[table_id]

    async def refresh(self, runtime: TableRuntime) -> list[Outbox]:
        """Catch up with the database (another process may have written).

        Returns what to send this process's connections, computed on the way: one outbox per version when
        the gap is only actions of the current game (so that no connection misses a move, e.g. the last card
        of a trick), else one for the state reached.
        """
        state = await asyncio.to_thread(self.store.load, runtime.state.id)
        assert state is not None
        if state.version == runtime.state.version:
            return []
        old, outboxes = runtime.state, []
        known = len(old.actions)
        if runtime.game is not None and state.game_no == old.game_no and state.actions[:known] == old.actions:
            new = state.actions[known:]
            stepwise = state.version - old.version == len(new) and state.seats == old.seats
            for number, text in enumerate(new, 1):
                runtime.game.apply(parse_action(text))
                if stepwise and number < len(new):
                    runtime.state = replace(old, version=old.version + number, actions=state.actions[: known + number])
                    outboxes.append(self.outbox(runtime))
            runtime.state = state
        else:
            runtime.state = state
            runtime.game = build_game(state)
        outboxes.append(self.outbox(runtime))
        self.clocks.arm(runtime)  # the deadline of the turn reached (its event, when it comes, is then old)
        return outboxes

    async def resume(self) -> None:
        """After a start or restart: load every table with a game in progress and let its bots play on."""
        for table_id in await asyncio.to_thread(self.store.live_tables):
            runtime = await self.runtime(table_id)
            if runtime is not None:
                self.await_players(runtime)  # nobody is connected yet
                self.schedule_bots(runtime)

    def await_players(self, runtime: TableRuntime) -> None:
        """Start the grace period of each human seat with no connection here (then a bot plays for them)."""
        loop = asyncio.get_running_loop()
        connected_or_counting = {n for n in range(len(runtime.state.seats)) if runtime.connected(n)} | set(runtime.away)
        for seat in runtime.state.seats:
            if seat.kind == "human" and seat.seat not in connected_or_counting | runtime.taken_over:
                runtime.away[seat.seat] = loop.call_later(
                    runtime.state.grace_seconds, self._take_over, runtime, seat.seat
                )

    async def on_event(self, table_id: str, version: int, change: Change | None = None) -> None:
        """Another process changed a table: catch up and tell this process's connections."""
        runtime = self.tables.get(table_id)
        if runtime is None or version <= runtime.state.version:
            return
        async with runtime.lock:
            if version <= runtime.state.version:
                return  # an earlier event's catch-up got this far (and sent it)
            if change is not None and version == runtime.state.version + 1 and self._apply(runtime, change):
                outboxes = [self.outbox(runtime)]
            else:
                outboxes = await self.refresh(runtime)
        await self.deliver(runtime, *outboxes)
        self.schedule_bots(runtime, delay=0.2)

    def _apply(self, runtime: TableRuntime, change: Change) -> bool:
        """Apply the action another process stored as the table's next version, as ``act`` does after storing;
        ``False`` (nothing changed) if it does not follow from this process's state: read the database then."""
        game = runtime.game
        if game is None or runtime.state.status != "playing" or change.game_no != runtime.state.game_no:
            return False
        trial = game.clone()
        try:
            trial.apply(parse_action(change.action))
        except LuzError:
            return False
        runtime.game = trial
        runtime.state.actions.append(change.action)
        runtime.state.version += 1
        runtime.state.clock = change.clock
        if trial.phase is Phase.GAME_OVER:
            runtime.state.status = "over"
        return True

    # -- changes -----------------------------------------------------------------------------------------

    async def act(
        self, runtime: TableRuntime, seat: int, action: Action, expected: int | None = None, timeout: bool = False
    ) -> int:
        """Apply ``seat``'s action: checked, stored, applied, then broadcast. Returns the new version.
        ``timeout``: the move is the timeout bot's, its player's time having run out (clocks.py)."""
        caught_up: list[Outbox] = []  # states written by another process, met on the way: sent before ours
        try:
            async with runtime.lock:
                if self.broker.shared and not self._may_act(runtime, seat, expected):
                    # Another process may have stored moves this one has not heard of yet: read before refusing.
                    caught_up += await self.refresh(runtime)
                for _ in range(3):
                    if expected is not None and expected != runtime.state.version:
                        raise Refused("stale", f"the table is at version {runtime.state.version}, not {expected}")
                    game = runtime.game
                    if game is None or runtime.state.status != "playing":
                        raise Refused("no_game", "no game is being played at this table")
                    if game.current_player != seat:
                        raise Refused("not_your_turn", f"it is not your turn: seat {game.current_player} is to play")
                    trial = game.clone()
                    try:
                        trial.apply(action, seat)
                    except LuzError as error:
                        raise Refused(
                            "illegal" if "Illegal" in type(error).__name__ else "malformed", str(error)
                        ) from None
                    over = trial.phase is Phase.GAME_OVER
                    results = (
                        results_of(trial, runtime.state, runtime.names(), self._bot_seats(runtime)) if over else None
                    )
                    clock = clocks.after_move(runtime.state, seat, timeout)
                    try:
                        version = await self._stored(
                            self.store.append_action,
                            runtime.state.id,
                            runtime.state.version,
                            seat,
                            str(action),
                            over,
                            results,
                            clock,
                        )
                    except StaleVersion:
                        caught_up += await self.refresh(runtime)
                        continue
                    runtime.game = trial
                    runtime.state.actions.append(str(action))
                    runtime.state.version = version
                    runtime.state.clock = clock
                    if trial.phase is Phase.GAME_OVER:
                        runtime.state.status = "over"
                    break
                else:
                    raise Refused("busy", "the table is busy: try again")
        except Refused:
            await self.deliver(runtime, *caught_up)
            raise
        await self.changed(runtime, *caught_up, change=Change(runtime.state.game_no, str(action), clock))
        return version

    async def _stored(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)``, a call of the store: on SQLite at once in this thread (where the server runs SQLite's
        calls anyway: app.InlineExecutor), without ``to_thread``'s futures and loop wake-up, a tenth of an action's
        CPU; else in a worker thread."""
        if self._store_inline:
            return call(*args)
        return await asyncio.to_thread(call, *args)

    @staticmethod
    def _bot_seats(runtime: TableRuntime) -> set[int]:
        return {s.seat for s in runtime.state.seats if s.kind == "bot"} | runtime.taken_over

    @staticmethod
    def _may_act(runtime: TableRuntime, seat: int, expected: int | None) -> bool:
        game = runtime.game
        fresh = expected is None or expected == runtime.state.version
        return fresh and game is not None and runtime.state.status == "playing" and game.current_player == seat

    async def changed(self, runtime: TableRuntime, *before: Outbox, change: Change | None = None) -> None:
        """Tell everyone about the change just made (after the ``before`` outboxes, if any): this process's
        connections and the other processes (``change``: the action stored, if that is what it was)."""
        outbox = self.outbox(runtime)  # now, before anything else changes the table: every version is sent
        if self.broker.shared:
            await asyncio.gather(
                self.broker.publish(runtime.state.id, runtime.state.version, change),
                self.deliver(runtime, *before, outbox),
            )
        else:  # nobody to tell elsewhere: no task for it
            await self.deliver(runtime, *before, outbox)
        self.schedule_bots(runtime)

    async def start_if_ready(self, runtime: TableRuntime, next_game: bool = False, seed: int | None = None) -> None:
        """Start the first game once every seat is taken, or the next one when asked after a game (with ``seed``
        when given: the tutorial's prepared deal; else a random one)."""
        state = runtime.state
        ready = state.status == "waiting" and all(s.joined for s in state.seats)
        if not (ready or (next_game and state.status == "over")):
            return
        caught_up: list[Outbox] | None = None
        async with runtime.lock:
            try:
                runtime.state = await asyncio.to_thread(
                    self.store.start_game, state.id, state.version, secrets.randbits(62) if seed is None else seed
                )
            except StaleVersion:
                caught_up = await self.refresh(runtime)
            else:
                runtime.game = build_game(runtime.state)
        if caught_up is not None:
            await self.deliver(runtime, *caught_up)
            return
        self.await_players(runtime)  # a player who joined but is not connected must not hold the game up
        await self.changed(runtime)

    # -- bots --------------------------------------------------------------------------------------------

    def bot_tables_of(self, creator: str) -> int:
        """Tables of bots only that ``creator`` has playing (or about to) on this process."""
        return sum(
            1
            for runtime in self.tables.values()
            if runtime.creator == creator
            and runtime.state.status != "over"
            and all(seat.kind == "bot" for seat in runtime.state.seats)
        )

    def bot_for(self, runtime: TableRuntime, seat: int) -> str | None:
        """The bot that plays ``seat`` now, if any (within this server's caps, whatever the table stored)."""
        spec = runtime.state.seats[seat]
        if spec.kind == "bot":
            return within_caps(spec.bot or "heuristic", self.settings)
        return "heuristic" if seat in runtime.taken_over else None

    def schedule_bots(self, runtime: TableRuntime, delay: float = 0.0) -> None:
        self.clocks.arm(runtime)  # after every change: the deadline of the turn, if the table is timed
        game = runtime.game
        if game is None or runtime.state.status != "playing" or game.current_player is None:
            return
        bot = self.bot_for(runtime, game.current_player)
        if bot is not None:
            task = asyncio.create_task(self._bot_move(runtime, game.current_player, bot, runtime.state.version, delay))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _bot_move(self, runtime: TableRuntime, seat: int, bot: str, version: int, delay: float) -> None:
        """Play ``bot``'s move at its release time from now: how long a bot thinks depends on what its seat sees,
        the other players' hidden cards included, so the time its move reaches them must not."""
        if delay:
            await asyncio.sleep(delay)
        game = runtime.game
        if game is None or runtime.state.version != version or game.current_player != seat:
            return
        loop = asyncio.get_running_loop()
        release = loop.time() + release_time(bot, self.settings)
        seed = f"{runtime.state.id}:{runtime.state.game_no}:{version}"
        seen = view(game, seat)
        action = await self._think(runtime, bot, seen, seed, release)
        await asyncio.sleep(max(0.0, release - loop.time()))
        with contextlib.suppress(Refused):
            await self.act(runtime, seat, action, expected=version)

    async def _think(self, runtime: TableRuntime, bot: str, seen: Any, seed: str, release: float) -> Action:
        """``bot``'s move if a bot process has it by ``release``, else the quick fallback bot's. A quick bot moves
        here (a millisecond): no table's quick bots wait for the bot processes."""
        if self.bots is None or is_quick(bot):
            return choose_for(bot, seen, seed)
        loop = asyncio.get_running_loop()
        if runtime.thinking is not None and not runtime.thinking.done():
            # Its bot still thinks about an earlier move: a table never holds more than one bot process.
            return choose_for(FALLBACK_BOT, seen, seed)
        for attempt in range(2):
            share = runtime.creator or runtime.state.id
            runtime.thinking = thinking = self.bots.submit(share, choose_for, bot, seen, seed)
            try:
                action: Action = await asyncio.wait_for(asyncio.wrap_future(thinking), release - loop.time())
                return action
            except TimeoutError:  # a waiting move is withdrawn (no process time spent on it); a running one ends
                thinking.cancel()
                log.warning(
                    "bot %s went over its time at table %s: %s moves for it", bot, runtime.state.id, FALLBACK_BOT
                )
                break
            except BrokenProcessPool:
                log.error("bot process died during a move at table %s (attempt %d)", runtime.state.id, attempt + 1)
                self.bots.recover()
        return choose_for(FALLBACK_BOT, seen, seed)

    # -- connections -------------------------------------------------------------------------------------

    def attach(self, runtime: TableRuntime, seat: int | None, connection: Connection) -> tuple[bool, list[Connection]]:
        """Add a connection of ``seat`` (``None``: a spectator). Returns whether the seat has just become connected
        (the others are told: a presence change costs one message per connection of the table, never more) and the
        connections to close: a seat's oldest beyond ``max_connections_per_seat``. :class:`Refused` (``full``)
        for a spectator beyond ``max_spectators_per_table``."""
        runtime.opened[connection] = next(self._opened)
        if seat is None:
            if len(runtime.spectators) >= self.settings.max_spectators_per_table:
                del runtime.opened[connection]
                raise Refused("full", "this table has as many spectators as it takes")
            runtime.spectators.add(connection)
            return False, []
        arrived = not runtime.connected(seat)
        connections = runtime.seats.setdefault(seat, set())
        connections.add(connection)
        evicted = sorted(connections, key=runtime.opened.__getitem__)[: -self.settings.max_connections_per_seat]
        connections.difference_update(evicted)
        timer = runtime.away.pop(seat, None)
        if timer:
            timer.cancel()
        arrived |= seat in runtime.taken_over
        runtime.taken_over.discard(seat)
        if self.broker.shared:  # the other processes stop counting down (or playing) for this seat
            self._spawn(self.broker.presence(runtime.state.id, seat, "here"))
        return arrived, evicted

    def detach(self, runtime: TableRuntime, seat: int | None, connection: Connection) -> bool:
        """Remove a connection; whether its seat is no longer connected (the others are to be told)."""
        runtime.opened.pop(connection, None)
        if seat is None:
            runtime.spectators.discard(connection)
            return False
        connections = runtime.seats.get(seat, set())
        if connection not in connections:
            return False  # already removed (a dropped send, an evicted connection)
        connections.discard(connection)
        if runtime.connected(seat):
            return False
        if runtime.state.seats[seat].kind != "human" or seat in runtime.away:
            return True  # a bot seat, or already counting down (a second detach)
        loop = asyncio.get_running_loop()
        runtime.away[seat] = loop.call_later(runtime.state.grace_seconds, self._take_over, runtime, seat)
        return True

    def _take_over(self, runtime: TableRuntime, seat: int) -> None:
        runtime.away.pop(seat, None)
        if runtime.connected(seat):
            return
        if self.broker.shared:  # the player may be connected to another process: ask first
            self._spawn(self._take_over_unless_elsewhere(runtime, seat))
            return
        self._bot_takes(runtime, seat)

    async def _take_over_unless_elsewhere(self, runtime: TableRuntime, seat: int) -> None:
        asked = asyncio.get_running_loop().time()
        await self.broker.presence(runtime.state.id, seat, "who")
        await asyncio.sleep(PRESENCE_WAIT)
        if runtime.connected(seat) or seat in runtime.away or runtime.elsewhere.get(seat, float("-inf")) >= asked:
            return  # back here, counting down again, or connected to another process (which counts down for it)
        self._bot_takes(runtime, seat)

    def _bot_takes(self, runtime: TableRuntime, seat: int) -> None:
        runtime.taken_over.add(seat)
        if self.broker.shared:  # the other processes show it, and count the seat abandoned if the game ends so
            self._spawn(self.broker.presence(runtime.state.id, seat, "away"))
        self._spawn(self.broadcast(runtime))
        self.schedule_bots(runtime)

    async def on_presence(self, table_id: str, seat: int, kind: str) -> None:
        """Another process has a connection of ``seat`` (``here``), asks whether any process has (``who``), or has
        a bot playing it (``away``)."""
        runtime = self.tables.get(table_id)
        if runtime is None or not 0 <= seat < len(runtime.state.seats):
            return
        if kind == "who":
            if runtime.connected(seat):
                await self.broker.presence(table_id, seat, "here")
            return
        if kind == "away":  # another process's bot plays the seat (its player is gone): here too, unless the
            # player is back here or was just said to be back elsewhere (a "here" that crossed this message)
            now = asyncio.get_running_loop().time()
            back = runtime.connected(seat) or now - runtime.elsewhere.get(seat, float("-inf")) < 2 * PRESENCE_WAIT
            if not back and seat not in runtime.taken_over:
                runtime.taken_over.add(seat)
                await self.broadcast(runtime)
            return
        if kind != "here":
            return
        runtime.elsewhere[seat] = asyncio.get_running_loop().time()
        timer = runtime.away.pop(seat, None)
        if timer:
            timer.cancel()
        if seat in runtime.taken_over:  # the player is back, on another process: this one's bot stops
            runtime.taken_over.discard(seat)
            await self.broadcast(runtime)

    def _spawn(self, work: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:  # e.g. Redis unreachable: logged, the connection itself carries on
                log.exception("background work failed")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def message(self, runtime: TableRuntime, seat: int | None, table: dict[str, Any] | None = None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) is sent after each change: the table and its own view."""
        return {
            "type": "state",
            "version": runtime.state.version,
            "seat": seat,
            "table": table or self.table_message(runtime),
            "view": self.view_json(runtime, seat),
        }

    @staticmethod
    def view_json(runtime: TableRuntime, seat: int | None) -> dict[str, Any] | None:
        """``seat``'s view of the table's game as JSON data, from parts built once per version for every seat (the
        version changes with every change of the game: an action, a new game, a catch-up)."""
        if runtime.game is None:
            return None
        if runtime.views is None or runtime.views_version != runtime.state.version:
            runtime.views, runtime.views_version = ViewsJson(runtime.game, runtime.views), runtime.state.version
        if runtime.state.hints:
            from luz.engine.beliefs import json_with_hints  # the beliefs add the hints: see luz.engine.beliefs

            return json_with_hints(runtime.views, seat)
        return runtime.views.of(seat)

    def table_message(self, runtime: TableRuntime) -> dict[str, Any]:
        table = runtime.state.summary()
        for entry in table["seats"]:
            entry["connected"] = runtime.connected(entry["seat"])
            entry["bot_playing"] = entry["seat"] in runtime.taken_over
        table["clock"] = clocks.public(runtime)
        return table

    def replay_message(self, runtime: TableRuntime) -> dict[str, Any] | None:
        """The finished game's full record (every hand), for spectators once it is over."""
        game = runtime.game
        if game is None or game.phase is not Phase.GAME_OVER:
            return None
        return {"type": "replay", "version": runtime.state.version, "record": to_record(game, runtime.names())}

    def outbox(self, runtime: TableRuntime) -> Outbox:
        """Every connection of this process with its own message about the table as it is now (each view and
        the table computed once)."""
        out: Outbox = []
        table = self.table_message(runtime)
        for seat, connections in runtime.seats.items():
            if connections:
                text = dumps(self.message(runtime, seat, table))
                out += [(seat, c, text) for c in list(connections)]
        if runtime.spectators:
            texts = [dumps(self.message(runtime, None, table))]
            replay = self.replay_message(runtime)
            if replay is not None:
                texts.append(dumps(replay))
            out += [(None, c, text) for c in list(runtime.spectators) for text in texts]
        notice = self.clocks.notice(runtime)  # a move the timeout bot played: told once, after its state
        if notice is not None:
            text = dumps(notice)
            out += [(seat, c, text) for seat, connections in runtime.seats.items() for c in list(connections)]
            out += [(None, c, text) for c in list(runtime.spectators)]
        return out

    async def deliver(self, runtime: TableRuntime, *outboxes: Outbox) -> None:
        """Send outboxes, in order on each connection (the sends start in order, before any await). A send not done
        within ``SEND_SECONDS`` drops its connection; one timer for them all (a timer per send was a tenth of the
        fan-out's CPU)."""
        sends = [asyncio.ensure_future(self._send(runtime, seat, c, text)) for out in outboxes for seat, c, text in out]
        if sends:
            _, late = await asyncio.wait(sends, timeout=SEND_SECONDS)
            for send in late:
                send.cancel()
            if late:
                await asyncio.wait(late)  # each dropped (detached) on its cancellation

    async def broadcast(self, runtime: TableRuntime) -> None:
        """Send every connection of this process its own message about the table."""
        await self.deliver(runtime, self.outbox(runtime))

    async def _send(self, runtime: TableRuntime, seat: int | None, connection: Connection, text: str) -> None:
        try:
            await connection.send_text(text)
        except (Exception, asyncio.CancelledError):  # a dead or stuck connection is dropped; it can reconnect, resync
            self.detach(runtime, seat, connection)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
