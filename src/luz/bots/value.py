"""Training the learned value (``luz train-value``): the chance that each unplayed card still takes a trick, in a world.

A search that stops a playout a few tricks on (``strong:depth=2``, ``expert:depth=2``) scores the rest of the deal
with it (:func:`luz.bots.fast.value.settle`): each unplayed card's chance of taking a trick is a logistic score of
its features in the sampled world (:func:`luz.bots.fast.value.card_features`), scaled so the chances sum to the
tricks left, and each seat's expected points follow from its bid. The value is fit on self-play: deals of every
edition and player count played out by the heuristic, the same policy as the playouts it replaces, every card at
every trick's start labelled by whether it took a trick later. Each training step adds fresh deals and refits on
all so far; the held-out deals measure each step.

Then expert iteration (``search_steps``): the search itself (``expert``, stopping its playouts with the value of
the step before) plays the fresh deals at every seat, and the value is refit on all the deals the search has
played so far. So the search improves the value's targets, and the value guides the next step's search.

The weights of every step ship in the package as :data:`~luz.bots.value_weights.VALUE_FILE`; the bots load them
from :mod:`luz.bots.value_weights` (never from this module, the training side) and use its
:data:`~luz.bots.value_weights.DEFAULT_STEP` (``expert:value=K`` another).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial

import numpy as np

from luz.engine import Bid, Game, view

from .fast.rules import H
from .fast.sim import SimDeal
from .fast.value import VALUE_FEATURES, value_examples

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


@dataclass(frozen=True, slots=True)
class ValueConfig:
    """A training run: steps of the heuristic's self-play, fresh deals per step, held-out deals, the L2 penalty,
    the seed; then steps of the search's play (``search_steps``, ``search_deals`` a step, ``iters`` worlds a
    decision)."""

    steps: int = 4
    deals: int = 500
    held_out: int = 500
    l2: float = 0.001
    seed: int = 0
    search_steps: int = 0
    search_deals: int = 200
    iters: int = 64


@dataclass(slots=True)
class CardExamples:
    """Cards at the start of a trick: features, whether each took a trick later, and its ``(deal, trick, seat)``."""

    features: np.ndarray
    labels: np.ndarray
    groups: np.ndarray

    @classmethod
    def of_deals(cls, seed: str, deals: int, start: int = 0, scripts: list[np.ndarray] | None = None) -> CardExamples:
        """The examples of ``deals`` seeded deals (deal ``i`` from ``(seed, start + i)``), the tables in turn,
        played by the heuristic or, deal by deal, as ``scripts`` say (:func:`searched_deal`)."""
        features, labels, groups = [], [], []
        for i in range(start, start + deals):
            game = table_deal(seed, i)
            players = game.players
            sim = SimDeal(game)
            rows = players * H * (H + 1) // 2
            f, y = np.empty((rows, VALUE_FEATURES)), np.zeros(rows, dtype=np.bool_)
            owners = np.empty((rows, 2), dtype=np.int64)
            script = NO_SCRIPT if scripts is None else scripts[i - start]
            n = value_examples(sim.val, sim.col, sim.rules, game.first_player, script, f, y, owners)
            tricks_left = np.rint(f[:n, 11] * H)
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


NO_SCRIPT = np.zeros(0, dtype=np.int64)
"""No actions given: the heuristic plays the whole deal."""


def table_deal(seed: str, i: int) -> Game:
    """Deal ``i`` of a run seeded ``seed``: a new game of the ``i``-th table in turn, at its first bid."""
    edition, players = TABLES[i % len(TABLES)]
    return Game.new(edition, players, seed=random.Random(f"luz-value:{seed}:{i}").getrandbits(32))


def searched_deal(seed: str, weights: np.ndarray, iters: int, i: int) -> np.ndarray:
    """Deal ``i`` played by the expert at every seat, its playouts stopped and scored by ``weights``; its actions
    in order (``tricks * 2 + safety`` or a slot). Each seat decides from its own view only."""
    from .adaptive import AdaptiveBot

    game, bot = table_deal(seed, i), AdaptiveBot(iters=iters)
    bot.value = weights  # this run's step, not yet shipped
    rng = random.Random(f"luz-value-search:{seed}:{i}")
    actions = []
    while game.deal_number == 1 and game.current_player is not None:
        seat = game.current_player
        action = bot.choose(view(game, seat), rng)
        actions.append(action.tricks * 2 + int(action.safety) if isinstance(action, Bid) else action.slot)
        game.apply(action, seat)
    return np.array(actions, dtype=np.int64)


def searched_deals(
    seed: str, deals: int, start: int, weights: np.ndarray, iters: int, workers: int | None
) -> list[np.ndarray]:
    """:func:`searched_deal` for deals ``start .. start + deals - 1``, over ``workers`` processes (the same
    actions for any number)."""
    play = partial(searched_deal, seed, weights, iters)
    indices = range(start, start + deals)
    if workers == 1:
        return [play(i) for i in indices]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(play, indices, chunksize=4))


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
    key = deal * (H + 1) + left
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
    config: ValueConfig, progress: Callable[[dict[str, float | str]], None] | None = None, workers: int | None = 1
) -> tuple[np.ndarray, list[dict[str, float | str]]]:
    """Fit the value step by step; returns the weights after each step (``float64[steps + search_steps,
    VALUE_FEATURES]``) and a log line per step, each measured on the held-out deals (and the even chance, for
    scale). The search's deals are played over ``workers`` processes; the result does not depend on it."""
    held_out = CardExamples.of_deals(f"{config.seed}:held-out", config.held_out)
    even = quality(held_out, None)
    examples: CardExamples | None = None
    weights, log, start = [], [], np.zeros(VALUE_FEATURES)
    for step in range(1, config.steps + config.search_steps + 1):
        began, clock = time.process_time(), time.perf_counter()
        if step <= config.steps:
            players, deals = "heuristic", step * config.deals
            fresh = CardExamples.of_deals(str(config.seed), config.deals, (step - 1) * config.deals)
        else:
            players, deals = "search", (step - config.steps) * config.search_deals
            seed, first = f"{config.seed}:search", (step - config.steps - 1) * config.search_deals
            scripts = searched_deals(seed, config.search_deals, first, start, config.iters, workers)
            fresh = CardExamples.of_deals(seed, config.search_deals, first, scripts)
            if step == config.steps + 1:
                examples = None  # from here on, fit on the search's deals only
        examples = fresh if examples is None else examples + fresh
        start = fit(examples, config.l2, start)
        weights.append(start)
        line: dict[str, float | str] = {
            "step": step,
            "played_by": players,
            "deals": deals,
            "cards": len(examples.labels),
            **quality(held_out, start),
            "even_log_loss": even["log_loss"],
            "even_tricks_error": even["tricks_error"],
            "cpu_seconds": round(time.process_time() - began, 1),
            "seconds": round(time.perf_counter() - clock, 1),
        }
        log.append(line)
        if progress is not None:
            progress(line)
    return np.array(weights), log
