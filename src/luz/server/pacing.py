"""Bursts of small work spread over turns of the event loop."""

from __future__ import annotations

import asyncio


class Pacer:
    """Lets at most ``per_turn`` callers of :meth:`wait` through in one turn of the event loop; the others go on in
    later turns, in about the order they came.

    A wave of connections (a restart, a network's blip) wakes hundreds of them in one turn. Each one's work is
    small (attached, told its state), but run back to back they hold the loop, so every table's moves and timers,
    for hundreds of milliseconds. Paced, the loop turns, and runs what is due, between every ``per_turn`` of them."""

    def __init__(self, per_turn: int) -> None:
        if per_turn < 1:
            raise ValueError("per_turn must be at least 1")
        self.per_turn = per_turn
        self._passed = 0
        self._reset_due = False

    async def wait(self) -> None:
        """Return in this turn if fewer than ``per_turn`` passed in it, else in a later one."""
        while self._passed >= self.per_turn:
            await asyncio.sleep(0)  # the next turn (the reset scheduled below runs first in it)
        self._passed += 1
        if not self._reset_due:
            self._reset_due = True
            asyncio.get_running_loop().call_soon(self._reset)

    def _reset(self) -> None:
        self._passed, self._reset_due = 0, False
