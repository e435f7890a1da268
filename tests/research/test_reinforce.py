"""The training example: a policy learnt from scratch on the batched environment beats random players in the arena."""

from __future__ import annotations

import random

import numpy as np

from luz.engine import Game, view
from luz.research.encoding import ACTION_COUNT, Encoder, action_id
from luz.research.reinforce import TRAINED, LinearBot, arena, train
from luz.research.vector import LinearPolicy


def test_a_policy_trained_on_a_few_thousand_games_beats_random_in_the_arena() -> None:
    training = train("iello-2024", 4, opponents="random", games=128, updates=24, seed=0)
    curve = [point["mean_points"] for point in training.curve]
    assert training.curve[-1]["games_finished"] >= 2500
    assert np.mean(curve[-5:]) > np.mean(curve[:2]) + 20  # it learnt: random play loses about 45 a game here
    summary = arena(training, "random", deal_sets=20, seed=1)
    (pair,) = summary["pairs"]
    assert pair["bot"] == TRAINED and pair["against"] == "random"
    assert pair["significant"] and pair["ci95"][0] > 0
    assert summary["config"]["games"] == 80


def test_a_linear_bot_plays_legal_actions_from_its_view_alone() -> None:
    edition = Game.new("standard-deck", 3, seed=0).edition
    encoder = Encoder(edition, 3, edition.options(3), perfect_recall=False)
    rng = np.random.default_rng(0)
    policy = LinearPolicy(rng.normal(size=(encoder.size, ACTION_COUNT)).astype(np.float32), np.zeros(32, np.float32))
    for greedy in (True, False):
        bot = LinearBot(policy, encoder, greedy=greedy)
        game = Game.new("standard-deck", 3, seed=4)
        while (seat := game.current_player) is not None:
            seen = view(game, seat)
            action = bot.choose(seen, random.Random(0))
            assert action in seen.legal_actions
            if greedy:
                logits = encoder.tensor(seen, seat) @ policy.weights
                assert action_id(action) == max((action_id(a) for a in seen.legal_actions), key=lambda a: logits[a])
            game.apply(action, seat)
