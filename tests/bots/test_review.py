"""The review (luz.bots.review): it sees only what the seat saw, it labels absurd decisions, it is reproducible."""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest

from luz.bots import make_bot, play_out
from luz.bots.review import (
    ReviewSettings,
    decisions,
    judge,
    review_decision,
    review_game,
    thresholds,
)
from luz.bots.review_calibration import IDENTITY
from luz.engine import EDITIONS, Bid, Card, Deal, Game, Phase, Play, Trick, get_edition, replay, to_record, view
from luz.engine.scoring import ScoreSheet
from support.redeal import redealt

FEW = ReviewSettings(worlds=8)


def played(edition: str, players: int, seed: int, kinds: tuple[str, ...] = ("heuristic", "random")) -> Game:
    """A finished game at this table, its seats played by ``kinds`` in turn; its options name the first player
    (as a record without a seed must: the re-dealt records below have none, and a view shows the options)."""
    game = Game.new(edition, players=players, seed=seed, first_player=seed % players)
    play_out(game, [make_bot(kinds[s % len(kinds)]) for s in range(players)], random.Random(seed))
    return game


TABLES = [(key, players) for key, edition in EDITIONS.items() for players in edition.player_counts]


@pytest.mark.parametrize(("edition", "players"), TABLES)
def test_the_review_of_a_decision_does_not_depend_on_what_the_seat_could_not_see(edition: str, players: int) -> None:
    """At decisions of every seat, re-deal what that seat could not see: its view is the same, and so is the
    review (same key, same seed), though the hidden cards differ."""
    rng = np.random.default_rng(7)
    record = to_record(played(edition, players, seed=31))
    checked = changed = 0
    for seat in range(players):
        # Every seat's bids, and its cards at every third decision: bidding, early, late, forced.
        mine = list(decisions(record, seat))
        for decision in [d for i, d in enumerate(mine) if isinstance(d.chosen, Bid) or i % 3 == seat % 3]:
            other = redealt(record, decision, seat, rng)
            again = next(d for d in decisions(other, seat) if (d.deal, d.index) == (decision.deal, decision.index))
            assert again.seen == decision.seen and again.seen.to_json() == decision.seen.to_json()
            assert (again.step, again.chosen) == (decision.step, decision.chosen)
            truth, other_deal = replay(record).deals[decision.deal], replay(other).deals[decision.deal]
            changed += truth != other_deal
            key = f"{decision.deal}:{decision.index}"
            reviewed = review_decision(decision.seen, decision.chosen, FEW, key)
            assert review_decision(again.seen, again.chosen, FEW, key) == reviewed
            assert {"value", "accuracy", "information_value"} <= set(reviewed)  # version 2's fields too
            checked += 1
    assert checked >= 40  # 7 tables: a few hundred decisions in all
    assert changed >= checked // 2  # the hidden cards were indeed drawn again


def with_bid(edition: str, players: int, seed: int, seat: int, bid: Bid) -> dict[str, Any]:
    """A finished game played by the heuristic, but for ``seat``'s first bid, which is ``bid``."""
    game = Game.new(edition, players=players, seed=seed)
    bot, rng = make_bot("heuristic"), random.Random(seed)
    while (current := game.current_player) is not None:
        seen = view(game, current)
        forced = current == seat and game.deal_number == 1 and game.phase is Phase.BID
        game.apply(bid if forced else bot.choose(seen, rng), current)
    return to_record(game)


@pytest.mark.parametrize(("edition", "players"), [("iello-2024", 4), ("korokorodou-2014", 3)])
def test_bidding_every_trick_is_a_blunder(edition: str, players: int) -> None:
    top = Bid(10, safety=False)
    record = with_bid(edition, players, seed=12, seat=1, bid=top)
    review = review_game(record, 1, ReviewSettings(worlds=32))
    bid = next(d for d in review["decisions"] if d["deal"] == 1 and d["kind"] == "bid")
    assert bid["action"] == str(top) and bid["label"] == "blunder"
    assert bid["loss"] >= review["thresholds"]["blunder"] and bid["loss"] > 2 * bid["se"]
    assert bid["best"] != str(top) and not bid["best_within_noise"]
    assert review["deals"][0]["bid"] == str(top) and review["deals"][0]["could_bid"] == bid["best"]
    assert review["deals"][0]["labels"]["blunder"] >= 1
    chosen = next(o for o in bid["options"] if o["action"] == str(top))
    assert chosen["chance"] == min(o["chance"] for o in bid["options"]) < 0.15
    assert bid["options"][0]["points"] > chosen["points"] and bid["accuracy"] < 50


