"""Time controls as stored: a reserve per player plus an increment per move, and the arithmetic of a table's clock.

What is stored, on the table's row and in the transaction of each action (``tables.time_control``,
``tables.clock``): the reserve each human seat has left, and when the current turn began; the mover's deadline is
that start plus the mover's reserve. Pure functions of the stored state and the time: the live side (arming the
deadlines, playing a timed-out move) is ``tables/clocks.py``. Everything here is public: it depends on when
actions were stored, never on a card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from .domain import SeatKind, Status, is_turn_based, replaced

PRESETS: dict[str, tuple[int, int]] = {"1+5": (1, 5), "3+10": (3, 10), "5+15": (5, 15)}
"""Time controls by name: minutes of reserve + seconds of increment per move."""
DAYS: dict[str, int] = {"1d": 1, "2d": 2, "3d": 3, "7d": 7}
"""Turn-based time controls by name: days per move."""
DAY_MS = 86_400_000
TIMEOUTS_BEFORE_BOT = 2
"""Timeouts in a row after which a turn-based seat passes to a bot for the rest of the game (a table setting)."""
BANK_HOURS = (0, 12, 24, 48)
"""A turn-based table's time bank choices, hours per seat and game: spent once, when a move's time first runs
out (the deadline extended by the whole bank), before the timeout is played."""
WATCHDOG_MS = 60_000
"""When a bot is to move at a turn-based table: the time by which it has moved, unless its process died (then
another process, or this one restarted, finds the table due and lets the bot play)."""
LATE = 1000
"""Milliseconds past its deadline after which a timeout's move counts from when it is stored (a server that was
down), not from the deadline."""

Clock = dict[str, Any]
"""``{"reserves": [ms or None per seat], "since": epoch ms, "timeout": seat or None}``: the reserve each seat
had when the current turn began (``None``: a bot seat, not timed), when it began, and the seat whose move just
stored was played at its timeout. ``"missed"`` (once a move was: ``[None or {...} per seat]``): each seat's move
the timeout bot played for it (its ``action``, the ``card`` played, face up since, ``at`` epoch ms), kept until that
seat moves again itself, so a player coming back is told. Turn-based: ``"banks"`` (each seat's time bank left, ms),
``"extended"`` (ms the bank added to the current turn), ``"vacation"`` (per seat: until when its player is on
vacation, epoch ms, or ``None``; the clock of such a seat does not run) and ``"held"`` (the mover's time left when its
clock was paused, ``None``: its full time)."""


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


class DaysPerMove(BaseModel):
    """A turn-based time control: each move has this many days, whatever the earlier moves took."""

    model_config = ConfigDict(extra="forbid")
    days_per_move: int = Field(ge=1, le=14, description="Days each player has for each of their moves.")


TimeControlSpec = Literal["1+5", "3+10", "5+15", "1d", "2d", "3d", "7d"] | TimeControl | DaysPerMove
"""A preset's name, a custom real-time control, or days per move (the create API's ``time_control``)."""


def stored_time_control(
    spec: TimeControlSpec | None, timeouts_before_bot: int = TIMEOUTS_BEFORE_BOT, time_bank_hours: int = 0
) -> dict[str, int] | None:
    """The time control as the table stores it (milliseconds), ``None`` for an untimed table. A turn-based one
    also keeps its days, the timeouts in a row after which a bot takes the seat for the rest of the game, and each
    seat's time bank."""
    if spec is None:
        return None
    days = DAYS.get(spec) if isinstance(spec, str) else spec.days_per_move if isinstance(spec, DaysPerMove) else None
    if days is not None:
        return {
            "days_per_move": days,
            "reserve_ms": days * DAY_MS,
            "increment_ms": 0,
            "timeouts_before_bot": timeouts_before_bot,
            "bank_ms": time_bank_hours * 3_600_000,
        }
    if isinstance(spec, str):
        minutes, increment = PRESETS[spec]
        return {"reserve_ms": minutes * 60_000, "increment_ms": increment * 1000}
    assert isinstance(spec, TimeControl)
    return {"reserve_ms": round(spec.reserve_seconds * 1000), "increment_ms": round(spec.increment_seconds * 1000)}


