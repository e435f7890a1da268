"""OpenSpiel's ISMCTS with the heuristic's rollouts: the evaluator plays the deal out as the heuristic bot would."""

from __future__ import annotations

import random

import numpy as np
import pytest

from luz.bots import make_arena_bot
from luz.engine import Game, Phase, view
from support.reference import random_steps

openspiel = pytest.importorskip("luz.research.openspiel", reason="OpenSpiel is the optional luz-game[research] extra")


@pytest.mark.parametrize(("edition", "players"), [("iello-2024", 4), ("korokorodou-2014", 3), ("standard-deck", 4)])
def test_a_leaf_is_valued_by_the_heuristic_playing_the_deal_out(edition: str, players: int) -> None:
    from luz.bots.openspiel_ismcts import HeuristicRolloutEvaluator

    evaluator = HeuristicRolloutEvaluator()
    for seed in range(3):
        game = Game.new(edition, players, seed=seed)
        random_steps(game, random.Random(seed), 3 + 5 * seed)
        seat = game.current_player
        assert seat is not None
        state = openspiel.state_from_view(view(game, seat), random.Random(seed))
        world = state.table.game.clone()
        heuristic, rng, number = make_arena_bot("heuristic"), random.Random(0), world.deal_number
        while world.deal_number == number and (acting := world.current_player) is not None:
            world.apply(heuristic.choose(view(world, acting), rng), acting)
            if world.phase not in (Phase.BID, Phase.PLAY):
                break
        expected = world.results[number - 1].scores if len(world.results) >= number else None
        assert expected is not None
        before = np.array(state.table.game.sheet.totals)
        assert np.array_equal(evaluator.evaluate(state), before + np.array(expected))


def test_the_anchor_plays_legally_with_a_small_budget() -> None:
    game = Game.new("korokorodou-2014", 3, seed=1)
    random_steps(game, random.Random(1), 4)
    seat = game.current_player
    assert seat is not None
    seen = view(game, seat)
    bot = make_arena_bot("openspiel-ismcts-h:iters=20")
    action = bot.choose(seen, random.Random(2))
    assert action in seen.legal_actions
    assert bot.choose(seen, random.Random(2)) == action  # reproducible for a seed and a number of simulations
    assert make_arena_bot("openspiel-ismcts-h").iters == 300
