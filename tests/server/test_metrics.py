"""``GET /metrics`` of a real ``luz serve``: off without ``LUZ_METRICS_TOKEN``, 401 without the token, and its
counters moving during a game driven over WebSocket (actions, acknowledgements, connections, refusals, deadlines).

The tests of a server process are slow (each server start takes seconds): marked ``slow``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from luz.server.metrics import Metrics, token_matches
from support.server import (
    Message,
    ServerProcess,
    Truth,
    WirePeer,
    children_of,
    create_joined,
    open_store,
    play_wire,
    seats,
    wait_for,
)

TOKEN = "metrics-token-of-the-tests-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TABLES_PER_MINUTE = 3


def test_each_app_counts_in_a_registry_of_its_own() -> None:
    first, second = Metrics(), Metrics()  # the same names, no collision
    first.action_stored("bid", "human")
    first.refused("tables_per_minute")
    first.acknowledged(0.003)
    second.watch(lambda: 7, lambda: {"playing": 2, "over": 5})
    one, two = first.exposition().decode(), second.exposition().decode()
    assert value(one, "luz_actions_stored_total", kind="bid", source="human") == 1
    assert value(one, "luz_refusals_total", limit="tables_per_minute") == 1
    assert value(one, "luz_ack_seconds_bucket", le="0.005") == 1
    assert value(one, "luz_ack_seconds_bucket", le="0.0025") == 0
    assert "luz_live_tables" not in one
    assert value(two, "luz_actions_stored_total", kind="bid", source="human") == 0
    assert value(two, "luz_live_tables") == 7
    assert value(two, "luz_stored_tables", status="over") == 5
    assert "luz_bot_queue" not in two  # no bot processes


@pytest.mark.parametrize(
    ("authorization", "matches"),
    [
        ("Bearer " + TOKEN, True),
        ("bearer  " + TOKEN, True),
        ("Bearer " + TOKEN + "x", False),
        ("Bearer " + TOKEN[:-1], False),
        (TOKEN, False),
        ("Basic " + TOKEN, False),
        ("", False),
        (None, False),
    ],
)
def test_the_token_is_asked_for_as_a_bearer(authorization: str | None, matches: bool) -> None:
    assert token_matches(TOKEN, authorization) is matches


def test_stored_tables_are_counted_by_status(database_url: str) -> None:
    from fastapi.testclient import TestClient

    from luz.server import Settings, create_app

    settings = Settings(database_url=database_url, bot_workers=0, metrics_token=TOKEN)
    with TestClient(create_app(settings)) as client:
        for _ in range(2):
            assert client.post(
                "/api/tables", json={"players": 3, "seats": seats("human", "random", "random")}
            ).is_success
        text = client.get("/metrics", headers=AUTH).text
    assert value(text, "luz_stored_tables", status="waiting") == 2
    assert value(text, "luz_stored_tables", status="playing") == value(text, "luz_stored_tables", status="over") == 0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("metrics")
    env = {"LUZ_METRICS_TOKEN": TOKEN, "LUZ_TABLES_PER_MINUTE": f"{TABLES_PER_MINUTE}/minute"}
    process = ServerProcess(f"sqlite:///{folder}/luz.sqlite3", folder / "server.log", env=env).start()
    try:
        yield process
    finally:
        process.stop()


def scrape(server: ServerProcess) -> str:
    answer = httpx.get(f"{server.http}/metrics", headers=AUTH, timeout=10)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=")
    return answer.text


def scrape_when(server: ServerProcess, name: str, expected: float) -> str | None:
    """A scrape in which the sample ``name`` is ``expected`` (``None``: not yet)."""
    text = scrape(server)
    return text if value(text, name) == expected else None


def playing_tables(server: ServerProcess) -> float | None:
    """The stored tables being played, once a scrape counts any."""
    return value(scrape(server), "luz_stored_tables", status="playing") or None


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of an exposition: (name, labels) -> value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(text: str, name: str, **labels: str) -> float:
    """The sample ``name`` with exactly ``labels`` (0 when it is not there yet: a labelled counter never moved)."""
    return samples(text).get((name, frozenset(labels.items())), 0.0)


def total(text: str, name: str, **labels: str) -> float:
    """The sum of the samples ``name`` whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, found), v in samples(text).items() if n == name and wanted <= found)


@pytest.mark.slow
def test_metrics_need_the_token(server: ServerProcess) -> None:
    assert httpx.get(f"{server.http}/metrics").status_code == 401
    wrong = httpx.get(f"{server.http}/metrics", headers={"Authorization": "Bearer " + TOKEN[:-1] + "x"})
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"] == "Bearer"
    assert TOKEN not in wrong.text
    assert httpx.get(f"{server.http}/metrics", headers={"Authorization": TOKEN}).status_code == 401  # no scheme
    text = scrape(server)
    assert value(text, "process_resident_memory_bytes") > 0  # the client library's process metrics
    assert "python_info" in text


