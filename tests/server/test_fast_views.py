"""The server's fast path (every seat's view built from shared parts by ``ViewsJson``, once per version; orjson; the
two-statement store) sends exactly what the engine's view function gives: every action of many games, every seat
(two connections for one of them) and the spectator."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from luz.engine import EDITIONS, Game, Phase, ViewsJson, action_from_json, action_to_json, get_edition, view
from luz.engine.beliefs import json_with_hints, with_hints
from luz.server import Settings
from luz.server.db import ActionRow, make_engine, migrate, now
from luz.server.store import AppendedAction, StaleVersion, Store
from luz.server.tables import Registry, Table
from luz.server.tables.broker import MemoryBroker
from luz.server.tables.commands import Act, Attach, Start
from luz.server.tables.fanout import Encoder, Fanout, view_json
from luz.server.tables.model import dumps


class Recorder:
    """A connection that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, data: str) -> None:
        self.sent.append(json.loads(data))


def engine_view(game: Game, seat: int | None, hints: bool) -> dict[str, Any]:
    """The engine's view, through the standard library's JSON (as a client decodes it)."""
    seen = view(game, seat)
    data: dict[str, Any] = json.loads(json.dumps((with_hints(seen) if hints else seen).to_json()))
    return data


async def play_games(url: str, edition: str, players: int, hints: bool, seed: int) -> int:
    """Random games at one table through the Registry; returns the number of states checked."""
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine)
    manager = Registry(store, MemoryBroker(), None, Settings(database_url=url, bot_workers=0))
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
        runtime = await manager.get(table_id)
        assert runtime is not None
        connections: dict[int | None, list[Recorder]] = {seat: [Recorder()] for seat in range(players)}
        connections[0].append(Recorder())
        connections[None] = [Recorder()]
        for seat, recorders in connections.items():
            for recorder in recorders:
                await manager.submit(runtime, Attach(seat, recorder))
        await manager.submit(runtime, Start())
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
                assert_encoder_as_dumps(manager.fanout, runtime, list(connections))
                if runtime.state.status == "over":
                    break
                seat = reference.current_player
                assert seat is not None
                action = rng.choice(view(reference, seat).legal_actions)
                move = action_from_json(action_to_json(action))
                await manager.submit(runtime, Act(seat, move, runtime.state.version))
                reference.apply(action, seat)
            await manager.submit(runtime, Start(next_game=True))
    finally:
        await manager.close()
        engine.dispose()
    return checked


def assert_encoder_as_dumps(fanout: Fanout, table: Table, seats: list[int | None]) -> None:
    """Each state message written with the table's summary encoded once is byte for byte the message encoded whole."""
    summary = fanout.summary(table)
    encoder = Encoder(table.state.version, summary)
    for seat in seats:
        assert encoder.state(seat, view_json(table, seat)) == dumps(fanout.message(table, seat, summary)), seat


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


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_views_json_equals_the_engine_view_on_every_action(edition: str) -> None:
    """Every seat's and the spectator's, with and without hints, before the deal and after the game too; each built
    from the views of the state before."""
    rules = get_edition(edition)
    checked = 0
    for players in sorted(rules.values):
        for seed in range(2):
            rng = random.Random(f"{edition}:{players}:{seed}")
            game = Game(rules, players, rules.options(players), seed=seed)
            step, views = 0, None
            while True:
                views = ViewsJson(game, views)  # each hand no card of which was played since: taken from the last
                hints = step % 7 == 0  # the beliefs are slow: every seventh state
                for seat in [None, *range(players)]:
                    assert views.of(seat) == view(game, seat).to_json(), (seat, step)
                    if hints:
                        assert json_with_hints(views, seat) == with_hints(view(game, seat)).to_json(), (seat, step)
                        assert json_with_hints(views, seat) is json_with_hints(views, seat)  # built once
                    checked += 1
                if game.current_player is None:
                    break
                game.apply(rng.choice(list(game.legal_actions())))
                step += 1
            assert game.phase is Phase.GAME_OVER
    assert checked > 2 * 100 * 4


