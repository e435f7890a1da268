"""The fast simulation core against the reference engine: legal moves, trick winners, scores, beliefs, policy."""

from __future__ import annotations

import random

import numpy as np
import pytest

from luz.bots import make_bot
from luz.engine import Bid, Game, Phase, Play, view
from luz.engine.beliefs import Beliefs
from support import fastsim as fs
from support.reference import CONFIGS, random_steps


def test_thousands_of_seeded_deals_match_the_engine() -> None:
    """Random legal play in both: the same legal actions at every step, trick winners and deal scores."""
    deals = steps = 0
    for edition, players in CONFIGS:
        for seed in range(110):
            game, rng = Game.new(edition, players, seed=seed), random.Random(seed)
            while game.phase is not Phase.GAME_OVER:
                sim = fs.SimDeal(game)
                while sim.current_player is not None:
                    assert sim.current_player == game.current_player
                    legal = list(game.legal_actions())
                    assert sim.legal_actions() == legal, (edition, players, seed, game.deal_number)
                    action = rng.choice(legal)
                    tricks_before = len(game.completed_tricks)
                    winner = sim.apply(action)
                    game.apply(action)
                    steps += 1
                    if winner is not None and game.phase is Phase.PLAY:
                        assert len(game.completed_tricks) == tricks_before + 1
                        assert game.completed_tricks[-1].winner == winner
                assert sim.scores() == list(game.results[-1].scores)
                assert list(sim.won) == list(game.results[-1].tricks)
                deals += 1
    assert deals >= 3000 and steps > 100_000


def test_a_deal_starts_at_its_beginning() -> None:
    game = Game.new("iello-2024", 4, seed=1)
    game.apply(Bid(1))
    with pytest.raises(ValueError, match="beginning of a deal"):
        fs.SimDeal(game)


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_each_seat_believes_exactly_what_its_beliefs_say(edition: str, players: int) -> None:
    """The core's beliefs of a seat, from that seat's side of the world, are the engine's exact beliefs."""
    rng = random.Random(edition)
    for seed in range(12):
        game = Game.new(edition, players, seed=seed)
        random_steps(game, rng, rng.randrange(players + 10 * players))
        if game.phase not in (Phase.BID, Phase.PLAY):
            continue
        hands = game.deals[-1].hands
        val = np.array([[c.value for c in hand] for hand in hands])
        col = np.array([[c.colour for c in hand] for hand in hands])
        played = np.array([[game.is_played(s, slot) for slot in range(10)] for s in range(players)])
        rules = fs.rules_array(game.edition, players, game.options, game.deal_number)
        for seat in range(players):
            gt = np.zeros((10, rules[fs.HIGH] + 2))
            fs.own_beliefs(val, col, played, seat, rules, gt)
            for slot, probabilities in Beliefs(view(game, seat)).table().items():
                expected = [sum(p for value, p in probabilities.items() if value > v) for v in range(gt.shape[1])]
                assert np.allclose(gt[slot], expected), (edition, players, seed, seat, slot)


def test_the_playout_policy_is_the_heuristic_bot() -> None:
    """Each simulated player's choice, from its own beliefs, is what the heuristic bot decides from its view."""
    heuristic = make_bot("heuristic")
    agreed = 0
    for edition, players in CONFIGS:
        for seed in range(4):
            game, rng = Game.new(edition, players, seed=seed), random.Random(seed)
            while game.phase is not Phase.GAME_OVER:
                sim = fs.SimDeal(game)
                while (seat := sim.current_player) is not None:
                    expected = heuristic.choose(view(game, seat), rng)
                    gt = np.zeros((10, sim.rules[fs.HIGH] + 2))
                    fs.own_beliefs(sim.val, sim.col, sim.played, seat, sim.rules, gt)
                    if game.phase is Phase.BID:
                        choice = fs.policy_bid(sim.val, sim.col, sim.played, sim.st, seat, gt, sim.rules)
                        assert Bid(choice // 2, bool(choice % 2)) == expected
                    else:
                        legal = np.empty(10, dtype=np.int64)
                        count = fs.legal_plays(sim.col, sim.played, seat, sim.st[fs.LED], legal)
                        args = (sim.val, sim.col, sim.played, sim.st, sim.trick, sim.won, sim.bids, seat, gt)
                        assert Play(int(fs.choose_play(*args, sim.rules, legal, count))) == expected
                    agreed += 1
                    action = expected if rng.random() < 0.7 else rng.choice(list(game.legal_actions()))
                    sim.apply(action)
                    game.apply(action)
    assert agreed > 3000


def test_rollouts_score_by_the_rules() -> None:
    """Whole-deal playouts from the start of a deal: every seat's tricks sum to 10 and its points follow the bid."""
    game = Game.new("korokorodou-2014", 3, seed=5)
    sim = fs.SimDeal(game)
    worlds = np.repeat(sim.val[None], 3, axis=0)
    firsts = np.array([0, 4, 8])  # seat 0 (the first bidder here or not) bids 0, 2 or 4 when its turn comes
    scores = np.zeros((3, 3, 3), dtype=np.int64)
    tricks = np.zeros_like(scores)
    me = game.first_player
    fs.rollouts(
        worlds,
        sim.col,
        sim.played,
        sim.st,
        sim.trick,
        sim.won,
        sim.bids,
        sim.safe,
        sim.rules,
        me,
        False,
        firsts,
        fs.NO_POLICY,
        fs.H,
        fs.NO_VALUE,
        scores,
        tricks,
    )
    assert (tricks.sum(axis=2) == 10).all()
    for a, bid in enumerate((0, 2, 4)):
        for k in range(3):
            assert scores[a, k, me] == game.edition.score(bid, False, int(tricks[a, k, me]), 1, game.options)
    assert (scores[:, 0] == scores[:, 1]).all()  # the same world gives the same playout
