"""The server's fast path (views cached per version, orjson, the two-statement store) sends exactly what the engine's
view function gives: every action of many games, every seat (two connections for one of them) and the spectator."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from luz.engine import Game, action_from_json, action_to_json, get_edition, view
from luz.server import Settings
from luz.server.db import make_engine, migrate
from luz.server.runtime import Manager, MemoryBroker
from luz.server.store import Store


class Recorder:
    """A connection that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, data: str) -> None:
        self.sent.append(json.loads(data))


def engine_view(game: Game, seat: int | None, hints: bool) -> dict[str, Any]:
    """The engine's view, through the standard library's JSON (as a client decodes it)."""
    data: dict[str, Any] = json.loads(json.dumps(view(game, seat, hints=hints).to_json()))
    return data


async def play_games(url: str, edition: str, players: int, hints: bool, seed: int) -> int:
    """Random games at one table through the Manager; returns the number of states checked."""
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine)
    manager = Manager(store, MemoryBroker(), None, Settings(database_url=url, bot_workers=0))
    rng = random.Random(seed)
    checked = 0
    try:
        options = get_edition(edition).options(players).to_json()
        table_id, tokens = store.create_table(
            name="fast views",
            edition=edition,
            players=players,
            options=options,
            public=True,
            grace_seconds=3600,
            hints=hints,
            seats=[{"kind": "human"} for _ in range(players)],
        )
        for seat, token in tokens.items():
            store.join(table_id, seat, f"p{seat}", token)
        runtime = await manager.runtime(table_id)
        assert runtime is not None
        connections: dict[int | None, list[Recorder]] = {seat: [Recorder()] for seat in range(players)}
        connections[0].append(Recorder())
        connections[None] = [Recorder()]
        for seat, recorders in connections.items():
            for recorder in recorders:
                manager.attach(runtime, seat, recorder)
        await manager.start_if_ready(runtime)
        for game_no in (1, 2):
            state = runtime.state
            assert state.seed is not None and state.game_no == game_no
            reference = Game(get_edition(edition), players, get_edition(edition).options(players), seed=state.seed)
            while True:
                for seat, recorders in connections.items():
                    for recorder in recorders:
                        last = recorder.sent[-2 if over(recorder) else -1]  # the replay comes after the state
                        assert last["type"] == "state" and last["version"] == runtime.state.version
                        assert last["seat"] == seat
                        assert last["view"] == engine_view(reference, seat, hints)
                        checked += 1
                if runtime.state.status == "over":
                    break
                seat = reference.current_player
                assert seat is not None
                action = rng.choice(view(reference, seat).legal_actions)
                await manager.act(runtime, seat, action_from_json(action_to_json(action)), runtime.state.version)
                reference.apply(action, seat)
            await manager.start_if_ready(runtime, next_game=True)
    finally:
        await manager.close()
        engine.dispose()
    return checked


def over(recorder: Recorder) -> bool:
    """Whether the last message is the finished game's replay (a spectator's, sent after its state)."""
    return recorder.sent[-1]["type"] == "replay"


@pytest.mark.parametrize(
    ("edition", "players", "hints", "seed"),
    [("iello-2024", 4, False, 1), ("iello-2024", 5, True, 2), ("korokorodou-2014", 3, False, 3)],
)
def test_fast_path_views_equal_the_engine(
    database_url: str, edition: str, players: int, hints: bool, seed: int
) -> None:
    checked = asyncio.run(play_games(database_url, edition, players, hints, seed))
    assert checked > 2 * 40 * (players + 2)  # two whole games of several deals, every connection each time
