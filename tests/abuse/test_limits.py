"""Limits per client and per table, in-process: connections per seat and per table, the cost of presence,
table creation per client, who a client is behind a proxy, and protocol details."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from luz.server import Settings, app_services, create_app
from luz.server.ratelimit import client_key
from support.server import Closed, Peer, create_table, free_port, join_all, seats


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/luz.sqlite3",
        bot_workers=0,
        messages_per_second=10_000,
        max_connections_per_seat=3,
        max_spectators_per_table=5,
        max_connections_per_client=16,
        tables_per_minute="4/minute",
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@contextlib.contextmanager
def peers(*made: Any) -> Iterator[list[Peer]]:
    """Open peers, all closed at the end (the test session waits for open connections)."""
    opened: list[Peer] = []
    try:
        for peer in made:
            opened.append(peer.__enter__())
        yield opened
    finally:
        for peer in opened:
            peer.close()


def test_a_seat_keeps_its_newest_connections_and_presence_costs_one_message(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3)
    join_all(client, table_id, tokens)
    # One token, a dozen connections (the other seat's peer first).
    made = [Peer(client, table_id, tokens[1], 1, None)] + [
        Peer(client, table_id, tokens[0], 0, None) for _ in range(12)
    ]
    with peers(*made) as (other, *mine):
        time.sleep(0.2)
        runtime = app_services(client.app).tables.live[table_id]
        assert len(runtime.seats[0]) == 3  # the newest three
        for peer in mine[:-3]:
            with pytest.raises(Closed) as ended:
                while True:
                    peer.receive(timeout=2)
            assert ended.value.code == 4409
            peer.ws = None  # closed by the server: only the test session is left to end
            peer._stack.close()
        # The others heard of seat 0 connecting once, not once per connection (before: 12 messages, and each
        # connection of the seat got one per later connection: a cost growing with the square of their number).
        heard = [m for m in other.pump() if m["type"] == "state"]
        assert len(heard) <= 2, len(heard)


def test_spectators_per_table_are_capped(client: Any) -> None:
    table_id, _, _ = create_table(client, players=3)
    with peers(*[Peer(client, table_id, None, None, None) for _ in range(5)]):
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.receive_text()
        assert refused.value.code == 4429


def test_connections_per_client_are_capped(client: Any) -> None:
    ids = [create_table(client, players=3)[0] for _ in range(4)]
    with peers(*[Peer(client, ids[n % 4], None, None, None) for n in range(16)]):
        # Table 0's fifth spectator (within the table's cap), but the client's seventeenth connection: refused.
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"/ws/tables/{ids[0]}") as ws:
            ws.receive_text()
        assert refused.value.code == 4429


def test_table_creation_is_rate_limited_with_retry_after(client: Any) -> None:
    for _ in range(4):
        assert client.post("/api/tables", json={"players": 3}).status_code == 201
    refused = client.post("/api/tables", json={"players": 3})
    assert refused.status_code == 429
    assert 0 < int(refused.headers["retry-after"]) <= 60
    assert "too many tables" in refused.json()["detail"]


def test_a_client_has_a_few_tables_of_bots_playing_at_once(tmp_path: Path) -> None:
    """Tables of bots only play on without anyone (before, as many as the creation rate allowed, each taking the
    server's time): a client may have ``bot_tables_per_client`` playing; a table with a human seat is not one."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/luz.sqlite3", bot_workers=0, bot_pace=5.0, bot_tables_per_client=2
    )
    bots = {"players": 3, "seats": seats("random", "random", "random")}
    with TestClient(create_app(settings)) as test_client:
        for _ in range(2):
            assert test_client.post("/api/tables", json=bots).status_code == 201
        refused = test_client.post("/api/tables", json=bots)
        assert refused.status_code == 429 and refused.headers["retry-after"] == "60", refused.text
        assert "2 tables of bots playing" in refused.json()["detail"]
        assert (
            test_client.post("/api/tables", json={**bots, "seats": seats("human", "random", "random")}).status_code
            == 201
        )
        manager = app_services(test_client.app).tables
        playing = next(r for r in manager.live.values() if r.state.status == "playing")
        playing.state.status = "over"  # one of them ends
        assert test_client.post("/api/tables", json=bots).status_code == 201


def test_the_client_behind_a_trusted_proxy_is_the_forwarded_address() -> None:
    forwarded = {"x-forwarded-for": "6.6.6.6, 203.0.113.7, 10.0.0.2"}
    # From a trusted proxy: the last address that is not a trusted proxy (what the client wrote comes first).
    assert client_key("10.0.0.1", forwarded, ["10.0.0.0/24"]) == "addr:203.0.113.7"
    # From anyone else, the header is the client's own writing: ignored.
    assert client_key("198.51.100.4", forwarded, ["10.0.0.0/24"]) == "addr:198.51.100.4"
    assert client_key("10.0.0.1", {}, ["10.0.0.0/24"]) == "addr:10.0.0.1"


def test_an_invalid_message_gets_its_id_back(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3)
    with Peer(client, table_id, tokens[0], 0, None) as peer:
        peer.send({"type": "action", "id": "m-1", "action": "bid:2", "extra": True})
        reply = peer.receive()
        while reply["type"] == "state":
            reply = peer.receive()
        assert reply == {"type": "error", "id": "m-1", "code": "malformed", "message": reply["message"]}
        peer.send(json.dumps({"type": "ping", "id": ["not", "an", "id"]}))
        reply = peer.receive()
        assert reply["code"] == "malformed" and reply["id"] is None


def test_new_guests_per_client_are_limited(tmp_path: Path) -> None:
    """Each guest is a database row: one client address cannot make them without end (browsers and scripts alike)."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/luz.sqlite3",
        bot_workers=0,
        guests_per_minute="3/minute",
    )
    app = create_app(settings)
    with TestClient(app) as client:
        for _ in range(2):
            assert client.post("/api/me/guest").status_code == 201
        client.cookies.clear()
        assert client.get("/api/me").status_code == 200  # a browser's first visit: the third guest
        client.cookies.clear()
        refused = client.post("/api/me/guest")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
        assert client.get("/api/me").status_code == 429
        # Another client address still gets its guest.
        other = TestClient(app, client=("198.51.100.4", 50000))
        assert other.post("/api/me/guest").status_code == 201


def test_a_shared_limit_counts_in_memory_without_redis_and_lets_through_when_redis_fails(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import asyncio

    from luz.server.ratelimit import SharedRateLimit

    async def hits(limit: SharedRateLimit) -> list[int | None]:
        return [await limit.hit("create:addr:10.0.0.1") for _ in range(3)]

    kept = asyncio.run(hits(SharedRateLimit("2/minute")))
    assert kept[:2] == [None, None] and kept[2] is not None and 0 < kept[2] <= 60
    unreachable = SharedRateLimit("2/minute", f"redis://127.0.0.1:{free_port()}/0", "test")
    assert asyncio.run(hits(unreachable)) == [None, None, None]
    assert "rate limit not checked" in caplog.text
