# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""The heuristic bot's policy in the fast core (:mod:`luz.bots.heuristic`), decided on a seat's own information."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..heuristic import NEAR, PLAIN_DECAY, PLAIN_TOP, RUFF_RISK, SHORT_RUFF, TRUMP_DECAY
from .rules import COLOURS, COUNT, PLAYERS, TRUMP, H, deal_score, max_bid, trick_winner


@njit(cache=True)
def trick_chances(val, col, played, seat, gt, rules, out):
    """Fill ``out[slot]`` with a rough chance that each unplayed card of ``seat`` takes a trick this deal.

    The heuristic bot's estimate (``luz.bots.heuristic.trick_chances``), from ``seat``'s beliefs ``gt``.
    """
    players, trump, colours = rules[PLAYERS], rules[TRUMP], rules[COLOURS]
    lengths = np.zeros((players, colours), dtype=np.int64)
    visible = np.zeros(colours, dtype=np.int64)
    mine = np.zeros(colours, dtype=np.int64)
    for holder in range(players):
        for s in range(H):
            if not played[holder, s]:
                if holder == seat:
                    mine[col[holder, s]] += 1
                else:
                    lengths[holder, col[holder, s]] += 1
                    visible[col[holder, s]] += 1
    above = np.zeros(colours, dtype=np.int64)
    for s in range(H - 1, -1, -1):
        if played[seat, s]:
            continue
        colour = col[seat, s]
        higher = 0.0
        for holder in range(players):
            if holder != seat:
                for t in range(H):
                    if not played[holder, t] and col[holder, t] == colour:
                        higher += 1.0 - gt[s, val[holder, t]]
        if colour == trump:
            out[s] = TRUMP_DECAY**higher
        else:
            ruffers = 0
            for holder in range(players):
                if holder != seat and lengths[holder, trump] > 0 and lengths[holder, colour] <= above[colour]:
                    ruffers += 1
            out[s] = PLAIN_TOP * PLAIN_DECAY**higher * RUFF_RISK**ruffers
        above[colour] += 1
    short = 0
    for colour in range(colours):
        if colour != trump and mine[colour] <= 1 < visible[colour]:
            short += 1
    raised = np.zeros(H, dtype=np.bool_)
    for _ in range(short):
        lowest = -1
        for s in range(H):
            candidate = not played[seat, s] and col[seat, s] == trump and not raised[s]
            if candidate and (lowest < 0 or out[s] < out[lowest]):
                lowest = s
        if lowest < 0:
            break
        raised[lowest] = True
        out[lowest] = max(out[lowest], SHORT_RUFF)


@njit(cache=True)
def trick_distribution(chances, played, seat, dist):
    """Fill ``dist[t]`` with the chance that ``seat``'s unplayed cards take ``t`` tricks, each card ``s`` one with
    chance ``chances[s]``, independently (a Poisson-binomial); returns the number of unplayed cards."""
    dist[:] = 0.0
    dist[0] = 1.0
    cards = 0
    for s in range(H - 1, -1, -1):
        if played[seat, s]:
            continue
        p = chances[s]
        cards += 1
        for t in range(cards, 0, -1):
            dist[t] = dist[t] * (1.0 - p) + dist[t - 1] * p
        dist[0] *= 1.0 - p
    return cards


@njit(cache=True)
def bid_values(chances, played, seat, top, rules, out):
    """Fill ``out[tricks, safety]`` with the expected score of each bid up to ``top``, cards taken as independent."""
    dist = np.empty(H + 1, dtype=np.float64)
    cards = trick_distribution(chances, played, seat, dist)
    for tricks in range(top + 1):
        for safety in range(2):
            expected = 0.0
            for taken in range(cards + 1):
                expected += dist[taken] * deal_score(tricks, safety, taken, rules)
            out[tricks, safety] = expected


