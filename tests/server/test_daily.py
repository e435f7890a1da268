"""The daily deal over the wire: one deal per day and edition for everyone, one attempt each, the same game for the
same moves, nothing of others' play before your attempt is over, an unfinished attempt abandoned at midnight."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from typing import Any

from fastapi.testclient import TestClient

from luz.server import Settings, app_services, create_app
from luz.server.clock import FakeClock
from luz.server.daily import seconds_left
from support.server import Message, Peer, first_legal, is_over, play

IELLO = "iello-2024"
START = 1_800_000_000.0
"""2027-01-15 08:00 UTC: the fake clock's start (16 hours before midnight)."""


def app(settings: Settings, clock: FakeClock) -> TestClient:
    return TestClient(create_app(settings, clock))


class Browser:
    """Another player on the same app: an identity of its own (a guest's session, sent as ``X-Luz-Session``),
    its requests made through the app's own client (its event loop, which holds the tables)."""

    def __init__(self, client: TestClient, name: str | None = None) -> None:
        self.client = client
        self.headers = {"X-Luz-Session": client.post("/api/me/guest").json()["session"]}
        if name is not None:
            assert self.post("/api/me/name", json={"name": name}).status_code == 200

    def get(self, path: str, **options: Any) -> Any:
        return self.client.get(path, headers=self.headers, **options)

    def post(self, path: str, **options: Any) -> Any:
        return self.client.post(path, headers={**self.headers, **options.pop("headers", {})}, **options)


def player(client: TestClient, name: str | None = None) -> Browser:
    return Browser(client, name)


def start(browser: Browser, edition: str = IELLO) -> dict[str, Any]:
    answer = browser.post(f"/api/daily/{edition}")
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def seed_of(client: TestClient, table_id: str) -> int | None:
    state = app_services(client.app).tables.store.load(table_id)
    assert state is not None
    return state.seed


def play_out(client: TestClient, attempt: dict[str, Any], choose: Callable[[Message], int] | None = None) -> Message:
    """Play the attempt to its end (each turn's first legal action, or the ``choose``n one); the last state."""
    with Peer(client, attempt["table_id"], attempt["token"], 0, None) as peer:
        peer.wait_state(lambda s: s["view"] is not None)
        pick = None if choose is None else (lambda p, seen: dict(seen["legal_actions"][choose(seen)]))
        return play([peer], choose=pick)


def test_the_deal_is_the_same_for_everyone_and_differs_between_days_and_editions(settings: Settings) -> None:
    clock = FakeClock(START)
    with app(settings, clock) as client:
        ann, bob = player(client), player(client)
        first, second = start(ann), start(bob)
        assert first["table_id"] != second["table_id"]
        assert seed_of(client, first["table_id"]) == seed_of(client, second["table_id"]) is not None
        other_edition = start(ann, "standard-deck")
        assert seed_of(client, other_edition["table_id"]) != seed_of(client, first["table_id"])
        # Each player sees the same hand (colours: values are hidden from their own seat) and the same first bids.
        views = []
        for attempt in (first, second):
            with Peer(client, attempt["table_id"], attempt["token"], 0, None) as peer:
                views.append(peer.wait_state(lambda s: s["view"] is not None)["view"])
        assert views[0] == views[1]
        client.portal.call(clock.advance, seconds_left(START) + 60)  # the next day
        tomorrow = start(player(client))
        assert seed_of(client, tomorrow["table_id"]) != seed_of(client, first["table_id"])
        # The seed never leaves the server: not in the answers, not in a table's summary.
        seed = str(seed_of(client, first["table_id"]))
        for text in (json.dumps(first), ann.get(f"/api/tables/{first['table_id']}").text, ann.get("/api/daily").text):
            assert seed not in text


