"""Measurements behind the bots' shipped tables, run by hand when a bot's policy family changes.

:func:`measure_results` measures the expert's :data:`luz.bots.adaptive.RESULTS` (the bot itself only reads it).
"""

from __future__ import annotations

import random

import numpy as np

from luz.engine import Game

from . import make_bot
from .adaptive import VARIANT_SPECS
from .base import play_out


def measure_results(games: int) -> np.ndarray:
    """:data:`~luz.bots.adaptive.RESULTS` measured anew: each variant at one seat of ``games`` seeded games of each
    of iello-2024 4p, korokorodou-2014 3p and standard-deck 4p, the other seats heuristics."""
    table = np.ones((len(VARIANT_SPECS), 7, 2))
    for v, spec in enumerate(VARIANT_SPECS):
        for edition, players in (("iello-2024", 4), ("korokorodou-2014", 3), ("standard-deck", 4)):
            for g in range(games):
                game = Game.new(edition, players, seed=1000 + g)
                seat = g % players
                play_out(game, [make_bot(spec if s == seat else "heuristic") for s in range(players)], random.Random(g))
                for result in game.results:
                    d = min(max(result.tricks[seat] - result.bids[seat], -3), 3)
                    table[v, d + 3, int(result.safety[seat])] += 1
    return np.asarray(np.round(table / table.sum(axis=(1, 2), keepdims=True), 4), dtype=np.float64)
