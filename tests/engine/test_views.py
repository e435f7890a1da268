"""Views: every view in the engine (the replay's face-up view too), hints outside them, and what the JSON carries
for a client (each card's colour, value and printed value; the next deal's first player) so that it never parses
notation nor applies a rule."""

from __future__ import annotations

import ast
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from luz.engine import EDITIONS, Card, Game, Phase, ViewsJson, face_up_view, get_edition, played_card_json, view
from luz.engine import views as views_module
from luz.engine.beliefs import Beliefs, json_with_hints, with_hints

CONFIGS = [(key, players) for key in sorted(EDITIONS) for players in get_edition(key).player_counts]


def play_to_end(game: Game, rng: random.Random) -> None:
    while game.current_player is not None:
        game.apply(rng.choice(list(game.legal_actions())))


# -- views import nothing of the beliefs ---------------------------------------------------------------------------


def test_views_import_nothing_of_the_beliefs() -> None:
    """Beliefs are computed from a view: the views module must not import them, not even inside a function."""
    tree = ast.parse(Path(views_module.__file__).read_text(encoding="utf-8"))
    imported = [
        node.module or "" if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert imported and not [name for name in imported if "beliefs" in name]
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert not {name for name in names if "belief" in name.lower() or name == "import_module"}


def test_the_views_load_without_the_beliefs() -> None:
    code = "import sys, luz.engine, luz.engine.views; sys.exit('luz.engine.beliefs' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# -- hints: the same data as before they left the views ------------------------------------------------------------

HINTS_DIGESTS = {
    ("iello-2024", 3): "b254519c6822b61c013ca683f16da9f9bceaab1b95983dcef4e08b00c131fc27",
    ("iello-2024", 4): "f230e31f3ec8e4932d5bf3bb522ab19e914709e107906392074f618b5283ec24",
    ("iello-2024", 5): "6e510e93d510110e6f147745cc0a721486d787dbf2355eaa6ccd234a1e3c2a6f",
    ("korokorodou-2014", 3): "7e7eb12a93ec8b7cba23d29c1ac86089c849121965752af055736a484f4f855b",
    ("korokorodou-2014", 4): "d4b90e10225577dcc79bd7aa0d043c8e0f334906c2b24226d503c9228711d915",
    ("standard-deck", 3): "62bf86112ea7a95993052b83ba496429e7a9e63d70829a7356e9ab4d85446dca",
    ("standard-deck", 4): "e00daca16d639916de54a73ce05c30c305859d0706ef8103803e7f6b11304b86",
}
"""SHA-256 of the hints JSON text (``json.dumps``) of every seat at every step of one seeded random game, as
``view(game, seat, hints=True)`` gave them before the hints moved to :func:`with_hints`."""


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_hints_are_byte_identical_to_those_the_views_gave(key: str, players: int) -> None:
    rng = random.Random(f"hints:{key}:{players}")
    game = Game.new(key, players, seed=7)
    digest, views = hashlib.sha256(), None
    while True:
        views = ViewsJson(game, views)
        for seat in range(players):
            hinted = with_hints(view(game, seat)).to_json()
            digest.update(json.dumps(hinted["hints"]).encode())
            assert json_with_hints(views, seat) == hinted
        if game.current_player is None:
            break
        game.apply(rng.choice(list(game.legal_actions())))
    assert digest.hexdigest() == HINTS_DIGESTS[key, players]


def test_with_hints_only_for_a_seat_while_a_deal_is_live() -> None:
    game = Game.new("iello-2024", 4, seed=3)
    assert with_hints(view(game, None)).hints is None
    assert with_hints(view(game, 1)).hints == Beliefs(view(game, 1)).to_json()
    assert view(game, 1).hints is None and view(game, 1).to_json()["hints"] is None
    views = ViewsJson(game)
    assert json_with_hints(views, None) is views.of(None)
    assert views.of(1)["hints"] is None and json_with_hints(views, 1)["hints"] is not None  # the shared data unchanged
    play_to_end(game, random.Random(3))
    assert with_hints(view(game, 1)).hints is None
    assert json_with_hints(ViewsJson(game), 1) == view(game, 1).to_json()


# -- the face-up view of a finished game ----------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_the_face_up_view_of_a_finished_game_shows_every_card(key: str, players: int) -> None:
    edition = get_edition(key)
    game = Game.new(key, players, seed=players)
    play_to_end(game, random.Random(key))
    deal = game.deals[-1]
    data = face_up_view(game).to_json()
    assert data["seat"] is None and data["legal_actions"] == [] and data["outcome"] is not None
    assert all(s["card"] is not None and s["played"] for hand in data["hands"] for s in hand)
    names = [[s["card"] for s in hand] for hand in data["hands"]]
    assert names == [list(map(edition.card_name, hand)) for hand in deal.hands]
    assert data["aside"] == [edition.card_name(c) for c in deal.aside]
    assert [c["card"] for c in data["aside_cards"]] == data["aside"]
    letters = {c.letter: i for i, c in enumerate(edition.colours)}
    shown = [*(s for hand in data["hands"] for s in hand), *data["aside_cards"]]
    cards = [Card(letters[c["colour"]], c["value"]) for c in shown]
    assert sorted(cards) == list(edition.deck(players))  # every card of the deck, each once
    # Besides the cards, the spectator's view.
    spectator = view(game, None).to_json()
    assert {k: v for k, v in data.items() if k not in ("hands", "aside", "aside_cards")} == {
        k: v for k, v in spectator.items() if k != "hands"
    }


def test_the_face_up_view_mid_deal_and_before_a_deal() -> None:
    game = Game.new("standard-deck", 4, seed=2)
    rng = random.Random(2)
    for _ in range(9):
        game.apply(rng.choice(list(game.legal_actions())))
    data = face_up_view(game).to_json()
    assert [[s["card"] for s in hand] for hand in data["hands"]] == [
        list(map(game.edition.card_name, hand)) for hand in game.deals[-1].hands
    ]
    assert data["legal_actions"] == []
    waiting = Game("iello-2024", 3, get_edition("iello-2024").options(3, first_player=0))
    assert face_up_view(waiting).to_json() == view(waiting, None).to_json()
    assert "aside" not in view(game, None).to_json() and "aside" not in view(game, 0).to_json()


# -- every card's colour, value and printed value ------------------------------------------------------------------


def card_jsons(data: dict[str, Any]) -> list[dict[str, Any]]:
    tricks = [data["trick"], data["last_trick"], data["closing_trick"], *(data["trick_history"] or [])]
    plays = [p for t in tricks if t for p in t["plays"]]
    return [s for hand in data["hands"] for s in hand] + plays + data.get("aside_cards", [])


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_each_card_says_its_colour_value_and_printed_value(key: str, players: int) -> None:
    """What the client shows of a card, from the view: it never parses the notation (standard deck: ``AH``)."""
    edition = get_edition(key)
    letters = [c.letter for c in edition.colours]
    rng = random.Random(f"cards:{key}:{players}")
    game = Game.new(key, players, seed=1, trick_history=True)
    ranks = set()
    while True:
        for data in [face_up_view(game).to_json(), *(view(game, s).to_json() for s in (None, *range(players)))]:
            for card in card_jsons(data):
                if card["value"] is None:
                    assert card["card"] is None and card["rank"] is None
                    continue
                parsed = edition.parse_card(card["card"], players)
                assert (letters[parsed.colour], parsed.value) == (card["colour"], card["value"])
                assert card["rank"] == edition.value_name(card["value"])
                assert card["card"] in (card["colour"] + card["rank"], card["rank"] + card["colour"])
                ranks.add(card["rank"])
        if game.current_player is None:
            break
        for _ in range(rng.randrange(1, 9)):
            if game.current_player is not None:
                game.apply(rng.choice(list(game.legal_actions())))
    low, high = edition.values[players]
    assert ranks == {edition.value_name(v) for v in range(low, high + 1)}
    if key == "standard-deck":
        assert {"J", "Q", "K", "A"} <= ranks


# -- the next deal's first player -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_the_next_first_player_in_the_view_is_the_engines(key: str, players: int) -> None:
    """Over random games: ``next_first_player`` is the first player the next deal gets, given as soon as it is
    decided (all but the leader's last deal at 3 players, decided by the deal before it); ``first_player_is_leader``
    says whether a deal's first player is the leader on score rather than the rotation's seat."""
    edition = get_edition(key)
    leader_rule = players == 3 and edition.leader_opens_last_deal_with_3
    leaders = 0
    for seed in range(8 if leader_rule else 3):
        rng = random.Random(f"opener:{key}:{players}:{seed}")
        game = Game.new(key, players, seed=seed)
        announced: int | None = None
        deal_number = game.deal_number
        while True:
            data = [view(game, s).to_json() for s in (None, *range(players))] + [face_up_view(game).to_json()]
            assert len({(d["next_first_player"], d["first_player_is_leader"]) for d in data}) == 1  # public
            shown = data[0]
            if game.deal_number != deal_number:  # a new deal: the one announced
                if announced is None:  # the last deal at 3 players: the leader on score, from the rotation's seat
                    totals, usual_seat = game.sheet.totals, (game.sheet.first_player + game.deal_count - 1) % players
                    order = [(usual_seat + i) % players for i in range(players)]
                    announced = next(s for s in order if totals[s] == max(totals))
                    assert shown["next_first_player"] is None
                assert game.first_player == announced, (seed, game.deal_number)
                result = game.results[-1]
                usual = (result.first_player + 1) % players == game.first_player  # the table page's old rule
                assert shown["first_player_is_leader"] is not usual
                leaders += shown["first_player_is_leader"]
                deal_number, announced = game.deal_number, None
            if game.phase is Phase.GAME_OVER:
                assert shown["next_first_player"] is None
                break
            nxt = shown["next_first_player"]
            last_next = game.deal_number + 1 == game.deal_count
            if game.deal_number == game.deal_count:
                assert nxt is None  # no deal after the last
            elif leader_rule and last_next:
                assert nxt is None  # the leader on score: decided only once this deal is scored
            else:
                assert nxt == (game.sheet.first_player + game.deal_number) % players
            if announced is not None:
                assert nxt == announced  # never changes during a deal
            announced = nxt
            assert shown["first_player"] == game.first_player
            game.apply(rng.choice(list(game.legal_actions())))
        assert game.deal_number == game.deal_count
    if leader_rule:
        assert leaders  # the leader was not the rotation's seat at least once: the check is not vacuous
    else:
        assert not leaders


def test_between_deals_the_next_first_player_is_the_one_to_deal() -> None:
    edition = get_edition("iello-2024")
    game = Game("iello-2024", 3, edition.options(3, first_player=2))
    assert game.phase is Phase.DEAL
    data = view(game, None).to_json()
    assert data["next_first_player"] == game.first_player == 2 and data["first_player_is_leader"] is False


def test_the_view_says_the_whole_range_of_bids_that_the_cap_narrows() -> None:
    """``max_bid`` lets a client show the bids the cap rules out (disabled) without knowing the rules: a capped
    seat's legal bids are those up to its beads left, all within 0..max_bid."""
    game = Game("iello-2024", 3, get_edition("iello-2024").options(3, bid_cap=12), seed=4)
    while game.phase is Phase.DEAL:
        game.apply(game.legal_actions()[0])
    for _ in range(2):  # two bids of 6: 0 beads left for the third bidder
        game.apply(next(a for a in game.legal_actions() if getattr(a, "tricks", None) == 6))
    seat = game.current_player
    assert seat is not None
    data = view(game, seat).to_json()
    assert data["max_bid"] == 10 and data["beads_left"] == 0
    assert {a["tricks"] for a in data["legal_actions"]} == {0}
    assert view(game, None).to_json()["max_bid"] == 10, "public: a spectator's view says it too"


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_played_card_json_names_the_card_just_played_and_never_one_held(key: str, players: int) -> None:
    """Every play of a game, the last of a deal too: the card just played as the table shows it; a seat that has
    not played in the trick on the table (nor the one before) gets nothing."""
    game, rng = Game.new(key, players, seed=7), random.Random(7)
    while game.current_player is not None:
        seat, action = game.current_player, rng.choice(list(game.legal_actions()))
        card = game.card(seat, action.slot) if game.phase is Phase.PLAY else None  # type: ignore[union-attr]
        game.apply(action, seat)
        if card is not None:
            assert played_card_json(game, seat) == views_module._card_json(game.edition, card)
    fresh = Game.new(key, players, seed=8)
    with pytest.raises(ValueError, match="has not just played"):
        played_card_json(fresh, fresh.current_player or 0)
