"""The daily deal's service (daily.py's rules, daily_records.py's rows), built with the app: the seeds' secret
(stored once, never sent), each attempt's settlement when it is read and at each midnight of the injected clock:
a finished game's score, marks and bids stored; an attempt not finished when its day ended, abandoned."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import date

from luz.engine import Game

from .. import daily
from ..clock import Clock, Timer
from ..daily_records import PLAYING, Attempt, DailyRecords
from ..domain import build_game
from ..identity import Identity
from ..tables import Registry

log = logging.getLogger("luz.server")


class Daily:
    """The daily deal's service: the seeds' secret, the attempts' settlement (when read, and at each midnight)."""

    def __init__(self, records: DailyRecords, tables: Registry, clock: Clock) -> None:
        self.records = records
        self.tables = tables
        self.clock = clock
        self._secret: bytes | None = None
        self._midnight: Timer | None = None
        self._sweeps: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._secret = await asyncio.to_thread(self.records.secret)
        self._arm()

    def close(self) -> None:
        if self._midnight is not None:
            self._midnight.cancel()
        for task in self._sweeps:
            task.cancel()

    def _arm(self) -> None:
        """Settle each day's unfinished attempts as it ends (the injected clock's midnight)."""
        self._midnight = self.clock.call_later(daily.seconds_left(self.clock.now()), self._rung)

    def _rung(self) -> None:
        task = asyncio.get_running_loop().create_task(self.sweep())
        self._sweeps.add(task)
        task.add_done_callback(self._sweeps.discard)
        self._arm()

    async def sweep(self) -> None:
        """Settle every attempt of an ended day still marked as being played."""
        for attempt in await asyncio.to_thread(self.records.unsettled, self.today().isoformat()):
            try:
                await self.settle(attempt)
            except Exception:  # one attempt's trouble never stops the others'
                log.exception("daily attempt %s (table %s) not settled", attempt.id, attempt.table_id)

    def today(self) -> date:
        return daily.day_of(self.clock.now())

    def seed(self, day: date, edition: str) -> int:
        assert self._secret is not None, "started"
        return daily.seed_of(self._secret, day, edition)

    async def game_of(self, table_id: str) -> Game | None:
        """The first game of a daily table, if it is over."""
        table = await self.tables.get(table_id)
        if table is None or table.state.game_no < 1:
            return None
        game = table.game
        if table.state.game_no > 1:  # its player asked for another game after the daily's
            stored = await asyncio.to_thread(self.tables.store.record_of, table_id, 1)
            game = build_game(replace(table.state, seed=stored[0], actions=stored[1])) if stored else None
        return game if game is not None and game.outcome() is not None else None

    async def settle(self, attempt: Attempt) -> Attempt:
        """An attempt as it stands now: a finished game's score, marks and bids stored; a game a bot finished for
        its player (who left), or a day ended: abandoned."""
        if attempt.status != PLAYING:
            return attempt
        game = await self.game_of(attempt.table_id) if attempt.table_id else None
        if game is not None and await asyncio.to_thread(self.records.left, attempt.table_id or "", daily.SEAT):
            await asyncio.to_thread(self.records.abandon, attempt.id)  # finished by a bot: its player had left
        elif game is not None:
            outcome = game.outcome()
            assert outcome is not None
            results = game.sheet.deals
            marks = [daily.mark(result) for result in results]
            bids = [(result.bids[daily.SEAT], result.safety[daily.SEAT]) for result in results]
            await asyncio.to_thread(self.records.finish, attempt, outcome.totals[daily.SEAT], marks, bids)
        elif attempt.day < self.today().isoformat():
            await asyncio.to_thread(self.records.abandon, attempt.id)
        else:
            return attempt
        settled = await asyncio.to_thread(self.records.attempt, attempt.day, attempt.edition, attempt.player_id)
        assert settled is not None
        return settled

    async def attempt(self, day: date, edition: str, identity: Identity | None) -> Attempt | None:
        if identity is None:
            return None
        stored = await asyncio.to_thread(self.records.attempt, day.isoformat(), edition, identity.player_id)
        return await self.settle(stored) if stored is not None else None
