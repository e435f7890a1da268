"""The web client's server side, without a browser: pages and static files served, the translations complete,
the score-keeper endpoint (the code behind ``luz score``) and the replay steps (views computed by the engine).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from luz.engine import EDITIONS, Game, TieBreak, face_up_view, replay, sheet_from_json, to_record, view
from luz.server import Settings, create_app
from luz.web import STATIC
from support.server import ERROR_CODES

I18N = {lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text()) for lang in ("en", "fr", "ja")}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    url = f"sqlite:///{tmp_path_factory.mktemp('db')}/luz.sqlite3"
    with TestClient(create_app(Settings(database_url=url, bot_workers=0))) as test_client:
        yield test_client


def finished_game(edition: str = "iello-2024", players: int = 3, seed: int = 5) -> Game:
    game = Game.new(edition, players=players, seed=seed)
    while game.outcome() is None:
        actions = game.legal_actions()
        game.apply(actions[len(game.actions[-1]) * 7 % len(actions)])
    return game


# -- pages and files -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/t/some-table", "/replay/some-table", "/replay", "/score"])
def test_pages_are_served(client: Any, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<script type="module"' in response.text and 'name="viewport"' in response.text


def test_every_static_file_is_served_and_packaged(client: Any) -> None:
    files = [p for p in STATIC.rglob("*") if p.is_file()]
    assert len(files) >= 15
    for path in files:
        response = client.get(f"/static/{path.relative_to(STATIC).as_posix()}")
        assert response.status_code == 200, path
        assert response.content == path.read_bytes()
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    for pattern in ("web/static/*", "web/static/*/*"):
        assert f'"{pattern}"' in pyproject
    assert max(len(p.relative_to(STATIC).parts) for p in files) <= 2, "package-data covers two levels"


def test_the_api_schema_has_the_endpoints_but_not_the_pages(client: Any) -> None:
    paths = set(client.get("/openapi.json").json()["paths"])
    assert not paths & {"/", "/score", "/replay"}
    assert {"/api/score", "/api/replay", "/api/bots"} <= paths


# -- translations ------------------------------------------------------------------------------------------------


KEY = r"([a-z_]+\.[a-z_]+)"


def used_keys() -> set[str]:
    """The translation keys named literally in the pages and scripts: t("...") and tWith("..."), both arms of a
    ternary, data-i18n attributes."""
    keys: set[str] = set()
    for path in [*STATIC.glob("*.html"), *STATIC.glob("js/*.js")]:
        text = path.read_text()
        keys |= set(re.findall(rf"\bt(?:With)?\(\s*\"{KEY}\"", text))
        for pair in re.findall(rf"\?\s*\"{KEY}\"\s*:\s*\"{KEY}\"", text):
            keys |= set(pair)
        keys |= set(re.findall(r"data-i18n(?:-label|-placeholder)?=\"([a-z_.]+)\"", text))
        keys |= set(re.findall(r"i18n(?:Label)?: \"([a-z_.]+)\"", text))
    return keys


def test_every_language_has_the_keys_of_english_and_no_empty_text() -> None:
    assert set(I18N["en"]) == set(I18N["fr"]) == set(I18N["ja"])
    for lang, strings in I18N.items():
        assert all(isinstance(v, str) and v.strip() for v in strings.values()), lang
    differing = [k for k in I18N["en"] if I18N["en"][k] == I18N["fr"][k]]
    # Only words that are the same in both languages (names, symbols, "Total", "Table", "Pause", "Invitations",
    # "Menu"..., the editions' names, the lesson's players Bo and Cy, texts of placeholders only).
    assert len(differing) <= 20, differing
    # Japanese shares only names, symbols and placeholders with English ("LUZ", "{before} → {after}").
    same_in_japanese = [k for k in I18N["en"] if I18N["en"][k] == I18N["ja"][k]]
    assert len(same_in_japanese) <= 4, same_in_japanese


def test_every_key_the_pages_use_is_translated() -> None:
    keys = used_keys()
    assert len(keys) > 150
    needed = keys | {f"error.{code}" for code in ERROR_CODES} | {f"outcome.{t.value}" for t in TieBreak}
    needed |= {f"colour.{c.name}" for e in EDITIONS.values() for c in e.colours}
    missing = needed - set(I18N["en"])
    assert not missing, sorted(missing)


# ``{name}`` or the plural choice ``{name|one|other}`` of js/i18n.js: both read the parameter ``name``.
PLACEHOLDER = re.compile(r"\{(\w+)(?:\|[^|{}]*\|[^|{}]*)?\}")
PLURAL_CHOICE = re.compile(r"\{\w+\|[^|{}]*\|[^|{}]*\}")


@pytest.mark.parametrize("lang", ["fr", "ja"])
def test_placeholders_match_between_languages(lang: str) -> None:
    """The same parameters, whether a language writes them plain or as a plural choice."""
    for key, english in I18N["en"].items():
        assert set(PLACEHOLDER.findall(english)) == set(PLACEHOLDER.findall(I18N[lang][key])), key


def test_japanese_writes_no_plural_choice() -> None:
    """Japanese nouns have no plural: a plain ``{n}`` where English and French choose between two forms."""
    assert any(PLURAL_CHOICE.search(text) for text in I18N["en"].values())
    assert not [key for key, text in I18N["ja"].items() if PLURAL_CHOICE.search(text)]


# -- the score-keeper's endpoint ---------------------------------------------------------------------------------


def test_score_report_is_luz_score_plus_what_the_page_needs(client: Any) -> None:
    document = {
        "edition": "iello-2024",
        "players": 3,
        "first_player": 0,
        "deals": [
            {"bids": [2, 1, 3], "safety": [False, True, False], "tricks": [2, 2, 6]},
            {"bids": [0, 4, 2], "tricks": [1, 4, 5]},
            {"bids": [3, 3, 3], "tricks": [3, 3, 4]},
        ],
    }
    report = client.post("/api/score", json=document).json()
    expected = sheet_from_json(document).to_json()
    assert {k: report[k] for k in expected} == expected
    assert report["deal_count"] == 4 and report["max_bid"] == 10 and report["tricks_per_deal"] == 10
    # 3 players, last deal: the leader on score bids first (IELLO), not the usual rotation (seat 0).
    leader = max(range(3), key=lambda s: report["totals"][s])
    assert report["next_first_player"] == leader != 0
    assert report["next_first_is_leader"] is True
    report = client.post("/api/score", json={**document, "deals": document["deals"][:1]}).json()
    assert report["next_first_player"] == 1 and report["next_first_is_leader"] is False


def test_score_tie_break_is_reported(client: Any) -> None:
    document = {
        "edition": "iello-2024",
        "players": 3,
        "first_player": 0,
        "deals": [{"bids": [1, 1, 1], "tricks": [1, 1, 8]}] * 4,
    }
    report = client.post("/api/score", json=document).json()
    assert report["winner"] == 0 and "next_first_player" not in report
    assert report["tie_break"] == {"tied": [0, 1], "decided_by": "seat_order", "reference_seat": 0}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"edition": "iello", "players": 3, "deals": [{"bids": [1, 2, 3], "tricks": [1, 2, 6]}]}, "sum to 10"),
        ({"edition": "iello", "players": 6, "deals": []}, "3, 4, 5 players"),
        ({"edition": "chess", "players": 3, "deals": []}, "unknown edition"),
        ({"edition": "iello", "players": 3, "deals": [], "colour": 1}, "unknown key"),
        ({"edition": "iello", "players": 3, "deals": [{"bids": [9, 9, 9], "tricks": [1, 2, 7]}]}, "cap of 15"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_score_refusals_say_what_is_wrong(client: Any, document: Any, message: str) -> None:
    response = client.post("/api/score", json=document)
    assert response.status_code == 422
    assert message in response.json()["detail"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
DOCUMENTS = st.fixed_dictionaries(
    {"edition": st.sampled_from(["iello", "2014", "standard", 3]), "players": st.integers(2, 6) | JSON},
    optional={
        "deals": st.lists(st.dictionaries(st.sampled_from(["bids", "safety", "tricks", "x"]), JSON)),
        "options": JSON,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)
@given(document=DOCUMENTS | JSON)
def test_no_document_makes_a_server_error(client: Any, document: Any) -> None:
    for path in ("/api/score", "/api/replay"):
        response = client.post(path, json=document)
        assert response.status_code in (200, 422), (path, document, response.text)
        assert "Traceback" not in response.text


def test_malformed_json_is_refused(client: Any) -> None:
    for path in ("/api/score", "/api/replay"):
        response = client.post(path, content=b"{not json", headers={"Content-Type": "application/json"})
        assert response.status_code == 422


# -- replay steps ----------------------------------------------------------------------------------------------


def test_replay_steps_are_the_engines_views_with_every_hand_face_up(client: Any) -> None:
    game = finished_game()
    record = to_record(game, ["Ana", "Bo", "Cy"])
    answer = client.post("/api/replay", json=record).json()
    actions = [str(a) for deal in game.actions for a in deal]
    steps = answer["steps"]
    assert answer["names"] == ["Ana", "Bo", "Cy"]
    assert len(steps) == len(actions) + 1
    assert [s["action"] for s in steps[1:]] == actions and steps[0]["action"] is None
    for number in (0, 1, 5, 17, len(actions) // 2, len(actions)):
        then = replay(record, upto=number)
        expected = view(then, None).to_json()
        shown = steps[number]["view"]
        deal = then.deals[-1]
        assert shown["aside"] == [game.edition.card_name(c) for c in deal.aside]
        assert [c["card"] for c in shown["aside_cards"]] == shown["aside"]
        assert shown == face_up_view(then).to_json()
        for hand, cards in zip(shown["hands"], deal.hands, strict=True):
            assert [s["card"] for s in hand] == [game.edition.card_name(c) for c in cards]
        hidden_filled = {k: v for k, v in shown.items() if k not in ("hands", "aside", "aside_cards")}
        assert hidden_filled == {k: v for k, v in expected.items() if k != "hands"}
        assert [[(s["slot"], s["played"]) for s in h] for h in shown["hands"]] == [
            [(s["slot"], s["played"]) for s in h] for h in expected["hands"]
        ]
    actors = [s["seat"] for s in steps[1:]]
    assert actors[0] == game.sheet.first_player


def test_a_record_without_a_seed_replays_too(client: Any) -> None:
    game = finished_game("korokorodou-2014", players=3, seed=9)
    record = to_record(game)
    record["seed"], record["first_player"] = None, game.sheet.first_player
    answer = client.post("/api/replay", json=record)
    assert answer.status_code == 200, answer.text
    assert answer.json()["names"] is None
    assert len(answer.json()["steps"]) == sum(len(d) for d in game.actions) + 1


def test_a_bad_record_is_refused_with_its_place(client: Any) -> None:
    record = to_record(finished_game())
    record["deals"][1]["actions"][5] = "play:99"
    response = client.post("/api/replay", json=record)
    assert response.status_code == 422
    assert "deal 2, action 6" in response.json()["detail"]


def test_the_user_guide_shows_the_screenshots_the_tests_take() -> None:
    from support.web import GUIDE, GUIDE_IMAGES

    guide = (GUIDE_IMAGES.parent / "USER_GUIDE.md").read_text()
    shown = set(re.findall(r"\(images/([a-z0-9-]+)\.png\)", guide))
    assert shown == GUIDE
    assert all((GUIDE_IMAGES / f"{name}.png").stat().st_size > 10_000 for name in shown)
