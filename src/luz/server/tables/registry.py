"""The registry of this process's live tables: loads a table on first use, resumes the games in progress after a
start, and dispatches each change to its collaborators (the writer, the fan-out, presence, bots, clocks, the
broker). It holds no rule of its own: each handler is a few lines that delegate and tell whom it concerns."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

from luz.engine import Action

from ..settings import Settings
from ..store import SeatKind, Status, Store, build_game
from .botmoves import BotMoves
from .botpool import BotPool
from .broker import Broker
from .clocks import Clocks, public
from .fanout import Fanout
from .model import Change, Outbox, Refused
from .presence import Presence
from .table import Table, Writer

log = logging.getLogger("luz.server")


class Registry:
    """All live tables of this process, and what acts on them."""

    def __init__(self, store: Store, broker: Broker, pool: BotPool | None, settings: Settings) -> None:
        self.store = store
        self.broker = broker
        self.settings = settings
        self.live: dict[str, Table] = {}
        self._load_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.clocks = Clocks(self)
        self.presence = Presence(self, broker, settings)
        self.fanout = Fanout(public, self.clocks.notice, self.presence.detach)
        self.writer = Writer(store, broker.shared, self.fanout.outbox, self.clocks.arm)
        self.bots = BotMoves(self, pool, settings)

    # -- loading -----------------------------------------------------------------------------------------

    async def get(self, table_id: str) -> Table | None:
        """The live table ``table_id``, loaded from the database on first use."""
        table = self.live.get(table_id)
        if table is not None:
            return table
        if "\x00" in table_id:  # no table's id; PostgreSQL refuses it in a query
            return None
        async with self._load_lock:
            if table_id not in self.live:
                state = await asyncio.to_thread(self.store.load, table_id)
                if state is None:
                    return None
                self.live[table_id] = Table(state, build_game(state))
                self.clocks.arm(self.live[table_id])  # its turn's deadline, also when another process dies
            return self.live[table_id]

    async def resume(self) -> None:
        """After a start or restart: load every table with a game in progress and let its bots play on."""
        for table_id in await asyncio.to_thread(self.store.live_tables):
            table = await self.get(table_id)
            if table is not None:
                self.presence.await_players(table)  # nobody is connected yet
                self.schedule_bots(table)

    # -- other processes ---------------------------------------------------------------------------------

    async def on_event(self, table_id: str, version: int, change: Change | None = None) -> None:
        """Another process changed a table: catch up and tell this process's connections."""
        table = self.live.get(table_id)
        if table is None or version <= table.state.version:
            return
        async with table.lock:
            if version <= table.state.version:
                return  # an earlier event's catch-up got this far (and sent it)
            if change is not None and version == table.state.version + 1 and self.writer.follow(table, change):
                outboxes = [self.fanout.outbox(table)]
            else:
                outboxes = await self.writer.catch_up(table)
        await self.fanout.deliver(table, *outboxes)
        self.schedule_bots(table, delay=0.2)

    async def on_presence(self, table_id: str, seat: int, kind: str) -> None:
        """Another process's word about a seat of a table (presence.py)."""
        table = self.live.get(table_id)
        if table is not None:
            await self.presence.on_presence(table, seat, kind)

    # -- changes -----------------------------------------------------------------------------------------

    async def act(
        self, table: Table, seat: int, action: Action, expected: int | None = None, timeout: bool = False
    ) -> int:
        """Apply ``seat``'s action (the writer checks and stores it), then tell everyone. Returns the new version.
        ``timeout``: the move is the timeout bot's, its player's time having run out (clocks.py)."""
        caught_up: list[Outbox] = []
        try:
            version, change = await self.writer.act(table, seat, action, expected, timeout, caught_up)
        except Refused:
            await self.fanout.deliver(table, *caught_up)
            raise
        await self.changed(table, *caught_up, change=change)
        return version

    async def changed(self, table: Table, *before: Outbox, change: Change | None = None) -> None:
        """Tell everyone about the change just made (after the ``before`` outboxes, if any): this process's
        connections and the other processes (``change``: the action stored, if that is what it was)."""
        outbox = self.fanout.outbox(table)  # now, before anything else changes the table: every version is sent
        if self.broker.shared:
            await asyncio.gather(
                self.broker.publish(table.id, table.state.version, change),
                self.fanout.deliver(table, *before, outbox),
            )
        else:  # nobody to tell elsewhere: no task for it
            await self.fanout.deliver(table, *before, outbox)
        self.schedule_bots(table)

    async def start_if_ready(self, table: Table, next_game: bool = False, seed: int | None = None) -> None:
        """Start the first game once every seat is taken, or the next one when asked after a game (with ``seed``
        when given: the tutorial's prepared deal; else a random one)."""
        state = table.state
        ready = state.status == Status.WAITING and all(s.joined for s in state.seats)
        if not (ready or (next_game and state.status == Status.OVER)):
            return
        caught_up = await self.writer.start(table, seed)
        if caught_up is not None:
            await self.fanout.deliver(table, *caught_up)
            return
        self.presence.await_players(table)  # a player who joined but is not connected must not hold the game up
        await self.changed(table)

    async def broadcast(self, table: Table) -> None:
        """Send every connection of this process its own message about the table."""
        await self.fanout.broadcast(table)

    def schedule_bots(self, table: Table, delay: float = 0.0) -> None:
        """After every change: arm the turn's deadline if the table is timed, and let a bot to move play."""
        self.clocks.arm(table)
        self.bots.schedule(table, delay)

    def bot_tables_of(self, creator: str) -> int:
        """Tables of bots only that ``creator`` has playing (or about to) on this process."""
        return sum(
            1
            for table in self.live.values()
            if table.creator == creator
            and table.state.status != Status.OVER
            and all(seat.kind == SeatKind.BOT for seat in table.state.seats)
        )

    # -- background work ---------------------------------------------------------------------------------

    def spawn(self, work: Awaitable[Any]) -> None:
        """Run ``work`` in the background; its failure is logged (e.g. Redis unreachable), nothing else stops."""

        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("background work failed")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        self.bots.close()
        for task in list(self._tasks):
            task.cancel()
