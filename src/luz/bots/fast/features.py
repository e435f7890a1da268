# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""Belief features of a seat's position: what the heuristic bot reckons from the seat's own information.

The self-play network (:mod:`luz.bots.selfplay`) reads them beside the view tensor, so that it need not learn to
count the values it sees nowhere. Everything comes from the seat's exact beliefs (:func:`own_beliefs`), which read
no unplayed value of its own. Layout (:data:`FEATURES` floats, 0 where a part does not apply):

- ``[0, 10)`` per slot, an unplayed card's chance to take a trick this deal (the heuristic's ``trick_chances``);
- ``[10, 20)`` per slot, an unplayed card's expected value, 0 for the colour's lowest value and 1 for its highest;
- ``[20, 30)`` per slot, while playing, the chance that this card played now wins the trick (``win_chance``);
- ``[30, 52)`` while bidding, the expected score of bid ``id = 2 * tricks + safety`` up to the highest legal bid,
  over the table's points scale (``bid_values``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .beliefs import own_beliefs
from .heuristic import bid_values, trick_chances, win_chance
from .rules import BIDDING, CURRENT, HIGH, LOW, PHASE, PLAYING, H, max_bid

FEATURES = 3 * H + 2 * (H + 1)
"""Floats per position: three per slot, then one per bid."""


@njit(cache=True)
def position_features(val, col, played, st, trick, won, bids, rules, seat, scale, gt, out):
    """Fill ``out[:FEATURES]`` for ``seat`` (to act) in one game's arrays; ``gt`` is work space ``[H, HIGH + 2]``."""
    out[:] = 0.0
    phase = st[PHASE]
    if phase != BIDDING and phase != PLAYING:
        return
    own_beliefs(val, col, played, seat, rules, gt)
    chances = np.zeros(H, dtype=np.float64)
    trick_chances(val, col, played, seat, gt, rules, chances)
    low, high = rules[LOW], rules[HIGH]
    for s in range(H):
        if played[seat, s]:
            continue
        out[s] = chances[s]
        expected = 0.0
        for v in range(high + 1):
            expected += gt[s, v]
        out[H + s] = (expected - low) / max(high - low, 1)
        if phase == PLAYING:
            out[2 * H + s] = win_chance(val, col, played, st, trick, won, bids, seat, s, gt, rules)
    if phase == BIDDING:
        top = max_bid(st, rules)
        values = np.zeros((H + 1, 2), dtype=np.float64)
        bid_values(chances, played, seat, top, rules, values)
        for tricks in range(top + 1):
            for safety in range(2):
                out[3 * H + 2 * tricks + safety] = values[tricks, safety] / scale


@njit(cache=True)
def batch_features(val, col, played, st, trick, won, bids, rules, scale, out):
    """Fill ``out[i]`` with :func:`position_features` of the seat to act in each game ``i`` of a batch."""
    gt = np.zeros((H, rules[0, HIGH] + 2), dtype=np.float64)
    for i in range(out.shape[0]):
        gt[:] = 0.0
        position_features(
            val[i], col[i], played[i], st[i], trick[i], won[i], bids[i], rules[i], st[i, CURRENT], scale, gt, out[i]
        )
