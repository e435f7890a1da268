"""The time the server reads, injected: :data:`SYSTEM_CLOCK` in production, a :class:`FakeClock` in tests, which
advance it rather than sleep (timers, grace periods, reminders, rate windows)."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """A source of time: the wall clock for what is stored or compared across processes, the monotonic one for
    intervals within this process."""

    def now(self) -> float:
        """Wall-clock time in seconds since the epoch."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (only differences mean anything)."""
        ...


class RealClock:
    """The system's clocks (``time.time`` and ``time.monotonic``)."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def __repr__(self) -> str:
        return "RealClock()"


SYSTEM_CLOCK: Clock = RealClock()


class FakeClock:
    """A clock that moves only when told (:meth:`advance`): its wall and monotonic times move together.

    >>> clock = FakeClock(1_000.0)
    >>> clock.advance(2.5)
    >>> clock.now(), clock.monotonic()
    (1002.5, 1002.5)
    """

    def __init__(self, start: float) -> None:
        self.time = start

    def now(self) -> float:
        return self.time

    def monotonic(self) -> float:
        return self.time

    def advance(self, seconds: float) -> None:
        """Move both clocks on by ``seconds`` (never back)."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds} s)")
        self.time += seconds

    def __repr__(self) -> str:
        return f"FakeClock({self.time!r})"
