"""Turn-based comfort (docs/PROTOCOL.md, "Time bank" and "Vacation"): a seat's time bank spent before its timeout,
and an account's vacation that pauses the clock of each of its turn-based games and resumes it with the time it had.

Each test runs on SQLite and PostgreSQL. A day cannot pass in a test: a deadline passes by moving the stored turn's
start back (``age``, as tests/server/test_turn_based.py); a vacation's end comes on a ``FakeClock``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from luz.server import Settings, app_services, create_app
from luz.server.clock import SYSTEM_CLOCK, FakeClock
from luz.server.timecontrol import DAY_MS, ends_at
from support.server import Peer, action_log, create_table, guest, join_all, wait_for

PASSWORD = "a long enough password 42"


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Tables leave memory as soon as nobody is at them; deadlines are looked for ten times a second. The time bank
    tests run on the real clock (``client``: tables leave memory on it), the vacation tests on a fake one
    (``app``)."""
    return Settings(
        database_url=database_url,
        bot_workers=0,
        messages_per_second=10_000,
        idle_table_seconds=0.3,
        deadline_scan_seconds=0.1,
        notify_seconds=24 * 3600,
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(time.time())


@pytest.fixture
def app(settings: Settings, clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(settings, clock)) as test_client:
        yield test_client


def account(http: Any, username: str) -> dict[str, str]:
    """The header of a new account (a guest that registered)."""
    headers = guest(http)
    answer = http.post("/api/account/register", json={"username": username, "password": PASSWORD}, headers=headers)
    assert answer.status_code in (200, 201), answer.text
    http.cookies.clear()  # each identity by its header only
    return {"X-Luz-Session": answer.json()["session"]}


def table_with(http: Any, headers: dict[str, str], seat: int, time_control: Any = "7d", **spec: Any) -> str:
    """A three-seat table, seat 0 first to play, whose ``seat`` the account holds (guests the others)."""
    table_id, tokens, _ = create_table(http, players=3, time_control=time_control, options={"first_player": 0}, **spec)
    mine = tokens.pop(seat)
    answer = http.post(
        f"/api/tables/{table_id}/seats/{seat}/join", json={"name": "Ana", "token": mine}, headers=headers
    )
    assert answer.status_code == 200, answer.text
    join_all(http, table_id, tokens)
    return table_id


def out_of_memory(http: Any, table_id: str) -> None:
    """Wait until the table has left the server's memory (nobody at it, nothing to do)."""
    wait_for(lambda: table_id not in app_services(http.app).tables.live, timeout=60, step=0.05)


def age(http: Any, table_id: str, ms: int) -> None:
    """Move the stored turn's start ``ms`` back in time, as if that long had passed since (the table out of
    memory: it is read again when its deadline is found)."""
    out_of_memory(http, table_id)
    with app_services(http.app).engine.begin() as connection:
        stored = connection.execute(text("SELECT clock FROM tables WHERE id = :id"), {"id": table_id}).scalar()
        clock = json.loads(stored) if isinstance(stored, str) else stored
        clock["since"] -= ms
        connection.execute(
            text("UPDATE tables SET clock = :clock, deadline = deadline - :ms WHERE id = :id"),
            {"clock": json.dumps(clock), "ms": ms, "id": table_id},
        )


def stored_clock(http: Any, table_id: str) -> dict[str, Any]:
    state = app_services(http.app).tables.store.load(table_id)
    assert state is not None and state.clock is not None
    return state.clock


# -- time bank ---------------------------------------------------------------------------------------------------


def test_the_time_bank_is_spent_before_the_timeout_then_the_timeout_plays_as_before(client: TestClient) -> None:
    table_id, tokens, answer = create_table(
        client, players=3, time_control="1d", time_bank_hours=12, options={"first_player": 0}
    )
    assert answer["table"]["time_control"]["bank_ms"] == 12 * 3_600_000
    join_all(client, table_id, tokens)
    store = app_services(client.app).tables.store
    assert stored_clock(client, table_id)["banks"] == [12 * 3_600_000] * 3
    age(client, table_id, DAY_MS + 1_000)  # seat 0's day is over: its bank extends the turn

    spent = wait_for(lambda: (c := stored_clock(client, table_id)).get("extended") and c, timeout=60, step=0.05)
    assert spent["banks"] == [0, 12 * 3_600_000, 12 * 3_600_000]
    assert action_log(store, table_id) == []  # no move played for it yet
    left = ends_at(spent, 0)
    assert left is not None and 12 * 3_600_000 - 60_000 < left - SYSTEM_CLOCK.now_ms() <= 12 * 3_600_000
    assert client.get(f"/api/tables/{table_id}").json()["deadline"] == left

    age(client, table_id, 12 * 3_600_000)  # and now the bank is spent too: the timeout, as before
    log = wait_for(lambda: action_log(store, table_id), timeout=60, step=0.05)
    assert [row[2] for row in log] == [0]
    after = stored_clock(client, table_id)
    assert after["timeout"] == 0 and after["timeouts"][0] == 1
    assert "extended" not in after and after["banks"][0] == 0  # spent for the game, not refilled


def test_a_table_without_a_bank_times_out_at_its_deadline(client: TestClient) -> None:
    table_id, tokens, _ = create_table(client, players=3, time_control="1d", options={"first_player": 0})
    join_all(client, table_id, tokens)
    store = app_services(client.app).tables.store
    age(client, table_id, DAY_MS + 1_000)
    log = wait_for(lambda: action_log(store, table_id), timeout=60, step=0.05)
    assert [row[2] for row in log] == [0]


@pytest.mark.parametrize("hours", [1, 36, -12, "12"])
def test_a_bank_other_than_the_choices_is_refused_with_a_typed_422(client: TestClient, hours: Any) -> None:
    answer = client.post("/api/tables", json={"players": 3, "time_control": "1d", "time_bank_hours": hours})
    assert answer.status_code == 422


# -- vacation -----------------------------------------------------------------------------------------------------


def test_a_vacation_pauses_every_turn_based_clock_and_resumes_it_with_the_same_time_left(
    app: TestClient, clock: FakeClock
) -> None:
    ana = account(app, "ana")
    moving = table_with(app, ana, 0)  # Ana is to move here
    waiting = table_with(app, ana, 1)  # and not here
    live = table_with(app, ana, 0, time_control="5+15")
    live_before = stored_clock(app, live)
    before = ends_at(stored_clock(app, moving), 0)
    assert before is not None
    left_before = before - clock.now_ms()

    answer = app.post("/api/me/vacation", json={"days": 1}, headers=ana)
    assert answer.status_code == 200, answer.text
    until = answer.json()["until"]
    assert until == clock.now_ms() + DAY_MS and answer.json()["days_left"] == 19

    paused = stored_clock(app, moving)
    assert paused["vacation"] == [until, None, None]
    assert left_before - 5_000 < paused["held"] <= left_before
    assert ends_at(paused, 0) is None
    assert app.get(f"/api/tables/{moving}").json()["deadline"] is None  # no deadline while she is away
    assert stored_clock(app, waiting)["vacation"] == [None, until, None]
    assert stored_clock(app, live) == live_before  # a live table: nothing changes

    # The turn comes to her at the other table while she is away: her clock does not start.
    with Peer(app, waiting, None, None, None) as watcher:
        seen = watcher.wait_state(lambda s: s["table"]["clock"] is not None)
        assert seen["table"]["clock"]["vacation"] == [None, until, None]

    assert app.delete("/api/me/vacation", headers=ana).json()["until"] is None
    resumed = stored_clock(app, moving)
    assert resumed["vacation"] == [None, None, None]
    after = ends_at(resumed, 0)
    assert after is not None and paused["held"] - 5_000 < after - clock.now_ms() <= paused["held"]
    assert stored_clock(app, waiting)["vacation"] == [None, None, None]


def test_the_others_see_the_vacation_instead_of_the_countdown(app: TestClient) -> None:
    ana = account(app, "ana")
    table_id = table_with(app, ana, 0, time_control="2d")
    until = app.post("/api/me/vacation", json={"days": 3}, headers=ana).json()["until"]
    with Peer(app, table_id, None, None, None) as other:
        clock = other.wait_state(lambda s: s["table"]["clock"] is not None)["table"]["clock"]
    assert clock["vacation"] == [until, None, None]
    assert clock["running"] is None  # no countdown: her time is held
    assert 2 * DAY_MS - 60_000 < clock["remaining_ms"][0] <= 2 * DAY_MS
    games = app.get("/api/me/games", headers=ana).json()["games"]
    assert [game["vacation"] for game in games] == [[until, None, None]]


def test_a_vacation_ends_by_itself_at_its_date(app: TestClient, clock: FakeClock) -> None:
    ana = account(app, "ana")
    table_id = table_with(app, ana, 0)
    app.post("/api/me/vacation", json={"days": 2}, headers=ana)
    held = stored_clock(app, table_id)["held"]
    app.portal.call(clock.advance, DAY_MS / 1000)  # a day on: still away
    assert app.get("/api/me/vacation", headers=ana).json()["until"] is not None
    assert stored_clock(app, table_id)["vacation"][0] is not None
    app.portal.call(clock.advance, DAY_MS / 1000 + 1)  # her date: back without a request of hers
    back = wait_for(lambda: (c := stored_clock(app, table_id))["vacation"][0] is None and c, timeout=30)
    assert app.get("/api/me/vacation", headers=ana).json()["until"] is None
    ends = ends_at(back, 0)
    assert ends is not None and held - 5_000 < ends - clock.now_ms() <= held


def test_the_allowance_is_enforced_with_typed_errors(app: TestClient, clock: FakeClock) -> None:
    ana = account(app, "ana")
    state = app.get("/api/me/vacation", headers=ana).json()
    assert state["allowance_days"] == 20 and state["days_left"] == 20 and state["until"] is None

    too_many = app.post("/api/me/vacation", json={"days": 21}, headers=ana)
    assert too_many.status_code == 409 and too_many.json()["code"] == "vacation_allowance"
    assert app.post("/api/me/vacation", json={"days": 15}, headers=ana).json()["days_left"] == 5
    again = app.post("/api/me/vacation", json={"days": 1}, headers=ana)
    assert again.status_code == 409 and again.json()["code"] == "on_vacation"
    app.portal.call(clock.advance, 60)  # a minute on: her first day is begun, it counts
    ended = app.delete("/api/me/vacation", headers=ana).json()  # the 14 whole days not begun come back
    assert ended["days_left"] == 19 and ended["until"] is None
    over = app.post("/api/me/vacation", json={"days": 20}, headers=ana)
    assert over.status_code == 409 and over.json()["code"] == "vacation_allowance"

    a_guest = guest(app)
    assert app.get("/api/me/vacation", headers=a_guest).json()["days_left"] == 0
    refused = app.post("/api/me/vacation", json={"days": 1}, headers=a_guest)
    assert refused.status_code == 403 and refused.json()["code"] == "account_required"


@pytest.mark.parametrize("body", [{}, {"days": 0}, {"days": 2, "until": "2099-01-01"}, {"until": "2000-01-01"}])
def test_a_bad_vacation_request_is_refused_with_a_typed_422(app: TestClient, body: dict[str, Any]) -> None:
    ana = account(app, "ana")
    assert app.post("/api/me/vacation", json=body, headers=ana).status_code == 422


def test_a_vacation_until_a_date_counts_its_days(app: TestClient, clock: FakeClock) -> None:
    ana = account(app, "ana")
    back = time.strftime("%Y-%m-%d", time.gmtime(clock.now() + 4 * 86_400))
    answer = app.post("/api/me/vacation", json={"until": back}, headers=ana)
    assert answer.status_code == 200, answer.text
    assert answer.json()["days_left"] == 16  # 3 days and some: 4 counted


def test_a_game_that_starts_while_a_player_is_away_starts_with_their_clock_paused(
    app: TestClient, clock: FakeClock
) -> None:
    ana = account(app, "ana")
    until = app.post("/api/me/vacation", json={"days": 2}, headers=ana).json()["until"]
    table_id = table_with(app, ana, 0)  # the game starts as the last seat is taken, Ana to move
    stored = stored_clock(app, table_id)
    assert stored["vacation"] == [until, None, None] and ends_at(stored, 0) is None
    app.delete("/api/me/vacation", headers=ana)
    back = ends_at(stored_clock(app, table_id), 0)
    assert back is not None and 7 * DAY_MS - 5_000 < back - clock.now_ms() <= 7 * DAY_MS