@pytest.mark.slow
def test_metrics_are_off_without_the_setting(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log").start()
    try:
        assert httpx.get(f"{server.http}/metrics", headers=AUTH).status_code == 404
        assert httpx.get(f"{server.http}/metrics").status_code == 404
    finally:
        server.stop()


def mid_deal(state: Message) -> bool:
    seen = state["view"]
    return seen is not None and seen["phase"] == "play" and sum(seen["tricks_won"]) >= 2


@pytest.mark.slow
def test_the_counters_move_during_a_game(server: ServerProcess) -> None:
    before = scrape(server)
    with httpx.Client(base_url=server.http, timeout=10) as http:
        table_id, tokens = create_joined(http, players=3, seats=seats("human", "random", "heuristic"))
    store = open_store(server.database_url)
    try:
        asyncio.run(play_and_scrape(server, table_id, tokens[0], Truth(store), before))
    finally:
        store.engine.dispose()


async def play_and_scrape(server: ServerProcess, table_id: str, token: str, truth: Truth, before: str) -> None:
    async with WirePeer(server.ws, table_id, token, 0, truth) as peer:
        await play_wire([peer], until=mid_deal)
        during = await asyncio.to_thread(scrape, server)
        acks = len(peer.acks)
        assert acks >= 2  # a bid and a card at least
        assert value(during, "luz_ack_seconds_count") - value(before, "luz_ack_seconds_count") == acks
        assert value(during, "luz_ack_seconds_bucket", le="+Inf") == value(during, "luz_ack_seconds_count")
        human = total(during, "luz_actions_stored_total", source="human")
        assert human - total(before, "luz_actions_stored_total", source="human") == acks
        assert value(during, "luz_actions_stored_total", kind="bid", source="human") >= 1
        assert value(during, "luz_actions_stored_total", kind="play", source="human") >= 1
        assert total(during, "luz_actions_stored_total", source="bot") > total(
            before, "luz_actions_stored_total", source="bot"
        )
        assert value(during, "luz_websocket_connections") == 1
        assert value(during, "luz_live_tables") >= 1
        # Counted in the database at most every 5 s: in a scrape of the next few seconds.
        stored = await asyncio.to_thread(wait_for, lambda: playing_tables(server), 15)
        assert stored >= 1
        # Nothing that names a table, a seat's token or a card.
        assert table_id not in during and token not in during
        assert not any(name in during for name in peer.check.hidden)

        # A refusal by a limit: a message over the size limit.
        number = next(peer.ids)
        await peer.ws.send(json.dumps({"type": "ping", "id": number, "pad": "x" * 5000}))
        refused = await peer.wait(lambda m: m["type"] == "error")
        assert refused["code"] == "too_large"
    after = await asyncio.to_thread(wait_for, lambda: scrape_when(server, "luz_websocket_connections", 0))
    assert value(after, "luz_refusals_total", limit="max_message_bytes") == 1


@pytest.mark.slow
def test_a_deadline_fired_is_counted(server: ServerProcess) -> None:
    before = value(scrape(server), "luz_deadlines_fired_total")
    with httpx.Client(base_url=server.http, timeout=10) as http:
        table_id, tokens = create_joined(
            http,
            players=3,
            seats=seats("human", "random", "random"),
            time_control={"reserve_seconds": 1},
            options={"first_player": 0},
        )
    asyncio.run(wait_for_timeout(server, table_id, tokens[0], before))


async def wait_for_timeout(server: ServerProcess, table_id: str, token: str, before: float) -> None:
    async with WirePeer(server.ws, table_id, token, 0, None) as peer:  # connected, and never moving
        await peer.wait(lambda m: m["type"] == "timeout", timeout=20)
        text = await asyncio.to_thread(scrape, server)
    assert value(text, "luz_deadlines_fired_total") - before >= 1
    assert total(text, "luz_actions_stored_total", source="timeout") >= 1


@pytest.mark.slow
def test_a_refused_table_is_counted(server: ServerProcess) -> None:
    before = value(scrape(server), "luz_refusals_total", limit="tables_per_minute")
    refused = 0
    with httpx.Client(base_url=server.http, timeout=10) as http:
        for _ in range(TABLES_PER_MINUTE + 1):  # past the rate, whatever the other tests created
            answer = http.post("/api/tables", json={"players": 3, "seats": seats("random", "random", "random")})
            refused += answer.status_code == 429
    assert refused >= 1
    assert value(scrape(server), "luz_refusals_total", limit="tables_per_minute") - before == refused


@pytest.mark.slow
def test_the_bot_pool_is_watched(tmp_path: Path) -> None:
    env = {"LUZ_METRICS_TOKEN": TOKEN}
    server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log", bot_workers=1, env=env)
    server.start()
    try:
        assert server.process is not None
        text = scrape(server)
        assert value(text, "luz_bot_queue") == 0
        assert value(text, "luz_bot_pool_replacements_total") == 0
        workers = wait_for(lambda: children_of(server.process.pid) if server.process else None, timeout=30)
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        # The pool is replaced when a move or /healthz finds the process dead.
        wait_for(lambda: httpx.get(f"{server.http}/healthz").json().get("bot_pool_replacements") == 1, timeout=30)
        assert value(scrape(server), "luz_bot_pool_replacements_total") == 1
    finally:
        server.stop()