@njit(cache=True)
def choose_bid(values, top):
    """The best of the bids up to ``top`` (the first in the engine's order on a tie), as ``tricks * 2 + safety``."""
    best = 0
    for tricks in range(top + 1):
        for safety in range(2):
            if values[tricks, safety] > values[best // 2, best % 2]:
                best = tricks * 2 + safety
    return best


@njit(cache=True)
def win_chance(val, col, played, st, trick, won, bids, seat, slot, gt, rules):
    """The chance that ``seat`` wins the trick by playing ``slot`` now (``luz.bots.heuristic.win_chance``).

    A later player is taken to beat it when able and still short of their bid, or when all they may play beats it.
    """
    trump, players, count = rules[TRUMP], rules[PLAYERS], st[COUNT]
    colour = col[seat, slot]
    led = colour if count == 0 else col[trick[0, 0], trick[0, 1]]
    chance = 1.0
    if count:
        best = trick_winner(val, col, trick, count, trump)
        best_slot = 0
        for i in range(count):
            if trick[i, 0] == best:
                best_slot = trick[i, 1]
        if col[best, best_slot] == colour:
            chance = gt[slot, val[best, best_slot]]
        elif colour != trump:
            chance = 0.0
    for other in range(players):
        if other == seat or chance == 0.0:
            continue
        in_trick = False
        for i in range(count):
            if trick[i, 0] == other:
                in_trick = True
        if in_trick:
            continue
        follows = False
        for t in range(H):
            if not played[other, t] and col[other, t] == led:
                follows = True
        most, least = 0.0, 1.0
        for t in range(H):
            if played[other, t] or (follows and col[other, t] != led):
                continue
            if col[other, t] == colour:
                beat = 1.0 - gt[slot, val[other, t]]
            elif col[other, t] == trump:
                beat = 1.0
            else:
                beat = 0.0
            most = max(most, beat)
            least = min(least, beat)
        needs = bids[other] >= 0 and won[other] < bids[other]
        chance *= 1.0 - (most if needs else least)
    return chance


@njit(cache=True)
def choose_play(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count):
    """The heuristic's card among ``legal[:count]``: while short of its bid the cheapest of the likeliest winners,
    then the costliest of the likeliest losers (a card's cost: its chance to take a trick later)."""
    return choose_play_variant(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count, False)


@njit(cache=True)
def choose_play_variant(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count, greedy):
    """:func:`choose_play`, or for a ``greedy`` player always the cheapest of the likeliest winners."""
    cost = np.zeros(H, dtype=np.float64)
    trick_chances(val, col, played, seat, gt, rules, cost)
    chance = np.empty(count, dtype=np.float64)
    for i in range(count):
        chance[i] = win_chance(val, col, played, st, trick, won, bids, seat, legal[i], gt, rules)
    needs = greedy or (bids[seat] >= 0 and won[seat] < bids[seat])
    return legal[heuristic_pick(cost, chance, legal, count, needs)]


@njit(cache=True)
def heuristic_pick(cost, chance, legal, count, needs):
    """The index in ``legal`` of the heuristic's card, from each card's ``cost`` (by slot) and ``chance`` to win the
    trick (by index): when it ``needs`` tricks the cheapest of the likeliest winners, else the costliest of the
    likeliest losers."""
    pick = -1
    if needs:
        best = chance[:count].max()
        for i in range(count):
            if chance[i] >= best - NEAR and (pick < 0 or cost[legal[i]] < cost[legal[pick]]):
                pick = i
    else:
        worst = chance[:count].min()
        for i in range(count):
            if chance[i] <= worst + NEAR and (pick < 0 or cost[legal[i]] > cost[legal[pick]]):
                pick = i
    return pick


@njit(cache=True)
def policy_bid(val, col, played, st, seat, gt, rules):
    """The heuristic's bid for ``seat`` now, as ``tricks * 2 + safety``."""
    chances = np.zeros(H, dtype=np.float64)
    trick_chances(val, col, played, seat, gt, rules, chances)
    values = np.empty((H + 1, 2), dtype=np.float64)
    top = max_bid(st, rules)
    bid_values(chances, played, seat, top, rules, values)
    return choose_bid(values, top)
