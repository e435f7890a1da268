"""The Gymnasium VectorEnv on the batched core: one learning seat against the fast core's opponents."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from luz.engine import IllegalAction, InvalidAction, InvalidOptions
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


def test_a_seed_reproduces_a_run_and_illegal_actions_raise_when_asked_changing_nothing() -> None:
    runs = [random_returns(LuzVectorEnv(16, "korokorodou-2014", 4, seat=None, seed=9), 40) for _ in range(2)]
    assert runs[0] == runs[1]
    env = LuzVectorEnv(2, "iello-2024", 4, seat=0, seed=3, illegal_actions="raise")
    observations, _ = env.reset()
    with pytest.raises(IllegalAction):
        env.step(np.array([31, 31]))  # a play while bidding
    with pytest.raises(InvalidAction):
        env.step(np.array([0, 32]))  # not an action id, whatever illegal_actions says
    np.testing.assert_array_equal(env.batch.observe(env.batch._seats), observations["observation"])
    with pytest.raises(InvalidOptions):
        LuzVectorEnv(2, illegal_actions="ignore")


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_an_illegal_action_ends_that_game_as_in_the_single_env(mode: AutoresetMode) -> None:
    """The default, ``illegal_actions="terminate"``, as :class:`LuzEnv`'s: the worst total as reward, the game
    over, ``illegal_action`` in its info; the other slots play on."""
    single = LuzEnv("iello-2024", 4, seat=0)
    single.reset(seed=0)
    _, worst, over, _, single_info = single.step(31)  # a play while bidding
    assert over and single_info["illegal_action"]
    env = LuzVectorEnv(3, "iello-2024", 4, seat=0, seed=3, autoreset_mode=mode)
    observations, _ = env.reset()
    legal = int(np.flatnonzero(observations["action_mask"][1])[0])
    after, rewards, terminated, _, info = env.step(np.array([31, legal, legal]))
    assert list(terminated) == [True, False, False] and rewards[0] == worst == env.illegal_reward
    ended = info["final_info"] if mode is AutoresetMode.SAME_STEP else info
    assert list(ended["illegal_action"]) == list(ended["_illegal_action"]) == [True, False, False]
    last = info["final_obs"][0] if mode is AutoresetMode.SAME_STEP else {k: v[0] for k, v in after.items()}
    np.testing.assert_array_equal(last["observation"], observations["observation"][0])  # the game as it was
    np.testing.assert_array_equal(last["action_mask"], observations["action_mask"][0])


def test_fresh_envs_without_a_seed_differ_and_record_the_seed_they_drew() -> None:
    envs = [gymnasium.make_vec("luz/Luz-v1", num_envs=4, seed=None) for _ in range(2)]
    firsts = [env.reset()[0]["observation"] for env in envs]
    assert not np.array_equal(firsts[0], firsts[1])
    drawn = envs[0].unwrapped.batch.seed
    assert envs[0].unwrapped.np_random_seed == drawn and drawn != envs[1].unwrapped.batch.seed
    again = LuzVectorEnv(4, seed=drawn).reset()[0]["observation"]
    np.testing.assert_array_equal(again, firsts[0])


SAME_SEED_PROGRAM = """
import numpy as np
from luz.research.vector_env import LuzVectorEnv
env = LuzVectorEnv(4, "standard-deck", 3, seat=None, seed=2024)
observations, _ = env.reset()
rng = np.random.default_rng(0)
digest = [observations["observation"].sum()]
for _ in range(60):
    masks = observations["action_mask"]
    observations, rewards, *_ = env.step((rng.random(masks.shape) * masks).argmax(axis=1))
    digest += [observations["observation"].sum(), rewards.sum()]
