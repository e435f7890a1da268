"""A lobby for real players, on SQLite and PostgreSQL: public tables nobody joined expire at their time (a fake
clock), leave the lobby and say so to whoever watches; a client's waiting public tables are capped; the lobby
interleaves the creators; a table's name is shown plainly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from luz.server import Settings, app_services, create_app
from luz.server.clock import FakeClock
from support.server import Peer, create_table, seats

HOUR, WEEK = 3600.0, 7 * 86400.0


@pytest.fixture
def lobby_app(database_url: str) -> Iterator[tuple[Any, FakeClock]]:
    """The app on a fake clock, its waiting tables expiring (an hour live, a week turn-based) and capped at 3 a
    client; its test client at 127.0.0.1, a trusted proxy (``X-Forwarded-For`` names another client)."""
    clock = FakeClock()
    settings = Settings(
        database_url=database_url,
        bot_workers=0,
        messages_per_second=10_000,
        trusted_proxies=("127.0.0.1",),
        waiting_tables_per_client=3,
        waiting_live_seconds=HOUR,
        waiting_turn_based_seconds=WEEK,
        deadline_scan_seconds=3600,  # the background look is the test's (expire_due), not a real second's
    )
    with TestClient(create_app(settings, clock=clock), client=("127.0.0.1", 50000)) as client:
        yield client, clock


def at(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def lobby(client: Any) -> list[str]:
    return [table["id"] for table in client.get("/api/tables").json()]


def expire_due(client: Any) -> int:
    """Let the registry's background work look for the tables due to expire now (it does every second)."""
    return int(client.portal.call(app_services(client.app).tables.expire_due))


def test_tables_nobody_joined_expire_at_their_time_and_leave_the_lobby(lobby_app: tuple[Any, FakeClock]) -> None:
    client, clock = lobby_app
    live, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    turn_based, _, _ = create_table(client, players=3, time_control="1d", seats=seats("human", "human", "random"))
    private, _, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
    full, full_tokens, _ = create_table(client, players=3, seats=seats("human", "random", "random"))
    joined = client.post(f"/api/tables/{full}/seats/0/join", json={"token": full_tokens[0]})
    assert joined.json()["table"]["status"] == "playing"
    assert set(lobby(client)) == {live, turn_based}
    with Peer(client, live, None, None, None) as watching:
        client.portal.call(clock.advance, HOUR - 1)
        assert expire_due(client) == 0
        client.portal.call(clock.advance, 1)
        assert expire_due(client) == 1  # the live table; the turn-based one waits a week
        told = watching.wait_state(lambda s: s["table"]["status"] == "expired")
        assert told["view"] is None
    assert lobby(client) == [turn_based]
    assert client.get(f"/api/tables/{live}").json()["status"] == "expired"
    refused = client.post(f"/api/tables/{live}/seats/0/join", json={"token": tokens[0]})
    assert refused.status_code == 409 and refused.json()["code"] == "expired", refused.text
    client.portal.call(clock.advance, WEEK)
    assert expire_due(client) == 1
    assert lobby(client) == []
    statuses = {t: client.get(f"/api/tables/{t}").json()["status"] for t in (turn_based, private, full)}
    assert statuses == {turn_based: "expired", private: "waiting", full: "playing"}  # a private one is not listed


def test_a_client_has_at_most_three_public_tables_waiting(lobby_app: tuple[Any, FakeClock]) -> None:
    client, clock = lobby_app
    spec = {"players": 3, "seats": [{"kind": "human"}] * 3}
    made = [client.post("/api/tables", json=spec, headers=at("2001:db8:1:2::" + str(n))) for n in range(1, 6)]
    assert [m.status_code for m in made] == [201, 201, 201, 429, 429]
    assert made[3].json()["code"] == "waiting_tables_per_client"
    assert "3 public tables waiting" in made[3].json()["detail"]
    private = client.post("/api/tables", json={**spec, "public": False}, headers=at("2001:db8:1:2::9"))
    assert private.status_code == 201  # not listed: not capped
    other = client.post("/api/tables", json=spec, headers=at("2001:db8:1:3::1"))
    assert other.status_code == 201
    client.portal.call(clock.advance, HOUR)
    assert expire_due(client) == 4
    again = client.post("/api/tables", json=spec, headers=at("2001:db8:1:2::1"))
    assert again.status_code == 201, again.text  # its tables expired: places again


def test_the_lobby_interleaves_the_creators(lobby_app: tuple[Any, FakeClock]) -> None:
    client, clock = lobby_app
    spec = {"players": 3, "seats": [{"kind": "human"}] * 3}

    def made(address: str) -> str:
        client.portal.call(clock.advance, 1)
        created = client.post("/api/tables", json=spec, headers=at(address))
        assert created.status_code == 201, created.text
        return str(created.json()["table"]["id"])

    a1, b1, a2, a3, b2, c1 = (
        made(address) for address in ("1.1.1.1", "2.2.2.2", "1.1.1.1", "1.1.1.1", "2.2.2.2", "3.3.3.3")
    )
    # Each creator's newest first (newest first), then each one's second newest, and so on.
    assert lobby(client) == [c1, b2, a3, a2, b1, a1]


@pytest.mark.parametrize(
    "name", ["bell\x07", "colour \x1b[31mred", "bidi \u202eoverride", "zero\u200bwidth", "a" * 81, "\u0958" * 80]
)
def test_a_table_name_is_plain_text(client: Any, name: str) -> None:
    refused = client.post("/api/tables", json={"name": name})
    assert refused.status_code == 422, refused.text


def test_a_table_name_is_trimmed_and_kept_as_typed(client: Any) -> None:
    created = client.post("/api/tables", json={"name": "  Friday\t night\n  👩\u200d👩\u200d👧 "})
    assert created.json()["table"]["name"] == "Friday night 👩\u200d👩\u200d👧"
