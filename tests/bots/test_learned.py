"""The learned play policy: the shipped weights load, step 0 is the heuristic, training is reproducible."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from luz.bots import HeuristicBot, InvalidBotSpec, make_arena_bot
from luz.bots.learned import PolicyBot, PolicyInputs, policy_of_step, shipped_steps
from luz.bots.training import Examples, TrainConfig, agreement, fit, policy_picks, regret, train
from luz.engine import Game, Play, view
from support import fastsim as fs


def test_the_shipped_weights_load() -> None:
    steps = shipped_steps()
    assert steps.ndim == 2 and steps.shape[1] == fs.FEATURES and len(steps) >= 1
    assert np.isfinite(steps).all() and np.abs(steps).max() > 0
    assert np.array_equal(policy_of_step(None), steps[-1])
    assert policy_of_step(0) is fs.NO_POLICY
    assert np.array_equal(make_arena_bot("learned").policy, steps[-1])
    assert np.array_equal(make_arena_bot("policy:step=1").policy, steps[0])
    for bad in (-1, len(steps) + 1):
        with pytest.raises(InvalidBotSpec, match="step"):
            make_arena_bot(f"policy:step={bad}")


@pytest.mark.parametrize(
    ("edition", "players"), [("iello-2024", 4), ("korokorodou-2014", 3), ("standard-deck", 4), ("iello-2024", 5)]
)
def test_step_zero_is_the_heuristic(edition: str, players: int) -> None:
    """With no learned weights the policy bot bids and plays exactly as the heuristic, on every decision."""
    policy, heuristic = PolicyBot(step=0), HeuristicBot()
    learned, differs = PolicyBot(), 0
    for seed in range(2):
        game, rng = Game.new(edition, players, seed=seed), random.Random(seed)
        while (seat := game.current_player) is not None:
            seen = view(game, seat)
            action = heuristic.choose(seen, rng)
            assert policy.choose(seen, rng) == action
            if isinstance(action, Play) and len(seen.legal_actions) > 1:
                inputs = PolicyInputs(seen)  # the feature that marks the heuristic's card marks this one
                assert inputs.legal[int(np.argmax(inputs.features()[:, -1]))] == action.slot
            differs += learned.choose(seen, rng) != action
            game.apply(action, seat)
    assert differs > 0, "the shipped policy never plays otherwise than the heuristic"


def test_the_fit_recovers_a_known_policy() -> None:
    """Choices drawn from a known softmax policy over random features: the fit ranks the cards as it does."""
    rng = np.random.default_rng(0)
    truth = rng.normal(size=fs.FEATURES) * 2
    examples = Examples([], [], [], [], [])
    for _ in range(3000):
        features = rng.random((int(rng.integers(2, 9)), fs.FEATURES))
        p = np.exp(features @ truth)
        pick = int(rng.choice(len(p), p=p / p.sum()))
        examples.features.append(features)
        examples.targets.append(np.eye(len(p))[pick])
        examples.values.append(features @ truth)
        examples.picks.append(pick)
    weights, _ = fit(examples, 0.0, np.zeros(fs.FEATURES))
    assert np.corrcoef(weights, truth)[0, 1] > 0.95
    assert agreement(examples, weights) > agreement(examples, -truth) + 0.3
    assert regret(examples, policy_picks(examples, weights)) < 0.1 * regret(examples, policy_picks(examples, -truth))


def test_training_is_reproducible_for_a_seed() -> None:
    config = TrainConfig(steps=2, games=1, label_rate=0.3, iters=4, seed=3)
    (first, log), (again, _) = train(config), train(config)
    assert np.array_equal(first, again) and first.shape == (2, fs.FEATURES) and len(log) == 2
    other, _ = train(TrainConfig(steps=2, games=1, label_rate=0.3, iters=4, seed=4))
    assert not np.array_equal(first, other)


def test_luz_train_refuses_a_bad_table_in_one_line(tmp_path: object) -> None:
    entry = "from luz.cli import main; main()"
    command = [sys.executable, "-c", entry, "train", "--out", f"{tmp_path}/p.npz", "--edition", "nope"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "unknown edition" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
