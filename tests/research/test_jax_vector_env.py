"""The Gymnasium VectorEnv over the JAX environment: its learner's games against the engine on every table (the
opponents' actions read back from the JAX state), and the conventions of the numba ``LuzVectorEnv``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed (pip install 'luz-game[jax]')")
gymnasium = pytest.importorskip("gymnasium", reason="Gymnasium is not installed (pip install 'luz-game[research]')")

from gymnasium.vector import AutoresetMode  # noqa: E402
from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402

from luz.engine import Card, Game, IllegalAction, InvalidAction, InvalidOptions, Phase, view  # noqa: E402
from luz.research import jax_vector_env  # noqa: E402
from luz.research.encoding import BID_IDS, Table  # noqa: E402
from luz.research.gym import JAX_VECTOR_ENV_ID  # noqa: E402
from luz.research.jax_env import LuzJax, State  # noqa: E402
from luz.research.jax_vector_env import LuzJaxVectorEnv  # noqa: E402
from support.reference import CONFIGS  # noqa: E402

GAMES = 2


class Mirror:
    """An engine table following one slot of the env: the learner's actions given, the opponents' read back from
    the slot's JAX state (its bids, its deal's plays; in a deal the JAX state has closed, one card is left)."""

    def __init__(self, env: LuzJaxVectorEnv, slot: int) -> None:
        self.env, self.slot = env, slot
        game = self.field("game_first")
        self.table = Table(Game(env.edition, env.players, replace(env.options, first_player=int(game))))
        self.learner = int(self.field("learner", seated=True))
        self.stale = False
        self.deal()
        while self.table.game.current_player != self.learner:  # the opponents bidding before it
            self.table.apply_id(self.opponent())

    def field(self, name: str, seated: bool = False) -> Any:
        source = self.env.state if seated else self.env.state.game
        return np.asarray(getattr(source, name))[self.slot]

    def deal(self) -> None:
        colours, values = self.field("col"), self.field("val")
        self.hands = tuple(
            tuple(Card(int(c), int(v)) for c, v in zip(colours[s], values[s], strict=True))
            for s in range(self.env.players)
        )
        dealt = set(sum(self.hands, ()))
        self.table.game.deal(self.hands, [c for c in self.env.edition.deck(self.env.players) if c not in dealt])
        self.stale = False

    def opponent(self) -> int:
        game, seat = self.table.game, self.table.game.current_player
        assert seat is not None and seat != self.learner
        if game.phase is Phase.BID:
            return 2 * int(self.field("bids")[seat]) + int(self.field("safe")[seat])
        if self.stale:  # the deal ended in the JAX state, in its last trick: one card left in each hand
            (only,) = self.table.legal_ids()
            return only
        holder, slot = self.field("mem")[len(self.table.plays)]
        assert holder == seat
        return BID_IDS + int(slot)

    def expected(self) -> tuple[np.ndarray, np.ndarray]:
        seat, game = self.learner, self.table.game
        return self.env.encoder.tensor(view(game, seat), seat, self.table.memory()), self.table.action_mask(seat)

    def follow(self, action: int) -> tuple[float, np.ndarray | None]:
        """Replay the learner's ``action`` and the opponents' up to its next turn: its points, and its final
        tensor if the game ended (then a new mirror's game follows the slot's new game)."""
        reward, final = 0.0, None
        self.stale = self.table.game.deal_number - 1 != int(self.field("deal"))  # the JAX deal (or game) ended
        while True:
            points = self.table.apply_id(action)
            if points is not None:
                reward += points[self.learner]
            game = self.table.game
            if game.phase is Phase.GAME_OVER:
                final = self.expected()[0]
                self.__init__(self.env, self.slot)  # type: ignore[misc]  # the slot's new game
                game = self.table.game
            elif game.phase is Phase.DEAL:
                self.deal()
            if game.current_player == self.learner:
                return reward, final
            action = self.opponent()


def check_env_against_engine(env: LuzJaxVectorEnv, steps: int, seed: int) -> int:
    """Step ``env`` with random legal actions, each slot followed by an engine :class:`Mirror`: the learner's
    tensor and mask, rewards, done flags and final tensors equal the engine's. The games ended."""
    rng = np.random.default_rng(seed)
    observations, info = env.reset()
    mirrors = [Mirror(env, g) for g in range(env.num_envs)]
    ended = 0
    for _ in range(steps):
        for g, mirror in enumerate(mirrors):
            assert info["seat"][g] == mirror.learner
            tensor, mask = mirror.expected()
            np.testing.assert_array_equal(observations["observation"][g], tensor)
            np.testing.assert_array_equal(observations["action_mask"][g], mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in observations["action_mask"]])
        observations, rewards, done, truncated, info = env.step(actions)
        assert not truncated.any()
        for g, mirror in enumerate(mirrors):
            reward, final = mirror.follow(int(actions[g]))
            assert rewards[g] == reward
            assert bool(done[g]) == (final is not None)
            if final is not None:
                ended += 1
                np.testing.assert_array_equal(info["final_obs"][g]["observation"], final)
                assert not info["final_obs"][g]["action_mask"].any()
    return ended


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_the_learners_games_equal_the_engines(key: str, players: int) -> None:
    env = LuzJaxVectorEnv(GAMES, key, players, seat=None, seed=players)
    assert check_env_against_engine(env, steps=140, seed=1) >= GAMES  # whole games, then new ones, in each slot


