"""The registry of this process's live tables: the one door of every change (``submit``: a command, processed by
the writer, then published), ``publish`` (every side effect of a change, in one place), loading a table and
resuming it (every way a table comes into memory: ``resume``), and its background work (the deadlines found in the
database, the tables nobody joined in time expired, idle tables leaving memory, the unused guests pruned:
identity.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from luz.engine import Bid, Game

from ..clock import Clock, RealClock
from ..domain import SeatKind, Status, TableState, build_game, is_turn_based
from ..identity import Players
from ..logs import on_table
from ..metrics import Metrics
from ..settings import Settings
from ..store import Store
from .botmoves import BotMoves
from .botpool import BotPool
from .broker import Broker
from .clocks import Clocks, public
from .commands import ChangeSeatSettings, Command, Detach, Expire, Follow, Outcome, Refresh
from .fanout import Fanout
from .forced import ForcedMoves
from .model import Change, Connection, Refused
from .premoves import Premoves
from .presence import Presence
from .rematch import Rematch
from .table import Table
from .tasks import Tasks
from .watchers import Watchers
from .writer import Writer

log = logging.getLogger("luz.server")

GUEST_PRUNE_SECONDS = 600.0
"""The longest time between two prunings of the unused guests (less where ``Settings.guest_days`` is short)."""


class Registry:
    """All live tables of this process, and what acts on them."""

    def __init__(
        self,
        store: Store,
        broker: Broker,
        pool: BotPool | None,
        settings: Settings,
        metrics: Metrics | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.store = store
        self.broker = broker
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.clock = clock or RealClock()
        self.live: dict[str, Table] = {}
        self.used: dict[str, float] = {}
        """When each live table was last used (event loop time): a table left alone long enough leaves memory
        (kept here, not in the table: only the writer writes a table)."""
        self._loading: dict[str, asyncio.Future[None]] = {}
        """The reads of tables coming into memory, by table id (``_load``)."""
        self.tasks = Tasks()
        self.posted: set[asyncio.Task[None]] = set()
        """The commands handed in in the background (``post``), on their way."""
        self.clocks = Clocks(self, Tasks(), self.clock)
        self.presence = Presence(self, self.tasks, broker, self.clock)
        self.fanout = Fanout(public, self.clocks.notice, self._dropped)
        self.writer = Writer(store, broker.shared, self.fanout.outbox, settings, self.clock)
        self.bots = BotMoves(self, pool, settings)
        self.watchers = Watchers(broker)
        self.rematch = Rematch(self, self.clock)
        self.forced = ForcedMoves(self)
        self.premoves = Premoves(self)
        self.fired = 0
        """Tables found past their deadline in the database and loaded to play it (a count, for the bench)."""
        self.evicted = 0
        """Tables that left memory, idle (a count)."""
        self.pruned = 0
        """Unused guests deleted by this process (a count)."""
        self.game_over: Callable[[str], None] | None = None
        """Told the id of a table whose game this process just ended (a tournament's round may be over)."""

    # -- loading -----------------------------------------------------------------------------------------

    def held(self, table_id: str) -> Table | None:
        """The table ``table_id`` if this process holds it in memory (never loaded for the asking)."""
        return self.live.get(table_id)

    async def get(self, table_id: str) -> Table | None:
        """The live table ``table_id``, loaded from the database on first use."""
        table = self.live.get(table_id)
        if table is None:
            if "\x00" in table_id:  # no table's id; PostgreSQL refuses it in a query
                return None
            table = (await self._load([table_id])).get(table_id)
            if table is None:
                return None
        self.used[table_id] = self.clock.monotonic()
        return table

    async def get_many(self, table_ids: list[str]) -> dict[str, Table]:
        """The live tables of ``table_ids`` found, those not in memory loaded in one read (a tournament round's
        tables), as ``get`` loads one."""
        wanted = [table_id for table_id in dict.fromkeys(table_ids) if "\x00" not in table_id]
        found = {table_id: self.live[table_id] for table_id in wanted if table_id in self.live}
        found.update(await self._load([table_id for table_id in wanted if table_id not in found]))
        now = self.clock.monotonic()
        for table_id in found:
            self.used[table_id] = now
        return found

    async def _load(self, table_ids: list[str]) -> dict[str, Table]:
        """Bring the tables of ``table_ids`` (none in memory) into memory: those not already being read are read
        together by one task of their own, off the event loop; a table asked for while it is being read waits
        for that read (one ``Table`` per table, however many ask at once). The tables found."""
        if not table_ids:
            return {}
        fresh = [table_id for table_id in table_ids if table_id not in self._loading]
        if fresh:
            reading = asyncio.ensure_future(self._read(fresh))
            for table_id in fresh:
                self._loading[table_id] = reading

            def done(_: asyncio.Future[None]) -> None:
                for table_id in fresh:
                    if self._loading.get(table_id) is reading:
                        del self._loading[table_id]

            reading.add_done_callback(done)
        readings = {self._loading[table_id] for table_id in table_ids}
        await asyncio.wait(readings)  # a waiter cancelled leaves the read to the others
        for waited in readings:
            waited.result()  # its error raised here
        return {table_id: self.live[table_id] for table_id in table_ids if table_id in self.live}

    async def _read(self, table_ids: list[str]) -> None:
        """Read the tables of ``table_ids`` and their games (replayed) in a thread, then hold and resume each
        found. Their channels are heard before they are read: no change of them missed (a read that fails or is
        cancelled lets them go)."""
        try:
            for table_id in table_ids:
                await self.broker.hold(table_id)
            found = await asyncio.to_thread(self._built, table_ids)
        except BaseException:
            for table_id in table_ids:
                self.broker.release(table_id)
            raise
        for table_id in table_ids:
            if table_id in found:
                self._hold(*found[table_id])
            else:
                self.broker.release(table_id)

    def _built(self, table_ids: list[str]) -> dict[str, tuple[TableState, Game | None]]:
        """The tables of ``table_ids`` as stored, each with its game rebuilt from its record (in a thread)."""
        states = self.store.load_many(table_ids)
        return {table_id: (state, build_game(state)) for table_id, state in states.items()}

    def _hold(self, state: TableState, game: Game | None) -> None:
        """Keep the table just read in memory and resume it."""
        taken_over = set[int]()
        if is_turn_based(state.time_control) and state.status == Status.PLAYING:
            # A player who left the table: a bot plays their seat (presence never counts down here).
            taken_over = {s.seat for s in state.seats if s.kind == SeatKind.HUMAN and not s.joined}
        table = Table(state, game, clock=self.clock, taken_over=taken_over)
        self.live[state.id] = table
        self.used[state.id] = self.clock.monotonic()  # just used: not idle before its caller has it
        self.clocks.loaded(table)  # its last timeout was told when it was stored
        self.resume(table)  # however it came into memory: its due bot and deadline at once

    def resume(self, table: Table, delay: float = 0.0) -> None:
        """The one place a table's timers and bots are looked at: when it comes into memory (for a request, a
        socket, a deadline or a restart) and after every change. Arms the turn's deadline if the table is timed,
        lets a bot to move play (once per version, however often this is called), arms the rematch offer's end,
        plays a person's forced card at a turn-based table (their setting), plays (or cancels, no longer legal) the
        card a person to move at a live table chose before its turn."""
        self.clocks.arm(table)
        self.bots.schedule(table, delay)
        self.rematch.arm(table)
        self.forced.schedule(table)
        self.premoves.schedule(table)

    async def resume_all(self) -> None:
        """After a start or restart: load every real-time table with a game in progress (``get`` resumes it), its
        absent players' grace periods begun. Turn-based tables stay in the database until needed: opened, or
        found past their deadline by the deadline watch (``start``). Seats left behind by a rename cut short are
        renamed first (``repair_names``)."""
        await self.repair_names()
        for table_id in await asyncio.to_thread(self.store.live_tables):
            table = await self.get(table_id)
            if table is not None:
                self.presence.await_players(table)  # nobody is connected yet

    def start(self) -> None:
        """The background work of a running server: the database's deadlines, idle tables leaving memory, the
        marks of the seats connected here, the unused guests pruned."""
        for loop in (self._watch_deadlines(), self._sweep_idle(), self._renew_seated(), self._prune_guests()):
            self.tasks.spawn(loop)

    async def _watch_deadlines(self) -> None:
        while True:
            try:
                await self.fire_due()
                await self.expire_due()
            except Exception:  # the database unreachable for a moment: look again at the next round
                log.exception("deadline watch failed")
            await asyncio.sleep(self.settings.deadline_scan_seconds)

    async def fire_due(self) -> int:
        """Load the turn-based tables past their deadline and let their clocks and bots act; a table held here
        is resumed too (its timer or bot may never have been set: ``resume`` sets each once). The table's version
        check makes each deadline's move stored once, whichever process stores it. Returns how many were
        loaded."""
        fired = 0
        for table_id in await asyncio.to_thread(self.store.due_tables, self.clock.now_ms()):
            held = self.live.get(table_id)
            if held is not None:
                self.resume(held)
                continue
            if await self.get(table_id) is not None:  # resumed as it loads
                fired += 1
        self.fired += fired
        return fired

    async def expire_due(self) -> int:
        """Expire the tables still waiting for players whose time to wait is up on this registry's clock (each an
        ``Expire`` through the door: stored once, whichever process stores it first). Returns how many expired."""
        expired = 0
        for table_id in await asyncio.to_thread(self.store.expiring, self.clock.now_ms()):
            table = await self.get(table_id)
            if table is not None:
                outcome = await self.submit(table, Expire())
                expired += outcome.tell
        return expired

    def idle(self, table: Table, now: float) -> bool:
        """Whether ``table`` may leave memory: nobody connected, nothing running, not used for a while, and no
        timer of its own to keep (waiting, between games, or turn-based with a person to move: the database's
        deadline brings it back)."""
        state, game = table.state, table.game
        used = self.used.get(table.id, 0.0)
        if now - used < self.settings.idle_table_seconds or table.lock.locked() or self.presence.counting(table):
            return False
        if any(table.seats.values()) or table.spectators or self.bots.busy(table):
            return False
        if state.status != Status.PLAYING:
            return True
        mover = game.current_player if game is not None else None
        return is_turn_based(state.time_control) and mover is not None and mover not in table.bot_seats()

    def evict_idle(self) -> int:
        """Let the idle tables leave memory; how many left."""
        now = self.clock.monotonic()
        leaving = [table for table in self.live.values() if self.idle(table, now)]
        for table in leaving:
            del self.live[table.id]
            self.used.pop(table.id, None)
            self.bots.forget(table)
            self.broker.release(table.id)
            self.clocks.forget(table)
            self.rematch.forget(table)
            self.forced.forget(table)
            self.premoves.forget(table)
            self.presence.forget(table)
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
                before = datetime.fromtimestamp(self.clock.now(), UTC) - unused  # the registry's clock
                self.pruned += await asyncio.to_thread(players.prune_guests, before)
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
        if table is not None and version > table.state.version:
            await self.submit(table, Follow(version, change))

    async def on_presence(self, table_id: str, seat: int, kind: str) -> None:
        """Another process's word about a seat of a table (presence.py)."""
        table = self.live.get(table_id)
        if table is not None:
            await self.presence.on_presence(table, seat, kind)

    def _dropped(self, table: Table, seat: int | None, connection: Connection) -> None:
        """A connection dropped for a failed or late send: detached through the door, its seat shown away if it
        was its last (as when its socket closes: that later detach finds it gone)."""
        self.post(table, Detach(seat, connection))

    # -- the one door ------------------------------------------------------------------------------------

    async def submit(self, table: Table, command: Command) -> Outcome:
        """Process ``command`` at ``table`` (the writer: checked, stored, applied) and publish what it changed.
        :class:`Refused` when the table refuses it (what was caught up on the way is sent first)."""
        on_table(table.id)
        self.used[table.id] = self.clock.monotonic()
        outcome = await self.writer.process(table, command)
        await self.publish(table, outcome)
        if outcome.refused is not None:
            raise outcome.refused
        return outcome

    def post(self, table: Table, command: Command) -> None:
        """Submit ``command`` in the background (a timer's): a refusal is the table having moved on."""

        async def submit() -> None:
            with contextlib.suppress(Refused):
                await self.submit(table, command)

        task = asyncio.create_task(submit())
        self.posted.add(task)
        task.add_done_callback(self.posted.discard)

    async def settled(self) -> None:
        """Return once no command handed in by a timer or a bot is on its way (a test's "nothing written late",
        after it moved a fake clock on)."""
        while running := self.posted | self.bots.running() | self.clocks.tasks.running():
            await asyncio.wait(running)

    async def publish(self, table: Table, outcome: Outcome) -> None:
        """Every side effect of a change, here only: the metrics, the connections closed, the states sent to this
        process's connections and the version told to the others, the grace periods of a game just started, the
        timers and bots (``resume``), the players' "my games" streams, a seat's presence (its grace period, a word
        to the other processes) and the spectators' count."""
        acted = outcome.acted
        if acted is not None:
            bot = self.bots.bot_for(table, acted.seat) is not None
            source = "timeout" if acted.timeout else "bot" if bot else "human"
            self.metrics.action_stored("bid" if isinstance(acted.action, Bid) else "play", source)
            if acted.timeout:
                self.metrics.deadline_fired()
        if outcome.connected is not None and outcome.seat is not None:  # its grace period, told before any await:
            told = self.presence.here if outcome.connected else self.presence.left  # in the writer's order
            told(table, outcome.seat)
        if outcome.spectators is not None:
            self.tasks.spawn(self.broker.spectators(table.id, outcome.spectators))
        for connections, code in ((outcome.revoked, 4401), (outcome.evicted, 4409)):
            for connection in connections:
                with contextlib.suppress(Exception):
                    await connection.close(code=code)  # type: ignore[attr-defined]
        if outcome.started:  # a player who joined but is not connected must not hold the game up
            self.presence.await_players(table)
        if outcome.tell and self.broker.shared:
            await asyncio.gather(
                self.broker.publish(table.id, outcome.version, outcome.event),
                self.fanout.deliver(table, *outcome.send),
            )
        elif outcome.send:  # nobody to tell elsewhere: no task for it
            await self.fanout.deliver(table, *outcome.send)
        if outcome.presence is not None and outcome.seat is not None and self.broker.shared:
            self.tasks.spawn(self.broker.presence(table.id, outcome.seat, outcome.presence))
        if outcome.changed:
            self.resume(table, outcome.bot_delay)
            self._tell_players(table)
        if outcome.acted is not None and table.state.status == Status.OVER and self.game_over is not None:
            self.game_over(table.id)

    async def rename_seats(
        self, player_id: str, name: str, every: bool = False, first: Callable[[Session], object] | None = None
    ) -> None:
        """Show ``player_id``'s name (and guest mark) as it now is at every table where it holds a seat: every
        seat renamed in one transaction (all or none; renaming again to the same name repairs), then each table
        held here read again (``Refresh``) and the other processes told. A name is no move: a move in flight
        stays fresh (``Table.fresh``). ``every``: the guest mark changed; ``first``: the player's own name, stored in
        the same transaction (``Store.rename_player``)."""
        await self._renamed(await asyncio.to_thread(self.store.rename_player, player_id, name, every, first))

    async def repair_names(self) -> int:
        """Give every seat its player's stored name (``Store.repair_names``: a rename cut short before names were
        one transaction), each table held here read again and the other processes told; how many tables."""
        changed = await asyncio.to_thread(self.store.repair_names)
        await self._renamed(changed)
        return len(changed)

    async def _renamed(self, changed: list[tuple[str, int]]) -> None:
        """Tables whose seats were renamed (at ``version``): each held here read again through the door
        (``Refresh``), the others' processes told."""
        for table_id, version in changed:
            table = self.live.get(table_id)
            if table is not None:
                await self.submit(table, Refresh())
            elif self.broker.shared:
                await self.broker.publish(table_id, version)

    async def change_play_settings(self, player_id: str, forced_moves: bool) -> None:
        """``player_id``'s play settings, just stored, taken by each table of theirs held here (a command through
        the door): they apply from the table's next look at its mover, a forced card due now included. A table
        not held here reads them when it loads."""
        for table in list(self.live.values()):
            if any(seat.player == player_id for seat in table.state.seats):
                await self.submit(table, ChangeSeatSettings(player_id, forced_moves))

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
            self.tasks.spawn(self.watchers.changed(players))

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

    async def close(self) -> None:
        """Stop: the reads of tables in flight cancelled (none comes into memory after), the bots and timers
        stopped, the actions queued stored."""
        readings = set(self._loading.values())
        for reading in readings:
            reading.cancel()  # its thread finishes its read; the table is not held
        await asyncio.gather(*readings, return_exceptions=True)  # each outcome retrieved: nothing logged as lost
        self.bots.close()
        await self.tasks.close()  # before the broker closes: no publish left half-done on a closed connection
        await self.clocks.tasks.close()
        for task in list(self.posted):
            task.cancel()
        await asyncio.to_thread(self.writer.appends.close)  # the actions queued stored, its connection given back
