"""Bots: legal actions only, decisions from the view alone, the heuristic clearly better than random."""

from __future__ import annotations

import random

import pytest

from luz.bots import BOTS, Bot, HeuristicBot, RandomBot, UnknownBot, make_arena_bot, make_bot, play_out
from luz.bots.heuristic import guess_own_cards
from luz.engine import Bid, Card, Game, Phase, get_edition, view
from support.reference import CONFIGS, twin_deals


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_bots_only_return_legal_actions(edition: str, players: int) -> None:
    rng = random.Random(f"{edition}-{players}")
    for seed in range(3):
        game = Game.new(edition, players, seed=seed)
        bots = [make_bot("heuristic" if (seat + seed) % 2 else "random") for seat in range(players)]
        while game.current_player is not None:
            seat = game.current_player
            seen = view(game, seat)
            action = bots[seat].choose(seen, rng)
            assert action in seen.legal_actions, (edition, players, seed, seat, action)
            game.apply(action, seat)
        assert game.phase is Phase.GAME_OVER


EVERY_BOT = [*sorted(BOTS), "learned", "policy", "selfplay", "strong:depth=2", "expert:depth=2"]
"""The offered bots, the arena's learned ones (and the self-play network), and the searches that stop playouts
early (the learned value)."""


@pytest.mark.parametrize("name", EVERY_BOT)
def test_a_choice_is_a_function_of_the_view(name: str) -> None:
    bot = make_arena_bot(name)
    game = Game.new("iello-2024", players=4, seed=8)
    while game.current_player is not None:
        seen = view(game, game.current_player)
        first = bot.choose(seen, random.Random(3))
        assert bot.choose(view(game, game.current_player), random.Random(3)) == first
        game.apply(first)


@pytest.mark.parametrize("name", EVERY_BOT)
@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_a_bot_cannot_see_its_own_values(name: str, edition: str, players: int) -> None:
    for seed in range(5):
        game = Game.new(edition, players, seed=seed)
        seat = game.current_player
        assert seat is not None
        dealt, twin = twin_deals(game, seat)
        assert twin.deals[-1].hands[seat] != dealt.deals[-1].hands[seat]
        assert view(twin, seat) == view(dealt, seat)
        assert make_arena_bot(name).choose(view(twin, seat), random.Random(seed)) == make_arena_bot(name).choose(
            view(dealt, seat), random.Random(seed)
        )


def test_heuristic_beats_random() -> None:
    """40 seeded games, one heuristic bot against three random ones, its seat rotating.

    Over 400 games the means are about +21 and -43 points a game; 10 blocks of 40 games all showed a margin over 55.
    """
    games, heuristic, others = 40, 0, 0
    for seed in range(games):
        seat = seed % 4
        game = Game.new("iello-2024", 4, seed=seed)
        play_out(game, [make_bot("heuristic" if s == seat else "random") for s in range(4)], random.Random(seed))
        outcome = game.outcome()
        assert outcome is not None
        heuristic += outcome.totals[seat]
        others += sum(outcome.totals) - outcome.totals[seat]
    assert heuristic / games > others / games / 3 + 30


def test_heuristic_bids_from_what_it_can_infer() -> None:
    """The others' cards and an aside of one colour tell seat 0 its values exactly: it bids high, or nothing."""
    edition = get_edition("iello-2024")
    deck = edition.deck(4)
    red, green, blue, purple, yellow = range(5)
    aside = [Card(green, v) for v in range(1, 11)]
    strong = [Card(yellow, v) for v in range(6, 11)] + [Card(red, 9), Card(red, 10), Card(blue, 9)]
    strong += [Card(blue, 10), Card(purple, 10)]
    weak = [Card(yellow, v) for v in range(1, 6)] + [Card(red, 1), Card(red, 2), Card(blue, 1)]
    weak += [Card(blue, 2), Card(purple, 1)]
    bids = []
    for mine in (strong, weak):
        rest = [card for card in deck if card not in mine and card not in aside]
        game = Game.new(edition, 4, first_player=0)
        game.deal([mine, rest[0:30:3], rest[1:30:3], rest[2:30:3]], aside)
        assert [g.pool for g in guess_own_cards(view(game, 0))] == [(card.value,) for card in game.deals[-1].hands[0]]
        bid = make_bot("heuristic").choose(view(game, 0), random.Random(0))
        assert isinstance(bid, Bid)
        bids.append(bid.tricks)
    assert bids[0] >= 6
    assert bids[1] == 0


def test_the_registry() -> None:
    assert {"random", "heuristic"} <= set(BOTS)
    assert isinstance(make_bot(" Heuristic "), HeuristicBot)
    assert isinstance(make_bot("random"), RandomBot)
    assert make_bot("random") is not make_bot("random")
    with pytest.raises(UnknownBot, match="random, heuristic"):
        make_bot("oracle")


def test_a_bot_refuses_a_view_with_nothing_to_choose() -> None:
    game = Game.new("iello-2024", players=4, seed=1)
    assert game.current_player is not None
    bot: Bot = make_bot("heuristic")
    with pytest.raises(ValueError, match="not its turn"):
        bot.choose(view(game, (game.current_player + 1) % 4), random.Random(0))
