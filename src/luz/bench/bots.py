"""Bot speed: whole-deal playouts per second in the fast core against the engine, and strong decision times.

Playouts start at the beginning of deals of random games, in worlds drawn from the first bidder's beliefs, and
follow the heuristic policy for every seat (each on its own beliefs). The reference, timed in the same run on the
same worlds, is the same policy in the engine: :class:`~luz.bots.heuristic.HeuristicBot` deciding from views of
``Beliefs.to_game(world)``. Decision times are those of ``strong`` (any spec) in games against the heuristic.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from luz.bench.beliefs import _rate
from luz.bots import make_bot
from luz.bots.fast.policy import NO_POLICY
from luz.bots.fast.rollouts import rollouts
from luz.bots.fast.rules import H
from luz.bots.fast.value import NO_VALUE
from luz.bots.strong import Position
from luz.engine import Game, Phase, View, view
from luz.engine.beliefs import Beliefs

TABLES = (("iello-2024", 4), ("korokorodou-2014", 3), ("standard-deck", 4))
BATCH = 64
"""Worlds per call of the fast core."""


def deal_starts(count: int, seed: int) -> list[View]:
    """The first bidder's view at the start of ``count`` deals of random games, cycling over :data:`TABLES`."""
    return [view(game, game.first_player) for game in (Game.new(*TABLES[i % 3], seed=seed + i) for i in range(count))]


def fast_playouts(seen: View, worlds: np.ndarray) -> int:
    """Play the deal out in each world with the fast core; the number of playouts."""
    p = Position.from_view(seen)
    vals = np.repeat(p.val[None], len(worlds), axis=0)
    vals[:, p.seat, list(Beliefs(seen).slots)] = worlds
    players = len(p.won)
    scores = np.zeros((1, len(worlds), players), dtype=np.int64)
    tricks = np.zeros_like(scores)
    state = (p.col, p.played, p.st, p.trick, p.won, p.bids, p.safe, p.rules)
    rollouts(vals, *state, p.seat, False, np.array([-1]), NO_POLICY, H, NO_VALUE, scores, tricks)
    return len(worlds)


def engine_playout(seen: View, world: np.ndarray, rng: random.Random) -> int:
    """Play the deal out in one world with the engine and the heuristic bot; 1."""
    beliefs = Beliefs(seen)
    game = beliefs.to_game(beliefs.world(world.tolist()))
    bot = make_bot("heuristic")
    while game.phase in (Phase.BID, Phase.PLAY) and (seat := game.current_player) is not None:
        game.apply(bot.choose(view(game, seat), rng), seat)
    return 1


def decision_times(spec: str, decisions: int, seed: int) -> list[float]:
    """Seconds taken by ``spec`` for ``decisions`` decisions in games against the heuristic (seat 0 is ``spec``)."""
    times: list[float] = []
    rng = random.Random(seed)
    strong, heuristic = make_bot(spec), make_bot("heuristic")
    strong.choose(view(game := Game.new("iello-2024", 4, seed=seed), game.first_player), rng)  # compiled, warm
    number = 0
    while len(times) < decisions:
        game = Game.new(*TABLES[number % 3], seed=seed + number)
        number += 1
        while (seat := game.current_player) is not None and len(times) < decisions:
            seen = view(game, seat)
            if seat == 0:
                start = time.perf_counter()
                action = strong.choose(seen, rng)
                times.append(time.perf_counter() - start)
            else:
                action = heuristic.choose(seen, rng)
            game.apply(action, seat)
    return times


def bench_bots(seconds: float = 10.0, seed: int = 0, spec: str = "strong", decisions: int = 40) -> dict[str, Any]:
    """Playouts per second (fast core and engine, alternating slices) and ``spec``'s decision times."""
    starts = deal_starts(30, seed)
    generator = np.random.default_rng(seed)
    worlds = [Beliefs(seen).sample_values(BATCH, generator) for seen in starts]
    fast_playouts(starts[0], worlds[0])  # compile or load the cache outside the timing
    rng = random.Random(seed)
    fast = engine = 0.0
    slices = 4
    for _ in range(slices):
        fast += _rate(lambda i: fast_playouts(starts[i % 30], worlds[i % 30]), seconds / 2 / slices)
        engine += _rate(lambda i: engine_playout(starts[i % 30], worlds[i % 30][i % BATCH], rng), seconds / 2 / slices)
    fast, engine = fast / slices, engine / slices
    times = np.array(decision_times(spec, decisions, seed)) * 1000
    return {
        "unit": "whole-deal heuristic playouts per second, one core (iello 4p, korokorodou 3p, standard 4p)",
        "fast_core_playouts_per_s": fast,
        "engine_playouts_per_s": engine,
        "ratio": fast / engine,
        "decisions": {
            "bot": spec,
            "count": len(times),
            "median_ms": float(np.median(times)),
            "p95_ms": float(np.percentile(times, 95)),
            "max_ms": float(times.max()),
        },
    }
