"""Time as the server's timers read it, injected (``RealClock`` when serving, ``FakeClock`` in tests): grace
periods, deadlines, rematch offers. A test advances a fake clock instead of sleeping to prove that nothing
happened."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Protocol

from . import timecontrol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """When it is, and timers."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (the event loop's)."""

    def now_ms(self) -> int:
        """Epoch milliseconds (the time stored with deadlines and offers)."""

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer: ...
    async def sleep(self, seconds: float) -> None: ...


class RealClock:
    """The event loop's time and timers, and the epoch time that the clocks' arithmetic reads
    (``timecontrol.now_ms``: the one source of wall time, stored with deadlines)."""

    def monotonic(self) -> float:
        return asyncio.get_running_loop().time()

    def now_ms(self) -> int:
        return timecontrol.now_ms()

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class _FakeTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that moves only when told (:meth:`advance`): each timer due on the way rings, in order, at its
    time."""

    def __init__(self, epoch_ms: int = 1_700_000_000_000) -> None:
        self.now = 0.0
        self.epoch_ms = epoch_ms
        self._timers: list[tuple[float, int, _FakeTimer, Callable[[], object]]] = []
        self._order = itertools.count()

    def monotonic(self) -> float:
        return self.now

    def now_ms(self) -> int:
        return self.epoch_ms + int(self.now * 1000)

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        timer = _FakeTimer()
        heapq.heappush(self._timers, (self.now + max(0.0, delay), next(self._order), timer, callback))
        return timer

    async def sleep(self, seconds: float) -> None:
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not woken.done():
                woken.set_result(None)

        self.call_later(seconds, wake)
        await woken

    def advance(self, seconds: float) -> None:
        """Move ``seconds`` on, ringing every timer due meanwhile (a timer set by a ringing one rings too if due)."""
        until = self.now + seconds
        while self._timers and self._timers[0][0] <= until:
            when, _, timer, callback = heapq.heappop(self._timers)
            if not timer.cancelled:
                self.now = max(self.now, when)
                callback()
        self.now = until

    def pending(self) -> int:
        """Timers not yet rung nor cancelled."""
        return sum(not timer.cancelled for _, _, timer, _ in self._timers)
