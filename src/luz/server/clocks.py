"""Clocks: a table's time control, a reserve per player plus an increment per move, kept by the server.

What is stored, on the table's row and in the transaction of each action (``tables.time_control``,
``tables.clock``): the reserve each human seat has left, and when the current turn began; the mover's deadline is
that start plus the mover's reserve. Every process that has the table loaded arms the deadline; when it passes, the
quick ``heuristic`` bot plays that one move for the mover, stored like any action with the table's version check:
exactly one process stores it (the table's one writer), the others' attempts are refused as stale. Each process
then tells its connections with a ``timeout`` message. Everything here is public: it depends on when actions were
stored, never on a card.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from luz.engine import view

from .bots import choose_for

if TYPE_CHECKING:
    from .runtime import Manager, TableRuntime
    from .store import TableState

TIMEOUT_BOT = "heuristic"
"""The bot that plays a move for a player whose time ran out."""
PRESETS: dict[str, tuple[int, int]] = {"1+5": (1, 5), "3+10": (3, 10), "5+15": (5, 15)}
"""Time controls by name: minutes of reserve + seconds of increment per move."""
PREPARE = 0.1
"""Seconds before a deadline at which its move is computed: it is stored at the deadline itself, however long the
bot took (that time depends on the hand)."""
LATE = 1000
"""Milliseconds past its deadline after which a timeout's move counts from when it is stored (a server that was
down), not from the deadline."""

Clock = dict[str, Any]
"""``{"reserves": [ms or None per seat], "since": epoch ms, "timeout": seat or None}``: the reserve each seat
had when the current turn began (``None``: a bot seat, not timed), when it began, and the seat whose move just
stored was played at its timeout."""


class TimeControl(BaseModel):
    """A custom time control: seconds of reserve per player, seconds added after each of their moves."""

    model_config = ConfigDict(extra="forbid")
    reserve_seconds: float = Field(ge=1, le=3 * 3600, allow_inf_nan=False, description="Each player's reserve.")
    increment_seconds: float = Field(0, ge=0, le=600, allow_inf_nan=False, description="Added after each move.")


TimeControlSpec = Literal["1+5", "3+10", "5+15"] | TimeControl
"""A preset's name or a custom time control (the create API's ``time_control``)."""


def stored_time_control(spec: TimeControlSpec | None) -> dict[str, int] | None:
    """The time control as the table stores it (milliseconds), ``None`` for an untimed table."""
    if spec is None:
        return None
    if isinstance(spec, str):
        minutes, increment = PRESETS[spec]
        return {"reserve_ms": minutes * 60_000, "increment_ms": increment * 1000}
    return {"reserve_ms": round(spec.reserve_seconds * 1000), "increment_ms": round(spec.increment_seconds * 1000)}


def now_ms() -> int:
    return int(time.time() * 1000)


def new_clock(time_control: dict[str, int] | None, kinds: list[str]) -> Clock | None:
    """The clock of a game starting now: every human seat's full reserve (bot seats are not timed)."""
    if time_control is None:
        return None
    reserves = [time_control["reserve_ms"] if kind == "human" else None for kind in kinds]
    return {"reserves": reserves, "since": now_ms(), "timeout": None}


def after_move(state: TableState, seat: int, timeout: bool = False) -> Clock | None:
    """The clock once the mover ``seat``'s move is stored (now): its reserve less the time it took, plus the
    increment. A timeout's move counts as stored at the deadline."""
    clock, control = state.clock, state.time_control
    if clock is None or control is None:
        return None
    at = now_ms()
    ends = deadline(state, seat)
    if timeout and ends is not None and at - ends < LATE:
        at = ends
    reserves = list(clock["reserves"])
    if reserves[seat] is not None:
        reserves[seat] = max(0, reserves[seat] - (at - clock["since"])) + control["increment_ms"]
    return {"reserves": reserves, "since": at, "timeout": seat if timeout else None}


def deadline(state: TableState, mover: int | None) -> int | None:
    """When ``mover``'s time runs out (epoch ms), if its seat is timed."""
    clock = state.clock
    if clock is None or mover is None or state.status != "playing" or clock["reserves"][mover] is None:
        return None
    return int(clock["since"] + clock["reserves"][mover])


