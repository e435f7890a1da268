"""Clocks (docs/PROTOCOL.md, "Clocks"): a reserve per player plus an increment per move, kept by the server.

Each test runs on SQLite and PostgreSQL. The arithmetic is checked under a fake wall clock; the timeout under the
real one (a one-second reserve); a restart under a real ``luz serve`` killed with ``kill -9``.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from luz.engine import view
from luz.server import app_services, create_app
from luz.server.clock import FakeClock
from luz.server.domain import build_game
from luz.server.tables import clocks
from luz.server.tables.botpool import choose_for
from support.server import (
    Peer,
    ServerProcess,
    Truth,
    WirePeer,
    action_log,
    backend_urls,
    create_table,
    first_legal,
    join_all,
    open_store,
)

TIMED = {"reserve_seconds": 60, "increment_seconds": 2}


def timed_table(client: Any, time_control: Any, **spec: Any) -> tuple[str, dict[int, str], dict[str, Any]]:
    table_id, tokens, answer = create_table(
        client, players=3, time_control=time_control, options={"first_player": 0}, **spec
    )
    join_all(client, table_id, tokens)
    return table_id, tokens, answer


@pytest.mark.parametrize(
    ("time_control", "stored"),
    [
        ("1+5", {"reserve_ms": 60_000, "increment_ms": 5_000}),
        ("3+10", {"reserve_ms": 180_000, "increment_ms": 10_000}),
        ("5+15", {"reserve_ms": 300_000, "increment_ms": 15_000}),
        ({"reserve_seconds": 2}, {"reserve_ms": 2_000, "increment_ms": 0}),
        ({"reserve_seconds": 90.5, "increment_seconds": 0.25}, {"reserve_ms": 90_500, "increment_ms": 250}),
        (None, None),
    ],
)
def test_time_controls_are_stored_and_shown(module_client: Any, time_control: Any, stored: Any) -> None:
    table_id, _, answer = create_table(module_client, players=3, time_control=time_control)
    assert answer["table"]["time_control"] == stored
    assert module_client.get(f"/api/tables/{table_id}").json()["time_control"] == stored


@pytest.mark.parametrize(
    "time_control",
    [
        "2+1",  # not a preset
        "3+10 ",
        {"reserve_seconds": 0},
        {"reserve_seconds": 0.5},
        {"reserve_seconds": 3 * 3600 + 1},
        {"reserve_seconds": 60, "increment_seconds": -1},
        {"reserve_seconds": 60, "increment_seconds": 601},
        {"reserve_seconds": 60, "delay": 3},  # unknown field
        {"increment_seconds": 5},  # no reserve
        {"reserve_seconds": "lots"},
        180,
        True,
    ],
)
def test_bad_time_controls_are_refused_with_a_typed_422(module_client: Any, time_control: Any) -> None:
    answer = module_client.post("/api/tables", json={"players": 3, "time_control": time_control})
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert detail and all(item["loc"][:2] == ["body", "time_control"] for item in detail), detail


def test_not_a_number_is_refused(module_client: Any) -> None:
    answer = module_client.post(
        "/api/tables",
        content=b'{"players": 3, "time_control": {"reserve_seconds": NaN}}',
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 422, answer.text


def test_each_move_spends_its_time_and_earns_the_increment(settings: Any) -> None:
    """The stored clock's arithmetic on the server's clock (a fake one, moved by hand)."""
    from fastapi.testclient import TestClient

    clock = FakeClock(1_000.0)
    with TestClient(create_app(settings, clock)) as client:
        each_move_spends_its_time(client, Truth(app_services(client.app).tables.store), settings, clock)


def each_move_spends_its_time(client: Any, truth: Truth, settings: Any, clock: FakeClock) -> None:
    table_id, tokens, _ = timed_table(client, TIMED)
    store = open_store(settings.database_url)
    assert store.load(table_id).clock == {"reserves": [60_000] * 3, "since": 1_000_000, "timeout": None}
    peers = [Peer(client, table_id, tokens[s], s, truth) for s in range(3)]
    for peer in peers:
        peer.__enter__()
    for peer in peers:  # each arrival's broadcast to the others is sent after the arrival's own first state
        peer.wait_state(lambda state: all(seat["connected"] for seat in state["table"]["seats"]))
    try:
        first = peers[0].view["current_player"]
        before = peers[0].state["version"]
        client.portal.call(clock.advance, 5.0)
        assert peers[first].act(first_legal(peers[first].view), peers[first].state["version"])["type"] == "ack"
        peers[0].wait_state(lambda state: state["version"] > before)  # the move's broadcast, not the sync's reply
        stored = store.load(table_id)
        assert stored.clock == {"reserves": [57_000 if s == first else 60_000 for s in range(3)], "since": 1_005_000,
                                "timeout": None}  # fmt: skip
        assert app_services(client.app).tables.live[table_id].state.clock == stored.clock

        client.portal.call(clock.advance, 1.5)
        second = build_game(stored).current_player
        assert second is not None and second != first
        # The state that answers this sync (a broadcast sent before the clock moved may still be queued).
        peers[0].send({"type": "sync"})
        answer = peers[0].wait(lambda m: m["type"] == "state" and m["table"]["clock"]["server_time"] == clock.now_ms())
        shown = answer["table"]["clock"]
        assert shown == {
            "remaining_ms": [58_500 if s == second else 57_000 if s == first else 60_000 for s in range(3)],
            "running": second,
            "server_time": 1_006_500,
            "timeout": None,
        }
        mover = peers[second]
        mover.wait_state(lambda m: m["view"]["current_player"] == second)
        assert mover.act(first_legal(mover.view), mover.state["version"])["type"] == "ack"
        # 60 s less the 1.5 s taken, plus the 2 s increment: a quick player's reserve grows.
        assert store.load(table_id).clock["reserves"][second] == 60_500
    finally:
        for peer in peers:
            peer.close()


def test_an_untimed_table_has_no_clock_and_arms_nothing(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = timed_table(client, None)
    with Peer(client, table_id, tokens[0], 0, truth) as peer:
        assert peer.state["table"]["time_control"] is None
        assert peer.state["table"]["clock"] is None
        assert app_services(client.app).tables.clocks.timers == {}


@pytest.mark.parametrize("think", [0.0, 0.08])
def test_when_time_runs_out_the_heuristic_moves_and_the_table_is_told_once(
    client: Any, truth: Truth, settings: Any, monkeypatch: pytest.MonkeyPatch, think: float
) -> None:
    """``think``: how long the bot takes (it depends on the hand it sees): the clock must not show it."""
    if think:

        def slow(*args: Any) -> Any:
            time.sleep(think)
            return choose_for(*args)

        monkeypatch.setattr(clocks, "choose_for", slow)
    table_id, tokens, _ = timed_table(client, {"reserve_seconds": 1, "increment_seconds": 0.5})
    store = open_store(settings.database_url)
    before = store.load(table_id)
    game = build_game(before)
    assert game is not None
    mover = game.current_player
    assert mover is not None
    expected = choose_for("heuristic", view(game, mover), f"{table_id}:1:{before.version}:timeout")
    with (
        Peer(client, table_id, tokens[mover], mover, truth) as player,
        Peer(client, table_id, None, None, truth) as watcher,
    ):
        for peer in (player, watcher):
            told = peer.wait(lambda m: m["type"] == "timeout", timeout=10)
            assert told == {"type": "timeout", "seat": mover, "version": before.version + 1}
            assert peer.state["version"] == before.version + 1  # the state of the move came first
            assert peer.state["table"]["clock"]["timeout"] == mover
        player.sync()
        time.sleep(0.2)
        player.pump()
        for peer in (player, watcher):
            assert [m["version"] for m in peer.check.messages if m["type"] == "timeout"].count(before.version + 1) == 1
    after = store.load(table_id)
    log = action_log(store, table_id)
    assert log[0] == (1, 1, mover, str(expected))
    # Counted at the deadline itself, the reserve spent, the increment earned. On a slow machine the next seats'
    # reserves may have run out too before this read (nobody plays): each later timeout, as the log says, moved
    # the clock on by its seat's whole reserve, 1 s the first time round and the 0.5 s increment after.
    timeouts = after.version - before.version
    assert timeouts >= 1 and len(log) >= timeouts
    spent = [1_000] * 3 + [500] * max(0, timeouts - 3)
    assert after.clock["since"] == before.clock["since"] + sum(spent[:timeouts])
    assert after.clock["reserves"][mover] == 500
    assert after.clock["timeout"] == log[timeouts - 1][2]


def test_a_move_before_the_deadline_is_stored_as_the_movers(client: Any, truth: Truth, settings: Any) -> None:
    """The move is the mover's, its reserve not spent; that no timeout's move follows the deadline it beat is
    shown on a fake clock (test_timers.test_a_move_before_the_deadline_disarms_it), without a sleep."""
    table_id, tokens, _ = timed_table(client, {"reserve_seconds": 1.5})
    store = open_store(settings.database_url)
    mover = build_game(store.load(table_id)).current_player
    with Peer(client, table_id, tokens[mover], mover, truth) as player:
        assert player.act(first_legal(player.view), player.state["version"])["type"] == "ack"
        assert not [m for m in player.check.messages if m["type"] == "timeout" and m["seat"] == mover]
    assert action_log(store, table_id)[0][2] == mover
    assert store.load(table_id).clock["reserves"][mover] > 0


# -- a real server, killed mid-turn ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_restart_mid_turn_keeps_the_clock(backend: str, tmp_path: Path) -> None:
    with backend_urls(backend, tmp_path) as url:
        asyncio.run(restart_mid_turn(url, tmp_path))


RESTART_RESERVE = 30.0
"""Long enough for a kill -9 and a restart on a loaded machine (PostgreSQL's start-up took over 15 s at load 25)."""


async def restart_mid_turn(url: str, tmp_path: Path) -> None:
    server = ServerProcess(url, tmp_path / "server.log").start()
    store = open_store(url)
    try:
        with httpx.Client(base_url=server.http, timeout=10) as http:
            table_id, tokens, _ = timed_table(http, {"reserve_seconds": RESTART_RESERVE}, grace_seconds=600)
        started = store.load(table_id)
        mover = build_game(started).current_player
        deadline = started.clock["since"] + RESTART_RESERVE * 1000
        async with WirePeer(server.ws, table_id, tokens[mover], mover, None) as player:
            assert player.state["table"]["clock"]["running"] == mover
        server.kill9()
        server.start()
        back = time.time() * 1000
        assert back < deadline - 1_000, (back - deadline, "ms: the restart outlasted the reserve")
        async with WirePeer(server.ws, table_id, None, None, None) as watcher:
            clock = watcher.state["table"]["clock"]
            # The clock kept running from the stored turn start: not a fresh reserve after the restart.
            assert clock["running"] == mover
            assert clock["remaining_ms"][mover] == max(0, deadline - clock["server_time"])
            assert clock["remaining_ms"][mover] < RESTART_RESERVE * 1000 - 500
            told = await watcher.wait(lambda m: m["type"] == "timeout", timeout=RESTART_RESERVE + 10)
            arrived = time.time() * 1000
        assert told["seat"] == mover
        assert deadline - 200 <= arrived < deadline + 5_000, (arrived - deadline, "ms after the deadline")
        log = action_log(store, table_id)
        assert [row[2] for row in log] == [mover]
        assert store.load(table_id).clock["timeout"] == mover
        assert "Traceback" not in server.log()
    finally:
        server.stop()
