"""Belief speed: hidden worlds sampled per second and per-slot probability tables per second.

Positions come from random games of every edition and player count, at random points of a deal, seen by the
player to act. The reference, timed in the same run, is an unconstrained draw: shuffling the seat's unseen
values (the cheapest conceivable way to guess a world, though not a consistent one).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from luz.engine import EDITIONS, Game, Phase, View, view
from luz.engine.beliefs import Beliefs

BATCH = 1000
"""Worlds per call of the vectorised sampler."""


def positions(count: int, seed: int) -> list[View]:
    """``count`` views of the player to act, at random points of random games of every table."""
    rng = random.Random(seed)
    tables = [(key, p) for key, edition in EDITIONS.items() for p in edition.player_counts]
    views: list[View] = []
    while len(views) < count:
        key, players = tables[len(views) % len(tables)]
        game = Game.new(key, players, seed=rng.randrange(2**31))
        for _ in range(rng.randrange(players + 10 * players)):
            game.apply(rng.choice(game.legal_actions()))
        if game.phase in (Phase.BID, Phase.PLAY) and game.current_player is not None:
            views.append(view(game, game.current_player))
    return views


def _rate(work: Callable[[int], int], seconds: float) -> float:
    """Units of ``work`` per second: ``work(i)`` does its i-th step and returns how many units it did."""
    done, step, start = 0, 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work(step)
        step += 1
    return done / elapsed


def bench_beliefs(seconds: float = 8.0, seed: int = 0) -> dict[str, Any]:
    """Worlds and tables per second over positions of random games (one core)."""
    views = positions(200, seed)
    beliefs = [Beliefs(v) for v in views]
    rng, generator = random.Random(seed), np.random.default_rng(seed)
    pools = [[v for values in b.unseen for v in values] for b in beliefs]
    share = seconds / 5

    def shuffle(i: int) -> int:
        rng.shuffle(pools[i % 200])
        return 1

    figures = {
        "worlds_per_s_batch": _rate(lambda i: len(beliefs[i % 200].sample_values(BATCH, generator)), share),
        "worlds_per_s_single": _rate(lambda i: bool(beliefs[i % 200].sample(rng)), share),
        "tables_per_s": _rate(lambda i: bool(Beliefs(views[i % 200]).table()), share),
        "exact_tables_per_s": _rate(lambda i: bool(Beliefs(views[i % 200]).exact_table()), share),
        "reference_shuffles_per_s": _rate(shuffle, share),
    }
    report: dict[str, Any] = {
        "benchmark": "beliefs",
        "positions": len(views),
        "seconds": seconds,
        **{name: round(rate, 1) for name, rate in figures.items()},
    }
    report["ratio_batch_vs_reference"] = round(figures["worlds_per_s_batch"] / figures["reference_shuffles_per_s"], 3)
    report["ratio_single_vs_reference"] = round(figures["worlds_per_s_single"] / figures["reference_shuffles_per_s"], 3)
    return report
