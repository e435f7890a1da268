"""A finished game's review at the server: computed in the bot processes a decision at a time, the same as the
offline review (which reads only the seat's views), stored once, served from the database, and refused while the
game is played, beyond one per identity and beyond the server's queue; beyond the places computed at once, they
wait their turn."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from luz.bots.review import ReviewSettings, review_game, values_batch
from luz.server import Settings, app_services, create_app
from luz.server.db import ReviewRow
from luz.server.tables.botpool import BotPool
from support.server import create_table, guest, join_all, seats, wait_for

WORLDS = 8


@pytest.fixture
def reviewing(database_url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url, bot_workers=1, review_worlds=WORLDS, review_queue=2)
    with TestClient(create_app(settings)) as client:
        yield client


def finished_table(client: TestClient) -> str:
    table_id, _, _ = create_table(client, players=3, seats=seats("random", "heuristic", "random"))
    wait_for(lambda: client.get(f"/api/tables/{table_id}").json()["status"] == "over", timeout=60, step=0.05)
    return table_id


def ready(client: TestClient, path: str) -> dict[str, Any] | None:
    response = client.get(path)
    assert response.status_code in (200, 202), response.text
    return response.json()["review"] if response.status_code == 200 else None


def test_a_finished_game_is_reviewed_once_then_served_from_the_database(reviewing: TestClient) -> None:
    client = reviewing
    table_id = finished_table(client)
    record = client.get(f"/api/tables/{table_id}/record").json()
    path = f"/api/tables/{table_id}/games/1/review?seat=1"
    me, other = guest(client), guest(client)
    assert client.get(path).status_code == 404, "never asked"
    asked = client.post(path, headers=me)
    assert asked.status_code == 202 and asked.json()["status"] in ("queued", "running"), asked.text
    # One review at a time per identity; anyone may wait on the one being computed.
    refused = client.post(f"/api/tables/{table_id}/games/1/review?seat=0", headers=me)
    assert refused.status_code == 429 and "one review at a time" in refused.json()["detail"]
    assert client.post(path, headers=other).status_code in (200, 202)
    review = wait_for(lambda: ready(client, path), timeout=120, step=0.1)
    # The same review as offline, from the same record: the server adds nothing the seat did not see.
    assert review == review_game(record, 1, ReviewSettings(worlds=WORLDS))
    assert review["settings"]["worlds"] == WORLDS and review["seat"] == 1
    assert len(review["deals"]) == len(record["deals"])
    # Stored once; asked again, it is answered from the database; the record is untouched.
    again = client.post(path, headers=other)
    assert again.status_code == 200 and again.json() == {"status": "ready", "review": review}
    with Session(app_services(client.app).engine) as session:
        assert session.scalar(select(func.count()).select_from(ReviewRow)) == 1
    assert client.get(f"/api/tables/{table_id}/record").json() == record


def test_reviews_are_refused_while_played_and_for_what_does_not_exist(reviewing: TestClient) -> None:
    client = reviewing
    me = guest(client)
    waiting, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "random"))
    assert client.post(f"/api/tables/{waiting}/games/1/review?seat=0", headers=me).status_code == 404, "no game yet"
    join_all(client, waiting, tokens)  # the game starts, and waits for its human
    playing = client.post(f"/api/tables/{waiting}/games/1/review?seat=0", headers=me)
    assert playing.status_code == 409 and "not over" in playing.json()["detail"]
    assert client.get(f"/api/tables/{waiting}/games/1/review?seat=0").status_code == 409
    assert client.post("/api/tables/nosuchtable/games/1/review?seat=0", headers=me).status_code == 404
    table_id = finished_table(client)
    assert client.post(f"/api/tables/{table_id}/games/2/review?seat=0", headers=me).status_code == 404
    bad_seat = client.post(f"/api/tables/{table_id}/games/1/review?seat=3", headers=me)
    assert bad_seat.status_code == 422 and "seat must be 0..2" in bad_seat.json()["detail"]
    assert client.post(f"/api/tables/{table_id}/games/1/review?seat=-1", headers=me).status_code == 422
    assert client.post(f"/api/tables/{table_id}/games/1/review?seat=0").status_code == 401, "no identity"


def test_reviews_beyond_the_servers_places_wait_their_turn(database_url: str) -> None:
    """Two computed at once (review_queue=2); the others wait in the queue, told their position, until
    ``review_waiting`` are waiting: then 429."""
    settings = Settings(
        database_url=database_url, bot_workers=1, review_worlds=100_000, review_queue=2, review_waiting=1
    )
    with TestClient(create_app(settings)) as client:
        table_id = finished_table(client)
        answers = [
            client.post(f"/api/tables/{table_id}/games/1/review?seat={seat}", headers=guest(client))
            for seat in range(3)
        ]
        assert [a.status_code for a in answers] == [202, 202, 202], [a.text for a in answers]
        assert answers[2].json() == {"status": "queued", "position": 1}
        assert client.get(f"/api/tables/{table_id}/games/1/review?seat=2").json() == answers[2].json()
        other = finished_table(client)
        full = client.post(f"/api/tables/{other}/games/1/review?seat=0", headers=guest(client))
        assert full.status_code == 429 and "queue is full" in full.json()["detail"] and full.headers["Retry-After"]


def test_one_address_cannot_hold_the_queue_with_free_guests(database_url: str) -> None:
    # So many worlds that the first review is still being computed when the second is asked, on any machine.
    settings = Settings(database_url=database_url, bot_workers=1, review_worlds=100_000, reviews_per_client=1)
    with TestClient(create_app(settings)) as client:
        table_id = finished_table(client)
        first = client.post(f"/api/tables/{table_id}/games/1/review?seat=0", headers=guest(client))
        assert first.status_code == 202, first.text
        second = client.post(f"/api/tables/{table_id}/games/1/review?seat=1", headers=guest(client))
        assert second.status_code == 429 and "one review at a time" in second.json()["detail"], second.text


class FirstDealOnly:
    """The bot pool, holding back the worlds of every decision after the first deal's until :attr:`go` is set."""

    def __init__(self, pool: BotPool) -> None:
        self.pool = pool
        self.go = threading.Event()

    def submit(self, share: str, fn: Any, *args: Any) -> Future[Any]:
        if fn is not values_batch or args[2].startswith("0:"):  # args[2]: the decision's key, "deal:index"
            return self.pool.submit(share, fn, *args)
        held: Future[Any] = Future()

        def later() -> None:
            self.go.wait()
            inner = self.pool.submit(share, fn, *args)
            inner.add_done_callback(lambda done: held.set_result(done.result()))

        threading.Thread(target=later, daemon=True).start()
        return held

    def recover(self) -> None:
        self.pool.recover()