def new_clock(time_control: dict[str, int] | None, kinds: list[str], at: int) -> Clock | None:
    """The clock of a game starting at ``at`` (epoch ms, the server's ``Clock``): every human seat's full reserve
    (bot seats are not timed)."""
    if time_control is None:
        return None
    reserves = [time_control["reserve_ms"] if kind == SeatKind.HUMAN else None for kind in kinds]
    clock: Clock = {"reserves": reserves, "since": at, "timeout": None}
    if is_turn_based(time_control):
        clock["timeouts"], clock["replaced"], clock["forced"] = [0] * len(kinds), [], []
        bank = time_control.get("bank_ms", 0)
        clock["banks"] = [bank if kind == SeatKind.HUMAN else None for kind in kinds]
    return clock


def after_move(
    state: Timed,
    seat: int,
    at: int,
    timeout: bool = False,
    played: dict[str, Any] | None = None,
    forced: bool = False,
) -> Clock | None:
    """The clock once the mover ``seat``'s move is stored at ``at`` (epoch ms, the server's ``Clock``): its reserve
    less the time it took, plus the increment. A timeout's move counts as stored at the deadline, and ``played``
    (what it played) is kept as that seat's missed move; a seat's own move forgets its missed one. At a turn-based
    table, ``forced`` lists the seats whose last move was their only legal card, played for them (until they next
    move)."""
    clock, control = state.clock, state.time_control
    if clock is None or control is None:
        return None
    ends = deadline(state, seat)
    if timeout and ends is not None and at - ends < LATE:
        at = ends
    reserves = list(clock["reserves"])
    missed = _missed(clock, seat, {**(played or {}), "at": at} if timeout else None)
    if not is_turn_based(control):
        if reserves[seat] is not None:
            reserves[seat] = max(0, reserves[seat] - (at - clock["since"])) + control["increment_ms"]
        return {"reserves": reserves, "since": at, "timeout": seat if timeout else None, **missed}
    # Turn-based: every move has its full time; a seat whose time ran out too many times in a row passes to a bot.
    timeouts, gone = list(clock["timeouts"]), list(clock["replaced"])
    timeouts[seat] = timeouts[seat] + 1 if timeout else 0
    if timeout and seat not in gone and timeouts[seat] >= control["timeouts_before_bot"]:
        gone.append(seat)
        reserves[seat] = None
    played_for = [s for s in clock.get("forced", []) if s != seat] + ([seat] if forced else [])
    # The banks and vacations stay; "extended" and "held" were the turn's.
    kept: dict[str, Any] = {key: clock[key] for key in ("banks", "vacation") if key in clock}
    return {
        **kept,
        "reserves": reserves,
        "since": at,
        "timeout": seat if timeout else None,
        "timeouts": timeouts,
        "replaced": gone,
        "forced": played_for,
        **missed,
    }


def _missed(clock: Clock, seat: int, move: dict[str, Any] | None) -> dict[str, Any]:
    """The clock's ``missed`` entry with ``seat``'s set to ``move``; none while no seat has a missed move."""
    missed = list(clock.get("missed") or [None] * len(clock["reserves"]))
    missed[seat] = move
    return {"missed": missed} if any(missed) else {}


@dataclass(frozen=True)
class Turn:
    """What the database keeps of a table's turn beside its clock, to find it without loading it (db.TableRow):
    the seat to move and, at a turn-based table, when it next needs the server, when its player is to be told,
    when reminded."""

    to_move: int | None = None
    deadline: int | None = None
    notify_at: int | None = None
    remind_at: int | None = None

    def params(self) -> dict[str, int | None]:
        return {
            "to_move": self.to_move,
            "deadline": self.deadline,
            "notify_at": self.notify_at,
            "remind_at": self.remind_at,
        }