def public(runtime: TableRuntime) -> dict[str, Any] | None:
    """The clock as the table is told: each seat's time left now and whose is running, with the server's time
    (a client counts down from when it receives this, whatever its own clock says)."""
    state, game = runtime.state, runtime.game
    if state.clock is None:
        return None
    at = now_ms()
    mover = game.current_player if game is not None else None
    ends = deadline(state, mover)
    remaining = list(state.clock["reserves"])
    if ends is not None and mover is not None:
        remaining[mover] = max(0, ends - at)
    return {
        "remaining_ms": remaining,
        "running": mover if ends is not None else None,
        "server_time": at,
        "timeout": state.clock.get("timeout"),
    }


class Clocks:
    """The deadlines of a process's live tables: one timer per table, looked at when it rings."""

    def __init__(self, manager: Manager) -> None:
        self.manager = manager
        self.timers: dict[str, tuple[int, asyncio.TimerHandle]] = {}
        """Each timed table's timer and when it rings (epoch ms): at or before the current turn's deadline."""
        self.announced: dict[str, tuple[int, int]] = {}
        """Each table's last timeout told to this process's connections: (game, when the move was stored)."""

    @staticmethod
    def _due(runtime: TableRuntime) -> tuple[int | None, int | None]:
        """The seat to move and when its move is to be prepared (epoch ms), if its seat is timed."""
        mover = runtime.game.current_player if runtime.game is not None else None
        ends = deadline(runtime.state, mover)
        return (None, None) if ends is None else (mover, ends - int(PREPARE * 1000))

    def arm(self, runtime: TableRuntime) -> None:
        """Make sure a timer rings by the current turn's deadline. A timer already set to ring earlier is kept:
        it looks again when it rings (after most moves nothing is to be done, so a move costs no timer)."""
        if runtime.state.clock is None:
            return  # untimed (a table never changes): nothing to do
        _, due = self._due(runtime)
        armed = self.timers.get(runtime.state.id)
        if due is None or (armed is not None and armed[0] <= due):
            return
        if armed is not None:
            armed[1].cancel()
        wait = max(0.0, (due - now_ms()) / 1000)
        self.timers[runtime.state.id] = (due, asyncio.get_running_loop().call_later(wait, self._ring, runtime))

    def _ring(self, runtime: TableRuntime) -> None:
        self.timers.pop(runtime.state.id, None)
        mover, due = self._due(runtime)
        if due is None or mover is None:
            return  # the game is over, or a bot's seat is to move
        if due > now_ms():  # the turn changed since the timer was set: ring at its deadline
            self.arm(runtime)
            return
        ends = due + int(PREPARE * 1000)
        self.manager._spawn(self._play_for(runtime, mover, runtime.state.version, ends))

    async def _play_for(self, runtime: TableRuntime, seat: int, version: int, ends: int) -> None:
        """The timeout bot's move for ``seat``, stored at the deadline unless the table moved on meanwhile."""
        from .runtime import Refused  # runtime.py imports this module

        game = runtime.game
        if game is None or runtime.state.version != version or game.current_player != seat:
            return
        seed = f"{runtime.state.id}:{runtime.state.game_no}:{version}:timeout"
        action = choose_for(TIMEOUT_BOT, view(game, seat), seed)
        await asyncio.sleep(max(0.0, (ends - now_ms()) / 1000))
        with contextlib.suppress(Refused):
            await self.manager.act(runtime, seat, action, expected=version, timeout=True)

    def notice(self, runtime: TableRuntime) -> dict[str, Any] | None:
        """The ``timeout`` message for the table, once per timed-out move (sent with that move's state)."""
        clock = runtime.state.clock
        if clock is None or clock.get("timeout") is None:
            return None
        key = (runtime.state.game_no, clock["since"])  # a state caught up step by step keeps the clock it had
        if self.announced.get(runtime.state.id) == key:
            return None
        self.announced[runtime.state.id] = key
        return {"type": "timeout", "seat": clock["timeout"], "version": runtime.state.version}
