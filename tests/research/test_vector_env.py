"""The Gymnasium VectorEnv on the batched core: one learning seat against the fast core's opponents."""

from __future__ import annotations

import numpy as np
import pytest

from luz.engine import IllegalAction, InvalidOptions
from luz.research.vector import LinearPolicy
from luz.research.vector_env import LuzVectorEnv


def random_returns(env: LuzVectorEnv, games: int, seed: int = 0) -> list[float]:
    """Whole-game returns of a uniformly random learning seat, checking each step's observations on the way."""
    rng = np.random.default_rng(seed)
    observations, info = env.reset()
    running = np.zeros(env.num_envs)
    returns: list[float] = []
    while len(returns) < games:
        assert env.observation_space.contains(observations)
        masks = observations["action_mask"]
        seats = info["seat"]
        assert (observations["observation"][np.arange(env.num_envs), seats] == 1.0).all()  # the learner's seat
        assert (masks.sum(axis=1) > 0).all()  # always the learner's turn
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, done, truncated, info = env.step(actions)
        assert not truncated.any()
        running += rewards
        returns += list(running[done])
        running[done] = 0.0
    return returns


def test_the_opponents_kind_matters_and_heuristic_opponents_beat_a_random_seat() -> None:
    against = {
        kind: np.mean(random_returns(LuzVectorEnv(32, "iello-2024", 4, seat=None, opponents=kind, seed=5), 150))
        for kind in ("heuristic", "random")
    }
    assert against["heuristic"] < against["random"] - 5


def test_a_linear_policy_opponent_and_fixed_seats() -> None:
    env = LuzVectorEnv(8, "standard-deck", 3, seat=2, opponents="random", seed=1)
    size = env.single_observation_space["observation"].shape[0]
    policy = LinearPolicy(np.zeros((size, 32), np.float32), np.zeros(32, np.float32))
    linear = LuzVectorEnv(8, "standard-deck", 3, seat=2, opponents=policy, seed=1)
    for each in (env, linear):
        _, info = each.reset()
        assert (info["seat"] == 2).all()
        assert len(random_returns(each, 10)) >= 10
    with pytest.raises(InvalidOptions):
        LuzVectorEnv(2, opponents=LinearPolicy(np.zeros((3, 32), np.float32), np.zeros(32, np.float32)))
    with pytest.raises(InvalidOptions):
        LuzVectorEnv(2, opponents="strong")
    with pytest.raises(InvalidOptions):
        LuzVectorEnv(2, players=4, seat=4)


def test_a_seed_reproduces_a_run_and_illegal_actions_change_nothing() -> None:
    runs = [random_returns(LuzVectorEnv(16, "korokorodou-2014", 4, seat=None, seed=9), 40) for _ in range(2)]
    assert runs[0] == runs[1]
    env = LuzVectorEnv(2, "iello-2024", 4, seat=0, seed=3)
    observations, _ = env.reset()
    with pytest.raises(IllegalAction):
        env.step(np.array([31, 31]))  # a play while bidding
    np.testing.assert_array_equal(env.batch.observe(env.batch._seats), observations["observation"])
