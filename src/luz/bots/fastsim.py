"""The fast simulation core: one deal of LUZ as numpy arrays, compiled with numba, for rollouts and search.

The same rules as :mod:`luz.engine` (legal plays by colour, trick winner by trump then led colour, the edition's
scoring), checked against the engine on thousands of seeded deals by the tests. A deal is held in a few arrays:

- ``val``, ``col``: ``int64[players, 10]``, each seat's card values and colours in slot order;
- ``played``: ``bool[players, 10]``;
- ``st``: ``int64[8]``, the scalars indexed by :data:`LEADER` ... :data:`FIRST`;
- ``trick``: ``int64[players, 2]``, the current trick's ``(seat, slot)`` in order;
- ``won``, ``bids``, ``safe``: ``int64[players]`` (a bid of ``-1``: not yet bid);
- ``rules``: ``int64[9]``, the edition's data for this deal, indexed by :data:`TRUMP` ... :data:`PLAYERS`.

The playout policy is the heuristic bot's (:mod:`luz.bots.heuristic`) decided from each simulated player's OWN
information in the simulated world: its exact beliefs over its own unplayed values (``gt[seat, slot, v]``, the
chance that the card is above ``v``), never the world's truth of its own hand.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from luz.engine import HAND_SIZE, Action, Bid, Edition, Game, Phase, Play, TableOptions

from .heuristic import NEAR, PLAIN_DECAY, PLAIN_TOP, RUFF_RISK, SHORT_RUFF, TRUMP_DECAY

H = HAND_SIZE
TRUMP, LOW, HIGH, COLOURS, MADE, PENALTY, SOFTENS, CAP, PLAYERS = range(9)
"""Indices into ``rules``: trump colour, lowest and highest value, colour count, made-bet points of this deal,
penalty per trick of difference, whether the safety softens a miss (0/1), the bid cap (-1: none), players."""
LEADER, CURRENT, LED, COUNT, TRICKS, BID_TOTAL, PHASE, FIRST = range(8)
"""Indices into ``st``: trick leader, player to act, led colour (-1), cards in the trick, tricks played, sum of
the bids so far, phase, the deal's first player."""
BIDDING, PLAYING, OVER = 0, 1, 2
"""Values of ``st[PHASE]``."""

COMB = np.array([[comb(n, k) for k in range(32)] for n in range(32)], dtype=np.float64)
"""Binomial coefficients ``COMB[n, k]`` (0 when ``k > n``)."""


def rules_array(edition: Edition, players: int, options: TableOptions, deal_number: int) -> np.ndarray:
    """The ``rules`` array of deal ``deal_number`` (1-based) of a table."""
    low, high = edition.values[players]
    cap = -1 if options.bid_cap is None else options.bid_cap
    made = options.made_points[deal_number - 1]
    data = [edition.trump, low, high, len(edition.colours), made, edition.miss_penalty]
    return np.array([*data, int(edition.safety_softens_miss), cap, players], dtype=np.int64)


# -- the rules -------------------------------------------------------------------------------------------------


@njit(cache=True)
def legal_plays(col, played, seat, led, out):
    """Fill ``out`` with ``seat``'s legal slots (ascending); return how many: follow ``led`` if able."""
    n = 0
    if led >= 0:
        for s in range(H):
            if not played[seat, s] and col[seat, s] == led:
                out[n] = s
                n += 1
        if n:
            return n
    for s in range(H):
        if not played[seat, s]:
            out[n] = s
            n += 1
    return n


@njit(cache=True)
def max_bid(st, rules):
    """The highest legal bid now: 10, or what the table's cap leaves."""
    if rules[CAP] < 0:
        return H
    return min(H, rules[CAP] - st[BID_TOTAL])


@njit(cache=True)
def trick_winner(val, col, trick, count, trump):
    """The seat winning the first ``count`` plays of ``trick``: highest trump, else highest of the led colour."""
    best = trick[0, 0]
    best_colour = col[best, trick[0, 1]]
    best_value = val[best, trick[0, 1]]
    led = best_colour
    for i in range(1, count):
        seat, slot = trick[i, 0], trick[i, 1]
        colour, value = col[seat, slot], val[seat, slot]
        if colour == best_colour:
            if value > best_value:
                best, best_value = seat, value
        elif colour == trump or (colour == led and best_colour != trump):
            best, best_colour, best_value = seat, colour, value
    return best


