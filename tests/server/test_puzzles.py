"""Retry your mistakes (server/puzzles.py): a stored review's mistakes and blunders as puzzles that show the seat's
view and never an option's value, the answer checked by the server, the puzzles the same whatever the seat could
not see, your own list of mistakes to retry and your accuracy on your profile."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from luz.bots import make_bot, play_out
from luz.bots.review import ReviewSettings, decisions, review_game
from luz.engine import Game, replay, to_record, view
from luz.server import Settings, app_services, create_app
from luz.server.puzzles import answer, puzzle_entries, puzzles
from support.redeal import redealt
from support.server import Peer, Truth, create_table, from_address, guest, play, seats

SETTINGS = ReviewSettings(worlds=16)
"""Few worlds: a stored review made by the real reviewer, in about a second."""
SECRET = {"points", "chance", "loss", "se", "label", "best", "options", "value", "accuracy", "best_within_noise"}
"""The review's keys that a list of puzzles never has (but for the label of what was played)."""


def keys_in(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in keys_in(v)}
    if isinstance(data, list):
        return {k for v in data for k in keys_in(v)}
    return set()


def reviewed_table(client: Any, truth: Truth) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    """A 3-player game of a guest (seat 0, playing its first legal action), a random bot and a heuristic, played
    to its end, and seat 0's review stored as the server stores it: the table, the guest's headers' id, the record
    and the review."""
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "heuristic"))
    headers = guest(client)
    player = client.get("/api/me", headers=headers).json()["id"]
    joined = client.post(
        f"/api/tables/{table_id}/seats/0/join", json={"name": "Ann", "token": tokens[0]}, headers=headers
    )
    assert joined.status_code == 200
    with Peer(client, table_id, tokens[0], 0, truth) as ann:
        assert play([ann])["table"]["status"] == "over"
    record = client.get(f"/api/tables/{table_id}/record").json()
    review = review_game(record, 0, SETTINGS)
    app_services(client.app).tables.store.save_review(table_id, 1, 0, review)
    client.headers.update(headers)
    return table_id, player, record, review


def test_puzzles_show_the_seats_view_and_the_server_checks_the_answer(client: Any, truth: Truth) -> None:
    table_id, _, record, review = reviewed_table(client, truth)
    entries = puzzle_entries(review)
    assert entries, "playing the first legal action makes mistakes"
    base = f"/api/tables/{table_id}/games/1/puzzles"
    answer = client.get(f"{base}?seat=0")
    assert answer.status_code == 200
    found = answer.json()["puzzles"]
    assert [p["step"] for p in found] == [e["step"] for e in entries]
    for puzzle, entry in zip(found, entries, strict=True):
        # No option's value, loss or label, nor the best, before the answer: where it is, the view, what it played.
        assert set(puzzle) == {"step", "deal", "index", "kind", "view", "choices", "played"}
        assert puzzle["played"] == entry["action"] and puzzle["kind"] == entry["kind"]
        # The view of the seat at that decision: its own unplayed values hidden, nothing of the aside.
        at = replay(record, upto=puzzle["step"])
        assert puzzle["view"] == view(at, 0).to_json()
        assert all(s["value"] is None for s in puzzle["view"]["hands"][0] if not s["played"])
        assert "aside" not in puzzle["view"] and puzzle["view"]["hints"] is None
        assert {o["action"] for o in entry["options"]} == set(puzzle["choices"])

    entry = entries[0]
    url = f"{base}/{entry['step']}/answer?seat=0"
    best = client.post(url, json={"action": entry["best"]}).json()
    assert best["within_noise"] is True and best["label"] is None
    assert best["best"]["action"] == entry["best"] and best["chosen"] == best["best"]
    assert best["best"]["points"] == entry["options"][0]["points"]
    again = client.post(url, json={"action": entry["action"]}).json()
    assert again["within_noise"] is False and again["label"] == entry["label"]
    played = next(o for o in entry["options"] if o["action"] == entry["action"])
    assert again["played"] == {**played, "label": entry["label"]}
    assert again["chosen"]["loss"] == entry["loss"] > 0
    # Within the noise means: the loss at most 2 standard errors of the difference.
    for option in entry["options"]:
        told = client.post(url, json={"action": option["action"]}).json()
        assert told["within_noise"] is (option["action"] == entry["best"] or option["loss"] <= 2 * option["se"])

    assert client.post(url, json={"action": "bid:99"}).status_code == 422
    assert client.post(url, json={"action": entry["action"] + "x" * 20}).status_code == 422
    unlabelled = next(d for d in review["decisions"] if d["label"] not in ("mistake", "blunder"))
    missing = client.post(f"{base}/{unlabelled['step']}/answer?seat=0", json={"action": unlabelled["action"]})
    assert missing.status_code == 404
    assert client.get(f"{base}?seat=1").status_code == 404, "seat 1 was never reviewed"
    assert client.get(f"{base}?seat=3").status_code == 422