def test_views_json_refuses_a_seat_the_game_has_not() -> None:
    game = Game(get_edition("iello-2024"), 4, get_edition("iello-2024").options(4), seed=1)
    for seat in (4, -1, True):
        with pytest.raises(ValueError):
            ViewsJson(game).of(seat)  # type: ignore[arg-type]


def test_actions_stored_through_the_driver_read_back_as_those_through_sqlalchemy(database_url: str) -> None:
    """An action that does not end the game is stored on the driver's connection, the game's last through
    SQLAlchemy: the same rows (numbered in turn, times of one kind); a stale version stores nothing."""
    engine = make_engine(database_url)
    migrate(engine)
    store = Store(engine)
    try:
        table_id, _ = store.create_table(
            name="driver",
            edition="iello-2024",
            players=3,
            options={"first_player": 0},
            public=True,
            grace_seconds=30.0,
            seats=[{"kind": "bot", "bot": "random", "name": None}] * 3,
        )
        version = store.start_game(table_id, 1, seed=5).version
        before = now()
        version = store.append_action(AppendedAction(table_id, version, 0, "bid:1"))
        with pytest.raises(StaleVersion):
            store.append_action(AppendedAction(table_id, version - 1, 1, "bid:2"))
        version = store.append_action(AppendedAction(table_id, version, 1, "bid:3", game_over=True, results=[]))
        with Session(engine) as session:
            rows = session.scalars(select(ActionRow).where(ActionRow.table_id == table_id).order_by(ActionRow.seq))
            stored = [(r.seq, r.seat, r.action, r.created_at) for r in rows]
        assert [row[:3] for row in stored] == [(1, 0, "bid:1"), (2, 1, "bid:3")]
        driver_time, sqlalchemy_time = stored[0][3], stored[1][3]
        assert type(driver_time) is type(sqlalchemy_time) and driver_time.tzinfo == sqlalchemy_time.tzinfo
        assert before.replace(tzinfo=driver_time.tzinfo) <= driver_time <= sqlalchemy_time
        assert store.load(table_id).version == version and store.load(table_id).actions == ["bid:1", "bid:3"]
    finally:
        engine.dispose()


class Stuck:
    """A connection that never takes a message (its reader stopped reading)."""

    async def send_text(self, data: str) -> None:
        await asyncio.Event().wait()


def test_a_connection_that_takes_no_message_is_dropped_and_the_others_are_served(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("luz.server.tables.fanout.SEND_SECONDS", 0.2)

    async def scenario() -> None:
        engine = make_engine(sqlite_url)
        migrate(engine)
        store = Store(engine)
        manager = Registry(store, MemoryBroker(), None, Settings(database_url=sqlite_url, bot_workers=0))
        try:
            table_id, tokens = store.create_table(
                name="stuck",
                edition="iello-2024",
                players=3,
                options={"first_player": 0},
                public=True,
                grace_seconds=3600,
                seats=[{"kind": "human"}] * 3,
            )
            for seat, token in tokens.items():
                store.join(table_id, seat, f"p{seat}", token)
            runtime = await manager.get(table_id)
            assert runtime is not None
            stuck, served = Stuck(), Recorder()
            await manager.submit(runtime, Attach(2, served))
            await manager.submit(runtime, Attach(1, stuck))  # its arrival is told to the others, not to itself
            started = asyncio.get_running_loop().time()
            await manager.fanout.broadcast(runtime)
            assert asyncio.get_running_loop().time() - started < 2
            assert served.sent[-1]["version"] == runtime.state.version
            assert not runtime.connected(1) and runtime.connected(2)
            # The others are told the dropped seat is gone, as when a socket closes (its later detach finds it gone).
            await manager.settled()
            told = served.sent[-1]
            assert told["version"] == runtime.state.version
            assert [seat["connected"] for seat in told["table"]["seats"]] == [False, False, True]
        finally:
            await manager.close()
            engine.dispose()

    asyncio.run(scenario())
