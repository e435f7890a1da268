# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""What each seat believes of its own hand in a world of the fast core: exact beliefs, from its own side only."""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from .rules import COLOURS, HIGH, LOW, PLAYERS, H

COMB = np.array([[comb(n, k) for k in range(32)] for n in range(32)], dtype=np.float64)
"""Binomial coefficients ``COMB[n, k]`` (0 when ``k > n``)."""


@njit(cache=True)
def own_beliefs(val, col, played, seat, rules, gt):
    """Fill ``gt[slot, v]`` with the chance, as ``seat`` believes, that its unplayed ``slot`` is above ``v``.

    The exact beliefs of :mod:`luz.engine.beliefs` from what ``seat`` sees in this world: everyone's cards but
    its own unplayed ones; the unplayed cards between two revealed neighbours of a colour take a uniformly random
    subset of the values of that colour the seat sees nowhere.
    """
    low, high, colours, players = rules[LOW], rules[HIGH], rules[COLOURS], rules[PLAYERS]
    seen = np.zeros((colours, high + 2), dtype=np.bool_)
    for holder in range(players):
        for s in range(H):
            if holder != seat or played[seat, s]:
                seen[col[holder, s], val[holder, s]] = True
    pending = np.empty(H, dtype=np.int64)
    pool = np.empty(high + 2, dtype=np.int64)
    chance = np.empty(high + 2, dtype=np.float64)
    for colour in range(colours):
        lower, waiting = low - 1, 0
        for s in range(H + 1):
            if s < H and col[seat, s] != colour:
                continue
            if s < H and not played[seat, s]:
                pending[waiting] = s
                waiting += 1
                continue
            upper = val[seat, s] if s < H else high + 1
            if waiting:
                size = 0
                for v in range(lower + 1, upper):
                    if not seen[colour, v]:
                        pool[size] = v
                        size += 1
                total = COMB[size, waiting]
                for rank in range(waiting):
                    for j in range(size):
                        chance[j] = COMB[j, rank] * COMB[size - 1 - j, waiting - 1 - rank] / total
                    tail, j = 0.0, size - 1
                    for v in range(gt.shape[1] - 1, -1, -1):
                        while j >= 0 and pool[j] > v:
                            tail += chance[j]
                            j -= 1
                        gt[pending[rank], v] = tail
            lower, waiting = upper, 0


@njit(cache=True)
def exact_beliefs(val, played, seat, gt):
    """Fill ``gt`` for a seat that knows its own values (the oracle): each chance is 0 or 1."""
    for s in range(H):
        if not played[seat, s]:
            for v in range(gt.shape[1]):
                gt[s, v] = 1.0 if val[seat, s] > v else 0.0


@njit(cache=True)
def world_beliefs(val, col, played, rules, me, exact_self, gt):
    """Fill ``gt[seat]`` with every seat's beliefs in this world (``me``'s exact when ``exact_self``)."""
    for seat in range(rules[PLAYERS]):
        if seat == me and exact_self:
            exact_beliefs(val, played, seat, gt[seat])
        else:
            own_beliefs(val, col, played, seat, rules, gt[seat])