@njit(cache=True)
def apply_bid(st, bids, safe, rules, tricks, safety):
    """The player to act bids ``tricks`` (with ``safety`` 0/1); the play starts after the last bidder."""
    seat = st[CURRENT]
    bids[seat] = tricks
    safe[seat] = safety
    st[BID_TOTAL] += tricks
    following = (seat + 1) % rules[PLAYERS]
    if following == st[FIRST]:
        st[PHASE] = PLAYING
    st[CURRENT] = following


@njit(cache=True)
def apply_play(val, col, played, st, trick, won, rules, slot):
    """The player to act plays ``slot``; return the trick's winner when it completes the trick, else -1."""
    seat = st[CURRENT]
    players = rules[PLAYERS]
    if st[COUNT] == 0:
        st[LED] = col[seat, slot]
    played[seat, slot] = True
    trick[st[COUNT], 0] = seat
    trick[st[COUNT], 1] = slot
    st[COUNT] += 1
    if st[COUNT] < players:
        st[CURRENT] = (seat + 1) % players
        return -1
    winner = trick_winner(val, col, trick, players, rules[TRUMP])
    won[winner] += 1
    st[TRICKS] += 1
    st[COUNT] = 0
    st[LED] = -1
    st[LEADER] = winner
    st[CURRENT] = winner
    if st[TRICKS] == H:
        st[PHASE] = OVER
    return winner


@njit(cache=True)
def deal_score(bid, safety, tricks, rules):
    """One player's points for the deal (the edition's scoring, as in ``Edition.score``)."""
    if tricks == bid or (safety and tricks == bid + 1):
        return rules[MADE] // 2 if safety else rules[MADE]
    difference = abs(tricks - bid)
    if safety and rules[SOFTENS]:
        difference = min(difference, abs(tricks - bid - 1))
    return -rules[PENALTY] * difference


# -- what a seat believes of its own hand ----------------------------------------------------------------------


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


# -- the heuristic policy, on a seat's own information ---------------------------------------------------------


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


# -- a learned play policy ------------------------------------------------------------------------------------

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


# -- a learned value: the rest of a deal scored without playing it -------------------------------------------

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


# -- rollouts --------------------------------------------------------------------------------------------------


