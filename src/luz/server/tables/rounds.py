"""A tournament's rounds on the live tables (docs/TOURNAMENTS.md): a round formed by the pure rules
(tournament.py), claimed with its tables in one transaction (each human seat reserved for its player), then each
table's players seated and its game started on the round's one secret seed by one ``StartRound`` through the door;
the next round formed once every table of the last one is over."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime

from luz.engine import get_edition

from ..clock import Clock
from ..domain import SeatKind
from ..store import NewTable
from ..tournament import meetings, pair, seats_held, standings
from ..tournaments import PLAYING, Tournaments
from .commands import StartRound
from .model import QUICK_BOT
from .registry import Registry
from .table import Table
from .tasks import Tasks

log = logging.getLogger("luz.server")

SWEEP_SECONDS = 5.0
"""Seconds between two looks at the tournaments due to start or whose round ended on another process."""

TABLES_AT_ONCE = 8
"""Tables of a round started at the same time."""

MIN_PLAYERS = 2
"""Fewer players at the start time: the tournament ends unplayed."""


class Rounds:
    """Starts tournaments and their rounds; each step is claimed in the database, so it happens once."""

    def __init__(
        self,
        registry: Registry,
        tournaments: Tournaments,
        clock: Clock,
        told: Callable[[list[tuple[str, str, str]]], None],
    ) -> None:
        self.registry = registry
        self.tournaments = tournaments
        self.clock = clock
        self.told = told
        """Tell each ``(player, table id, table name)`` that their round started (notifications)."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks = Tasks()

    def start(self) -> None:
        """The sweep of a running server: tournaments due to start, rounds ended elsewhere."""
        self._tasks.spawn(self._sweep_forever())

    def close(self) -> None:
        self._tasks.cancel()

    async def _sweep_forever(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:  # the database unreachable for a moment: look again at the next sweep
                log.exception("tournament sweep failed")
            await self.clock.sleep(SWEEP_SECONDS)

    def game_over(self, table_id: str) -> None:
        """A table's game just ended: its tournament's round may be over."""
        self.registry.tasks.spawn(self._over(table_id))

    async def _over(self, table_id: str) -> None:
        found = await asyncio.to_thread(self.tournaments.round_of_table, table_id)
        if found is not None:
            await self.advance(found[0])

    async def sweep(self) -> None:
        """Start the tournaments due and move on those whose round ended (a start time, a table ended on another
        process)."""
        now = datetime.fromtimestamp(self.clock.now(), UTC)
        due = await asyncio.to_thread(self.tournaments.due, now)
        playing = await asyncio.to_thread(self.tournaments.playing)
        for tournament_id in [*due, *playing]:
            await self.advance(tournament_id)

    async def advance(self, tournament_id: str) -> None:
        """Move the tournament on as far as it may go now: start it when due, end its round when every table is
        over, form the next round."""
        lock = self._locks.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            row = await asyncio.to_thread(self.tournaments.row, tournament_id)
            if row is None:
                return
            if row.round_no == 0:
                now = datetime.fromtimestamp(self.clock.now(), UTC)
                if tournament_id not in await asyncio.to_thread(self.tournaments.due, now):
                    return
                players = await asyncio.to_thread(self.tournaments.players, tournament_id)
                if len(players) < MIN_PLAYERS:
                    await asyncio.to_thread(self.tournaments.end, tournament_id)
                    return
                await self.form(tournament_id, 1)
                return
            if row.status != PLAYING:
                return
            if not await asyncio.to_thread(self.tournaments.round_finished, tournament_id, row.round_no):
                await self.start_tables(tournament_id, row.round_no)  # a round left part-started by a crash
                return
            last = row.round_no >= row.rounds
            if await asyncio.to_thread(self.tournaments.end_round, tournament_id, row.round_no, last) and not last:
                await self.form(tournament_id, row.round_no + 1)

    async def form(self, tournament_id: str, round_no: int) -> None:
        """Form round ``round_no`` from the standings: claim it and create its tables, each seat reserved for its
        player, in one transaction; then start them (``start_tables``)."""
        row = await asyncio.to_thread(self.tournaments.row, tournament_id)
        assert row is not None
        players = await asyncio.to_thread(self.tournaments.players, tournament_id)
        played = list((await asyncio.to_thread(self.tournaments.entries, tournament_id)).values())
        names = dict(players)
        order = [line.player for line in standings([p for p, _ in players], played)]
        seating = pair(order, row.size, meetings(played), seats_held(played))
        options = get_edition(row.edition).options(row.size).to_json()
        tables = [
            NewTable(
                tournament=tournament_id,
                name=f"{row.name[:60]} · {round_no}.{table_no + 1}",
                edition=row.edition,
                players=row.size,
                options=options,
                public=False,
                grace_seconds=30.0,
                rated=row.rated,
                time_control=row.time_control,
                seats=[
                    {"kind": SeatKind.HUMAN, "player": player, "name": names[player]}
                    if player is not None
                    else {"kind": SeatKind.BOT, "bot": QUICK_BOT}
                    for player in seats
                ],
            )
            for table_no, seats in enumerate(seating)
        ]
        seed = secrets.randbits(62)
        if await asyncio.to_thread(self.tournaments.claim_round, tournament_id, round_no, seed, tables):
            await self.start_tables(tournament_id, round_no)

    async def start_tables(self, tournament_id: str, round_no: int) -> None:
        """Start every table of the round still waiting, a ``StartRound`` each through the door (its players seated
        and its game started on the round's seed, one transaction); tell the players of the tables started here.
        Idempotent: after a crash while a round was being started, the next look at the tournament finishes it."""
        seed, waiting = await asyncio.to_thread(self.tournaments.waiting, tournament_id, round_no)
        told: list[tuple[str, str, str]] = []
        limit = asyncio.Semaphore(TABLES_AT_ONCE)

        async def start(table: Table) -> None:
            async with limit:
                if (await self.registry.submit(table, StartRound(seed))).started:
                    state = table.state
                    told.extend((seat.player, table.id, state.name) for seat in state.seats if seat.player is not None)

        tables = await self.registry.get_many(waiting)
        await asyncio.gather(*(start(table) for table in tables.values()))
        if told:
            self.told(told)
