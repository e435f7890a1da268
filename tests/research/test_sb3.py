"""Stable-Baselines3's MaskablePPO on the batched environment: the VecEnv adapter, a short training run that never
sends a masked action, the evaluation's intervals and the ``luz train-ppo`` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the research extra)")
pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the research extra)")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from typer.testing import CliRunner

from luz.cli import app
from luz.cli.extras import EXTRA_MODULES
from luz.engine import IllegalAction, InvalidAction
from luz.research.ppo import PPOConfig, evaluate, heuristic_actions, plot, random_chooser, train
from luz.research.sb3 import make_vec_env
from luz.research.vector_env import LuzVectorEnv

GAME_DECISIONS = 44
"""The learning seat's decisions in a 4-player game: a bid and ten plays in each of four deals."""


def test_the_adapter_steps_games_to_their_end_with_terminal_observations_and_episode_totals() -> None:
    env = make_vec_env(6, players=4, seat=None, opponents="random", seed=3)
    assert is_masking_supported(env)
    observations = env.reset()
    size = env.observation_space.shape[0]
    assert observations.shape == (6, size) and observations.dtype == np.float32
    rng = np.random.default_rng(0)
    totals = np.zeros(6)
    ended = 0
    for step in range(1, 2 * GAME_DECISIONS + 1):
        masks = get_action_masks(env)
        assert masks.shape == (6, 32) and masks.dtype == np.bool_ and masks.any(axis=1).all()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        observations, rewards, dones, infos = env.step(actions)
        assert observations.shape == (6, size) and rewards.shape == (6,) and dones.shape == (6,) and len(infos) == 6
        totals += rewards
        assert dones.all() == (step % GAME_DECISIONS == 0) and dones.any() == dones.all()
        for slot in np.flatnonzero(dones):
            info: dict[str, Any] = infos[slot]
            final = info["terminal_observation"]
            assert final.shape == (size,) and not np.array_equal(final, observations[slot])
            assert info["episode"]["l"] == GAME_DECISIONS
            assert info["episode"]["r"] == pytest.approx(totals[slot], abs=1e-3)
            assert info["TimeLimit.truncated"] is False
            totals[slot] = 0.0
            ended += 1
        assert not any("terminal_observation" in infos[slot] for slot in np.flatnonzero(~dones))
    assert ended == 12
    env.close()


def test_a_seed_applies_to_the_next_reset_and_the_batch_answers_for_every_slot() -> None:
    env = make_vec_env(5, players=3, seat=None, opponents="heuristic", seed=0)
    env.seed(7)
    seeded = env.reset()
    expected, info = LuzVectorEnv(5, players=3, seat=None, opponents="heuristic", seed=7).reset()
    assert np.array_equal(seeded, expected["observation"])
    assert np.array_equal(env.action_masks(), expected["action_mask"].astype(bool))
    assert [reset["seat"] for reset in env.unwrapped.reset_infos] == info["seat"].tolist()
    assert env.get_attr("render_mode") == [None] * 5 and env.get_attr("action_masks", indices=[1, 2])[0]
    assert [mask.tolist() for mask in env.env_method("action_masks", indices=[3])] == [
        expected["action_mask"][3].astype(bool).tolist()
    ]
    with pytest.raises(AttributeError, match="no per-slot method 'reset'"):
        env.env_method("reset")
    with pytest.raises(ValueError, match="every slot"):
        env.set_attr("render_mode", None, indices=[0])
    with pytest.raises(InvalidAction):
        env.step(np.full(5, 0.5))
    illegal = (~env.action_masks()).argmax(axis=1)
    _, rewards, dones, infos = env.step(illegal)  # the default, illegal_actions="terminate": those games end
    assert dones.all() and all(info["illegal_action"] and "terminal_observation" in info for info in infos)
    assert (rewards == env.unwrapped.env.illegal_reward).all()
    strict = make_vec_env(5, players=3, seat=None, seed=0, illegal_actions="raise")
    strict.reset()
    with pytest.raises(IllegalAction):
        strict.step((~strict.action_masks()).argmax(axis=1))


