"""An example with a mainstream learner: ``sb3-contrib``'s ``MaskablePPO`` (PyTorch, CPU) on the batched
environment, and its learning curve measured against references in the same run.

One learning seat, drawn each game, plays against opponents in the fast core (:func:`luz.research.sb3.make_vec_env`,
the view-only tensor ``perfect_recall=False``). At each step count asked, the policy so far is saved and evaluated
(:func:`evaluate`): it plays its most likely legal action in independent games against random opponents and
against heuristic ones, next to luz's own random and heuristic players at the same seat of the same games; each
game's total is one unit of the arena's bootstrap interval (:func:`luz.arena.stats.interval`).

>>> run = train(PPOConfig(envs=8, rollout=16, batch_size=64, epochs=1), checkpoints=[0, 128], games=16)
>>> [point["steps"] for point in run.curve], sorted(run.references)
([0, 128], ['heuristic', 'random'])
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from sb3_contrib import MaskablePPO

from luz.arena.stats import Interval, interval
from luz.engine import DEFAULT_EDITION

from .sb3 import make_vec_env
from .vector_env import LuzVectorEnv

Observations = dict[str, npt.NDArray[Any]]
Chooser = Callable[[LuzVectorEnv, Observations], npt.NDArray[np.int64]]
"""A player of the learning seat in every game of a batch: its action ids from the batch and its observations."""
OPPONENTS = ("random", "heuristic")
"""The opponents every policy is evaluated against."""


@dataclass(frozen=True)
class PPOConfig:
    """The table, the opponents trained against, and ``MaskablePPO``'s settings (``rollout``: decisions per game
    slot between updates; ``hidden``: the sizes of the policy's and the value's hidden layers; ``threads``:
    torch's)."""

    edition: str = DEFAULT_EDITION
    players: int = 4
    opponents: str = "heuristic"
    envs: int = 64
    rollout: int = 128
    batch_size: int = 1024
    epochs: int = 4
    learning_rate: float = 1e-3
    gamma: float = 1.0
    hidden: tuple[int, ...] = (256, 256)
    seed: int = 0
    threads: int = 1


