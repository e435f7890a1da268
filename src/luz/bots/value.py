"""The learned value (``luz train-value``): the chance that each unplayed card still takes a trick, in a world.

A search that stops a playout a few tricks on (``strong:depth=2``, ``expert:depth=2``) scores the rest of the deal
with it (:func:`luz.bots.fastsim.settle`): each unplayed card's chance of taking a trick is a logistic score of
its features in the sampled world (:func:`luz.bots.fastsim.card_features`), scaled so the chances sum to the
tricks left, and each seat's expected points follow from its bid. The value is fit on self-play: deals of every
edition and player count played out by the heuristic, the same policy as the playouts it replaces, every card at
every trick's start labelled by whether it took a trick later. Each training step adds fresh deals and refits on
all so far; the held-out deals measure each step. The weights of every step ship in the package as
:data:`VALUE_FILE`; the bots use the last.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

import numpy as np

from luz.engine import Game

from . import fastsim as fs

VALUE_FILE = "learned_value.npz"
"""The shipped value (``luz.bots`` package data): ``steps[k - 1]`` is the value after training step ``k``."""
TABLES = (
    ("iello-2024", 3),
    ("iello-2024", 4),
    ("iello-2024", 5),
    ("korokorodou-2014", 3),
    ("korokorodou-2014", 4),
    ("standard-deck", 3),
    ("standard-deck", 4),
)
"""The tables the value learns from, in turn (one value for them all)."""


@cache
def shipped_value() -> np.ndarray:
    """The shipped value's last step, ``float64[VALUE_FEATURES]``."""
    with files("luz.bots").joinpath(VALUE_FILE).open("rb") as handle:
        steps = np.asarray(np.load(handle)["steps"], dtype=np.float64)
    if steps.ndim != 2 or steps.shape[1] != fs.VALUE_FEATURES:
        raise ValueError(f"{VALUE_FILE} holds weights of shape {steps.shape}, not (steps, {fs.VALUE_FEATURES})")
    return np.ascontiguousarray(steps[-1])


@dataclass(frozen=True, slots=True)
class ValueConfig:
    """A training run: steps, fresh deals per step, held-out deals, the L2 penalty, the seed."""

    steps: int = 4
    deals: int = 500
    held_out: int = 500
    l2: float = 0.001
    seed: int = 0


@dataclass(slots=True)
class CardExamples:
    """Cards at the start of a trick: features, whether each took a trick later, and its ``(deal, trick, seat)``."""

    features: np.ndarray
    labels: np.ndarray
    groups: np.ndarray

    @classmethod
    def of_deals(cls, seed: str, deals: int, start: int = 0) -> CardExamples:
        """The examples of ``deals`` seeded deals (deal ``i`` from ``(seed, start + i)``), the tables in turn."""
        features, labels, groups = [], [], []
        for i in range(start, start + deals):
            edition, players = TABLES[i % len(TABLES)]
            game = Game.new(edition, players, seed=random.Random(f"luz-value:{seed}:{i}").getrandbits(32))
            sim = fs.SimDeal(game)
            rows = players * fs.H * (fs.H + 1) // 2
            f, y = np.empty((rows, fs.VALUE_FEATURES)), np.zeros(rows, dtype=np.bool_)
            owners = np.empty((rows, 2), dtype=np.int64)
            n = fs.value_examples(sim.val, sim.col, sim.rules, game.first_player, f, y, owners)
            tricks_left = np.rint(f[:n, 11] * fs.H)
            features.append(f[:n])
            labels.append(y[:n])
            groups.append(np.column_stack([np.full(n, i), tricks_left, owners[:n, 0]]))
        return cls(np.concatenate(features), np.concatenate(labels), np.concatenate(groups).astype(np.int64))

    def __add__(self, other: CardExamples) -> CardExamples:
        return CardExamples(
            np.concatenate([self.features, other.features]),
            np.concatenate([self.labels, other.labels]),
            np.concatenate([self.groups, other.groups]),
        )


def fit(examples: CardExamples, l2: float, start: np.ndarray) -> np.ndarray:
    """The logistic regression's weights (from ``start``): ``P(takes a trick) = sigmoid(w . features)``."""
    from scipy.optimize import minimize  # type: ignore[import-untyped]

    x, y, n = examples.features, examples.labels.astype(np.float64), len(examples.labels)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        p = 1.0 / (1.0 + np.exp(-z))
        nll = float(np.sum(np.logaddexp(0.0, z) - y * z)) / n
        return nll + l2 * float(w @ w), x.T @ (p - y) / n + 2 * l2 * w

    return np.asarray(minimize(loss, start, jac=True, method="L-BFGS-B").x, dtype=np.float64)


def quality(examples: CardExamples, value: np.ndarray | None) -> dict[str, float]:
    """How well ``value`` (``None``: the even chance, tricks left over cards left) predicts held-out deals: the
    cards' mean log-loss and the mean absolute error of each seat's tricks still to take, at every trick's start."""
    deal, left = examples.groups[:, 0], examples.groups[:, 1]
    key = deal * (fs.H + 1) + left
    _, boundary, cards = np.unique(key, return_inverse=True, return_counts=True)
    if value is None:
        p = left / cards[boundary]
    else:
        raw = 1.0 / (1.0 + np.exp(-(examples.features @ value)))
        p = np.minimum(raw * (left / np.bincount(boundary, weights=raw)[boundary]), 1.0)
    p = np.clip(p, 1e-6, 1 - 1e-6)
    y = examples.labels
    log_loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    seat_key = key * 8 + examples.groups[:, 2]
    _, seat_group = np.unique(seat_key, return_inverse=True)
    error = np.abs(np.bincount(seat_group, weights=p) - np.bincount(seat_group, weights=y.astype(np.float64)))
    return {"log_loss": round(log_loss, 4), "tricks_error": round(float(error.mean()), 4)}


def train_value(
    config: ValueConfig, progress: Callable[[dict[str, float]], None] | None = None
) -> tuple[np.ndarray, list[dict[str, float]]]:
    """Fit the value step by step; returns the weights after each step (``float64[steps, VALUE_FEATURES]``) and
    a log line per step, each measured on the held-out deals (and the even chance, for scale)."""
    held_out = CardExamples.of_deals(f"{config.seed}:held-out", config.held_out)
    even = quality(held_out, None)
    examples: CardExamples | None = None
    weights, log, start = [], [], np.zeros(fs.VALUE_FEATURES)
    for step in range(1, config.steps + 1):
        began = time.process_time()
        fresh = CardExamples.of_deals(str(config.seed), config.deals, (step - 1) * config.deals)
        examples = fresh if examples is None else examples + fresh
        start = fit(examples, config.l2, start)
        weights.append(start)
        line = {
            "step": step,
            "deals": step * config.deals,
            "cards": len(examples.labels),
            **quality(held_out, start),
            "even_log_loss": even["log_loss"],
            "even_tricks_error": even["tricks_error"],
            "cpu_seconds": round(time.process_time() - began, 1),
        }
        log.append(line)
        if progress is not None:
            progress(line)
    return np.array(weights), log