def test_a_puzzle_is_the_same_whatever_the_seat_could_not_see() -> None:
    """Re-deal the seat's unplayed values and the aside at each puzzle's decision: the same payload."""
    game = Game.new("iello-2024", players=4, seed=5, first_player=1)
    play_out(game, [make_bot(k) for k in ("random", "heuristic", "heuristic", "heuristic")], random.Random(5))
    record = to_record(game)
    review = review_game(record, 0, SETTINGS)
    found = puzzles(record, review)
    assert found
    rng = np.random.default_rng(3)
    changed = 0
    for puzzle in found:
        decision = next(d for d in decisions(record, 0) if d.step == puzzle["step"])
        other = redealt(record, decision, 0, rng)
        changed += replay(other).deals[decision.deal] != replay(record).deals[decision.deal]
        assert [p for p in puzzles(other, review) if p["step"] == puzzle["step"]] == [puzzle]
    assert changed >= len(found) // 2, "the hidden cards were indeed drawn again"


def test_your_mistakes_to_retry_and_your_accuracy(client: Any, truth: Truth) -> None:
    table_id, player, _, review = reviewed_table(client, truth)
    mine = client.get("/api/me/puzzles").json()["puzzles"]
    entries = puzzle_entries(review)
    assert [(p["table"], p["game"], p["seat"], p["step"], p["label"]) for p in mine] == [
        (table_id, 1, 0, e["step"], e["label"]) for e in entries
    ]
    assert mine[0]["url"] == f"/puzzle/{table_id}?game=1&seat=0&step={entries[0]['step']}"
    assert not keys_in(mine) & (SECRET - {"label"})
    # Only yours: another identity has none; a profile shows the accuracy to anyone.
    assert client.get("/api/me/puzzles", headers=guest(client)).json() == {"puzzles": []}
    profile = client.get(f"/api/players/{player}", headers=guest(client)).json()
    assert profile["review_accuracy"] == {"accuracy": round(review["game"]["accuracy"], 1), "games": 1}


def test_the_game_over_panels_accuracy_line(client: Any, truth: Truth) -> None:
    table_id, _, _, review = reviewed_table(client, truth)
    url = f"/api/tables/{table_id}/games/1/accuracy"
    ready = client.get(f"{url}?seat=0")
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "accuracy": review["game"]["accuracy"],
        "puzzles": [entry["step"] for entry in puzzle_entries(review)],
    }
    assert client.get(f"{url}?seat=1").json() == {"status": "none"}, "never asked: no 404 in the page's log"
    assert client.get(f"{url}?seat=3").status_code == 422
    assert client.get(f"/api/tables/{table_id}/games/2/accuracy?seat=0").status_code == 404


def test_puzzle_answers_are_limited_per_client(database_url: str) -> None:
    """Answers past ``puzzle_answers_per_minute`` from one client (an IPv4 address, an IPv6 /64) are refused with
    429 and ``Retry-After``, before the stored review is read; another client's are answered meanwhile."""
    from fastapi.testclient import TestClient

    settings = Settings(
        database_url=database_url, bot_workers=0, messages_per_second=10_000, puzzle_answers_per_minute="3/minute"
    )
    with TestClient(create_app(settings)) as client:
        table_id, _, _, review = reviewed_table(client, Truth(app_services(client.app).tables.store))
        entry = puzzle_entries(review)[0]
        base = f"/api/tables/{table_id}/games/1/puzzles"
        url, body = f"{base}/{entry['step']}/answer?seat=0", {"action": entry["best"]}
        answers = [client.post(url, json=body) for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        refused = answers[3]
        assert refused.json() == {"detail": "too many puzzle answers: wait a little"}
        assert 0 < int(refused.headers["retry-after"]) <= 60
        missing = client.post(f"{base}/{10**6}/answer?seat=0", json=body)
        assert missing.status_code == 429, "refused before the review is read (else: no such puzzle, 404)"
        assert from_address(client, "192.0.2.7").post(url, json=body).status_code == 200, "another client"
        # An IPv6 client is its /64: its other addresses share its answers; the next /64 is another client.
        home = [from_address(client, f"2001:db8:1:2::{n}") for n in range(1, 5)]
        assert [h.post(url, json=body).status_code for h in home] == [200, 200, 200, 429]
        assert from_address(client, "2001:db8:1:3::1").post(url, json=body).status_code == 200


def test_on_an_exact_tie_with_the_best_the_answer_is_named_best() -> None:
    """As a review names the player's own choice best on an exact tie, so does a puzzle's verdict; an option
    within the noise but below the best is not named best."""
    options = [
        {"action": "bid:2", "points": 10.0, "chance": 0.5, "loss": 0.0, "se": 0.0},
        {"action": "bid:3", "points": 10.0, "chance": 0.4, "loss": 0.0, "se": 0.0},
        {"action": "bid:1", "points": 9.5, "chance": 0.6, "loss": 0.5, "se": 0.5},
        {"action": "bid:0", "points": -5.0, "chance": 0.1, "loss": 15.0, "se": 1.0},
    ]
    entry = {"step": 3, "forced": False, "label": "blunder", "action": "bid:0", "best": "bid:2", "options": options}
    review = {"decisions": [entry], "thresholds": {"blunder": 10.0, "mistake": 5.0, "inaccuracy": 2.5}}
    tied = answer(review, 3, "bid:3")
    assert tied["best"] == tied["chosen"] == options[1] and tied["within_noise"] and tied["label"] is None
    assert answer(review, 3, "bid:2")["best"] == options[0]
    near = answer(review, 3, "bid:1")
    assert near["best"] == options[0] and near["within_noise"], "within the noise, but not the best"
    worse = answer(review, 3, "bid:0")
    assert worse["best"] == options[0] and not worse["within_noise"] and worse["label"] == "blunder"
    assert worse["played"] == {**options[3], "label": "blunder"}
