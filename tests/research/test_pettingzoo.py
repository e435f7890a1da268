"""LUZ in PettingZoo (``luz_v0``): the framework's api_test and seed_test, hidden information, replays, bad input."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install 'luz-game[research]')")

from pettingzoo.test import api_test, render_test, seed_test

from luz.engine import IllegalAction, InvalidAction, replay
from luz.research import luz_v0
from luz.research.encoding import action_of
from support.reference import CONFIGS, SEATS
from support.research import twin_tables


@pytest.fixture(autouse=True)
def _quiet() -> None:
    # api_test warns that a dict observation (observation + action_mask, as in PettingZoo's classic games) is not
    # a plain array.
    warnings.filterwarnings("ignore", message=".*(NumPy array|gymnasium.spaces.box).*")


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_api_test(key: str, players: int) -> None:
    api_test(luz_v0.env(edition=key, players=players), num_cycles=1000)


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_seed_test(key: str, players: int) -> None:
    seed_test(lambda: luz_v0.env(edition=key, players=players), num_cycles=500)


def test_table_options_and_bad_arguments() -> None:
    env = luz_v0.env(edition="iello-2024", players=3, bid_cap=None, trick_history=True)
    env.reset(seed=0)
    assert env.unwrapped.game.options.bid_cap is None and env.unwrapped.game.options.trick_history
    with pytest.raises(ValueError, match="unknown table option"):
        luz_v0.env(colour="blue")
    with pytest.raises(ValueError, match="played by 3, 4 players"):
        luz_v0.env(edition="standard-deck", players=5)
    with pytest.raises(ValueError, match="render_mode"):
        luz_v0.env(render_mode="rgb_array")


def play_random(env: object, rng: np.random.Generator) -> tuple[list[int], dict[str, float]]:
    """Play one whole game with random legal actions; the ids played and each agent's total reward."""
    played: list[int] = []
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():  # type: ignore[attr-defined]
        observation, reward, terminated, truncated, _ = env.last()  # type: ignore[attr-defined]
        rewards[agent] = rewards.get(agent, 0.0) + reward
        if terminated or truncated:
            env.step(None)  # type: ignore[attr-defined]
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        played.append(action)
        env.step(action)  # type: ignore[attr-defined]
    return played, rewards


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_a_game_played_in_pettingzoo_replays_the_same_in_the_engine(key: str, players: int) -> None:
    env = luz_v0.env(edition=key, players=players)
    env.reset(seed=17)
    played, rewards = play_random(env, np.random.default_rng(17))
    record = env.unwrapped.record()
    assert [str(action_of(a)) for a in played] == [a for deal in record["deals"] for a in deal["actions"]]
    outcome = replay(record).outcome()
    assert outcome is not None
    assert [rewards[f"player_{seat}"] for seat in range(players)] == list(outcome.totals)
    assert record["names"] == [f"player_{seat}" for seat in range(players)]


def test_same_seed_same_game_whatever_ran_before() -> None:
    first, second = luz_v0.env(players=4), luz_v0.env(players=4)
    first.reset(seed=5)
    second.reset(seed=99)
    play_random(second, np.random.default_rng(1))
    second.reset(seed=5)
    assert first.unwrapped.record() == second.unwrapped.record()
    other = luz_v0.env(players=4)
    other.reset(seed=6)
    assert other.unwrapped.record()["deals"] != first.unwrapped.record()["deals"]


@pytest.mark.parametrize(("key", "players", "seat"), SEATS)
def test_an_agents_own_hidden_values_change_nothing_it_observes(key: str, players: int, seat: int) -> None:
    env = luz_v0.env(edition=key, players=players).unwrapped
    env.reset(seed=seat)
    agent = env.possible_agents[seat]
    rng = random.Random(f"{key}{players}{seat}")
    changed = 0
    for _ in range(6):
        table, twin, differs = twin_tables(key, players, seat, rng)
        env.table = table
        seen = env.observe(agent)
        env.table = twin
        other = env.observe(agent)
        assert np.array_equal(seen["observation"], other["observation"])
        assert np.array_equal(seen["action_mask"], other["action_mask"])
        changed += differs
    assert changed > 0


def test_bad_actions_are_refused_and_change_nothing() -> None:
    env = luz_v0.env(players=3)
    env.reset(seed=3)
    raw = env.unwrapped
    before = raw.record()
    for bad, error in ((40, InvalidAction), (-1, InvalidAction), ("bid", InvalidAction), (2.5, InvalidAction)):
        with pytest.raises(error):
            env.step(bad)
    with pytest.raises(IllegalAction, match="bid first"):
        env.step(22)
    assert raw.record() == before
    env.step(np.int64(3))  # numpy integers are fine
    assert raw.record()["deals"][0]["actions"] == ["bid:1+"]


def test_render_shows_only_what_every_player_sees() -> None:
    env = luz_v0.env(players=4, render_mode="ansi")
    env.reset(seed=8)
    text = env.render()
    game = env.unwrapped.game
    names = {game.edition.card_name(card) for hand in game.deals[-1].hands for card in hand}
    assert "hand 0" in text and not set(text.split()) & names
    quiet = luz_v0.env(players=4)
    quiet.reset(seed=8)
    assert quiet.render() is None


def test_render_test() -> None:
    render_test(lambda render_mode: luz_v0.env(players=4, render_mode=render_mode))


def test_human_mode_prints_the_ansi_text_at_each_reset_and_step(capsys: pytest.CaptureFixture[str]) -> None:
    shown, human = luz_v0.env(players=3, render_mode="ansi"), luz_v0.env(players=3, render_mode="human")
    for env in (shown, human):
        env.reset(seed=4)
    assert capsys.readouterr().out == shown.render() + "\n\n"
    action = int(np.flatnonzero(shown.last()[0]["action_mask"])[0])
    for env in (shown, human):
        env.step(action)
    assert human.render() is None
    printed = capsys.readouterr().out
    assert printed == (shown.render() + "\n\n") * 2  # the step's own rendering, then render()'s
