"""The registry of this process's live tables: loads a table on first use, resumes the games in progress after a
start, and dispatches each change to its collaborators (the writer, the fan-out, presence, bots, clocks, the
broker). It holds no rule of its own: each handler is a few lines that delegate and tell whom it concerns. Its
background work also prunes the unused guests (identity.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from typing import Any

from luz.engine import Action, Bid

from ..identity import Players
from ..logs import on_table
from ..metrics import Metrics
from ..settings import Settings
from ..store import SeatKind, Status, Store, build_game
from ..timecontrol import is_turn_based, now_ms
from .botmoves import BotMoves
from .botpool import BotPool
from .broker import Broker
from .clocks import Clocks, public
from .fanout import Fanout
from .model import Change, Outbox, Refused
from .presence import Presence
from .rematch import Rematch
from .table import Table, Writer
from .watchers import Watchers

log = logging.getLogger("luz.server")

GUEST_PRUNE_SECONDS = 600.0
"""The longest time between two prunings of the unused guests (less where ``Settings.guest_days`` is short)."""


class Registry:
    """All live tables of this process, and what acts on them."""

    def __init__(
        self, store: Store, broker: Broker, pool: BotPool | None, settings: Settings, metrics: Metrics | None = None
    ) -> None:
        self.store = store
        self.broker = broker
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.live: dict[str, Table] = {}
        self._load_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.clocks = Clocks(self)
        self.presence = Presence(self, broker, settings)
        self.fanout = Fanout(public, self.clocks.notice, self.presence.detach)
        self.writer = Writer(store, broker.shared, self.fanout.outbox, self.clocks.arm)
        self.bots = BotMoves(self, pool, settings)
        self.watchers = Watchers(broker)
        self.rematch = Rematch(self, store, self.writer, settings)
        self.fired = 0
        """Tables found past their deadline in the database and loaded to play it (a count, for the bench)."""
        self.evicted = 0
        """Tables that left memory, idle (a count)."""
        self.pruned = 0
        """Unused guests deleted by this process (a count)."""

    # -- loading -----------------------------------------------------------------------------------------

    async def get(self, table_id: str) -> Table | None:
        """The live table ``table_id``, loaded from the database on first use."""
        table = self.live.get(table_id)
        if table is not None:
            table.touched = asyncio.get_running_loop().time()
            return table
        if "\x00" in table_id:  # no table's id; PostgreSQL refuses it in a query
            return None
        async with self._load_lock:
            if table_id not in self.live:
                await self.broker.hold(table_id)  # its channel heard before it is read: no change of it missed
                state = await asyncio.to_thread(self.store.load, table_id)
                if state is None:
                    self.broker.release(table_id)
                    return None
                table = Table(state, build_game(state))
                if is_turn_based(state.time_control) and state.status == Status.PLAYING:
                    # A player who left the table: a bot plays their seat (presence never counts down here).
                    table.taken_over = {s.seat for s in state.seats if s.kind == SeatKind.HUMAN and not s.joined}
                self.live[table_id] = table
                self.clocks.loaded(table)  # its turn's deadline, also when another process dies
                self.rematch.arm(table)  # its rematch offer's end
            table = self.live[table_id]
            table.touched = asyncio.get_running_loop().time()
            return table

    async def resume(self) -> None:
        """After a start or restart: load every real-time table with a game in progress and let its bots play on.
        Turn-based tables stay in the database until needed: the deadline watch plays those whose time ran out
        while the server was down (``start``)."""
        for table_id in await asyncio.to_thread(self.store.live_tables):
            table = await self.get(table_id)
            if table is not None:
                self.presence.await_players(table)  # nobody is connected yet
                self.schedule_bots(table)

    def start(self) -> None:
        """The background work of a running server: the database's deadlines, idle tables leaving memory, the
        marks of the seats connected here, the unused guests pruned."""
        for loop in (self._watch_deadlines(), self._sweep_idle(), self._renew_seated(), self._prune_guests()):
            self.spawn(loop)

    async def _watch_deadlines(self) -> None:
        while True:
            try:
                await self.fire_due()
            except Exception:  # the database unreachable for a moment: look again at the next round
                log.exception("deadline watch failed")
            await asyncio.sleep(self.settings.deadline_scan_seconds)

    async def fire_due(self) -> int:
        """Load the turn-based tables past their deadline that this process does not hold, and let their clocks
        and bots act (the table's version check makes each deadline's move stored once, whichever process
        stores it). Returns how many were loaded."""
        fired = 0
        for table_id in await asyncio.to_thread(self.store.due_tables, now_ms()):
            if table_id in self.live:
                continue  # held here: its own timer and bots act
            table = await self.get(table_id)
            if table is not None:
                self.schedule_bots(table)
                fired += 1
        self.fired += fired
        return fired

    def idle(self, table: Table, now: float) -> bool:
        """Whether ``table`` may leave memory: nobody connected, nothing running, not used for a while, and no
        timer of its own to keep (waiting, between games, or turn-based with a person to move: the database's
        deadline brings it back)."""
        state, game = table.state, table.game
        if now - table.touched < self.settings.idle_table_seconds or table.lock.locked() or table.away:
            return False
        if any(table.seats.values()) or table.spectators or (table.thinking is not None and not table.thinking.done()):
            return False
        if state.status != Status.PLAYING:
            return True
        mover = game.current_player if game is not None else None
        return is_turn_based(state.time_control) and mover is not None and mover not in table.bot_seats()

    def evict_idle(self) -> int:
        """Let the idle tables leave memory; how many left."""
        now = asyncio.get_running_loop().time()
        leaving = [table for table in self.live.values() if self.idle(table, now)]
        for table in leaving:
            del self.live[table.id]
            self.broker.release(table.id)
            self.clocks.forget(table)
            self.rematch.forget(table)
        self.evicted += len(leaving)
        return len(leaving)

    async def _sweep_idle(self) -> None:
        while True:
            await asyncio.sleep(min(30.0, max(0.05, self.settings.idle_table_seconds / 2)))
            self.evict_idle()

    async def _prune_guests(self) -> None:
        """Delete, a bounded batch a round, the guests nothing used for ``guest_days`` (``Players.prune_guests``)."""
        if self.settings.guest_days <= 0:
            return
        players, unused = Players(self.store.engine), timedelta(days=self.settings.guest_days)
        while True:
            await asyncio.sleep(min(GUEST_PRUNE_SECONDS, max(0.05, unused.total_seconds() / 4)))
            try:
                self.pruned += await asyncio.to_thread(players.prune_guests, datetime.now(UTC) - unused)
            except Exception:  # the database unreachable for a moment: the next round prunes them
                log.exception("guest pruning failed")

    async def _renew_seated(self) -> None:
        """Renew this process's marks of the seats it holds a connection of (other processes' notifiers ask)."""
        if not self.broker.shared:
            return
        while True:
            await asyncio.sleep(self.broker_seated_renewal)
            for table in list(self.live.values()):
                seats = [seat for seat, connections in table.seats.items() if connections]
                if seats:
                    await self.broker.seated(table.id, seats, True)

    broker_seated_renewal = 60.0
    """Seconds between renewals of the seat marks (well within their lifetime, ``RedisBroker.SEATED_SECONDS``)."""

    async def seat_connected(self, table_id: str, seat: int) -> bool:
        """Whether a connection of ``seat`` is open at the table, on this process or another."""
        table = self.live.get(table_id)
        if table is not None and table.connected(seat):
            return True
        return self.broker.shared and await self.broker.is_seated(table_id, seat)

    def on_players(self, players: list[str]) -> None:
        """Another process changed the turn at a table of ``players`` (watchers.py)."""
        self.watchers.wake(players)

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
        on_table(table.id)
        source = "timeout" if timeout else "bot" if self.bots.bot_for(table, seat) is not None else "human"
        caught_up: list[Outbox] = []
        table.touched = asyncio.get_running_loop().time()
        try:
            version, change = await self.writer.act(table, seat, action, expected, timeout, caught_up)
        except Refused:
            await self.fanout.deliver(table, *caught_up)
            raise
        self.metrics.action_stored("bid" if isinstance(action, Bid) else "play", source)
        if timeout:
            self.metrics.deadline_fired()
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
        self._tell_players(table)

    async def rename_seats(self, player_id: str, name: str) -> None:
        """Show ``player_id``'s name (and guest mark) as it now is at every table where it holds a seat: each seat
        stored under its table's lock, the table's version bumped, this process's copy reloaded and sent at once,
        the other processes told (they reload it)."""
        for table_id in await asyncio.to_thread(self.store.tables_of_player, player_id):
            table = self.live.get(table_id)
            if table is None:
                state = await asyncio.to_thread(self.store.rename_seat, table_id, player_id, name)
                if self.broker.shared:
                    await self.broker.publish(table_id, state.version)
                continue
            async with table.lock:
                state = await asyncio.to_thread(self.store.rename_seat, table_id, player_id, name)
                table.reload(state)
            await self.changed(table)

    def _tell_players(self, table: Table) -> None:
        """Wake the "my games" streams of the table's players when whose turn it is changed (a table's status,
        game or seat to move), not at every change."""
        game = table.game
        turn = (table.state.status, table.state.game_no, game.current_player if game is not None else None)
        if turn == table.told:
            return
        table.told = turn
        players = [seat.player for seat in table.state.seats if seat.player is not None]
        if players:
            self.spawn(self.watchers.changed(players))

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
        self.started(table)
        await self.changed(table)

    def started(self, table: Table) -> None:
        """A game has just started at ``table``: a player who joined but is not connected must not hold it up."""
        self.presence.await_players(table)

    async def broadcast(self, table: Table) -> None:
        """Send every connection of this process its own message about the table."""
        await self.fanout.broadcast(table)

    def schedule_bots(self, table: Table, delay: float = 0.0) -> None:
        """After every change: arm the turn's deadline if the table is timed, and let a bot to move play."""
        self.clocks.arm(table)
        self.bots.schedule(table, delay)
        self.rematch.arm(table)

    def bot_tables_of(self, creator: str) -> int:
        """Tables of bots only that ``creator`` has playing (or about to) on this process; a tutorial's table
        counts among them: its bots play on alone once its one human has gone."""
        return sum(
            1
            for table in self.live.values()
            if table.creator == creator
            and table.state.status != Status.OVER
            and (table.state.tutorial or all(seat.kind == SeatKind.BOT for seat in table.state.seats))
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
        await asyncio.to_thread(self.writer.appends.close)  # the actions queued stored, its connection given back
