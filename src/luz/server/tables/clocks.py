"""Clocks at the live tables: every process that has a timed table loaded arms its turn's deadline; when it
passes, the quick bot plays that one move for the mover, stored like any action with the table's version check:
exactly one process stores it (the table's one writer), the others' attempts are refused as stale. Each process
then tells its connections with a ``timeout`` message. The clock's arithmetic is ``timecontrol.py``.
"""

from __future__ import annotations

from typing import Any

from luz.engine import view

from ..clock import Clock, Timer
from ..timecontrol import bank_left, deadline, on_vacation
from .botpool import choose_for
from .commands import Act, Door, SpendBank
from .model import QUICK_BOT
from .table import Table
from .tasks import Tasks

PREPARE = 0.1
"""Seconds before a deadline at which its move is computed: it is stored at the deadline itself, however long the
bot took (that time depends on the hand)."""


def public(table: Table) -> dict[str, Any] | None:
    """The clock as the table is told: each seat's time left now and whose is running, with the server's time
    (a client counts down from when it receives this, whatever its own clock says), and each seat's move the
    timeout bot played for it (``missed``: a move every seat saw played), until that seat moves again."""
    state, game = table.state, table.game
    if state.clock is None:
        return None
    at = table.clock.now_ms()
    mover = game.current_player if game is not None else None
    ends = deadline(state, mover)
    remaining = list(state.clock["reserves"])
    if ends is not None and mover is not None:
        remaining[mover] = max(0, ends - at)
    missed = state.clock.get("missed")
    public = {
        "remaining_ms": remaining,
        "running": mover if ends is not None else None,
        "server_time": at,
        "timeout": state.clock.get("timeout"),
        **({"missed": missed} if missed else {}),
    }
    if "timeouts" in state.clock:  # turn-based: the seats whose last card, their only legal one, was played
        public["forced"] = state.clock.get("forced", [])
        public["banks"] = state.clock.get("banks") or [None] * len(remaining)
        public["vacation"] = state.clock.get("vacation") or [None] * len(remaining)
        if mover is not None and on_vacation(state.clock, mover) and remaining[mover] is not None:
            held = state.clock.get("held")  # paused: the time it will have when its player is back
            remaining[mover] = remaining[mover] + state.clock.get("extended", 0) if held is None else held
    return public


class Clocks:
    """The deadlines of a process's live tables: one timer per table, looked at when it rings."""

    def __init__(self, door: Door, tasks: Tasks, clock: Clock) -> None:
        self.door = door
        self.tasks = tasks
        self.clock = clock
        self.timers: dict[str, tuple[int, Timer]] = {}
        """Each timed table's timer and when it rings (epoch ms): at or before the current turn's deadline."""
        self.announced: dict[str, tuple[int, int]] = {}
        """Each table's last timeout told to this process's connections: (game, when the move was stored)."""

    @staticmethod
    def _due(table: Table) -> tuple[int | None, int | None]:
        """The seat to move and when its move is to be prepared (epoch ms), if its seat is timed."""
        mover = table.game.current_player if table.game is not None else None
        ends = deadline(table.state, mover)
        return (None, None) if ends is None else (mover, ends - int(PREPARE * 1000))

    def arm(self, table: Table) -> None:
        """Make sure a timer rings by the current turn's deadline. A timer already set to ring earlier is kept:
        it looks again when it rings (after most moves nothing is to be done, so a move costs no timer)."""
        if table.state.clock is None:
            return  # untimed (a table never changes): nothing to do
        _, due = self._due(table)
        armed = self.timers.get(table.id)
        if due is None or (armed is not None and armed[0] <= due):
            return
        if armed is not None:
            armed[1].cancel()
        wait = max(0.0, (due - self.clock.now_ms()) / 1000)
        self.timers[table.id] = (due, self.clock.call_later(wait, lambda: self._ring(table)))

    def _ring(self, table: Table) -> None:
        self.timers.pop(table.id, None)
        mover, due = self._due(table)
        if due is None or mover is None:
            return  # the game is over, or a bot's seat is to move
        if due > self.clock.now_ms():  # the turn changed since the timer was set: ring at its deadline
            self.arm(table)
            return
        ends = due + int(PREPARE * 1000)
        clock = table.state.clock
        if clock is not None and bank_left(clock, mover) > 0:  # its time bank first, the timeout once it is spent
            self.tasks.spawn(self._spend_bank(table, mover, table.state.version, ends))
            return
        self.tasks.spawn(self._play_for(table, mover, table.state.version, ends))

    async def _play_for(self, table: Table, seat: int, version: int, ends: int) -> None:
        """The timeout bot's move for ``seat``, stored at the deadline unless the table moved on meanwhile."""
        game = table.game
        if game is None or table.state.version != version or game.current_player != seat:
            return
        seed = f"{table.id}:{table.state.game_no}:{version}:timeout"
        action = choose_for(QUICK_BOT, view(game, seat), seed)
        await self.clock.sleep(max(0.0, (ends - self.clock.now_ms()) / 1000))
        self.door.post(table, Act(seat, action, expected=version, timeout=True))

    async def _spend_bank(self, table: Table, seat: int, version: int, ends: int) -> None:
        await self.clock.sleep(max(0.0, (ends - self.clock.now_ms()) / 1000))
        self.door.post(table, SpendBank(seat, version))

    def notice(self, table: Table) -> dict[str, Any] | None:
        """The ``timeout`` message for the table, once per timed-out move (sent with that move's state)."""
        clock = table.state.clock
        if clock is None or clock.get("timeout") is None:
            return None
        key = (table.state.game_no, clock["since"])  # a state caught up step by step keeps the clock it had
        if self.announced.get(table.id) == key:
            return None
        self.announced[table.id] = key
        seat = clock["timeout"]
        notice: dict[str, Any] = {"type": "timeout", "seat": seat, "version": table.state.version}
        if "timeouts" in clock:  # turn-based: how many in a row, and whether the seat has just passed to a bot
            notice["timeouts"], notice["replaced"] = clock["timeouts"][seat], seat in clock["replaced"]
        return notice

    def forget(self, table: Table) -> None:
        """The table leaves this process's memory: its timer goes (the database's deadline brings it back)."""
        armed = self.timers.pop(table.id, None)
        if armed is not None:
            armed[1].cancel()
        self.announced.pop(table.id, None)

    def loaded(self, table: Table) -> None:
        """A table just loaded from the database: its last timeout was told when it was stored, not again now."""
        clock = table.state.clock
        if clock is not None and clock.get("timeout") is not None:
            self.announced[table.id] = (table.state.game_no, clock["since"])
        self.arm(table)
