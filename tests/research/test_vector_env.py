"""The Gymnasium VectorEnv on the batched core: one learning seat against the fast core's opponents."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from luz.engine import IllegalAction, InvalidOptions
from luz.research.gym import LuzEnv  # registers luz/Luz-v1
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


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


def test_same_step_autoreset_gives_the_ended_games_last_observation_and_info() -> None:
    env = LuzVectorEnv(6, "iello-2024", 4, seat=None, opponents="random", seed=2)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    encoder = env.batch.encoder
    rng = np.random.default_rng(1)
    observations, info = env.reset()
    assert set(info) == {"seat", "_seat"} and info["_seat"].all()
    running = np.zeros(env.num_envs)
    finished = 0
    while finished < 12:
        seats = info["seat"]
        observations, rewards, terminated, _, info = env.step(random_legal(observations["action_mask"], rng))
        running += rewards
        if not terminated.any():
            assert set(info) == {"seat", "_seat"}
            continue
        assert set(info) == {"seat", "_seat", "final_obs", "_final_obs", "final_info", "_final_info"}
        np.testing.assert_array_equal(info["_final_obs"], terminated)
        np.testing.assert_array_equal(info["_final_info"], terminated)
        np.testing.assert_array_equal(info["final_info"]["_seat"], terminated)
        for i in range(env.num_envs):
            if not terminated[i]:
                assert info["final_obs"][i] is None
                continue
            final = info["final_obs"][i]
            assert env.single_observation_space.contains(final)
            assert not final["action_mask"].any()  # nobody acts in a finished game
            last = encoder.split(final["observation"])
            assert info["final_info"]["seat"][i] == seats[i] == last["seat"].argmax()
            assert last["phase"].argmax() == 3 and last["deal"].argmax() == encoder.deals - 1
            assert not last["current_player"].any() and last["hands"][..., -1].all()  # every card played
            assert last["totals"][0] * encoder.scale * encoder.deals == pytest.approx(running[i])
            first = encoder.split(observations["observation"][i])
            assert first["phase"].argmax() == 1 and first["deal"].argmax() == 0 and not first["scores"].any()
            assert first["seat"].argmax() == info["seat"][i] and observations["action_mask"][i].any()
            running[i] = 0.0
            finished += 1


def test_the_autoreset_infos_are_laid_out_as_gymnasiums_own_vector_env_lays_them() -> None:
    """The reference: Gymnasium's SyncVectorEnv in same-step mode over the single-seat environment."""
    rng = np.random.default_rng(0)

    def ended_step(env: Any) -> dict[str, Any]:
        observations, _ = env.reset(seed=4)
        while True:
            observations, _, terminated, _, info = env.step(random_legal(observations["action_mask"], rng))
            if terminated.any():
                return dict(info)

    def layout(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: layout(item) for key, item in value.items()}
        if value.dtype == object:
            return ("objects", value.shape, {type(x).__name__ for x in value})
        return (value.dtype.kind, value.shape)

    reference = SyncVectorEnv(
        [lambda: LuzEnv("standard-deck", 3, seat=None, opponents="random")] * 2, autoreset_mode=AutoresetMode.SAME_STEP
    )
    ours = ended_step(LuzVectorEnv(2, "standard-deck", 3, seat=None, opponents="random"))
    theirs = ended_step(reference)
    ours_layout, theirs_layout = layout(ours), layout(theirs)
    for key in ("final_obs",):  # which slots ended differs between the runs: compare the types of the entries
        ours_layout[key] = ours_layout[key][:2]
        theirs_layout[key] = theirs_layout[key][:2]
    assert ours_layout == theirs_layout
    assert set(ours["final_obs"][ours["_final_obs"]][0]) == set(theirs["final_obs"][theirs["_final_obs"]][0])


def test_gymnasiums_episode_statistics_read_the_autoreset_right() -> None:
    """Gymnasium's own RecordEpisodeStatistics on ``make_vec("luz/Luz-v1")``: its returns are the games' totals."""
    env = RecordEpisodeStatistics(gymnasium.make_vec("luz/Luz-v1", num_envs=4, edition="standard-deck", players=3))
    encoder = env.unwrapped.batch.encoder
    rng = np.random.default_rng(2)
    observations, _ = env.reset(seed=6)
    totals: list[float] = []
    while len(totals) < 10:
        observations, _, terminated, _, info = env.step(random_legal(observations["action_mask"], rng))
        for i in np.flatnonzero(terminated):
            total = info["final_obs"][i]["observation"][encoder.offsets["totals"]] * encoder.scale * encoder.deals
            assert info["episode"]["r"][i] == pytest.approx(total)
            totals.append(total)
    assert list(env.return_queue) == pytest.approx(totals)


def test_parallel_and_serial_kernels_give_the_same_games_and_final_observations() -> None:
    runs = []
    for parallel in (False, True):
        env = LuzVectorEnv(8, "standard-deck", 3, seat=None, opponents="random", seed=4, parallel=parallel)
        rng = np.random.default_rng(0)
        observations, _ = env.reset()
        trace = [observations["observation"]]
        for _ in range(120):
            observations, rewards, terminated, _, info = env.step(random_legal(observations["action_mask"], rng))
            trace += [observations["observation"], rewards, terminated]
            trace += [info["final_obs"][i]["observation"] for i in np.flatnonzero(terminated)]
        runs.append(trace)
    assert len(runs[0]) == len(runs[1]) > 3 * 120 + 1  # games ended on the way
    for serial, parallel in zip(*runs, strict=True):
        np.testing.assert_array_equal(serial, parallel)


def test_reset_without_a_seed_gives_new_games_and_the_seed_replays_them() -> None:
    env = LuzVectorEnv(16, "iello-2024", 4, seat=None, seed=3)
    first, _ = env.reset()
    second, _ = env.reset()
    assert all((a != b).any() for a, b in zip(first["observation"], second["observation"], strict=True))
    again, _ = env.reset(seed=3)
    np.testing.assert_array_equal(again["observation"], first["observation"])
    one_per_slot, _ = env.reset(seed=list(range(16)))
    assert not np.array_equal(one_per_slot["observation"], first["observation"])
