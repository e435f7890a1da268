"""Expert iteration for the learned play policy (``luz train``), in its simplest form.

Step ``k`` (from 1): the apprentice, the policy of step ``k - 1`` (step 0: the heuristic), plays whole games at
every seat; at a share of its card decisions (``label_rate``) the expert, the strong bot's search with that same
policy in its playouts (:class:`~luz.bots.learned.LearnedBot`), values each legal card (its mean utility over the
worlds played out), and the features of the legal cards with the expert's values turned into a target
distribution (``softmax(value / temperature)``, so cards the search finds equal share the target instead of one
being picked by the noise of the playouts) become an example. The policy of step ``k`` is the softmax regression
fit (cross-entropy to those targets) on every example so far. So the search improves the policy, and the policy
guides the search of the next step. Everything is seeded: the same command gives the same weights.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize  # type: ignore[import-untyped]

from luz.engine import Game, Phase, view

from .fast.policy import FEATURES, NO_POLICY
from .fast.rules import H
from .learned import LearnedBot, PolicyBot, PolicyInputs


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """A training run: the table, the steps, games per step, the share of card decisions labelled, the expert's
    worlds per decision, the targets' temperature (points), the L2 penalty and the seed."""

    edition: str = "iello-2024"
    players: int = 4
    steps: int = 3
    games: int = 8
    label_rate: float = 0.5
    iters: int = 64
    temperature: float = 3.0
    l2: float = 0.001
    seed: int = 0


@dataclass(slots=True)
class Examples:
    """Card decisions: each one's legal cards' features, the target distribution over them, the expert's values
    of the cards (mean utility in points), its best card and the heuristic's (a baseline)."""

    features: list[np.ndarray]
    targets: list[np.ndarray]
    values: list[np.ndarray]
    picks: list[int]
    heuristic: list[int]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``x[n, 10, FEATURES]``, ``mask[n, 10]`` (a legal card) and ``targets[n, 10]``, padded to 10 cards."""
        n = len(self.picks)
        x, mask, targets = np.zeros((n, H, FEATURES)), np.zeros((n, H), dtype=bool), np.zeros((n, H))
        for i, (f, target) in enumerate(zip(self.features, self.targets, strict=True)):
            x[i, : len(f)], mask[i, : len(f)], targets[i, : len(f)] = f, True, target
        return x, mask, targets


def collect(policy: np.ndarray, config: TrainConfig, step: int, examples: Examples) -> int:
    """Play step ``step``'s games (apprentice ``policy`` at every seat), adding the expert's labels to ``examples``;
    returns how many were added."""
    apprentice, expert = PolicyBot(weights=policy), LearnedBot(weights=policy)
    baseline = PolicyBot(weights=NO_POLICY)
    added = 0
    for g in range(config.games):
        rng = random.Random(f"luz-train:{config.seed}:{step}:{g}")
        game = Game.new(config.edition, config.players, seed=rng.getrandbits(32))
        while (seat := game.current_player) is not None:
            seen = view(game, seat)
            action = apprentice.choose(seen, rng)
            if seen.phase is Phase.PLAY and len(seen.legal_actions) > 1 and rng.random() < config.label_rate:
                _, totals = expert.search(seen, rng).totals(seen.legal_actions, config.iters, None)
                values = totals[:, 0] / config.iters  # in the order of the legal slots, as the features
                target = np.exp((values - values.max()) / config.temperature)
                inputs = PolicyInputs(seen)
                examples.features.append(inputs.features())
                examples.targets.append(target / target.sum())
                examples.values.append(values)
                examples.picks.append(int(np.argmax(values)))
                usual = inputs.play(baseline.policy)
                examples.heuristic.append(int(np.flatnonzero(inputs.legal == usual.slot)[0]))
                added += 1
            game.apply(action, seat)
    return added


def fit(examples: Examples, l2: float, start: np.ndarray) -> tuple[np.ndarray, float]:
    """The softmax regression's weights (from ``start``) and mean cross-entropy to the targets:
    ``P(card) ∝ exp(w . features)``."""
    x, mask, targets = examples.arrays()
    n = len(targets)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        scores = np.where(mask, x @ w, 0.0)
        top = np.where(mask, scores, -np.inf).max(axis=1, keepdims=True)
        p = np.where(mask, np.exp(scores - top), 0.0)
        log_norm = top + np.log(p.sum(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        nll = -(targets * (scores - log_norm)).sum() / n
        grad = -((targets - p)[:, :, None] * x).sum(axis=(0, 1)) / n
        return float(nll + l2 * w @ w), grad + 2 * l2 * w

    result = minimize(loss, start, jac=True, method="L-BFGS-B")
    return np.asarray(result.x, dtype=np.float64), float(loss(result.x)[0] - l2 * result.x @ result.x)


def agreement(examples: Examples, policy: np.ndarray) -> float:
    """The share of examples where the learned ``policy`` picks the expert's card."""
    return float(np.mean(np.equal(policy_picks(examples, policy), examples.picks)))


def policy_picks(examples: Examples, policy: np.ndarray) -> np.ndarray:
    """The index of the card the learned ``policy`` plays in each example."""
    x, mask, _ = examples.arrays()
    picks: np.ndarray = np.where(mask, x @ policy, -np.inf).argmax(axis=1)
    return picks


def regret(examples: Examples, picks: np.ndarray | list[int]) -> float:
    """The mean points a game's decision loses, by the expert's values, by playing ``picks`` instead of its best."""
    return float(np.mean([v.max() - v[p] for v, p in zip(examples.values, picks, strict=True)]))


def train(
    config: TrainConfig, progress: Callable[[dict[str, float]], None] | None = None
) -> tuple[np.ndarray, list[dict[str, float]]]:
    """Run expert iteration; returns the weights after each step (``float64[steps, FEATURES]``) and a log line
    per step."""
    examples, policy = Examples([], [], [], [], []), NO_POLICY
    weights, log = [], []
    start = np.zeros(FEATURES)
    for step in range(1, config.steps + 1):
        began = time.process_time()
        added = collect(policy, config, step, examples)
        policy, nll = fit(examples, config.l2, start)
        start = policy
        weights.append(policy)
        line = {
            "step": step,
            "examples": len(examples.picks),
            "added": added,
            "cross_entropy": round(nll, 4),
            "agreement": round(agreement(examples, policy), 4),
            "heuristic_agreement": round(float(np.mean(np.equal(examples.heuristic, examples.picks))), 4),
            "regret": round(regret(examples, policy_picks(examples, policy)), 3),
            "heuristic_regret": round(regret(examples, examples.heuristic), 3),
            "cpu_seconds": round(time.process_time() - began, 1),
        }
        log.append(line)
        if progress is not None:
            progress(line)
    return np.array(weights), log