def test_maskable_ppo_trains_without_ever_sending_a_masked_action(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[int] = []
    step, reset = LuzVectorEnv.step, LuzVectorEnv.reset
    masks: dict[int, np.ndarray] = {}

    def checked_reset(self: LuzVectorEnv, **kwargs: Any) -> Any:
        result = reset(self, **kwargs)
        masks[id(self)] = result[0]["action_mask"].astype(bool)
        return result

    def checked_step(self: LuzVectorEnv, actions: Any) -> Any:
        actions = np.asarray(actions)
        assert masks[id(self)][np.arange(self.num_envs), actions].all(), "a masked action reached the environment"
        sent.append(len(actions))
        result = step(self, actions)
        masks[id(self)] = result[0]["action_mask"].astype(bool)
        return result

    monkeypatch.setattr(LuzVectorEnv, "reset", checked_reset)
    monkeypatch.setattr(LuzVectorEnv, "step", checked_step)
    env = make_vec_env(16, players=4, seat=None, opponents="heuristic", seed=0, perfect_recall=False)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=256, n_epochs=2, seed=0, device="cpu")
    before = [parameter.detach().clone() for parameter in model.policy.parameters()]
    model.learn(total_timesteps=2 * 16 * 64)
    assert model.num_timesteps == 2048 and sum(sent) == 2048
    assert len(model.ep_info_buffer) >= 16 * 2  # every slot ended a game at least twice (64 decisions > 44)
    assert all(episode["l"] == GAME_DECISIONS for episode in model.ep_info_buffer)
    after = list(model.policy.parameters())
    assert any(not np.allclose(b.numpy(), a.detach().numpy()) for b, a in zip(before, after, strict=True))


def test_the_evaluation_gives_each_player_an_interval_over_the_same_games() -> None:
    random_points, random_totals = evaluate(random_chooser(0), "iello-2024", 4, "random", games=96, seed=5)
    heuristic_points, heuristic_totals = evaluate(heuristic_actions, "iello-2024", 4, "random", games=96, seed=5)
    for points, totals in ((random_points, random_totals), (heuristic_points, heuristic_totals)):
        assert totals.shape == (96,) and points["mean"] == pytest.approx(totals.mean())
        low, high = points["ci95"]
        assert low < points["mean"] < high
    assert heuristic_points["ci95"][0] > random_points["ci95"][1]  # the heuristic beats random play at this table
    again, _ = evaluate(random_chooser(0), "iello-2024", 4, "random", games=96, seed=5)
    assert again == random_points


def test_a_short_run_writes_its_curve_with_the_references(tmp_path: Path) -> None:
    config = PPOConfig(players=3, opponents="random", envs=8, rollout=16, batch_size=64, epochs=1)
    lines: list[dict[str, Any]] = []
    run = train(config, checkpoints=[128, 0], games=24, report=lines.append)
    assert [point["steps"] for point in run.curve] == [0, 128]
    assert [line.get("reference") for line in lines[:2]] == ["random", "heuristic"] and len(lines) == 4
    for point in (*run.curve, *run.references.values()):
        for against in ("random", "heuristic"):
            low, high = point[against]["ci95"]
            assert low <= point[against]["mean"] <= high
    assert json.loads(json.dumps(run.to_json()))["config"]["players"] == 3
    pytest.importorskip("matplotlib", reason="the curve's PNG needs matplotlib (the arena extra)")
    plot(run.to_json(), tmp_path / "curve.png")
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")


def test_the_command_saves_checkpoints_and_the_curve(tmp_path: Path) -> None:
    args = ["train-ppo", "--out", str(tmp_path), "--checkpoints", "0,64", "--envs", "4", "--rollout", "16"]
    result = CliRunner().invoke(app, [*args, "--batch-size", "32", "--games", "8", "--players", "3", "--no-plot"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()[:-1]]
    assert len(lines) == 4 and lines[-1]["steps"] == 64
    assert sorted(path.name for path in tmp_path.glob("ppo-*.zip")) == ["ppo-0.zip", "ppo-64.zip"]
    assert json.loads((tmp_path / "curve.json").read_text())["curve"] == lines[2:]
    loaded = MaskablePPO.load(tmp_path / "ppo-64.zip", device="cpu")
    assert loaded.num_timesteps == 64


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponents", "strong"], "one of random, heuristic"),
        (["--checkpoints", "0,ten"], "whole step counts"),
        (["--checkpoints", "-5"], "0 or more"),
        (["--hidden", "256,wide"], "whole layer sizes"),
        (["--hidden", "64,0"], "1 or more"),
        (["--players", "9"], "players"),
        (["--edition", "chess"], "unknown edition"),
    ],
)
def test_the_command_refuses_bad_arguments_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["train-ppo", "--out", str(tmp_path), *args])
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output
    assert not list(tmp_path.iterdir())


def test_the_command_without_torch_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(EXTRA_MODULES, "research", ("torch_as_if_not_installed",))
    result = CliRunner().invoke(app, ["train-ppo", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "luz train-ppo needs the research extra" in result.stderr
    assert "luz-game[research]" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output and not list(tmp_path.iterdir())
