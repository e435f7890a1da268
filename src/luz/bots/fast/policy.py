# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""A learned play policy in the fast core: a linear score over features of playing each legal card."""

from __future__ import annotations

import numpy as np
from numba import njit

from .heuristic import choose_play, heuristic_pick, trick_chances, win_chance
from .rules import COUNT, HIGH, LOW, PLAYERS, TRICKS, TRUMP, H

FEATURES = 13
"""Features of playing a card (:func:`play_features`); a policy is ``float64[FEATURES]`` weights."""
NO_POLICY = np.zeros(0, dtype=np.float64)
"""No learned policy: the heuristic's own choice of card."""


@njit(cache=True)
def play_features(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count, out):
    """Fill ``out[i]`` with the features of ``seat`` playing ``legal[i]``, from its own beliefs ``gt``: the
    heuristic's chance to win the trick with it and its cost (chance to take a trick later), each also when short
    of the bid, trump, the expected value, also when short, the tricks still needed per card left, whether others
    are short of their bids, the last seat to play and the lead (these four times the chance to win), short and
    trump, and whether it is the heuristic's card (so a policy can be the heuristic with corrections)."""
    players, low, high = rules[PLAYERS], rules[LOW], rules[HIGH]
    cost = np.zeros(H, dtype=np.float64)
    trick_chances(val, col, played, seat, gt, rules, cost)
    needs = 1.0 if bids[seat] >= 0 and won[seat] < bids[seat] else 0.0
    left = H - st[TRICKS]
    deficit = (bids[seat] - won[seat]) / left if bids[seat] >= 0 else 0.0
    short = 0.0
    for other in range(players):
        if other != seat and bids[other] >= 0 and won[other] < bids[other]:
            short += 1.0 / (players - 1)
    last = 1.0 if st[COUNT] == players - 1 else 0.0
    lead = 1.0 if st[COUNT] == 0 else 0.0
    chance = np.empty(count, dtype=np.float64)
    for i in range(count):
        chance[i] = win_chance(val, col, played, st, trick, won, bids, seat, legal[i], gt, rules)
    usual = heuristic_pick(cost, chance, legal, count, needs > 0)
    for i in range(count):
        slot, win = legal[i], chance[i]
        mean = 0.0
        for v in range(low, high):
            mean += gt[slot, v]
        mean /= high - low
        trump = 1.0 if col[seat, slot] == rules[TRUMP] else 0.0
        row = out[i]
        row[0], row[1], row[2], row[3] = win, cost[slot], needs * win, needs * cost[slot]
        row[4], row[5], row[6], row[7] = trump, mean, needs * mean, deficit * win
        row[8], row[9], row[10], row[11] = short * win, last * win, lead * win, needs * trump
        row[12] = 1.0 if i == usual else 0.0


@njit(cache=True)
def choose_play_policy(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count, policy):
    """The card of the learned ``policy`` among ``legal[:count]``: the best ``policy . features`` (the first on a
    tie); the heuristic's card (:func:`choose_play`) when ``policy`` is :data:`NO_POLICY`."""
    if policy.shape[0] == 0:
        return choose_play(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count)
    features = np.empty((count, FEATURES), dtype=np.float64)
    play_features(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count, features)
    best, pick = -np.inf, 0
    for i in range(count):
        score = 0.0
        for f in range(FEATURES):
            score += features[i, f] * policy[f]
        if score > best:
            best, pick = score, i
    return legal[pick]
