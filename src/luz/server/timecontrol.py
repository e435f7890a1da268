"""Time controls as stored: a reserve per player plus an increment per move, and the arithmetic of a table's clock.

What is stored, on the table's row and in the transaction of each action (``tables.time_control``,
``tables.clock``): the reserve each human seat has left, and when the current turn began; the mover's deadline is
that start plus the mover's reserve. Pure functions of the stored state and the time: the live side (arming the
deadlines, playing a timed-out move) is ``tables/clocks.py``. Everything here is public: it depends on when
actions were stored, never on a card.
"""

from __future__ import annotations

import time
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

PRESETS: dict[str, tuple[int, int]] = {"1+5": (1, 5), "3+10": (3, 10), "5+15": (5, 15)}
"""Time controls by name: minutes of reserve + seconds of increment per move."""
LATE = 1000
"""Milliseconds past its deadline after which a timeout's move counts from when it is stored (a server that was
down), not from the deadline."""

Clock = dict[str, Any]
"""``{"reserves": [ms or None per seat], "since": epoch ms, "timeout": seat or None}``: the reserve each seat
had when the current turn began (``None``: a bot seat, not timed), when it began, and the seat whose move just
stored was played at its timeout."""


class Timed(Protocol):
    """A table's stored state as its clock sees it (``store.TableState``)."""

    @property
    def status(self) -> str: ...
    @property
    def clock(self) -> Clock | None: ...
    @property
    def time_control(self) -> dict[str, int] | None: ...


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


def after_move(state: Timed, seat: int, timeout: bool = False) -> Clock | None:
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


def deadline(state: Timed, mover: int | None) -> int | None:
    """When ``mover``'s time runs out (epoch ms), if its seat is timed."""
    clock = state.clock
    if clock is None or mover is None or state.status != "playing" or clock["reserves"][mover] is None:
        return None
    return int(clock["since"] + clock["reserves"][mover])
