"""A duplicate Swiss tournament played through the server (docs/TOURNAMENTS.md), on SQLite and PostgreSQL: 13
players at 4-player tables for 3 rounds, bots filling the last table, every table of a round on one seed, the
standings as the duplicate scores of the stored results, and no record of a round open to its players before it
ends."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from luz.server import app_services
from luz.server.tables.commands import TakeOver
from support.server import guest, wait_for

PASSWORD = "correct horse battery"


def account(client: Any, username: str) -> dict[str, str]:
    made = client.post(
        "/api/account/register", json={"username": username, "password": PASSWORD}, headers=guest(client)
    )
    assert made.status_code == 201, made.text
    return {"X-Luz-Session": made.json()["session"]}


def create(client: Any, headers: dict[str, str], **spec: Any) -> dict[str, Any]:
    body = {"name": "Sunday duplicate", "players": 4, "rounds": 3, "time_control": "3+10", "capacity": 13, **spec}
    made = client.post("/api/tournaments", json=body, headers=headers)
    assert made.status_code == 201, made.text
    answer: dict[str, Any] = made.json()
    return answer


def bots_play(client: Any, table_id: str) -> None:
    """Every human seat of the table handed to a bot, through the door (the test's players never connect)."""
    tables = app_services(client.app).tables

    async def hand_over() -> None:
        table = await tables.get(table_id)
        assert table is not None
        for seat in table.state.seats:
            if seat.kind == "human":
                await tables.submit(table, TakeOver(seat.seat))

    client.portal.call(hand_over)


def round_page(client: Any, tournament_id: str, round_no: int) -> dict[str, Any] | None:
    """The tournament's page once round ``round_no`` is being played (or over)."""
    page: dict[str, Any] = client.get(f"/api/tournaments/{tournament_id}").json()
    return page if page["round"] == round_no else None


def over(client: Any, table_id: str) -> bool:
    return bool(client.get(f"/api/tables/{table_id}").json()["status"] == "over")


def test_guests_may_not_create_and_bad_settings_are_refused(client: Any) -> None:
    body = {"players": 4, "rounds": 3, "time_control": "3+10", "capacity": 8}
    refused = client.post("/api/tournaments", json=body, headers=guest(client))
    assert refused.status_code == 403 and refused.json()["code"] == "account_required"
    owner = account(client, "owner")
    assert client.post("/api/tournaments", json={**body, "rounds": 10}, headers=owner).status_code == 422
    assert client.post("/api/tournaments", json={**body, "players": 6}, headers=owner).status_code == 422
    unstartable = {k: v for k, v in body.items() if k != "capacity"}
    assert client.post("/api/tournaments", json=unstartable, headers=owner).status_code == 422
    made = create(client, owner, capacity=8)
    player = guest(client)
    assert client.post(f"/api/tournaments/{made['id']}/join", headers=player).json()["you"] is True
    left = client.post(f"/api/tournaments/{made['id']}/leave", headers=player)
    assert left.status_code == 200 and left.json()["players"] == []


def test_one_place_per_client_address(database_url: str) -> None:
    from fastapi.testclient import TestClient

    from luz.server import Settings, create_app

    settings = Settings(database_url=database_url, bot_workers=0, seats_per_address=1)
    with TestClient(create_app(settings)) as client:
        made = create(client, account(client, "owner"), capacity=8)
        assert client.post(f"/api/tournaments/{made['id']}/join", headers=guest(client)).status_code == 200
        second = client.post(f"/api/tournaments/{made['id']}/join", headers=guest(client))
        assert second.status_code == 409 and second.json()["code"] == "one_place_per_client"


def test_thirteen_players_play_three_duplicate_rounds(client: Any) -> None:
    services = app_services(client.app)
    store = services.tables.store
    made = create(client, account(client, "owner"))
    players = [guest(client) for _ in range(13)]
    for n, player in enumerate(players):
        client.post("/api/me/name", json={"name": f"player {n}"}, headers=player)
        joined = client.post(f"/api/tournaments/{made['id']}/join", headers=player)
        assert joined.status_code == 200, joined.text
    page = client.get(f"/api/tournaments/{made['id']}").json()
    assert page["status"] == "playing" and page["round"] == 1  # full: it started
    late = client.post(f"/api/tournaments/{made['id']}/join", headers=guest(client))
    assert late.status_code == 409 and late.json()["code"] in {"started", "full"}

    seen_seeds = []
    for round_no in (1, 2, 3):
        page = wait_for(lambda r=round_no: round_page(client, made["id"], r))  # type: ignore[misc]
        tables = page["played"][round_no - 1]["tables"]
        assert len(tables) == 4
        summaries = [client.get(f"/api/tables/{t['id']}").json() for t in tables]
        assert {summary["tournament"] for summary in summaries} == {made["id"]}  # no rematch there: one game
        humans = [[s["name"] for s in t["seats"] if not s["bot"]] for t in tables]
        assert [len(h) for h in humans] == [4, 4, 4, 1]  # bots fill the last table
        assert sorted(n for h in humans for n in h) == sorted(f"player {n}" for n in range(13))
        seeds = {store.record_of(t["id"], 1)[0] for t in tables}  # type: ignore[index]
        assert len(seeds) == 1  # the same cards at every table
        seen_seeds.append(seeds.pop())
        shown = [client.get(f"/api/tournaments/{made['id']}").text, client.get("/api/tournaments").text]
        shown += [client.get(f"/api/tables/{t['id']}").text for t in tables]
        assert not any("seed" in text or str(seen_seeds[-1]) in text for text in shown)  # the seed is never sent
        first = tables[0]["id"]
        bots_play(client, first)
        wait_for(lambda f=first: over(client, f), timeout=60)  # type: ignore[misc]
        if (
            round_no == 1
        ):  # the round goes on: its finished table's record is closed to everyone, its socket to its players
            assert client.get(f"/api/tables/{first}/record", headers=players[0]).status_code == 409
            during = client.get(f"/api/tournaments/{made['id']}").json()  # no finished table's points before the end
            assert all(line["rounds"] == [] and line["points"] == 0 for line in during["standings"])
            with (
                pytest.raises(WebSocketDisconnect) as closed,
                client.websocket_connect(f"/ws/tables/{first}", headers=players[12]) as socket,
            ):
                socket.receive_json()
            assert closed.value.code == 4403
            with client.websocket_connect(f"/ws/tables/{first}", headers=guest(client)) as socket:
                assert socket.receive_json()["type"] == "state"  # an outsider watches
            seated = next(s["name"] for s in tables[0]["seats"] if not s["bot"])
            finished = players[int(seated.removeprefix("player "))]
            profile_url = f"/api/players/{client.get('/api/me', headers=finished).json()['id']}"
            profile = client.get(profile_url).json()
            assert profile["games"] == [] and profile["stats"]["all"]["games"] == 0  # not before the round ends
        for table in tables[1:]:
            bots_play(client, table["id"])
        for table in tables:
            wait_for(lambda t=table: over(client, t["id"]), timeout=60)  # type: ignore[misc]
        wait_for(lambda r=round_no: client.get(f"/api/tournaments/{made['id']}").json()["played"][r - 1]["over"])  # type: ignore[misc]
        assert client.get(f"/api/tables/{first}/record", headers=players[0]).status_code == 200  # open now
        if round_no == 1:
            assert [game["table"] for game in client.get(profile_url).json()["games"]] == [first]
    assert len(set(seen_seeds)) == 3

    final = client.get(f"/api/tournaments/{made['id']}").json()
    assert final["status"] == "over" and len(final["played"]) == 3
    # The standings, recomputed from the stored results: points minus the mean of the round's same seat.
    expected: dict[str, float] = {}
    for played in final["played"]:
        by_seat: dict[int, list[int]] = {}
        rows = []
        for table in played["tables"]:
            for result in store_results(store, table["id"]):
                by_seat.setdefault(result["seat"], []).append(result["points"])
                rows.append(result)
        for result in rows:
            if result["kind"] == "human":
                mean = sum(by_seat[result["seat"]]) / len(by_seat[result["seat"]])
                expected[result["name"]] = expected.get(result["name"], 0.0) + round(result["points"] - mean, 2)
    lines = final["standings"]
    assert len(lines) == 13 and [line["rank"] for line in lines] == list(range(1, 14))
    for line in lines:
        assert line["score"] == pytest.approx(expected[line["name"]], abs=0.011)
        assert len(line["rounds"]) == 3
    scores = [line["score"] for line in lines]
    assert scores == sorted(scores, reverse=True)


def store_results(store: Any, table_id: str) -> list[dict[str, Any]]:
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from luz.server.db import ResultRow

    with Session(store.engine) as session:
        rows = session.scalars(select(ResultRow).where(ResultRow.table_id == table_id, ResultRow.game_no == 1))
        return [{"seat": r.seat, "kind": r.kind, "name": r.name, "points": r.points} for r in rows]


def test_a_start_time_starts_it_with_those_who_joined_or_ends_it_unplayed(database_url: str) -> None:
    """At its start time (a fake clock moved on) a tournament starts with its players (2 at a table of 4: 2 bots),
    or, with a single player, ends unplayed; a start time past is refused."""
    from datetime import UTC, datetime

    from fastapi.testclient import TestClient

    from luz.server import Settings, create_app
    from luz.server.clock import FakeClock

    clock = FakeClock()
    with TestClient(create_app(Settings(database_url=database_url, bot_workers=0), clock)) as client:
        owner = account(client, "owner")
        soon = datetime.fromtimestamp(clock.now() + 3600, UTC).isoformat()
        past = datetime.fromtimestamp(clock.now() - 60, UTC).isoformat()
        refused = client.post("/api/tournaments", json={"time_control": "1d", "starts_at": past}, headers=owner)
        assert refused.status_code == 422 and "passed" in refused.text
        made = create(client, owner, capacity=None, starts_at=soon)
        alone = create(client, owner, capacity=None, starts_at=soon, name="Lonely")
        for _ in range(2):
            assert client.post(f"/api/tournaments/{made['id']}/join", headers=guest(client)).json()["status"] == "open"
        client.post(f"/api/tournaments/{alone['id']}/join", headers=guest(client))
        assert client.get(f"/api/tournaments/{made['id']}").json()["status"] == "open"  # not yet
        client.portal.call(clock.advance, 3601)
        page = client.get(f"/api/tournaments/{made['id']}").json()
        assert page["status"] == "playing" and page["round"] == 1
        assert [seat["bot"] for seat in page["played"][0]["tables"][0]["seats"]] == [False, False, True, True]
        lonely = client.get(f"/api/tournaments/{alone['id']}").json()
        assert lonely["status"] == "over" and lonely["played"] == []
        listed = {t["id"]: t for t in client.get("/api/tournaments").json()}
        assert listed[made["id"]]["players"] == 2 and listed[alone["id"]]["status"] == "over"
