"""Presence: the grace period of a seat whose player left, and the bot that takes the seat over when it runs out
(until the player is back). With several processes, a seat's player may be connected to another one: the processes
tell each other (``here``, ``who``, ``away``) through the broker.

The connections themselves are the table's, changed by the writer (``Attach``, ``Detach``); presence keeps only
its own bookkeeping (the grace timers, when a seat was last said to be connected elsewhere), never writes a table,
and hands its decisions to the door (``TakeOver``, ``Return``)."""

from __future__ import annotations

from ..clock import Clock, Timer
from ..domain import SeatKind, is_turn_based
from .broker import Broker
from .commands import Door, Return, TakeOver
from .table import Table
from .tasks import Tasks

PRESENCE_WAIT = 0.5
"""Seconds a process waits for another to say it has a seat's player, before a bot takes the seat over."""


class Presence:
    """The grace periods of this process's tables, seat by seat, and the word of the other processes."""

    def __init__(self, door: Door, tasks: Tasks, broker: Broker, clock: Clock) -> None:
        self.door = door
        self.tasks = tasks
        self.clock = clock
        self.broker = broker
        self._grace: dict[str, dict[int, Timer]] = {}
        """Each table's human seats with no connection, counting down their grace period."""
        self._elsewhere: dict[str, dict[int, float]] = {}
        """When each seat was last said to be connected to another server process (monotonic time)."""

    def counting(self, table: Table) -> set[int]:
        """The seats of ``table`` counting down their grace period."""
        return set(self._grace.get(table.id, ()))

    def forget(self, table: Table) -> None:
        """The table left memory: its timers stop."""
        for timer in self._grace.pop(table.id, {}).values():
            timer.cancel()
        self._elsewhere.pop(table.id, None)

    def here(self, table: Table, seat: int) -> None:
        """A connection of ``seat`` was just attached here: its count-down stops, and the other processes stop
        counting down (or playing) for it. Nothing if it has closed since."""
        if not table.connected(seat):
            return
        self._stop(table, seat)
        if self.broker.shared:
            self.tasks.spawn(self.broker.presence(table.id, seat, "here"))
            self.tasks.spawn(self.broker.seated(table.id, [seat], True))

    def left(self, table: Table, seat: int) -> None:
        """The last connection of ``seat`` here just closed: the other processes are told, and a human seat's
        grace period begins (unless it is already counting down). Nothing if one was attached since."""
        if table.connected(seat):
            return
        if self.broker.shared:
            self.tasks.spawn(self.broker.seated(table.id, [seat], False))
        if table.state.seats[seat].kind == SeatKind.HUMAN and seat not in self._grace.get(table.id, {}):
            self._count_down(table, seat)

    def await_players(self, table: Table) -> None:
        """Start the grace period of each human seat with no connection here (then a bot plays for them)."""
        counting = self._grace.get(table.id, {})
        for seat in table.state.seats:
            number = seat.seat
            absent = not table.connected(number) and number not in counting and number not in table.taken_over
            if seat.kind == SeatKind.HUMAN and absent:
                self._count_down(table, number)

    def _stop(self, table: Table, seat: int) -> None:
        timer = self._grace.get(table.id, {}).pop(seat, None)
        if timer is not None:
            timer.cancel()

    def _count_down(self, table: Table, seat: int) -> None:
        if is_turn_based(table.state.time_control):
            return  # its players come and go over days: only their deadlines hand a seat to a bot
        timer = self.clock.call_later(table.state.grace_seconds, lambda: self._take_over(table, seat))
        self._grace.setdefault(table.id, {})[seat] = timer

    def _take_over(self, table: Table, seat: int) -> None:
        self._grace.get(table.id, {}).pop(seat, None)
        if table.connected(seat):
            return
        if self.broker.shared:  # the player may be connected to another process: ask first
            self.tasks.spawn(self._take_over_unless_elsewhere(table, seat))
            return
        self._bot_takes(table, seat)

    async def _take_over_unless_elsewhere(self, table: Table, seat: int) -> None:
        asked = self.clock.monotonic()
        await self.broker.presence(table.id, seat, "who")
        await self.clock.sleep(PRESENCE_WAIT)
        counting = seat in self._grace.get(table.id, {})
        if table.connected(seat) or counting or self._seen_elsewhere(table, seat) >= asked:
            return  # back here, counting down again, or connected to another process (which counts down for it)
        self._bot_takes(table, seat)

    def _seen_elsewhere(self, table: Table, seat: int) -> float:
        return self._elsewhere.get(table.id, {}).get(seat, float("-inf"))

    def _bot_takes(self, table: Table, seat: int) -> None:
        """A bot plays the seat (the other processes are told: they show it, and count the seat abandoned if the
        game ends so)."""
        self.door.post(table, TakeOver(seat))

    async def on_presence(self, table: Table, seat: int, kind: str) -> None:
        """Another process has a connection of ``seat`` (``here``), asks whether any process has (``who``), or has
        a bot playing it (``away``)."""
        if not 0 <= seat < len(table.state.seats):
            return
        if kind == "who":
            if table.connected(seat):
                await self.broker.presence(table.id, seat, "here")
            return
        if kind == "away":  # another process's bot plays the seat (its player is gone): here too, unless the
            # player is back here or was just said to be back elsewhere (a "here" that crossed this message)
            now = self.clock.monotonic()
            back = table.connected(seat) or now - self._seen_elsewhere(table, seat) < 2 * PRESENCE_WAIT
            if not back and seat not in table.taken_over:
                self.door.post(table, TakeOver(seat, announce=False))
            return
        if kind != "here":
            return
        self._elsewhere.setdefault(table.id, {})[seat] = self.clock.monotonic()
        self._stop(table, seat)
        if seat in table.taken_over:  # the player is back, on another process: this one's bot stops
            self.door.post(table, Return(seat))
