"""Presence: which seats have a connection, the grace period of a seat whose player left, and the bot that takes
the seat over when it runs out (until the player is back). With several processes, a seat's player may be
connected to another one: the processes tell each other (``here``, ``who``, ``away``) through the broker."""

from __future__ import annotations

import itertools

from ..clock import Clock
from ..domain import SeatKind, is_turn_based
from ..settings import Settings
from .broker import Broker
from .commands import Door, Return, TakeOver
from .model import Connection, Refused, Watcher
from .table import Table
from .tasks import Tasks

PRESENCE_WAIT = 0.5
"""Seconds a process waits for another to say it has a seat's player, before a bot takes the seat over."""


class Presence:
    """The connections of this process's tables, seat by seat."""

    def __init__(self, door: Door, tasks: Tasks, broker: Broker, settings: Settings, clock: Clock) -> None:
        self.door = door
        self.tasks = tasks
        self.clock = clock
        self.broker = broker
        self.settings = settings
        self._opened = itertools.count()

    def attach(
        self, table: Table, seat: int | None, connection: Connection, watcher: Watcher | None = None
    ) -> tuple[bool, list[Connection]]:
        """Add a connection of ``seat`` (``None``: a spectator, tied to people by ``watcher``). Returns
        whether the seat has just become connected (the others are told: a presence change costs one message per
        connection of the table, never more) and the connections to close: a seat's oldest beyond
        ``max_connections_per_seat``. :class:`Refused` (``full``) for a spectator beyond
        ``max_spectators_per_table``."""
        table.opened[connection] = next(self._opened)
        if seat is None:
            if len(table.spectators) >= self.settings.max_spectators_per_table:
                del table.opened[connection]
                raise Refused("full", "this table has as many spectators as it takes", "max_spectators_per_table")
            table.spectators.add(connection)
            if watcher is not None:
                table.watchers[connection] = watcher
            self.tasks.spawn(self.broker.spectators(table.id, len(table.spectators)))
            return False, []
        arrived = not table.connected(seat)
        connections = table.seats.setdefault(seat, set())
        connections.add(connection)
        evicted = sorted(connections, key=table.opened.__getitem__)[: -self.settings.max_connections_per_seat]
        connections.difference_update(evicted)
        timer = table.away.pop(seat, None)
        if timer:
            timer.cancel()
        arrived |= seat in table.taken_over  # its bot stops: the caller submits ``Return``
        if self.broker.shared:  # the other processes stop counting down (or playing) for this seat
            self.tasks.spawn(self.broker.presence(table.id, seat, "here"))
            self.tasks.spawn(self.broker.seated(table.id, [seat], True))
        return arrived, evicted

    def detach(self, table: Table, seat: int | None, connection: Connection) -> bool:
        """Remove a connection; whether its seat is no longer connected (the others are to be told)."""
        table.opened.pop(connection, None)
        if seat is None:
            if connection in table.spectators:
                table.spectators.discard(connection)
                self.tasks.spawn(self.broker.spectators(table.id, len(table.spectators)))
            table.watchers.pop(connection, None)
            return False
        connections = table.seats.get(seat, set())
        if connection not in connections:
            return False  # already removed (a dropped send, an evicted connection)
        connections.discard(connection)
        if table.connected(seat):
            return False
        table.left_at[seat] = self.clock.now_ms()
        if self.broker.shared:
            self.tasks.spawn(self.broker.seated(table.id, [seat], False))
        if table.state.seats[seat].kind != SeatKind.HUMAN or seat in table.away:
            return True  # a bot seat, or already counting down (a second detach)
        self._count_down(table, seat)
        return True

    def await_players(self, table: Table) -> None:
        """Start the grace period of each human seat with no connection here (then a bot plays for them)."""
        connected_or_counting = {n for n in range(len(table.state.seats)) if table.connected(n)} | set(table.away)
        for seat in table.state.seats:
            if seat.kind == SeatKind.HUMAN and seat.seat not in connected_or_counting | table.taken_over:
                self._count_down(table, seat.seat)

    def _count_down(self, table: Table, seat: int) -> None:
        if is_turn_based(table.state.time_control):
            return  # its players come and go over days: only their deadlines hand a seat to a bot
        table.away[seat] = self.clock.call_later(table.state.grace_seconds, lambda: self._take_over(table, seat))

    def _take_over(self, table: Table, seat: int) -> None:
        table.away.pop(seat, None)
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
        if table.connected(seat) or seat in table.away or table.elsewhere.get(seat, float("-inf")) >= asked:
            return  # back here, counting down again, or connected to another process (which counts down for it)
        self._bot_takes(table, seat)

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
            back = table.connected(seat) or now - table.elsewhere.get(seat, float("-inf")) < 2 * PRESENCE_WAIT
            if not back and seat not in table.taken_over:
                self.door.post(table, TakeOver(seat, announce=False))
            return
        if kind != "here":
            return
        table.elsewhere[seat] = self.clock.monotonic()
        timer = table.away.pop(seat, None)
        if timer:
            timer.cancel()
        if seat in table.taken_over:  # the player is back, on another process: this one's bot stops
            self.door.post(table, Return(seat))
