"""Time as the server reads it, injected (:data:`SYSTEM_CLOCK`, a :class:`RealClock`, when serving; a
:class:`FakeClock` in tests): grace periods, deadlines, rematch offers, reminders, rate windows. A test advances a
fake clock instead of sleeping to prove that nothing happened."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """When it is, and timers: the wall clock for what is stored or compared across processes, the monotonic one
    for intervals within this process."""

    def now(self) -> float:
        """Wall-clock time in seconds since the epoch."""
        ...

    def now_ms(self) -> int:
        """Epoch milliseconds (the time stored with deadlines and offers)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (only differences mean anything)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer: ...
    async def sleep(self, seconds: float) -> None: ...


class RealClock:
    """The system's clocks and the event loop's timers."""

    def now(self) -> float:
        return time.time()

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def monotonic(self) -> float:
        return time.monotonic()  # the event loop's clock (asyncio's default ``loop.time``)

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def __repr__(self) -> str:
        return "RealClock()"


SYSTEM_CLOCK: Clock = RealClock()


class _FakeTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that moves only when told (:meth:`advance`): its wall time starts at ``start`` (epoch seconds), its
    monotonic time at 0, and both move together; each timer due on the way rings, in order, at its time.

    >>> clock = FakeClock(1_000.0)
    >>> clock.advance(2.5)
    >>> clock.now(), clock.monotonic(), clock.now_ms()
    (1002.5, 2.5, 1002500)
    """

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.start = start
        self.elapsed = 0.0
        self._timers: list[tuple[float, int, _FakeTimer, Callable[[], object]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self.start + self.elapsed

    def now_ms(self) -> int:
        return round(self.now() * 1000)

    def monotonic(self) -> float:
        return self.elapsed

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        timer = _FakeTimer()
        heapq.heappush(self._timers, (self.elapsed + max(0.0, delay), next(self._order), timer, callback))
        return timer

    async def sleep(self, seconds: float) -> None:
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not woken.done():
                woken.set_result(None)

        self.call_later(seconds, wake)
        await woken

    def advance(self, seconds: float) -> None:
        """Move ``seconds`` on (never back), ringing every timer due meanwhile (a timer set by a ringing one rings
        too if due)."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds} s)")
        until = self.elapsed + seconds
        while self._timers and self._timers[0][0] <= until:
            when, _, timer, callback = heapq.heappop(self._timers)
            if not timer.cancelled:
                self.elapsed = max(self.elapsed, when)
                callback()
        self.elapsed = until

    def pending(self) -> int:
        """Timers not yet rung nor cancelled."""
        return sum(not timer.cancelled for _, _, timer, _ in self._timers)

    def __repr__(self) -> str:
        return f"FakeClock({self.now()!r})"
