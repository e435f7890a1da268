"""The tables' timers alone, on a fake clock (``luz.server.clock.FakeClock``): presence's grace period, a timed
table's deadline, a rematch offer's end. Each collaborator only hands commands to a door (a fake one here): the
tests move time on and read the commands handed in, never sleeping to prove that nothing happened."""

from __future__ import annotations

import asyncio
from typing import Any

from luz.engine import Game
from luz.server.clock import FakeClock
from luz.server.domain import SeatKind, SeatState, Status, TableState
from luz.server.tables.broker import MemoryBroker
from luz.server.tables.clocks import PREPARE, Clocks
from luz.server.tables.commands import Act, Command, ExpireRematch, Outcome, TakeOver
from luz.server.tables.presence import Presence
from luz.server.tables.rematch import Rematch
from luz.server.tables.table import Table
from luz.server.tables.tasks import Tasks

GRACE = 30.0


class FakeDoor:
    """A door that keeps the commands handed in."""

    def __init__(self) -> None:
        self.commands: list[Command] = []

    async def submit(self, table: Table, command: Command) -> Outcome:
        self.commands.append(command)
        return Outcome()

    def post(self, table: Table, command: Command) -> None:
        self.commands.append(command)


class Recorder:
    async def send_text(self, data: str) -> None:
        return None


def table_of(status: Status = Status.PLAYING, **fields: Any) -> Table:
    seats = [SeatState(n, SeatKind.HUMAN, None, f"p{n}", True) for n in range(3)]
    state = TableState("t", "t", "iello-2024", 3, {"first_player": 0}, False, GRACE, status, 1, 5, seats, **fields)
    game = Game.new("iello-2024", players=3, seed=7, first_player=0) if status == Status.PLAYING else None
    return Table(state, game)


def test_a_seat_whose_player_is_back_within_its_grace_is_never_taken_over() -> None:
    """(Was a sleep of twice the grace period in test_takeover.) Presence is told what the writer did with the
    connections (``left``: the seat's last one closed; ``here``: one attached) and never writes the table."""

    async def scenario() -> None:
        clock, door = FakeClock(), FakeDoor()
        presence = Presence(door, Tasks(), MemoryBroker(), clock)
        table = table_of()
        presence.left(table, 0)  # no connection left: its grace period begins
        presence.left(table, 0)  # told twice (a dropped send, then its socket's close): still one count-down
        clock.advance(GRACE / 3)
        assert door.commands == [] and presence.counting(table) == {0} and clock.pending() == 1
        presence.here(table, 0)  # told of an attach whose connection closed since: still counting down
        assert presence.counting(table) == {0}
        table.seats[0] = {Recorder()}  # the writer's Attach
        presence.here(table, 0)
        assert presence.counting(table) == set()  # back within the grace period: its count-down stops
        presence.left(table, 0)  # told of a detach while a connection is open: nothing counts down
        clock.advance(2 * GRACE)
        assert door.commands == [] and clock.pending() == 0
        table.seats[0] = set()  # the writer's Detach
        presence.left(table, 0)
        clock.advance(GRACE - 0.001)
        assert door.commands == []
        clock.advance(0.001)
        assert door.commands == [TakeOver(0)] and presence.counting(table) == set()

    asyncio.run(scenario())


def test_a_seat_connected_when_its_grace_ends_is_not_taken_over() -> None:
    async def scenario() -> None:
        clock, door = FakeClock(), FakeDoor()
        presence = Presence(door, Tasks(), MemoryBroker(), clock)
        table = table_of()
        presence.await_players(table)  # a game started with nobody connected: every human seat counts down
        assert presence.counting(table) == {0, 1, 2}
        table.seats[1] = {Recorder()}  # as the writer's Attach leaves it, had the timer not been stopped
        clock.advance(GRACE)
        assert door.commands == [TakeOver(0), TakeOver(2)] and presence.counting(table) == set()

    asyncio.run(scenario())


def timed_table(clock: FakeClock, reserve_ms: int) -> Table:
    control = {"reserve_ms": reserve_ms, "increment_ms": 0}
    timer = {"reserves": [reserve_ms] * 3, "since": clock.now_ms(), "timeout": None}
    return table_of(time_control=control, clock=timer)


def test_a_move_before_the_deadline_disarms_it() -> None:
    """(Was a sleep of 2 s in test_clocks.) The mover's deadline passes after it moved: no timeout's move."""

    async def scenario() -> None:
        clock, door = FakeClock(), FakeDoor()
        clocks, table = Clocks(door, Tasks(), clock), timed_table(clock, 1_500)
        clocks.arm(table)
        assert clock.pending() == 1
        clock.advance(0.5)  # seat 0 moves, 0.5 s into its 1.5 s: the turn is seat 1's, its reserve whole
        game = table.game
        assert game is not None and game.current_player == 0
        game.apply(game.legal_actions()[0], 0)
        assert table.state.clock is not None
        table.state.clock = {**table.state.clock, "reserves": [1_000, 1_500, 1_500], "since": clock.now_ms()}
        clocks.arm(table)
        clock.advance(1.5 - PREPARE)  # past seat 0's deadline, before seat 1's move is prepared
        await asyncio.sleep(0)
        assert door.commands == []
        clock.advance(PREPARE)  # seat 1's time is up: the timeout's move is computed, stored at the deadline
        for _ in range(3):
            await asyncio.sleep(0)
        clock.advance(0)
        for _ in range(3):
            await asyncio.sleep(0)
        [command] = door.commands
        assert isinstance(command, Act) and command.seat == 1 and command.timeout and command.expected == 5

    asyncio.run(scenario())


def test_a_rematch_offer_ends_at_its_time_and_not_before() -> None:
    async def scenario() -> None:
        clock, door = FakeClock(), FakeDoor()
        rematch = Rematch(door, clock)
        offer = {"by": 0, "accepted": [0], "declined": None, "expired": False, "expires_at": clock.now_ms() + 60_000}
        table = table_of(Status.OVER, rematch=offer)
        rematch.arm(table)
        rematch.arm(table)  # after every change: still one timer
        assert clock.pending() == 1
        clock.advance(59.9)
        assert door.commands == []
        clock.advance(0.2)
        assert door.commands == [ExpireRematch()]

    asyncio.run(scenario())
