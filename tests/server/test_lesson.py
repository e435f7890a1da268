"""The tutorial's deduction lesson (GET /api/tutorial/lesson): a prepared position as its learner sees it, with
the exact marginals of its hidden slots as the engine's beliefs compute them, and the tutorial table's flag."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from luz.engine import EDITIONS
from luz.engine.beliefs import Beliefs
from luz.server import Settings, create_app
from luz.server.lesson import LEARNER, QUESTION_SLOT, lesson_view


def lesson(tmp_path: Path) -> dict[str, Any]:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/luz.sqlite3", bot_workers=0)
    with TestClient(create_app(settings)) as client:
        answer = client.get("/api/tutorial/lesson")
        assert answer.status_code == 200
        data: dict[str, Any] = answer.json()
        return data


def test_the_marginals_are_the_engines_and_each_sums_to_one(tmp_path: Path) -> None:
    data = lesson(tmp_path)
    beliefs = Beliefs(lesson_view())
    marginals = {m["slot"]: m["values"] for m in data["marginals"]}
    assert sorted(marginals) == list(beliefs.slots) == list(range(10))
    for slot, values in marginals.items():
        exact = {v["value"]: Fraction(v["numerator"], v["denominator"]) for v in values}
        assert exact == beliefs.probabilities(slot)
        assert sum(exact.values()) == 1
        assert all(abs(v["probability"] - float(exact[v["value"]])) < 1e-12 for v in values)
    assert data["worlds"] == beliefs.world_count()


def test_the_question_is_the_third_card_and_its_candidates_are_the_decks_values(tmp_path: Path) -> None:
    data = lesson(tmp_path)
    seen = data["view"]
    assert seen["seat"] == LEARNER and seen["players"] == 3 and seen["phase"] == "bid"
    assert all(s["value"] is None for s in seen["hands"][LEARNER]), "the learner's values are hidden, as at a table"
    assert data["question"] == {"slot": QUESTION_SLOT, "colour": "R"}
    low, high = EDITIONS["iello-2024"].values[3]
    assert [c["value"] for c in data["candidates"]] == list(range(low, high + 1))
    verdicts = {c["value"]: c["verdict"] for c in data["candidates"]}
    # Four reds are face up in the others' hands; of the four unseen, the highest of three reds is 6 or 8.
    assert verdicts == {
        1: "order",
        2: "seen",
        3: "order",
        4: "seen",
        5: "seen",
        6: "possible",
        7: "seen",
        8: "likeliest",
    }
    for candidate in data["candidates"]:
        if candidate["verdict"] == "seen":
            hand = seen["hands"][candidate["holder"]]
            assert any(s["colour"] == "R" and s["value"] == candidate["value"] for s in hand)
    asked = {v["value"]: (v["numerator"], v["denominator"]) for v in data["marginals"][QUESTION_SLOT]["values"]}
    assert asked == {6: (1, 4), 8: (3, 4)}


def test_the_editions_describe_their_decks(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/luz.sqlite3", bot_workers=0)
    with TestClient(create_app(settings)) as client:
        described = {e["key"]: e for e in client.get("/api/editions").json()}
    for key, edition in EDITIONS.items():
        for players in edition.player_counts:
            low, high = edition.values[players]
            assert described[key]["aside"][str(players)] == edition.aside_size(players)
            assert len(described[key]["value_names"][str(players)]) == high - low + 1
            assert described[key]["hand_size"] * players + edition.aside_size(players) == edition.deck_size(players)
    assert described["standard-deck"]["value_names"]["3"][-1] == "A"


def test_the_tutorial_table_says_it_is_one(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/luz.sqlite3", bot_workers=0, bot_pace=5.0)
    with TestClient(create_app(settings)) as client:
        table_id = client.post("/api/tutorial", json={}).json()["table_id"]
        assert client.get(f"/api/tables/{table_id}").json()["tutorial"] is True
