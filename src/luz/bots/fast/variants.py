# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""A family of policies in the fast core: the heuristic's variants, for the field and the adaptive opponent model.

A variant is a ``kind`` row; the plain heuristic is the row of zeros (:data:`PLAIN`), so that the rollouts and the
opponent model have one loop for the heuristic and its variants alike.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BIAS, SAFETY_MODE, GREEDY, NOISE = range(4)
"""Indices into a variant's ``kind`` row: tricks added to the bid, safety (-1 never, 0 when it pays, 1 always),
greedy play (0/1), and the chance in thousandths of a uniformly random legal action instead."""


@njit(cache=True)
def variant_bid(values, top, kind):
    """A variant's bid (``tricks * 2 + safety``) from the heuristic's expected scores ``values`` of bids to ``top``."""
    best = -1
    for tricks in range(top + 1):
        for safety in range(2):
            if kind[SAFETY_MODE] != 0 and safety != (kind[SAFETY_MODE] > 0):
                continue
            if best < 0 or values[tricks, safety] > values[best // 2, best % 2]:
                best = tricks * 2 + safety
    tricks = min(max(best // 2 + kind[BIAS], 0), top)
    return tricks * 2 + best % 2


@njit(cache=True)
def variant_bid_chances(values, top, kind, penalty, noise, out):
    """Fill ``out[tricks, safety]`` with a variant's chance of each bid to ``top``: the heuristic's choice softened
    (``exp(expected score / penalty)`` among the bids its safety rule allows), shifted by its bias, mixed with a
    uniform choice (``noise``, or the variant's own noise if larger)."""
    out[:] = 0.0
    best = -1e300
    for tricks in range(top + 1):
        for safety in range(2):
            if kind[SAFETY_MODE] == 0 or safety == (kind[SAFETY_MODE] > 0):
                best = max(best, values[tricks, safety])
    norm = 0.0
    for tricks in range(top + 1):
        for safety in range(2):
            if kind[SAFETY_MODE] == 0 or safety == (kind[SAFETY_MODE] > 0):
                w = np.exp((values[tricks, safety] - best) / penalty)
                out[min(max(tricks + kind[BIAS], 0), top), safety] += w
                norm += w
    mix = max(noise, kind[NOISE] / 1000.0)
    for tricks in range(top + 1):
        for safety in range(2):
            out[tricks, safety] = (1.0 - mix) * out[tricks, safety] / norm + mix / (2 * (top + 1))


PLAIN = np.zeros((1, 4), dtype=np.int64)
"""The heuristic itself as the one variant of a family: no bias, its own safety rule, not greedy, no noise."""
