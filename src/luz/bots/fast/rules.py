# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""The rules kernel: one deal of LUZ as numpy arrays, compiled with numba; the one copy of the rules that the fast
core (:mod:`luz.bots.fast`) and the batched environment (:mod:`luz.research.vector_core`) step.

The same rules as :mod:`luz.engine` (legal plays by colour, trick winner by trump then led colour, the edition's
scoring, the first player of each deal), checked against the engine on thousands of seeded deals by the tests. A
deal is held in a few arrays:

- ``val``, ``col``: ``int64[players, 10]``, each seat's card values and colours in slot order;
- ``played``: ``bool[players, 10]``;
- ``st``: ``int64[8]``, the scalars indexed by :data:`LEADER` ... :data:`FIRST`;
- ``trick``: ``int64[players, 2]``, the current trick's ``(seat, slot)`` in order;
- ``won``, ``bids``, ``safe``: ``int64[players]`` (a bid of ``-1``: not yet bid);
- ``rules``: ``int64[9]``, the edition's data for this deal, indexed by :data:`TRUMP` ... :data:`PLAYERS`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from luz.engine import HAND_SIZE, Edition, TableOptions

H = HAND_SIZE
TRUMP, LOW, HIGH, COLOURS, MADE, PENALTY, SOFTENS, CAP, PLAYERS = range(9)
"""Indices into ``rules``: trump colour, lowest and highest value, colour count, made-bet points of this deal,
penalty per trick of difference, whether the safety softens a miss (0/1), the bid cap (-1: none), players."""
LEADER, CURRENT, LED, COUNT, TRICKS, BID_TOTAL, PHASE, FIRST = range(8)
"""Indices into ``st``: trick leader, player to act, led colour (-1), cards in the trick, tricks played, sum of
the bids so far, phase, the deal's first player."""
BIDDING, PLAYING, OVER = 0, 1, 2
"""Values of ``st[PHASE]``."""


def rules_array(edition: Edition, players: int, options: TableOptions, deal_number: int) -> np.ndarray:
    """The ``rules`` array of deal ``deal_number`` (1-based) of a table."""
    low, high = edition.values[players]
    cap = -1 if options.bid_cap is None else options.bid_cap
    made = options.made_points[deal_number - 1]
    data = [edition.trump, low, high, len(edition.colours), made, edition.miss_penalty]
    return np.array([*data, int(edition.safety_softens_miss), cap, players], dtype=np.int64)


@njit(cache=True)
def must_follow(col, played, seat, led):
    """Whether ``seat`` must follow the led colour ``led`` (-1: none led): it holds an unplayed card of it."""
    if led >= 0:
        for s in range(H):
            if not played[seat, s] and col[seat, s] == led:
                return True
    return False


@njit(cache=True)
def legal_plays(col, played, seat, led, out):
    """Fill ``out`` with ``seat``'s legal slots (ascending); return how many: follow ``led`` if able."""
    follow = must_follow(col, played, seat, led)
    n = 0
    for s in range(H):
        if not played[seat, s] and (not follow or col[seat, s] == led):
            out[n] = s
            n += 1
    return n


@njit(cache=True)
def is_legal_play(col, played, seat, led, slot):
    """Whether ``seat`` may play ``slot`` now (:func:`legal_plays` holds it)."""
    if played[seat, slot]:
        return False
    return col[seat, slot] == led or not must_follow(col, played, seat, led)


@njit(cache=True)
def mark_legal_plays(col, played, seat, led, out, offset):
    """Set ``out[offset + slot]`` to 1 for each of ``seat``'s legal slots (:func:`legal_plays`)."""
    follow = must_follow(col, played, seat, led)
    for s in range(H):
        if not played[seat, s] and (not follow or col[seat, s] == led):
            out[offset + s] = 1


@njit(cache=True)
def max_bid(st, rules):
    """The highest legal bid now: 10, or what the table's cap leaves."""
    return max_bid_after(rules, st[BID_TOTAL])


@njit(cache=True)
def max_bid_after(rules, total):
    """The highest legal bid after bids of ``total`` tricks: 10, or what the table's cap leaves."""
    if rules[CAP] < 0:
        return H
    return min(H, rules[CAP] - total)


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


@njit(cache=True)
def first_player(game_first, deal, deals, leader_opens, scores):
    """The first player of deal ``deal`` (0-based) of a game of ``deals`` deals opened by ``game_first``: plain
    rotation, except that with 3 players in an edition where the leader opens the last deal (``leader_opens``),
    the best total of the deals before (``scores[d, seat]``, the sheet) opens it (ties: the first from the usual
    seat)."""
    players = scores.shape[1]
    usual = (game_first + deal) % players
    if not (deal == deals - 1 and players == 3 and leader_opens):
        return usual
    best_seat, best = usual, -(1 << 62)
    for k in range(players):
        seat = (usual + k) % players
        total = 0
        for d in range(deal):
            total += scores[d, seat]
        if total > best:
            best_seat, best = seat, total
    return best_seat