def short_of_its_bid() -> Game:
    """IELLO, 4 players, two tricks left: seat 3 bid 3, has 1, plays last to three reds with a trump and a blue.
    Nobody else has blue or trumps left: the trump surely takes this trick, then the blue the last one."""
    edition = get_edition("iello-2024")
    red, green, blue, trump = 0, 1, 2, 4
    left = [[Card(red, 5), Card(green, 3)], [Card(red, 7), Card(green, 4)], [Card(red, 9), Card(red, 2)]]
    left.append([Card(blue, 6), Card(trump, 8)])
    rest = [card for card in edition.deck(4) if not any(card in hand for hand in left)]
    aside, rest = rest[:10], rest[10:]
    hands = [sorted(left[seat] + rest[seat * 8 : seat * 8 + 8]) for seat in range(4)]
    slot = {(seat, card): hands[seat].index(card) for seat in range(4) for card in hands[seat]}
    plays = tuple((seat, slot[seat, left[seat][0]], left[seat][0]) for seat in range(3))
    in_hand = [[slot[seat, card] for card in left[seat][seat < 3 :]] for seat in range(4)]  # the reds are on the table
    return Game.from_position(
        ScoreSheet.new(edition, 4, first_player=0),
        Deal(tuple(tuple(hand) for hand in hands), tuple(sorted(aside))),
        played=[[s for s in range(10) if s not in in_hand[seat]] for seat in range(4)],
        bids=[Bid(3), Bid(2), Bid(3), Bid(3)],
        tricks_won=[3, 2, 2, 1],
        trick=Trick(0, plays),
    )


def test_discarding_a_sure_winner_when_short_of_the_bid_is_a_blunder() -> None:
    seen = view(short_of_its_bid(), 3)
    trump, blue = (Play(s.slot) for s in sorted(seen.hands[3], key=lambda s: -s.colour) if not s.played)
    assert set(seen.legal_actions) == {trump, blue}
    settings = ReviewSettings(worlds=16)
    discard = review_decision(seen, blue, settings, "discard")
    assert discard["label"] == "blunder" and discard["best"] == str(trump)
    raw = review_decision(seen, blue, settings, "discard", IDENTITY)  # the playouts' own figures
    made, missed = (seen.edition.score(3, False, t, 1, seen.options) for t in (3, 2))
    assert raw["loss"] == made - missed >= thresholds(seen.edition)["blunder"]
    by_action = {o["action"]: o for o in raw["options"]}
    assert by_action[str(trump)]["chance"] == 1.0 and by_action[str(blue)]["chance"] == 0.0
    ruff = review_decision(seen, trump, settings, "ruff")
    assert ruff["label"] is None and ruff["loss"] == 0.0 and ruff["best_within_noise"]


def test_the_strong_bot_is_mostly_best_within_the_noise() -> None:
    """A loose bound on one game (the rate over more games is measured by ``luz bench review``, docs/BOTS.md)."""
    record = to_record(played("iello-2024", 3, seed=4, kinds=("strong",)))
    review = review_game(record, 0, ReviewSettings(worlds=64))
    assert review["game"]["decisions"] >= 20
    assert review["game"]["best_share"] >= 0.7
    assert review["game"]["labels"]["blunder"] <= 1


def test_the_same_record_seat_and_settings_give_the_same_review() -> None:
    record = to_record(played("standard-deck", 4, seed=8))
    settings = ReviewSettings(worlds=8, seed="again")
    first = review_game(record, 2, settings)
    assert review_game(copy.deepcopy(record), 2, ReviewSettings(worlds=8, seed="again")) == first
    assert first["settings"] == {
        "search": "adaptive",
        "worlds": 8,
        "oversample": 4,
        "seed": "again",
        "batch": 50,
        "depth": None,
        "z": 2.0,
    }
    other = review_game(record, 2, ReviewSettings(worlds=8, seed="other"))
    assert other["settings"]["seed"] == "other"
    assert [d["options"] for d in other["decisions"]] != [d["options"] for d in first["decisions"]]
    assert [d["action"] for d in other["decisions"]] == [d["action"] for d in first["decisions"]]


