"""Presence through the one door: a connection opened or closed is an ``Attach`` or a ``Detach`` processed by the
writer (its table's only writer), whose effects (a grace period begun or stopped, connections closed) ``publish``
makes. Neither stores anything: a move in flight at the version before stays fresh. Driven through the registry
on a SQLite file and a fake clock (the grace period passes without sleeping)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from luz.server import Settings
from luz.server.clock import FakeClock
from luz.server.db import make_engine, migrate
from luz.server.store import Store
from luz.server.tables import Refused, Registry, Table
from luz.server.tables.broker import MemoryBroker
from luz.server.tables.commands import Act, Attach, Detach, Start

GRACE = 30.0


class Recorder:
    """A connection that keeps what it is sent and how it was closed."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed: int | None = None

    async def send_text(self, data: str) -> None:
        self.sent.append(json.loads(data))

    async def close(self, code: int) -> None:
        self.closed = code


async def seated_table(tmp_path: Path, clock: FakeClock, **settings: Any) -> tuple[Registry, Table]:
    """A 3-seat table of people, every seat joined, its game not started, in a registry on ``clock``."""
    url = f"sqlite:///{tmp_path}/presence.sqlite3"
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine)
    registry = Registry(store, MemoryBroker(), None, Settings(database_url=url, bot_workers=0, **settings), clock=clock)
    table_id, tokens = store.create_table(
        name="presence",
        edition="iello-2024",
        players=3,
        options={"first_player": 0},
        public=False,
        grace_seconds=GRACE,
        seats=[{"kind": "human"} for _ in range(3)],
    )
    for seat, token in tokens.items():
        store.join(table_id, seat, f"p{seat}", token)
    table = await registry.get(table_id)
    assert table is not None
    return registry, table


def connected(recorder: Recorder) -> list[bool]:
    """Each seat's "connected" in the last state ``recorder`` was sent."""
    return [seat["connected"] for seat in recorder.sent[-1]["table"]["seats"]]


def test_connections_come_and_go_through_the_door_and_no_move_in_flight_goes_stale(tmp_path: Path) -> None:
    async def scenario() -> None:
        clock = FakeClock()
        registry, table = await seated_table(tmp_path, clock)
        try:
            first, second, third = Recorder(), Recorder(), Recorder()
            await registry.submit(table, Attach(0, first))
            await registry.submit(table, Attach(1, second))
            assert connected(first) == [True, True, False]  # told of each arrival, not of its own
            await registry.submit(table, Attach(2, third))
            assert connected(first) == connected(second) == [True, True, True] and third.sent == []
            await registry.submit(table, Start())
            version = table.state.version
            game = table.game
            assert game is not None and game.current_player == 0
            # Seat 1 leaves and comes back, a spectator comes and goes, while seat 0 chooses its bid.
            await registry.submit(table, Detach(1, second))
            assert connected(first) == [True, False, True] and registry.presence.counting(table) == {1}
            back, spectator = Recorder(), Recorder()
            await registry.submit(table, Attach(1, back))
            await registry.submit(table, Attach(None, spectator))
            await registry.submit(table, Detach(None, spectator))
            assert connected(first) == [True, True, True] and registry.presence.counting(table) == set()
            assert table.state.version == version  # a presence is no change of the game: nothing stored
            await registry.submit(table, Act(0, game.legal_actions()[0], expected=version))  # still fresh
            assert table.state.version == version + 1
            assert first.sent[-1]["version"] == back.sent[-1]["version"] == version + 1
            assert second.sent[-1]["version"] < version + 1  # detached: no longer sent anything
        finally:
            await registry.close()

    asyncio.run(scenario())


def test_a_seat_left_for_its_grace_period_is_taken_over_until_its_player_is_back(tmp_path: Path) -> None:
    async def scenario() -> None:
        clock = FakeClock()
        registry, table = await seated_table(tmp_path, clock)
        try:
            players = {seat: Recorder() for seat in range(3)}
            for seat, recorder in players.items():
                await registry.submit(table, Attach(seat, recorder))
            await registry.submit(table, Start())
            await registry.submit(table, Detach(2, players[2]))
            await registry.submit(table, Detach(2, players[2]))  # a dropped send, then the socket's close: once
            clock.advance(GRACE - 0.001)
            await registry.settled()
            assert table.taken_over == set() and registry.presence.counting(table) == {2}
            clock.advance(0.001)
            await registry.settled()
            assert table.taken_over == {2} and registry.presence.counting(table) == set()
            assert players[0].sent[-1]["table"]["seats"][2]["bot_playing"]
            await registry.submit(table, Attach(2, Recorder()))
            assert table.taken_over == set() and not players[0].sent[-1]["table"]["seats"][2]["bot_playing"]
        finally:
            await registry.close()

    asyncio.run(scenario())


def test_a_seats_oldest_connection_beyond_its_limit_is_closed_and_spectators_are_capped(tmp_path: Path) -> None:
    async def scenario() -> None:
        clock = FakeClock()
        registry, table = await seated_table(tmp_path, clock, max_connections_per_seat=2, max_spectators_per_table=1)
        try:
            oldest, middle, newest = Recorder(), Recorder(), Recorder()
            for recorder in (oldest, middle, newest):
                await registry.submit(table, Attach(0, recorder))
            assert (oldest.closed, middle.closed, newest.closed) == (4409, None, None)
            assert table.seats[0] == {middle, newest}
            await registry.submit(table, Detach(0, oldest))  # its socket's close finds it gone: nothing told
            assert table.connected(0) and registry.presence.counting(table) == set()
            watching, refused = Recorder(), Recorder()
            await registry.submit(table, Attach(None, watching))
            with pytest.raises(Refused) as full:
                await registry.submit(table, Attach(None, refused))
            assert full.value.code == "full" and table.spectators == {watching}
            assert refused not in table.opened
        finally:
            await registry.close()

    asyncio.run(scenario())