def wrong_final_phase(self: LuzJax, state: State, seat: Any) -> Any:
    """A wrong final tensor: the game's phase left as the last deal's play."""
    return self.observe(state, seat)


def test_the_check_catches_a_wrong_final_observation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jax_vector_env, "_COMPILED", {})
    monkeypatch.setattr(LuzJax, "observe_finished", wrong_final_phase)
    env = LuzJaxVectorEnv(GAMES, "iello-2024", 4, seat=None, seed=4)
    with pytest.raises(AssertionError):
        check_env_against_engine(env, steps=140, seed=1)


def run(env: LuzJaxVectorEnv, steps: int, seed: int = 0) -> list[Any]:
    """The observations, rewards and done flags of ``steps`` random legal steps after a reset."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset()
    trace: list[Any] = [observations["observation"]]
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in observations["action_mask"]])
        observations, rewards, done, _, _ = env.step(actions)
        trace += [observations["observation"], rewards, done]
    return trace


def test_fresh_envs_without_a_seed_differ_and_a_seed_reproduces() -> None:
    a, b = LuzJaxVectorEnv(GAMES, seat=None), LuzJaxVectorEnv(GAMES, seat=None)
    assert a.seed != b.seed and a.np_random_seed == a.seed
    assert not np.array_equal(a.reset()[0]["observation"], b.reset()[0]["observation"])
    first, again = run(LuzJaxVectorEnv(GAMES, seat=None, seed=a.seed), 50), run(a, 50)  # a: its next games
    assert not np.array_equal(first[0], again[0])
    replayed = LuzJaxVectorEnv(GAMES, seat=None)
    replayed.reset(seed=a.seed)
    assert replayed.seed == a.seed
    for x, y in zip(first, run(LuzJaxVectorEnv(GAMES, seat=None, seed=a.seed), 50), strict=True):
        np.testing.assert_array_equal(x, y)
    one_per_slot = LuzJaxVectorEnv(GAMES, seat=None)
    observations, _ = one_per_slot.reset(seed=[5, 5])
    np.testing.assert_array_equal(observations["observation"][0], observations["observation"][1])
    with pytest.raises(InvalidOptions):
        LuzJaxVectorEnv(GAMES, seed=-1)


def test_reset_mask_resets_only_its_slots() -> None:
    env = LuzJaxVectorEnv(GAMES, seat=None, seed=2)
    run(env, 5)
    before = env._result()["observation"]
    observations, info = env.reset(options={"reset_mask": np.array([False, True])})
    np.testing.assert_array_equal(observations["observation"][0], before[0])
    assert not np.array_equal(observations["observation"][1], before[1])
    assert info["_seat"].tolist() == [False, True]
    for bad in (np.array([False, False]), np.array([1, 0]), [True, False]):
        with pytest.raises(InvalidOptions):
            env.reset(options={"reset_mask": bad})


def test_next_step_returns_the_last_observation_then_the_new_game_that_same_step_gives_at_once() -> None:
    same = LuzJaxVectorEnv(GAMES, seat=None, seed=9)
    following = LuzJaxVectorEnv(GAMES, seat=None, seed=9, autoreset_mode="next_step")
    assert following.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(1)
    observations, _ = same.reset()
    later, _ = following.reset()
    done = np.zeros(GAMES, np.bool_)
    while not done.any():
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in observations["action_mask"]])
        observations, rewards, done, _, info = same.step(actions)
        later, late_rewards, late_done, _, late_info = following.step(actions)
        np.testing.assert_array_equal(rewards, late_rewards)
        np.testing.assert_array_equal(done, late_done)
        for g in range(GAMES):
            if done[g]:  # NEXT_STEP: the ended game's last observation; SAME_STEP: it in final_obs
                np.testing.assert_array_equal(later["observation"][g], info["final_obs"][g]["observation"])
                assert late_info["seat"][g] == info["final_info"]["seat"][g]
            else:
                np.testing.assert_array_equal(later["observation"][g], observations["observation"][g])
    later, rewards, late_done, _, _ = following.step(np.zeros(GAMES, np.int64))  # ignored where a game ended
    for g in np.flatnonzero(done):  # the new game's first observation, which SAME_STEP gave at once
        np.testing.assert_array_equal(later["observation"][g], observations["observation"][g])
        assert rewards[g] == 0 and not late_done[g]


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_an_illegal_action_ends_that_game_as_in_the_numba_env(mode: AutoresetMode) -> None:
    env = LuzJaxVectorEnv(GAMES, seat=None, seed=3, autoreset_mode=mode)
    observations, _ = env.reset()
    legal = np.array([np.flatnonzero(m)[0] for m in observations["action_mask"]])
    illegal = int(np.flatnonzero(observations["action_mask"][1] == 0)[0])
    after, rewards, done, _, info = env.step(np.array([legal[0], illegal]))
    assert done.tolist() == [False, True] and rewards[1] == env.illegal_reward
    last = info["final_obs"][1]["observation"] if mode is AutoresetMode.SAME_STEP else after["observation"][1]
    np.testing.assert_array_equal(last, observations["observation"][1])
    ended = info["final_info"] if mode is AutoresetMode.SAME_STEP else info
    assert ended["illegal_action"].tolist() == [False, True]
    with pytest.raises(InvalidAction):
        env.step(np.array([40, 0]))
    strict = LuzJaxVectorEnv(GAMES, seat=None, seed=3, illegal_actions="raise")
    observations, _ = strict.reset()
    with pytest.raises(IllegalAction):
        strict.step(np.array([legal[0], illegal]))
    np.testing.assert_array_equal(strict._result()["observation"], observations["observation"])


def test_make_vec_and_gymnasiums_episode_statistics() -> None:
    env = gymnasium.make_vec(JAX_VECTOR_ENV_ID, num_envs=GAMES, seat=None, seed=6)
    assert isinstance(env, LuzJaxVectorEnv) and env.illegal_actions == "terminate"
    recorded = RecordEpisodeStatistics(env)
    observations, _ = recorded.reset()
    rng = np.random.default_rng(0)
    returns = np.zeros(GAMES)
    episodes = 0
    while episodes < GAMES:
        assert env.observation_space.contains(observations)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in observations["action_mask"]])
        observations, rewards, done, _, info = recorded.step(actions)
        returns += rewards
        for g in np.flatnonzero(done):
            assert info["episode"]["r"][g] == returns[g]
            returns[g] = 0
            episodes += 1
    with pytest.raises(InvalidOptions):
        LuzJaxVectorEnv(GAMES, opponents="heuristic")
