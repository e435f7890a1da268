"""A tournament's rounds on the live tables (docs/TOURNAMENTS.md): a round formed by the pure rules
(tournament.py), its tables created and each seat taken (``Join``) and each game started on the round's one secret
seed (``Start(seed)``), all through the door; the next round formed once every table of the last one is over."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime

from luz.engine import get_edition

from ..clock import Clock
from ..tournament import meetings, pair, seats_held, standings
from ..tournaments import PLAYING, Tournaments
from .commands import Join, Start
from .model import QUICK_BOT
from .registry import Registry
from .table import Table
from .tasks import Tasks

log = logging.getLogger("luz.server")

SWEEP_SECONDS = 5.0
"""Seconds between two looks at the tournaments due to start or whose round ended on another process."""

TABLES_AT_ONCE = 8
"""Tables of a round created, seated and started at the same time (each one's commands in order)."""

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
                return
            last = row.round_no >= row.rounds
            if await asyncio.to_thread(self.tournaments.end_round, tournament_id, row.round_no, last) and not last:
                await self.form(tournament_id, row.round_no + 1)

    async def form(self, tournament_id: str, round_no: int) -> None:
        """Form round ``round_no`` from the standings, create its tables, seat its players and start every table
        on the round's seed."""
        row = await asyncio.to_thread(self.tournaments.row, tournament_id)
        assert row is not None
        players = await asyncio.to_thread(self.tournaments.players, tournament_id)
        played = list((await asyncio.to_thread(self.tournaments.entries, tournament_id)).values())
        names = dict(players)
        order = [line.player for line in standings([p for p, _ in players], played)]
        seating = pair(order, row.size, meetings(played), seats_held(played))
        seed = secrets.randbits(62)
        if not await asyncio.to_thread(self.tournaments.claim_round, tournament_id, round_no, seed):
            return
        options = get_edition(row.edition).options(row.size).to_json()
        told: list[tuple[str, str, str]] = []
        limit = asyncio.Semaphore(TABLES_AT_ONCE)

        async def seat(table_no: int, seats: list[str | None]) -> Table:
            """One table created and its players seated (a ``Join`` each, through the door)."""
            async with limit:
                table_id, tokens = await asyncio.to_thread(
                    self.registry.store.create_table,
                    name=f"{row.name[:60]} · {round_no}.{table_no + 1}",
                    edition=row.edition,
                    players=row.size,
                    options=options,
                    public=False,
                    grace_seconds=30.0,
                    rated=row.rated,
                    time_control=row.time_control,
                    seats=[
                        {"kind": "human", "bot": None} if player is not None else {"kind": "bot", "bot": QUICK_BOT}
                        for player in seats
                    ],
                )
                await asyncio.to_thread(self.tournaments.add_table, tournament_id, round_no, table_no, table_id)
                table = await self.registry.get(table_id)
                assert table is not None
                for number, player in enumerate(seats):
                    if player is not None:
                        await self.registry.submit(table, Join(number, names[player], tokens[number], player))
                        told.append((player, table_id, table.state.name))
                return table

        tables = await asyncio.gather(*(seat(n, seats) for n, seats in enumerate(seating)))

        async def start(table: Table) -> None:
            async with limit:
                await self.registry.submit(table, Start(seed=seed))

        await asyncio.gather(*(start(table) for table in tables))  # every table seated first, then all start
        self.told(told)
