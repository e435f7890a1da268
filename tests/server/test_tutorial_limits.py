"""The tutorial's table is created like any other: by an identity (a new guest's when the request has none), one
unfinished tutorial each, within the client's creation rate and its places for tables that bots play alone, and
never from another site's page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from luz.server import Settings, app_services, create_app
from luz.server.db import TableRow

pytestmark = pytest.mark.integration  # the whole app in process, on a SQLite file


def app_client(tmp_path: Path, **changes: Any) -> TestClient:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/luz.sqlite3", bot_workers=0, bot_pace=5.0, **changes)
    return TestClient(create_app(settings))


def test_a_second_tutorial_of_one_identity_is_the_unfinished_one(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        first = client.post("/api/tutorial", json={})
        assert first.status_code == 201 and first.json()["token"] and not first.json()["resumed"]
        again = client.post("/api/tutorial", json={})
        assert again.status_code == 200
        assert again.json() == {"table_id": first.json()["table_id"], "seat": 0, "token": None, "resumed": True}
        # The seat is the identity's: its cookie opens it without the token.
        with client.websocket_connect(f"/ws/tables/{first.json()['table_id']}?me=1") as ws:
            state = ws.receive_json()
            assert state["type"] == "state" and state["seat"] == 0
        other = TestClient(client.app)  # another browser: another guest, another tutorial
        assert other.post("/api/tutorial", json={}).json()["table_id"] != first.json()["table_id"]


def test_a_finished_tutorial_makes_room_for_a_new_one(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        first = client.post("/api/tutorial", json={}).json()["table_id"]
        table = app_services(client.app).tables.live[first]
        with app_services(client.app).tables.store.engine.begin() as connection:
            connection.execute(update(TableRow).where(TableRow.id == first).values(status="over"))
        table.state.status = "over"
        second = client.post("/api/tutorial", json={})
        assert second.status_code == 201 and second.json()["table_id"] != first


def test_tutorials_count_in_the_clients_creation_rate(tmp_path: Path) -> None:
    with app_client(tmp_path, tables_per_minute="3/minute") as client:
        for _ in range(2):
            assert client.post("/api/tables", json={"players": 3}).status_code == 201
        assert TestClient(client.app).post("/api/tutorial", json={}).status_code == 201
        refused = TestClient(client.app).post("/api/tutorial", json={})
        assert refused.status_code == 429 and 0 < int(refused.headers["retry-after"]) <= 60
        assert "too many tables" in refused.json()["detail"]


def test_tutorials_count_among_the_clients_tables_of_bots(tmp_path: Path) -> None:
    """Its bots play on alone once its human has gone: a tutorial takes one of the client's places."""
    with app_client(tmp_path, bot_tables_per_client=2) as client:
        for _ in range(2):
            assert TestClient(client.app).post("/api/tutorial", json={}).status_code == 201
        refused = TestClient(client.app).post("/api/tutorial", json={})
        assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
        bots = [{"kind": "bot", "bot": "random"}] * 3
        assert client.post("/api/tables", json={"players": 3, "seats": bots}).status_code == 429


def test_a_tutorial_from_another_sites_page_is_refused(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        client.get("/api/me")  # the page's first call: a guest and its cookie
        assert client.cookies, "a guest's cookie"
        foreign = client.post("/api/tutorial", json={}, headers={"origin": "https://evil.example"})
        assert foreign.status_code == 403 and "another site" in foreign.json()["detail"]
        cross = client.post("/api/tutorial", json={}, headers={"sec-fetch-site": "cross-site"})
        assert cross.status_code == 403
        assert client.post("/api/tutorial", json={}).status_code == 201