def test_the_review_json_has_the_contract_fields() -> None:
    game = played("iello-2024", 4, seed=3)
    review = review_game(to_record(game), 0, FEW)
    assert review["format"] == "luz-review" and review["version"] == 2
    assert (review["edition"], review["players"], review["seat"]) == ("iello-2024", 4, 0)
    assert review["thresholds"] == {"blunder": 10.0, "mistake": 5.0, "inaccuracy": 2.5}
    steps = [d["step"] for d in review["decisions"]]
    assert steps == sorted(steps) and len(steps) == len(set(steps))
    for decision in review["decisions"]:
        assert replay(to_record(game), upto=decision["step"]).current_player == 0
        options = decision["options"]
        assert decision["action"] in {o["action"] for o in options}
        if decision["forced"]:
            assert len(options) == 1 and options[0]["points"] is None and decision["label"] is None
            continue
        assert options[0]["action"] == decision["best"] and options[0]["loss"] == 0.0
        assert [o["points"] for o in options] == sorted((o["points"] for o in options), reverse=True)
        assert all(0.0 <= o["chance"] <= 1.0 and o["se"] >= 0.0 for o in options)
        assert decision["value"] == options[0]["points"] and 0.0 <= decision["accuracy"] <= 100.0
        assert (decision["information_value"] is not None) == (decision["kind"] == "bid")
    assert [d["deal"] for d in review["deals"]] == [1, 2, 3, 4]
    assert sum(d["decisions"] for d in review["deals"]) == review["game"]["decisions"]
    assert review["game"]["points"] == game.sheet.totals[0] == sum(d["points"] for d in review["deals"])
    labels = review["game"]["labels"]
    assert sum(labels.values()) == sum(d["label"] is not None for d in review["decisions"])


def test_an_unfinished_game_or_a_bad_seat_is_refused() -> None:
    game = Game.new("iello-2024", players=3, seed=1)
    game.apply(game.legal_actions()[0])
    with pytest.raises(ValueError, match="finished"):
        review_game(to_record(game), 0, FEW)
    record = to_record(played("iello-2024", 3, seed=1))
    for seat in (-1, 3, 7):
        with pytest.raises(ValueError, match="seat"):
            review_game(record, seat, FEW)
    with pytest.raises(ValueError, match="worlds"):
        ReviewSettings(worlds=1)
    fresh = Game.new("iello-2024", players=3, seed=1)
    seen = view(fresh, fresh.first_player)
    assert seen.legal_actions and all(isinstance(a, Bid) for a in seen.legal_actions)
    with pytest.raises(ValueError, match="not a legal action"):
        review_decision(seen, Play(0), FEW)


@pytest.mark.parametrize(("edition", "players"), TABLES)
def test_the_luck_identity_holds_on_every_reviewed_deal(edition: str, players: int) -> None:
    """Per deal and for the game: points = start value - decision loss + luck, exactly; the decision loss is at
    most the range of points the deal allowed; a forced move is never labelled nor counted."""
    record = to_record(played(edition, players, seed=17))
    for seat in range(players):
        review = review_game(record, seat, ReviewSettings(worlds=4))
        for deal in review["deals"]:
            assert deal["points"] == deal["start_value"] - deal["decision_loss"] + deal["luck"]
            assert 0.0 <= deal["decision_loss"] <= deal["range"]
            bid = next((d for d in review["decisions"] if d["deal"] == deal["deal"] and d["kind"] == "bid"), None)
            if bid is not None and not bid["forced"]:
                assert deal["information_value"] == bid["information_value"] >= 0.0
        game = review["game"]
        assert game["points"] == game["start_value"] - game["decision_loss"] + game["luck"]
        for decision in review["decisions"]:
            if decision["forced"]:
                assert decision["label"] is None and decision["loss"] == 0.0 and decision["accuracy"] is None
        assert game["decisions"] == sum(not d["forced"] for d in review["decisions"])


def test_on_an_exact_tie_the_players_choice_is_named_best() -> None:
    """Two bids worth exactly the same in every world: whichever of them was chosen is named best, with no loss;
    a worse one names the first of the two."""
    fresh = Game.new("iello-2024", players=4, seed=2)
    seen = view(fresh, fresh.first_player)
    actions = [Bid(tricks, safety) for tricks in range(11) for safety in (False, True)]
    points = np.tile(np.arange(8, dtype=np.float64), (len(actions), 1)) - 20.0
    tied = [actions.index(Bid(2)), actions.index(Bid(3))]
    points[tied] += 30.0
    batch = (list(actions), points, np.zeros_like(points))
    for chosen in (Bid(2), Bid(3)):
        reviewed = judge(seen, chosen, [batch], IDENTITY)
        assert reviewed["best"] == str(chosen) and reviewed["loss"] == 0.0 and reviewed["accuracy"] == 100.0
        assert reviewed["options"][0]["action"] == str(chosen) and reviewed["best_within_noise"]
    worse = judge(seen, Bid(0), [batch], IDENTITY)
    assert worse["best"] == str(Bid(2)) and worse["loss"] == 30.0 and worse["label"] == "blunder"