def turn_of(
    time_control: dict[str, int] | None,
    clock: Clock | None,
    mover: int | None,
    bots: set[int],
    passed: bool = True,
) -> Turn:
    """The turn columns once a change is stored: ``mover`` is to move (``None``: the game is over), ``bots`` the
    seats a bot plays; ``passed``: the turn has just come to ``mover`` (it did not move just before, or its time
    ran out), so its player is to be told."""
    if mover is None:
        return Turn()
    if not is_turn_based(time_control) or clock is None:
        return Turn(to_move=mover)
    assert time_control is not None
    if mover in bots or mover in replaced(clock) or clock["reserves"][mover] is None:
        return Turn(to_move=mover, deadline=clock["since"] + WATCHDOG_MS)
    ends = ends_at(clock, mover)
    if ends is None:  # its player is on vacation: told of the turn, no deadline until they are back
        return Turn(to_move=mover, notify_at=int(clock["since"]) if passed else None)
    return Turn(
        to_move=mover,
        deadline=ends,
        notify_at=int(clock["since"]) if passed else None,
        remind_at=ends - time_control["reserve_ms"] // 4,
    )


def deadline(state: Timed, mover: int | None) -> int | None:
    """When ``mover``'s time runs out (epoch ms), if its seat is timed."""
    clock = state.clock
    if clock is None or mover is None or state.status != Status.PLAYING:
        return None
    return ends_at(clock, mover)


def ends_at(clock: Clock, mover: int) -> int | None:
    """When the turn of ``mover`` ends (epoch ms) by the stored ``clock``: ``None`` when its seat is not timed, or
    its player is on vacation (its clock paused)."""
    if clock["reserves"][mover] is None or on_vacation(clock, mover):
        return None
    return int(clock["since"] + clock["reserves"][mover] + clock.get("extended", 0))


def on_vacation(clock: Clock, seat: int) -> bool:
    return (clock.get("vacation") or [None] * len(clock["reserves"]))[seat] is not None


def bank_left(clock: Clock, seat: int) -> int:
    """The time bank ``seat`` has left (ms): 0 at a table without one, or once spent."""
    return int((clock.get("banks") or [None] * len(clock["reserves"]))[seat] or 0)


def spend_bank(clock: Clock, seat: int) -> Clock:
    """The clock once ``seat``'s whole bank is added to its current turn (its time ran out)."""
    banks = list(clock["banks"])
    extended, banks[seat] = clock.get("extended", 0) + banks[seat], 0
    return {**clock, "banks": banks, "extended": extended}


def paused(clock: Clock, seat: int, until: int, mover: int | None, at: int) -> Clock:
    """The clock once ``seat``'s player is on vacation until ``until``: if it is to move, its time left is held."""
    vacation = list(clock.get("vacation") or [None] * len(clock["reserves"]))
    held = clock.get("held")
    if mover == seat and (ends := ends_at(clock, seat)) is not None:
        held = max(0, ends - at)
    vacation[seat] = until
    return {**clock, "vacation": vacation, "held": held}


def resumed(clock: Clock, seat: int, mover: int | None, at: int) -> Clock:
    """The clock once ``seat``'s vacation is over: if it is to move, its turn goes on from now with the time it had
    left (its full time if the turn came to it during the vacation)."""
    vacation = list(clock.get("vacation") or [None] * len(clock["reserves"]))
    vacation[seat] = None
    resumed = {**clock, "vacation": vacation}
    if mover == seat and clock["reserves"][seat] is not None:
        held = clock.get("held")
        left = clock["reserves"][seat] + clock.get("extended", 0) if held is None else held
        resumed.update(since=at + left - clock["reserves"][seat], extended=0, held=None)
    return resumed