@njit(cache=True)
def play_deal(val, col, played, st, trick, won, bids, safe, rules, gt, me, exact_self, opening, policy, stop):
    """Play the deal to its end, ``me`` taking action ``opening`` (``tricks * 2 + safety`` or a slot), then everyone
    following the heuristic policy on their own beliefs (updated as they reveal their own cards), with the learned
    play ``policy`` (:func:`choose_play_policy`) for the cards unless it is :data:`NO_POLICY`; or only until
    ``stop`` tricks are played (:func:`running`: ``stop`` = :data:`H`, the whole deal)."""
    legal = np.empty(H, dtype=np.int64)
    stale = np.zeros(rules[PLAYERS], dtype=np.bool_)
    forced = opening
    while running(st, stop):
        seat = st[CURRENT]
        if st[PHASE] == BIDDING:
            choice = forced if seat == me and forced >= 0 else policy_bid(val, col, played, st, seat, gt[seat], rules)
            apply_bid(st, bids, safe, rules, choice // 2, choice % 2)
        else:
            if stale[seat]:
                own_beliefs(val, col, played, seat, rules, gt[seat])
                stale[seat] = False
            count = legal_plays(col, played, seat, st[LED], legal)
            if seat == me and forced >= 0:
                choice = forced
            else:
                choice = choose_play_policy(
                    val, col, played, st, trick, won, bids, seat, gt[seat], rules, legal, count, policy
                )
            apply_play(val, col, played, st, trick, won, rules, choice)
            stale[seat] = not (seat == me and exact_self)
        if seat == me:
            forced = -1


@njit(cache=True)
def world_beliefs(val, col, played, rules, me, exact_self, gt):
    """Fill ``gt[seat]`` with every seat's beliefs in this world (``me``'s exact when ``exact_self``)."""
    for seat in range(rules[PLAYERS]):
        if seat == me and exact_self:
            exact_beliefs(val, played, seat, gt[seat])
        else:
            own_beliefs(val, col, played, seat, rules, gt[seat])


@njit(cache=True)
def rollouts(
    vals, col, played, st, trick, won, bids, safe, rules, me, exact_self, firsts, policy, stop, value, scores, tricks
):
    """For each world ``vals[k]`` and each first action ``firsts[a]`` of ``me``, play the deal out (cards by the
    play ``policy``, see :func:`play_deal`): fill ``scores[a, k, seat]`` with the deal's points and
    ``tricks[a, k, seat]`` with the tricks taken. With ``stop`` below :data:`H`, a playout in the play stops once
    ``stop`` tricks are played and the learned ``value`` scores the rest (:func:`settle`; ``scores`` float then,
    ``tricks`` only those taken so far)."""
    players = rules[PLAYERS]
    gt = np.zeros((players, H, rules[HIGH] + 2), dtype=np.float64)
    for k in range(vals.shape[0]):
        val = vals[k]
        world_beliefs(val, col, played, rules, me, exact_self, gt)
        for a in range(firsts.shape[0]):
            p2, st2, trick2, won2 = played.copy(), st.copy(), trick.copy(), won.copy()
            bids2, safe2 = bids.copy(), safe.copy()
            gt2 = gt.copy()
            play_deal(
                val, col, p2, st2, trick2, won2, bids2, safe2, rules, gt2, me, exact_self, firsts[a], policy, stop
            )
            settle(val, col, p2, st2, won2, bids2, safe2, rules, value, scores[a, k], tricks[a, k])


# -- the opponent model ----------------------------------------------------------------------------------------


@njit(cache=True)
def seat_bid_values(val, col, unplayed, seat, total, rules, gt, chances, values):
    """What each bid (and safety) is worth to ``seat`` at the start of the deal, from its own beliefs in world
    ``val`` (filled into ``values``, ``gt`` and ``chances`` used as scratch); returns the highest bid allowed
    after the others' ``total`` under the edition's cap."""
    own_beliefs(val, col, unplayed, seat, rules, gt)
    trick_chances(val, col, unplayed, seat, gt, rules, chances)
    top = H if rules[CAP] < 0 else min(H, rules[CAP] - total)
    bid_values(chances, unplayed, seat, top, rules, values)
    return top


@njit(cache=True)
def observed_position(row, players, col, st):
    """The position before one observed play (a row of the likelihoods' ``observed``): the state's leader, count,
    mover and led colour set in ``st``; the trick so far, the tricks won and the played flags returned."""
    st[LEADER], st[COUNT], st[CURRENT] = row[2], row[3], row[0]
    trick = row[4 : 4 + 2 * players].copy().reshape((players, 2))
    won = row[4 + 2 * players : 4 + 3 * players]
    played = row[4 + 3 * players :].copy().reshape((players, H)) > 0
    st[LED] = col[trick[0, 0], trick[0, 1]] if st[COUNT] else -1
    return trick, won, played


@njit(cache=True)
def likelihoods(vals, col, rules, me, first, bids, safe, observed, noise_bid, noise_play, out):
    """Fill ``out[k]`` with how likely the others' bids and observed plays are in world ``vals[k]``.

    Each other seat is modelled as the heuristic deciding from what it saw then in that world (its own beliefs):
    a bid with chance proportional to ``exp(expected score / penalty)``, a play with the heuristic's choice; each
    mixed with a uniform choice (``noise_bid``, ``noise_play``) for players who are not the heuristic.
    ``observed`` rows are plays ``(seat, slot, leader, count, trick seat/slot pairs..., won..., played mask...)``
    laid out by :func:`luz.bots.strong.observed_plays`.
    """
    players, penalty = rules[PLAYERS], rules[PENALTY]
    gt = np.zeros((H, rules[HIGH] + 2), dtype=np.float64)
    chances = np.zeros(H, dtype=np.float64)
    values = np.empty((H + 1, 2), dtype=np.float64)
    legal = np.empty(H, dtype=np.int64)
    unplayed = np.zeros((players, H), dtype=np.bool_)
    st = np.zeros(8, dtype=np.int64)
    for k in range(vals.shape[0]):
        val = vals[k]
        likelihood = 1.0
        total = 0
        for i in range(players):
            seat = (first + i) % players
            if bids[seat] < 0:
                break
            if seat != me:
                top = seat_bid_values(val, col, unplayed, seat, total, rules, gt, chances, values)
                best = values[: top + 1].max()
                norm = 0.0
                for t in range(top + 1):
                    for s in range(2):
                        norm += np.exp((values[t, s] - best) / penalty)
                p = np.exp((values[bids[seat], safe[seat]] - best) / penalty) / norm
                likelihood *= (1.0 - noise_bid) * p + noise_bid / (2 * (top + 1))
            total += bids[seat]
        for o in range(observed.shape[0]):
            row = observed[o]
            seat, slot = row[0], row[1]
            trick, won, played = observed_position(row, players, col, st)
            own_beliefs(val, col, played, seat, rules, gt)
            count = legal_plays(col, played, seat, st[LED], legal)
            choice = choose_play(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count)
            likelihood *= (1.0 - noise_play) * (choice == slot) + noise_play / count
        out[k] = likelihood


# -- a family of policies: the heuristic's variants, for the field and the adaptive opponent model -----------

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


@njit(cache=True)
def play_deal_variants(val, col, played, st, trick, won, bids, safe, rules, gt, me, exact_self, opening, kinds, stop):
    """:func:`play_deal` with each seat playing its variant ``kinds[seat]`` (noise drawn from numba's generator)."""
    legal = np.empty(H, dtype=np.int64)
    stale = np.zeros(rules[PLAYERS], dtype=np.bool_)
    chances = np.zeros(H, dtype=np.float64)
    values = np.empty((H + 1, 2), dtype=np.float64)
    forced = opening
    while running(st, stop):
        seat = st[CURRENT]
        kind = kinds[seat]
        noisy = kind[NOISE] > 0 and np.random.random() * 1000.0 < kind[NOISE]
        if st[PHASE] == BIDDING:
            top = max_bid(st, rules)
            if seat == me and forced >= 0:
                choice = forced
            elif noisy:
                choice = np.random.randint(0, 2 * (top + 1))
            else:
                trick_chances(val, col, played, seat, gt[seat], rules, chances)
                bid_values(chances, played, seat, top, rules, values)
                choice = variant_bid(values, top, kind)
            apply_bid(st, bids, safe, rules, choice // 2, choice % 2)
        else:
            if stale[seat]:
                own_beliefs(val, col, played, seat, rules, gt[seat])
                stale[seat] = False
            count = legal_plays(col, played, seat, st[LED], legal)
            if seat == me and forced >= 0:
                choice = forced
            elif noisy:
                choice = legal[np.random.randint(0, count)]
            else:
                greedy = kind[GREEDY] > 0
                choice = choose_play_variant(
                    val, col, played, st, trick, won, bids, seat, gt[seat], rules, legal, count, greedy
                )
            apply_play(val, col, played, st, trick, won, rules, choice)
            stale[seat] = not (seat == me and exact_self)
        if seat == me:
            forced = -1


@njit(cache=True)
def rollouts_variants(
    vals, kinds, col, played, st, trick, won, bids, safe, rules, me, exact_self, firsts, seed, stop, value, scores,
    tricks,
):  # fmt: skip
    """:func:`rollouts` with the seats of world ``k`` playing the variants ``kinds[k, seat]``; numba's generator
    is seeded with ``seed`` first, so the result is reproducible."""
    np.random.seed(seed)
    players = rules[PLAYERS]
    gt = np.zeros((players, H, rules[HIGH] + 2), dtype=np.float64)
    for k in range(vals.shape[0]):
        val = vals[k]
        world_beliefs(val, col, played, rules, me, exact_self, gt)
        for a in range(firsts.shape[0]):
            p2, st2, trick2, won2 = played.copy(), st.copy(), trick.copy(), won.copy()
            bids2, safe2 = bids.copy(), safe.copy()
            gt2 = gt.copy()
            play_deal_variants(
                val, col, p2, st2, trick2, won2, bids2, safe2, rules, gt2, me, exact_self, firsts[a], kinds[k], stop
            )
            settle(val, col, p2, st2, won2, bids2, safe2, rules, value, scores[a, k], tricks[a, k])


@njit(cache=True)
def likelihoods_by_variant(vals, col, rules, me, first, bids, safe, observed, kinds, noise_bid, noise_play, out):
    """Fill ``out[k, seat, v]`` with how likely ``seat``'s bid and observed plays are in world ``vals[k]`` if it
    plays variant ``kinds[v]`` (as :func:`likelihoods`, each choice mixed with a uniform one: ``noise_bid``,
    ``noise_play``, or the variant's own noise if larger). Rows of ``me`` and of seats yet to act stay 1."""
    players, penalty = rules[PLAYERS], rules[PENALTY]
    variants = kinds.shape[0]
    gt = np.zeros((H, rules[HIGH] + 2), dtype=np.float64)
    chances = np.zeros(H, dtype=np.float64)
    values = np.empty((H + 1, 2), dtype=np.float64)
    bid_chances = np.empty((H + 1, 2), dtype=np.float64)
    legal = np.empty(H, dtype=np.int64)
    unplayed = np.zeros((players, H), dtype=np.bool_)
    st = np.zeros(8, dtype=np.int64)
    out[:] = 1.0
    for k in range(vals.shape[0]):
        val = vals[k]
        total = 0
        for i in range(players):
            seat = (first + i) % players
            if bids[seat] < 0:
                break
            if seat != me:
                top = seat_bid_values(val, col, unplayed, seat, total, rules, gt, chances, values)
                for v in range(variants):
                    variant_bid_chances(values, top, kinds[v], penalty, noise_bid, bid_chances)
                    out[k, seat, v] *= bid_chances[bids[seat], safe[seat]]
            total += bids[seat]
        for o in range(observed.shape[0]):
            row = observed[o]
            seat, slot = row[0], row[1]
            trick, won, played = observed_position(row, players, col, st)
            own_beliefs(val, col, played, seat, rules, gt)
            count = legal_plays(col, played, seat, st[LED], legal)
            usual = choose_play_variant(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count, False)
            greedy = choose_play_variant(val, col, played, st, trick, won, bids, seat, gt, rules, legal, count, True)
            for v in range(variants):
                mix = max(noise_play, kinds[v, NOISE] / 1000.0)
                choice = greedy if kinds[v, GREEDY] > 0 else usual
                out[k, seat, v] *= (1.0 - mix) * (choice == slot) + mix / count


# -- stepping a deal from Python -------------------------------------------------------------------------------


class SimDeal:
    """A deal of an engine game in the fast core, stepped from Python (for checks against the engine, benchmarks)."""

    def __init__(self, game: Game) -> None:
        if game.phase is not Phase.BID or any(b is not None for b in game.bids):
            raise ValueError("a SimDeal starts at the beginning of a deal, before any bid")
        hands = game.deals[-1].hands
        players = game.players
        self.val = np.array([[c.value for c in hand] for hand in hands], dtype=np.int64)
        self.col = np.array([[c.colour for c in hand] for hand in hands], dtype=np.int64)
        self.played = np.zeros((players, H), dtype=np.bool_)
        self.st = np.array([game.first_player, game.first_player, -1, 0, 0, 0, BIDDING, game.first_player])
        self.trick = np.zeros((players, 2), dtype=np.int64)
        self.won = np.zeros(players, dtype=np.int64)
        self.bids = np.full(players, -1, dtype=np.int64)
        self.safe = np.zeros(players, dtype=np.int64)
        self.rules = rules_array(game.edition, players, game.options, game.deal_number)
        self._legal = np.empty(H, dtype=np.int64)

    @property
    def current_player(self) -> int | None:
        return None if self.st[PHASE] == OVER else int(self.st[CURRENT])

    def legal_actions(self) -> list[Action]:
        """The legal actions of the player to act, in the engine's order."""
        if self.st[PHASE] == BIDDING:
            return [Bid(t, s) for t in range(int(max_bid(self.st, self.rules)) + 1) for s in (False, True)]
        if self.st[PHASE] == PLAYING:
            count = legal_plays(self.col, self.played, self.st[CURRENT], self.st[LED], self._legal)
            return [Play(int(slot)) for slot in self._legal[:count]]
        return []

    def apply(self, action: Action) -> int | None:
        """Apply a legal action of the player to act; the winner when it completes a trick."""
        if isinstance(action, Bid):
            apply_bid(self.st, self.bids, self.safe, self.rules, action.tricks, int(action.safety))
            return None
        winner = apply_play(self.val, self.col, self.played, self.st, self.trick, self.won, self.rules, action.slot)
        return None if winner < 0 else int(winner)

    def scores(self) -> list[int]:
        """Each seat's points for the deal once it is over."""
        return [int(deal_score(b, s, t, self.rules)) for b, s, t in zip(self.bids, self.safe, self.won, strict=True)]
