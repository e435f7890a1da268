# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""A learned value in the fast core: the rest of a deal scored without playing it (and the examples it learns from)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .beliefs import own_beliefs, world_beliefs
from .heuristic import choose_play, policy_bid, trick_distribution
from .rules import (
    BIDDING,
    COUNT,
    CURRENT,
    HIGH,
    LEADER,
    LED,
    OVER,
    PHASE,
    PLAYERS,
    TRICKS,
    TRUMP,
    H,
    apply_bid,
    apply_play,
    deal_score,
    legal_plays,
)

VALUE_FEATURES = 14
"""Features of an unplayed card in a world (:func:`card_features`); a value is ``float64[VALUE_FEATURES]``."""
NO_VALUE = np.zeros(0, dtype=np.float64)
"""No learned value: playouts go to the end of the deal."""


@njit(cache=True)
def running(st, stop):
    """Whether a playout goes on: the deal is not over, and in the play fewer than ``stop`` tricks are done or a
    trick is under way."""
    if st[PHASE] == OVER:
        return False
    return st[PHASE] == BIDDING or st[COUNT] > 0 or st[TRICKS] < stop


@njit(cache=True)
def card_features(val, col, played, st, won, bids, rules, seat, slot, out):
    """Fill ``out`` with the features of ``seat``'s unplayed ``slot`` at the start of a trick, the world's whole
    deal known (the value scores a sampled world): a constant, trump, the others' unplayed cards above it in its
    colour (count, none, one), those below, the seat's own cards of the colour and those above it, the others
    void in the colour (with a trump, and all), the seat's trumps, the tricks left, the lead, and whether the seat
    still needs tricks for its bid."""
    players, trump = rules[PLAYERS], rules[TRUMP]
    colour, v = col[seat, slot], val[seat, slot]
    above = below = mine = mine_above = trumps = 0
    for s in range(H):
        if not played[seat, s]:
            trumps += col[seat, s] == trump
            if col[seat, s] == colour:
                mine += 1
                mine_above += val[seat, s] > v
    ruffers = voids = 0
    for other in range(players):
        if other == seat:
            continue
        holds, has_trump = 0, False
        for s in range(H):
            if not played[other, s]:
                has_trump = has_trump or col[other, s] == trump
                if col[other, s] == colour:
                    holds += 1
                    above += val[other, s] > v
                    below += val[other, s] < v
        if holds == 0 and colour != trump:
            voids += 1
            ruffers += has_trump
    left = H - st[TRICKS]
    out[0], out[1], out[2] = 1.0, colour == trump, above
    out[3], out[4], out[5] = above == 0, above == 1, below
    out[6], out[7], out[8] = mine, mine_above, ruffers
    out[9], out[10], out[11] = voids, trumps, left / H
    out[12] = st[LEADER] == seat
    out[13] = bids[seat] >= 0 and won[seat] < bids[seat]


@njit(cache=True)
def card_chances(val, col, played, st, won, bids, rules, value, out):
    """Fill ``out[seat, slot]`` with the learned ``value``'s chance that each unplayed card takes a trick in the
    rest of the deal (a logistic score of :func:`card_features`), scaled so that they sum to the tricks left."""
    features = np.empty(VALUE_FEATURES, dtype=np.float64)
    total = 0.0
    out[:] = 0.0
    for seat in range(rules[PLAYERS]):
        for s in range(H):
            if not played[seat, s]:
                card_features(val, col, played, st, won, bids, rules, seat, s, features)
                score = 0.0
                for f in range(VALUE_FEATURES):
                    score += features[f] * value[f]
                out[seat, s] = 1.0 / (1.0 + np.exp(-score))
                total += out[seat, s]
    scale = (H - st[TRICKS]) / total if total > 0 else 0.0
    for seat in range(rules[PLAYERS]):
        for s in range(H):
            out[seat, s] = min(out[seat, s] * scale, 1.0)


@njit(cache=True)
def settle(val, col, played, st, won, bids, safe, rules, value, scores, tricks):
    """Fill a playout's ``scores[seat]`` and ``tricks[seat]`` (the tricks taken so far): the deal's points when it
    is over, else each seat's expected points with the rest of its tricks by the learned ``value`` (each card's
    chance from :func:`card_chances`, the cards taken as independent)."""
    players = rules[PLAYERS]
    for seat in range(players):
        tricks[seat] = won[seat]
    if st[PHASE] == OVER:
        for seat in range(players):
            scores[seat] = deal_score(bids[seat], safe[seat], won[seat], rules)
        return
    chances = np.zeros((players, H), dtype=np.float64)
    card_chances(val, col, played, st, won, bids, rules, value, chances)
    dist = np.empty(H + 1, dtype=np.float64)
    for seat in range(players):
        cards = trick_distribution(chances[seat], played, seat, dist)
        expected = 0.0
        for taken in range(cards + 1):
            expected += dist[taken] * deal_score(bids[seat], safe[seat], won[seat] + taken, rules)
        scores[seat] = expected


@njit(cache=True)
def value_examples(val, col, rules, first, script, features, labels, owners):
    """Play one deal from its first bid, the ``k``-th action ``script[k]`` (``tricks * 2 + safety`` or a slot: a
    deal played by others, e.g. the search) and, past the script's end, every seat the heuristic on its own
    beliefs; at the start of every trick, add each unplayed card's :func:`card_features` to ``features``, its
    ``(seat, slot)`` to ``owners`` and, in ``labels``, whether it takes a trick later in the deal. Returns the rows
    filled (at most ``players * H * (H + 1) / 2``)."""
    players = rules[PLAYERS]
    played = np.zeros((players, H), dtype=np.bool_)
    st = np.array([first, first, -1, 0, 0, 0, BIDDING, first], dtype=np.int64)
    trick = np.zeros((players, 2), dtype=np.int64)
    won, bids, safe = np.zeros(players, np.int64), np.full(players, -1, np.int64), np.zeros(players, np.int64)
    gt = np.zeros((players, H, rules[HIGH] + 2), dtype=np.float64)
    world_beliefs(val, col, played, rules, -1, False, gt)
    winning = np.zeros((players, H), dtype=np.bool_)
    legal = np.empty(H, dtype=np.int64)
    rows = step = 0
    while st[PHASE] != OVER:
        seat = st[CURRENT]
        scripted = step < len(script)
        step += 1
        if st[PHASE] == BIDDING:
            choice = script[step - 1] if scripted else policy_bid(val, col, played, st, seat, gt[seat], rules)
            apply_bid(st, bids, safe, rules, choice // 2, choice % 2)
            continue
        if st[COUNT] == 0:
            for holder in range(players):
                for s in range(H):
                    if not played[holder, s]:
                        card_features(val, col, played, st, won, bids, rules, holder, s, features[rows])
                        owners[rows, 0], owners[rows, 1] = holder, s
                        rows += 1
        if scripted:
            slot = script[step - 1]
        else:
            own_beliefs(val, col, played, seat, rules, gt[seat])
            count = legal_plays(col, played, seat, st[LED], legal)
            slot = choose_play(val, col, played, st, trick, won, bids, seat, gt[seat], rules, legal, count)
        winner = apply_play(val, col, played, st, trick, won, rules, slot)
        if winner >= 0:
            for i in range(players):
                if trick[i, 0] == winner:
                    winning[winner, trick[i, 1]] = True
    for r in range(rows):
        labels[r] = winning[owners[r, 0], owners[r, 1]]
    return rows