def test_the_deals_reviewed_are_shown_while_the_rest_is_computed(reviewing: TestClient) -> None:
    """While later deals are computed, the status carries the deals whose decisions are all reviewed: each its
    summary and its decisions' entries, exactly the final review's first deals, nothing more."""
    client = reviewing
    table_id = finished_table(client)
    reviews = app_services(client.app).reviews
    assert reviews.pool is not None
    held = FirstDealOnly(reviews.pool)
    reviews.pool = held  # type: ignore[assignment]
    path = f"/api/tables/{table_id}/games/1/review?seat=1"
    assert client.post(path, headers=guest(client)).status_code == 202

    def first_deal() -> dict[str, Any] | None:
        answer = client.get(path)
        assert answer.status_code == 202, answer.text
        status: dict[str, Any] = answer.json()
        return status if status["status"] == "running" and status["deals"] else None

    running = wait_for(first_deal, timeout=60, step=0.05)
    (deal,) = running["deals"]
    assert deal["deal"] == 1 and deal["decisions"] and {d["deal"] for d in deal["decisions"]} == {1}
    assert running["done"] == len(deal["decisions"]) < running["total"], "the second deal's decisions are held"
    held.go.set()
    review = wait_for(lambda: ready(client, path), timeout=120, step=0.1)
    assert deal["summary"] == review["deals"][0]
    assert deal["decisions"] == [d for d in review["decisions"] if d["deal"] == 1]
    assert review["decisions"][: len(deal["decisions"])] == deal["decisions"], "a prefix of the review"
    assert running["total"] == len(review["decisions"])
