"""Vacations: an account takes days off from its turn-based games, a yearly allowance (``Settings.
vacation_days_per_year``, a calendar year; guests none). Meanwhile the clock of each of its turn-based games is
paused (a ``PauseClock`` through the table's door: its deadline frozen, its time left kept) and the others see until
when; when it ends, early or at its date (this process's timer, armed again at every start), each clock runs again
with the time it had (``ResumeClock``). Live tables are untouched.

What is stored, on the player's row: until when the current vacation lasts, and the days taken in the year.
"""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from .clock import Clock, Timer
from .db import PlayerRow
from .settings import Settings
from .tables import Registry
from .tables.commands import PauseClock, ResumeClock
from .tables.tasks import Tasks
from .timecontrol import DAY_MS


class VacationRefused(Exception):
    """A vacation the account may not take (``code``: machine-readable; ``status``: the HTTP status)."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def year_of(at_ms: int) -> int:
    return datetime.fromtimestamp(at_ms / 1000, UTC).year


class Vacations:
    """The players' vacations: taken, ended (early or at their date), and each turn-based table's clock told."""

    def __init__(self, engine: Engine, registry: Registry, settings: Settings, clock: Clock) -> None:
        self.engine = engine
        self.registry = registry
        self.allowance = settings.vacation_days_per_year
        self.clock = clock
        self.tasks = Tasks()
        self.timers: dict[str, Timer] = {}
        """Each vacation's end, as this process rings it (by player)."""

    def state(self, player_id: str, guest: bool) -> dict[str, Any]:
        """``GET /api/me/vacation``: the allowance, the days left this year and the current vacation's end."""
        now = self.clock.now_ms()
        with Session(self.engine) as session:
            row = session.get(PlayerRow, player_id)
            until = row.vacation_until if row is not None else None
            taken = row.vacation_days if row is not None and row.vacation_year == year_of(now) else 0
        allowance = 0 if guest else self.allowance
        return {
            "allowance_days": allowance,
            "days_left": max(0, allowance - taken),
            "year": year_of(now),
            "until": until if until is not None and until > now else None,
        }

    async def start(self, player_id: str, guest: bool, days: int | None, until: int | None) -> dict[str, Any]:
        """Begin a vacation of ``days`` days, or until ``until`` (epoch ms; whole days counted, a started one
        whole), and pause the clocks of the player's turn-based games. :class:`VacationRefused` for a guest, a
        vacation already going on, or more days than are left this year."""
        if guest:
            raise VacationRefused("account_required", "vacations are for accounts: sign in or register", 403)
        now = self.clock.now_ms()
        if days is None:
            assert until is not None
            days = math.ceil((until - now) / DAY_MS)
            if days < 1:
                raise VacationRefused("vacation_date", "the vacation's end must be in the future", 422)
        else:
            until = now + days * DAY_MS
        ends = until
        await asyncio.to_thread(self._take, player_id, days, ends, now)
        await self._tell_tables(player_id, lambda seat: PauseClock(seat, ends))
        self._arm(player_id, ends)
        return await asyncio.to_thread(self.state, player_id, guest)

    def _take(self, player_id: str, days: int, until: int, now: int) -> None:
        year = year_of(now)
        with Session(self.engine) as session, session.begin():
            row = session.get(PlayerRow, player_id, with_for_update=True)
            if row is None:
                raise VacationRefused("account_required", "no such player", 403)
            if row.vacation_until is not None and row.vacation_until > now:
                raise VacationRefused("on_vacation", "you are already on vacation: end it first")
            taken = row.vacation_days if row.vacation_year == year else 0
            if taken + days > self.allowance:
                raise VacationRefused(
                    "vacation_allowance",
                    f"{days} days asked, {max(0, self.allowance - taken)} left of this year's {self.allowance}",
                )
            row.vacation_until, row.vacation_year, row.vacation_days = until, year, taken + days

    async def end(self, player_id: str, guest: bool = False) -> dict[str, Any]:
        """End the player's vacation now (the whole days not begun are given back) and resume their clocks."""
        await asyncio.to_thread(self._give_back, player_id, self.clock.now_ms())
        await self._back(player_id)
        return await asyncio.to_thread(self.state, player_id, guest)

    def _give_back(self, player_id: str, now: int) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(PlayerRow, player_id, with_for_update=True)
            if row is None or row.vacation_until is None:
                return
            unused = max(0, (row.vacation_until - now) // DAY_MS)
            if row.vacation_year == year_of(now):
                row.vacation_days = max(0, row.vacation_days - unused)
            row.vacation_until = None

    async def _back(self, player_id: str) -> None:
        timer = self.timers.pop(player_id, None)
        if timer is not None:
            timer.cancel()
        await self._tell_tables(player_id, ResumeClock)

    async def _ended(self, player_id: str, until: int) -> None:
        """The vacation's date came (on this process's clock): over, whichever process stores it first."""
        self.timers.pop(player_id, None)

        def over() -> None:
            with Session(self.engine) as session, session.begin():
                session.execute(
                    update(PlayerRow)
                    .where(PlayerRow.id == player_id, PlayerRow.vacation_until == until)
                    .values(vacation_until=None)
                )

        await asyncio.to_thread(over)
        await self._back(player_id)

    async def _tell_tables(self, player_id: str, command: Any) -> None:
        """Hand ``command(seat)`` to each turn-based table with a game in progress where the player sits."""
        for table_id in await asyncio.to_thread(self.registry.store.turn_based_playing, player_id):
            table = await self.registry.get(table_id)
            seat = next((s.seat for s in table.state.seats if s.player == player_id), None) if table else None
            if table is not None and seat is not None:
                await self.registry.submit(table, command(seat))

    def _arm(self, player_id: str, until: int) -> None:
        old = self.timers.pop(player_id, None)
        if old is not None:
            old.cancel()
        wait = max(0.0, (until - self.clock.now_ms()) / 1000)
        self.timers[player_id] = self.clock.call_later(wait, lambda: self.tasks.spawn(self._ended(player_id, until)))

    async def start_timers(self) -> None:
        """At a start: ring the end of every vacation going on (one already past ends at once)."""

        def going_on() -> list[tuple[str, int]]:
            with Session(self.engine) as session:
                rows = session.execute(
                    select(PlayerRow.id, PlayerRow.vacation_until).where(PlayerRow.vacation_until.is_not(None))
                )
                return [(player, until) for player, until in rows if until is not None]

        for player_id, until in await asyncio.to_thread(going_on):
            self._arm(player_id, until)

    async def close(self) -> None:
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()
        await self.tasks.close()