def test_one_attempt_a_day(settings: Settings) -> None:
    clock = FakeClock(START)
    with app(settings, clock) as client:
        ann = player(client, "Ann")
        attempt = start(ann)
        again = ann.post(f"/api/daily/{IELLO}")
        assert again.status_code == 200
        assert again.json() == {"table_id": attempt["table_id"], "seat": 0, "token": None, "resumed": True}
        final = play_out(client, attempt)
        assert is_over(final)
        refused = ann.post(f"/api/daily/{IELLO}")
        assert refused.status_code == 409 and "come back tomorrow" in refused.json()["detail"]
        today = ann.get("/api/daily").json()
        mine = next(d["attempt"] for d in today["deals"] if d["edition"] == IELLO)
        assert mine["status"] == "finished" and len(mine["marks"]) == 4
        assert today["streak"] == 1 and today["best_percentile"] == 100
        # A guest is listed, never ranked: placed among the ranked (none yet).
        results = ann.get(f"/api/daily/{IELLO}/results").json()
        assert results["players"] == 0 and results["leaders"] == []
        assert [g["name"] for g in results["guests"]] == ["Ann"] and results["guests"][0]["table_id"]
        assert results["you"]["rank"] is None and results["you"]["percentile"] == 100
        assert results["you"]["share"].endswith(f"{mine['score']} · top 100%")
        # Giving up the results of another edition uses its attempt too.
        seen = ann.post("/api/daily/standard-deck/reveal")
        assert seen.status_code == 200 and seen.json()["you"]["status"] == "revealed"
        assert ann.post("/api/daily/standard-deck").status_code == 409


def test_the_same_moves_give_the_same_game(settings: Settings) -> None:
    clock = FakeClock(START)
    with app(settings, clock) as client:
        records = []
        for name in ("Ann", "Bob"):
            browser = player(client, name)
            attempt = start(browser)
            play_out(client, attempt)
            record = browser.get(f"/api/tables/{attempt['table_id']}/record").json()
            records.append({key: value for key, value in record.items() if key != "names"})
        assert records[0] == records[1]
        # Other moves: another game (the bots answer what they see).
        carl = start(player(client, "Carl"))
        play_out(client, carl, choose=lambda seen: len(seen["legal_actions"]) - 1)
        other = client.get(f"/api/tables/{carl['table_id']}/record").json()
        assert other["deals"][0]["hands"] == records[0]["deals"][0]["hands"]
        assert other["deals"][0]["actions"] != records[0]["deals"][0]["actions"]


def unfinished_player_sees(settings: Settings, others: Callable[[TestClient], None]) -> list[str]:
    """What an unfinished player receives (their attempt begun, two moves made) after ``others`` played; each
    answer with the player's own table id and identity replaced by placeholders."""
    clock = FakeClock(START)
    with app(settings, clock) as client:
        others(client)
        xena = player(client, "Xena")
        me = xena.get("/api/me").json()
        attempt = start(xena)
        seen: list[str] = []
        with Peer(client, attempt["table_id"], attempt["token"], 0, None) as peer:
            peer.wait_state(lambda s: s["view"] is not None)
            version = 0
            for _ in range(2):
                peer.wait_state(lambda s, v=version: s["version"] > v and s["view"]["current_player"] == 0)
                version = peer.state["version"]
                assert peer.act(first_legal(peer.view), version=version)["type"] == "ack"
            # My turn again: the bots wait for me, nothing changes while the answers are read.
            peer.wait_state(lambda s, v=peer.state["version"]: s["version"] > v and s["view"]["current_player"] == 0)
            seen.append(json.dumps(peer.sync()))
        seen += [
            xena.get("/api/daily").text,
            xena.get(f"/api/daily/{IELLO}/results").text,
            xena.get("/api/daily/history").text,
            xena.post(f"/api/daily/{IELLO}").text,
            xena.get(f"/api/tables/{attempt['table_id']}").text,
        ]
        return [text.replace(attempt["table_id"], "TABLE").replace(me["id"], "ME") for text in seen]


def test_nothing_of_others_reaches_an_unfinished_player(settings: Settings) -> None:
    """Non-interference: two runs whose other players did different things; the unfinished player's answers are
    byte-identical (and the results are refused)."""

    def finished(client: TestClient) -> None:
        for name, choice in (("Ann", 0), ("Bob", -1)):
            play_out(client, start(player(client, name)), choose=lambda seen, c=choice: c % len(seen["legal_actions"]))

    def gave_up(client: TestClient) -> None:
        assert player(client, "Cy").post(f"/api/daily/{IELLO}/reveal").status_code == 200

    first = unfinished_player_sees(settings, finished)
    second = unfinished_player_sees(settings, gave_up)
    assert first == second
    assert "finish today's deal first" in first[2]


