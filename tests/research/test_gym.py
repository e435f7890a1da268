"""LUZ as a Gymnasium single-agent environment against bots: the framework's checker, rewards, replays, bad input."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="Gymnasium is not installed (pip install 'luz-game[research]')")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from luz.bots import Bot  # noqa: E402
from luz.engine import Action, IllegalAction, InvalidAction, View, replay  # noqa: E402
from luz.research.encoding import action_of  # noqa: E402
from luz.research.gym import ALIAS_ID, ENV_ID, VECTOR_ENV_ID, LuzEnv  # noqa: E402
from luz.research.vector_env import LuzVectorEnv  # noqa: E402
from support.reference import CONFIGS  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.filterwarnings("ignore", message=".*(render fps|spec|alternative render modes).*")


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_check_env(key: str, players: int) -> None:
    check_env(LuzEnv(edition=key, players=players, seat=None, opponents="heuristic"), skip_render_check=False)


def test_registered_with_gymnasium() -> None:
    with pytest.deprecated_call(match="upgrading to version `v1`"):
        env = gymnasium.make(ENV_ID, edition="standard-deck", players=3, render_mode="ansi")
    observation, _ = env.reset(seed=2)
    assert env.observation_space.contains(observation)
    assert "hand 0" in env.render()


@pytest.mark.parametrize("env_id", [VECTOR_ENV_ID, ALIAS_ID])
def test_version_1_makes_the_single_seat_env_and_the_batched_vector_env(env_id: str) -> None:
    assert env_id in ("luz/Luz-v1", "Luz-v1")
    single = gymnasium.make(env_id, edition="standard-deck", players=3)
    assert isinstance(single.unwrapped, LuzEnv) and single.unwrapped.opponents[0].name == "random"
    check_env(single.unwrapped)
    vector = gymnasium.make_vec(env_id, num_envs=3, edition="standard-deck", players=3, seed=1)
    assert isinstance(vector.unwrapped, LuzVectorEnv) and vector.num_envs == 3
    assert vector.unwrapped._kind == LuzVectorEnv(1, opponents="random")._kind  # the same default opponents
    assert vector.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.SAME_STEP
    observations, _ = vector.reset()
    assert vector.observation_space.contains(observations)
    heuristic = gymnasium.make_vec(env_id, num_envs=2, opponents="heuristic")
    assert heuristic.unwrapped._kind != vector.unwrapped._kind
    synced = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="sync", players=3)
    assert isinstance(synced, gymnasium.vector.SyncVectorEnv)


def test_version_0_stays_the_single_seat_env_alone() -> None:
    spec = gymnasium.spec(ENV_ID)
    assert spec.entry_point == "luz.research.gym:LuzEnv" and spec.vector_entry_point is None and not spec.kwargs


def test_the_module_prefix_registers_without_an_import() -> None:
    """Gymnasium 1.x loads no plugins: ``"module:id"`` imports the registering module itself."""
    code = (
        "import gymnasium, sys; assert 'luz.research.gym' not in sys.modules; "
        "env = gymnasium.make_vec('luz.research.gym:luz/Luz-v1', num_envs=2, players=3, edition='standard-deck'); "
        "print(type(env).__name__)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "LuzVectorEnv"


def actions_so_far(env: LuzEnv) -> list[str]:
    return [str(action) for deal in env.game.actions for action in deal]


def play(env: LuzEnv, seed: int) -> tuple[list[int], float]:
    """One whole episode of random legal actions: the ids the agent played and its total reward. Each is checked
    to be the game's next action, taken by the agent's seat."""
    rng = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    done, total, played = False, 0.0, []
    while not done:
        assert env.game.current_player == env.seat
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        index = len(actions_so_far(env))
        played.append(action)
        observation, reward, done, truncated, info = env.step(action)
        assert actions_so_far(env)[index] == str(action_of(action))
        assert not truncated and "illegal_action" not in info
        total += reward
    return played, total


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_rewards_add_up_to_the_seats_total_and_the_game_replays(key: str, players: int) -> None:
    env = LuzEnv(edition=key, players=players, seat=None, opponents="heuristic")
    played, total = play(env, seed=players)
    outcome = replay(env.record()).outcome()
    assert outcome is not None and total == outcome.totals[env.seat]
    assert len(played) == env.game.deal_count * 11
    assert actions_so_far(env) == [action for deal in env.record()["deals"] for action in deal["actions"]]


def test_a_random_seat_each_game_and_the_same_game_for_the_same_seed() -> None:
    env = LuzEnv(players=5, seat=None)
    seats = set()
    for seed in range(12):
        env.reset(seed=seed)
        seats.add(env.seat)
    assert len(seats) > 2
    first, _ = play(env, seed=4)
    record = env.record()
    again, _ = play(env, seed=4)
    assert again == first and env.record() == record


class Recorder(Bot):
    """A bot that plays the first legal action and keeps every view it was given."""

    name = "recorder"

    def __init__(self) -> None:
        self.views: list[View] = []

    def decide(self, view: View, rng: random.Random) -> Action:
        self.views.append(view)
        return view.legal_actions[0]


def test_opponents_decide_from_their_own_views() -> None:
    bots = [Recorder(), Recorder()]
    env = LuzEnv(players=3, seat=1, opponents=bots)
    play(env, seed=1)
    assert {v.seat for v in bots[0].views} == {0} and {v.seat for v in bots[1].views} == {2}
    for bot in bots:
        assert all(s.value is None for v in bot.views for s in v.hands[v.seat] if not s.played)


def test_illegal_actions_end_the_episode_or_raise() -> None:
    env = LuzEnv(players=4)
    observation, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and info["illegal_action"] and reward == env.illegal_reward == -200.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = LuzEnv(players=4, illegal_actions="raise")
    strict.reset(seed=1)
    before = strict.record()
    with pytest.raises(IllegalAction):
        strict.step(illegal)
    assert strict.record() == before
    for bad in (32, -1, "bid:2", None):
        with pytest.raises(InvalidAction):
            strict.step(bad)
    assert strict.record() == before


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"seat": 4}, "seat must be"),
        ({"opponents": ["random"]}, "one opponent for each"),
        ({"opponents": "genius"}, "unknown bot"),
        ({"illegal_actions": "ignore"}, "illegal_actions"),
        ({"render_mode": "human"}, "render_mode"),
        ({"bid_cap": -3}, "bid_cap"),
    ],
)
def test_bad_arguments_are_refused_clearly(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LuzEnv(players=4, **arguments)  # type: ignore[arg-type]