print(np.asarray(digest, dtype=np.float64).tobytes().hex())
"""


def test_the_same_seed_plays_the_same_games_in_another_process() -> None:
    runs = [
        subprocess.run([sys.executable, "-c", SAME_SEED_PROGRAM], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and len(runs[0]) > 100


def test_reset_mask_resets_only_its_slots() -> None:
    env = LuzVectorEnv(6, "iello-2024", 4, seat=None, seed=8)
    observations, _ = env.reset()
    rng = np.random.default_rng(3)
    for _ in range(7):  # into the games, so that a new game differs from where each slot is
        observations, *_ = env.step(random_legal(observations["action_mask"], rng))
    state = [array.copy() for array in env.batch._state()[:14]]
    mask = np.array([True, False, False, True, False, False])
    reset, info = env.reset(options={"reset_mask": mask})
    kept = ~mask
    for key in ("observation", "action_mask"):
        np.testing.assert_array_equal(reset[key][kept], observations[key][kept])
    for before, now in zip(state, env.batch._state()[:14], strict=True):
        np.testing.assert_array_equal(before[kept], now[kept])  # the kept slots' games did not change at all
    for i in np.flatnonzero(mask):
        first = env.batch.encoder.split(reset["observation"][i])
        assert first["deal"].argmax() == 0 and not first["hands"][..., -1].any()  # a new game: nothing played
        assert not np.array_equal(reset["observation"][i], observations["observation"][i])
    assert list(info["_seat"]) == list(mask)
    seeded, _ = env.reset(seed=5, options={"reset_mask": mask})
    whole, _ = LuzVectorEnv(6, "iello-2024", 4, seat=None, seed=5).reset()
    np.testing.assert_array_equal(seeded["observation"][mask], whole["observation"][mask])
    for bad in (mask.astype(np.int8), mask[:3], np.zeros(6, dtype=np.bool_), [True] * 6):
        with pytest.raises(InvalidOptions):
            env.reset(options={"reset_mask": bad})


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


def autoreset_layouts(env: Any, encoder: Any, mode: AutoresetMode, games: int = 6) -> set[Any]:
    """Play random legal actions until ``games`` games ended, checking ``mode``'s protocol as Gymnasium defines it;
    the layouts of the infos seen (keys, dtypes and shapes)."""
    rng = np.random.default_rng(5)
    observations, info = env.reset(seed=11)
    running, waiting, ended, layouts = np.zeros(env.num_envs), np.zeros(env.num_envs, bool), 0, set()

    def split(observation: np.ndarray) -> dict[str, np.ndarray]:
        return encoder.split(observation)  # type: ignore[no-any-return]

    while ended < games:
        actions = np.where(waiting, 31, random_legal(np.maximum(observations["action_mask"], waiting[:, None]), rng))
        observations, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        layouts.add(tuple(sorted((key, np.asarray(value).dtype.kind) for key, value in info.items())))
        for i in range(env.num_envs):
            if waiting[i]:  # NEXT_STEP: this step started the new game, its action (a play, illegal now) ignored
                assert rewards[i] == 0.0 and not terminated[i]
            running[i] += rewards[i]
            now = split(observations["observation"][i])
            if not terminated[i]:
                assert now["phase"].argmax() in (1, 2) and observations["action_mask"][i].any()
                continue
            same_step = mode is AutoresetMode.SAME_STEP
            last = info["final_obs"][i] if same_step else {k: v[i] for k, v in observations.items()}
            finished = split(last["observation"])
            assert finished["phase"].argmax() == 3 and not last["action_mask"].any()
            assert finished["totals"][0] * encoder.scale * encoder.deals == pytest.approx(running[i])
            if mode is AutoresetMode.SAME_STEP:
                assert now["deal"].argmax() == 0 and not now["hands"][..., -1].any()  # already the new game
            else:
                assert "final_obs" not in info
            running[i] = 0.0
            ended += 1
        waiting = terminated.copy() if mode is AutoresetMode.NEXT_STEP else waiting & False
    return layouts


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_both_autoreset_modes_follow_gymnasiums_own_sync_vector_env(mode: AutoresetMode) -> None:
    """The same protocol checks pass on Gymnasium's SyncVectorEnv over the single-seat env and on ours, and the
    infos are laid out alike."""
    reference = SyncVectorEnv(
        [lambda: LuzEnv("standard-deck", 3, seat=None, opponents="random")] * 3, autoreset_mode=mode
    )
    ours = gymnasium.make_vec("luz/Luz-v1", num_envs=3, edition="standard-deck", players=3, seat=None,
                              autoreset_mode=mode)  # fmt: skip
    assert ours.metadata["autoreset_mode"] is mode
    theirs_layouts = autoreset_layouts(reference, reference.envs[0].unwrapped.encoder, mode)
    ours_layouts = autoreset_layouts(ours, ours.unwrapped.batch.encoder, mode)
    assert ours_layouts == theirs_layouts


def test_next_step_with_shared_buffers_gives_the_new_game_after_the_last_observation() -> None:
    """``copy=False``: the buffers returned hold the ended game's last observation, then the new game's first, the
    same games as in same-step mode."""
    env = LuzVectorEnv(4, "standard-deck", 3, seat=None, seed=1, copy=False, autoreset_mode="next_step")
    twin = LuzVectorEnv(4, "standard-deck", 3, seat=None, seed=1)
    rng = np.random.default_rng(2)
    observations, _ = env.reset()
    twin.reset()
    terminated = np.zeros(4, dtype=np.bool_)
    while not terminated.any():
        actions = random_legal(observations["action_mask"], rng)
        observations, _, terminated, _, _ = env.step(actions)
        expected, _, _, _, info = twin.step(actions)
    ended = terminated.copy()
    for i in np.flatnonzero(ended):
        np.testing.assert_array_equal(observations["observation"][i], info["final_obs"][i]["observation"])
        assert not observations["action_mask"][i].any()
    masks = np.maximum(observations["action_mask"], ended[:, None])
    observations, rewards, terminated, _, _ = env.step(np.where(ended, 31, random_legal(masks, rng)))
    assert not terminated[ended].any() and not rewards[ended].any()
    np.testing.assert_array_equal(observations["observation"][ended], expected["observation"][ended])
    np.testing.assert_array_equal(observations["action_mask"][ended], expected["action_mask"][ended])