def test_an_unfinished_attempt_is_abandoned_at_midnight(settings: Settings) -> None:
    clock = FakeClock(START)
    with app(settings, clock) as client:
        ann = player(client, "Ann")
        attempt = start(ann)
        with Peer(client, attempt["table_id"], attempt["token"], 0, None) as peer:
            peer.wait_state(lambda s: s["view"] is not None and s["view"]["current_player"] == 0)
            assert peer.act(first_legal(peer.view), version=peer.state["version"])["type"] == "ack"
        # Bob finishes and never comes back: midnight settles his attempt as finished, with its score.
        bob = start(player(client, "Bob"))
        bob_final = play_out(client, bob)
        day = date.fromtimestamp(START).isoformat()
        client.portal.call(clock.advance, seconds_left(START) + 1)  # midnight: the day's attempts settled
        history = wait_for(
            lambda: ann.get("/api/daily/history").json(), lambda h: h["attempts"][0]["status"] != "playing"
        )
        assert history["attempts"][0] | {"table_id": None} == {
            "day": day,
            "edition": IELLO,
            "status": "abandoned",
            "table_id": None,
            "score": None,
            "marks": [],
        }
        assert history["streak"] == 1  # abandoned is played: yesterday counts (today's may still be played)
        # Yesterday's results are anyone's now; the abandoned attempt is not ranked.
        results = wait_for(
            lambda: ann.get(f"/api/daily/{IELLO}/results", params={"day": day}).json(), lambda r: r["guests"]
        )
        assert results["players"] == 0 and results["you"]["status"] == "abandoned"
        scores = [r["scores"][0] for r in bob_final["view"]["results"]]
        assert results["guests"] == [{"name": "Bob", "score": sum(scores), "table_id": bob["table_id"]}]
        # Today's deal is a new one, and its attempt is free.
        assert ann.post(f"/api/daily/{IELLO}").status_code == 201


def wait_for(read: Callable[[], Any], done: Callable[[Any], bool], tries: int = 500) -> Any:
    """Read until ``done`` (the settlement is a task of the server's loop): at most ``tries`` reads."""
    for _ in range(tries):
        value = read()
        if done(value):
            return value
    raise AssertionError(f"never settled: {value}")


def test_a_daily_game_is_shown_by_the_dailys_results_alone(settings: Settings) -> None:
    """Not on its player's profile, not in the export: either would show the day's deal to those still to play."""
    clock = FakeClock(START)
    with app(settings, clock) as client:
        ann = player(client, "Ann")
        attempt = start(ann)
        play_out(client, attempt)
        me = ann.get("/api/me").json()
        profile = client.get(f"/api/players/{me['id']}").json()
        assert attempt["table_id"] not in json.dumps(profile)
        exported = client.get("/api/export", params={"since": "2000-01-01"})
        assert exported.status_code == 200 and attempt["table_id"] not in exported.text
        # An ordinary game of the same player is still listed and exported.
        table = ann.post("/api/tables", json={"players": 3, "seats": [{"kind": "human"}] + [{"kind": "bot"}] * 2})
        created = table.json()
        token = created["invites"][0]["token"]
        joined = ann.post(f"/api/tables/{created['table']['id']}/seats/0/join", json={"token": token})
        assert joined.status_code == 200
        play_out(client, {"table_id": created["table"]["id"], "token": token})
        assert created["table"]["id"] in client.get("/api/export", params={"since": "2000-01-01"}).text
        assert created["table"]["id"] in json.dumps(client.get(f"/api/players/{me['id']}").json())


def test_an_attempt_left_for_a_bot_to_finish_is_abandoned(settings: Settings) -> None:
    clock = FakeClock(START)
    with app(settings, clock) as client:
        ann = player(client, "Ann")
        attempt = start(ann)
        with Peer(client, attempt["table_id"], attempt["token"], 0, None) as peer:
            peer.wait_state(lambda s: s["view"] is not None and s["view"]["current_player"] == 0)
            assert peer.act(first_legal(peer.view), version=peer.state["version"])["type"] == "ack"
        headers = {"Authorization": f"Bearer {attempt['token']}"}
        # (through the app's own client: its event loop holds the table's lock)
        assert client.post(f"/api/tables/{attempt['table_id']}/leave", headers=headers).status_code == 200
        mine = wait_for(lambda: ann.get("/api/daily").json()["deals"][0]["attempt"], lambda a: a["status"] != "playing")
        assert mine["status"] == "abandoned" and mine["score"] is None
        assert ann.post(f"/api/daily/{IELLO}").status_code == 409