@dataclass
class PPORun:
    """A training run: the model, its curve (per step count: the training seconds so far and the points per game
    against each opponent) and the references' points per game against each opponent."""

    model: MaskablePPO
    config: PPOConfig
    curve: list[dict[str, Any]] = field(default_factory=list)
    references: dict[str, dict[str, Interval]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The run without its model."""
        return {"config": asdict(self.config), "curve": self.curve, "references": self.references}


def random_chooser(seed: int) -> Chooser:
    """Luz's random player: a uniformly drawn legal id."""
    rng = np.random.default_rng(seed)

    def choose(env: LuzVectorEnv, observations: Observations) -> npt.NDArray[np.int64]:
        masks = observations["action_mask"]
        actions: npt.NDArray[np.int64] = (rng.random(masks.shape) * masks).argmax(axis=1)
        return actions

    return choose


def heuristic_actions(env: LuzVectorEnv, observations: Observations) -> npt.NDArray[np.int64]:
    """The fast core's heuristic at the learning seat of every game, deciding from that seat's own beliefs (as
    the environment's heuristic opponents do)."""
    return env.heuristic_actions()


def model_chooser(model: MaskablePPO) -> Chooser:
    """A trained policy playing its most likely legal id."""

    def choose(env: LuzVectorEnv, observations: Observations) -> npt.NDArray[np.int64]:
        actions, _ = model.predict(
            observations["observation"], deterministic=True, action_masks=observations["action_mask"].astype(bool)
        )
        return np.asarray(actions, dtype=np.int64)

    return choose


def evaluate(
    choose: Chooser, edition: str, players: int, opponents: str, games: int, seed: int
) -> tuple[Interval, npt.NDArray[np.float64]]:
    """The learning seat's points per game over ``games`` independent games (the seat drawn each game) played by
    ``choose`` against ``opponents``: the mean and 95% interval, one game a unit, and every game's total. The same
    ``seed`` gives every player the same first deals and seats."""
    env = LuzVectorEnv(games, edition, players, seat=None, opponents=opponents, seed=seed, perfect_recall=False)
    observations, _ = env.reset()
    totals = np.zeros(games)
    playing = np.ones(games, dtype=np.bool_)
    while playing.any():
        observations, rewards, terminated, truncated, _ = env.step(choose(env, observations))
        totals += np.where(playing, rewards, 0.0)
        playing &= ~(terminated | truncated)
    return interval(totals, seed), totals


def train(
    config: PPOConfig,
    checkpoints: Sequence[int],
    games: int = 500,
    out: Path | None = None,
    report: Callable[[dict[str, Any]], None] = lambda line: None,
    eval_seed: int = 1,
) -> PPORun:
    """Train from scratch, evaluating (on ``games`` games against each opponent) and saving (``out/ppo-STEPS.zip``)
    at each step count of ``checkpoints`` (the count reached: updates take whole rollouts). The references luz's
    random and heuristic players are evaluated first on the same games; ``report`` gets each line, and
    ``out/curve.json`` (:meth:`PPORun.to_json`) is rewritten after each, so a stopped run keeps its curve."""
    torch.set_num_threads(config.threads)
    env = make_vec_env(
        config.envs, edition=config.edition, players=config.players, seat=None,
        opponents=config.opponents, seed=config.seed, perfect_recall=False,
    )  # fmt: skip
    model = MaskablePPO(
        "MlpPolicy", env, learning_rate=config.learning_rate, n_steps=config.rollout, batch_size=config.batch_size,
        n_epochs=config.epochs, gamma=config.gamma, policy_kwargs={"net_arch": list(config.hidden)}, seed=config.seed,
        device="cpu",
    )  # fmt: skip
    run = PPORun(model, config)
    table = (config.edition, config.players)
    references = {"random": random_chooser(eval_seed), "heuristic": heuristic_actions}
    for name, choose in references.items():
        run.references[name] = {
            against: evaluate(choose, *table, against, games, eval_seed)[0] for against in OPPONENTS
        }
        report({"reference": name, **run.references[name]})
    seconds = 0.0
    for target in sorted(checkpoints):
        if target > model.num_timesteps:
            started = time.perf_counter()
            model.learn(total_timesteps=target - model.num_timesteps, reset_num_timesteps=False)
            seconds += time.perf_counter() - started
        if out is not None:
            model.save(out / f"ppo-{model.num_timesteps}.zip")
        scores = {
            against: evaluate(model_chooser(model), *table, against, games, eval_seed)[0] for against in OPPONENTS
        }
        run.curve.append({"steps": model.num_timesteps, "training_seconds": round(seconds, 1), **scores})
        report(run.curve[-1])
        if out is not None:
            (out / "curve.json").write_text(json.dumps(run.to_json(), indent=1) + "\n")
    return run


def plot(run: dict[str, Any], path: Path) -> None:
    """A PNG of a run's curve (:meth:`PPORun.to_json`): points per game against each opponent by training steps,
    with 95% intervals and the references as bands (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(OPPONENTS), figsize=(5 * len(OPPONENTS), 3.6), sharey=True)
    steps = [point["steps"] for point in run["curve"]]
    for axis, against in zip(axes, OPPONENTS, strict=True):
        means = [point[against]["mean"] for point in run["curve"]]
        low = [point[against]["mean"] - point[against]["ci95"][0] for point in run["curve"]]
        high = [point[against]["ci95"][1] - point[against]["mean"] for point in run["curve"]]
        axis.errorbar(steps, means, yerr=[low, high], marker="o", capsize=3, label="MaskablePPO")
        for (name, reference), colour in zip(run["references"].items(), ("tab:grey", "tab:green"), strict=True):
            axis.axhspan(*reference[against]["ci95"], color=colour, alpha=0.3, label=f"luz {name}")
        axis.set_title(f"against {against} opponents")
        axis.set_xscale("symlog", linthresh=max(steps[1:2] or [1]))
        axis.set_xlabel("training steps (decisions of the learning seat)")
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("points per game (95% interval)")
    axes[0].legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
