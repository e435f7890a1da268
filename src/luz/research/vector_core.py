# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side, vector.py, is typed)
"""The compiled core of the batched environment: whole games of LUZ, many at once, as numpy arrays (numba).

A deal's rules are the rules kernel's (:mod:`luz.bots.fast.rules`, checked against the engine), the next deal's
first player included: this module adds what a whole game needs around them (dealing from a seeded stream,
scoring into a sheet, auto-reset) and writes each seat's observation exactly as
:class:`luz.research.encoding.Encoder` does from the engine's ``View``. Games are held in arrays with a leading
game axis ``N``:

- ``val``, ``col``: ``int64[N, P, 10]``, ``played``: ``bool[N, P, 10]``, ``st``: ``int64[N, 8]`` (the kernel's
  :data:`~luz.bots.fast.rules.LEADER` ... layout), ``trick``: ``int64[N, P, 2]``, ``won``, ``bids``, ``safe``:
  ``int64[N, P]``, ``rules``: ``int64[N, 9]`` (the kernel's layout, this deal's made points);
- ``gs``: ``int64[N, 4]`` indexed by :data:`DEAL` ... :data:`LEARNER`; ``scores``: ``int64[N, D, P]`` the
  sheet's points per deal; ``mem``: ``int64[N, 10 * P, 2]`` the deal's plays in order as ``(seat, slot)``;
  ``close``: ``int64[N, P, 3]`` the previous deal's last trick as ``(seat, colour, value)``;
- ``rng``: ``uint64[N, 4]``, each slot's random streams, indexed by :data:`R_STATE` ... :data:`R_GAMES_GAMMA`
  (SplitMix, Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): a slot's
  stream of games is keyed by numpy's ``SeedSequence`` (:func:`seed_streams`), and each new game of the slot
  splits its own stream off it (:func:`_game_stream`), so that game ``g`` of slot ``i`` draws from a stream that
  depends only on the seed, ``i`` and ``g``; streams differ in their increment, so none is another one shifted.

``table`` (``int64[TABLE_SIZE]``) holds what is fixed for the environment: the table's rules and the offsets of
the encoder's pieces.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit, prange

from luz.bots.fast.beliefs import own_beliefs
from luz.bots.fast.heuristic import choose_play, policy_bid
from luz.bots.fast.rules import (
    BID_TOTAL,
    BIDDING,
    CAP,
    COUNT,
    CURRENT,
    FIRST,
    LEADER,
    LED,
    MADE,
    OVER,
    PHASE,
    PLAYING,
    TRICKS,
    H,
    apply_bid,
    apply_play,
    deal_score,
    first_player,
    is_legal_play,
    legal_plays,
    mark_legal_plays,
    max_bid,
)

Kernel = Callable[..., Any]
"""A compiled entry point, called from Python with the arrays above."""
BIDS = 22
ACTIONS = 32
DEAL, GAME_FIRST, CLOSING, LEARNER = range(4)
"""Indices into ``gs``: the deal being played (0-based), the game's first player, whether the previous deal's
closing trick is in ``close`` (0/1), the learning seat (one-seat environments)."""

(
    T_PLAYERS,
    T_COLOURS,
    T_LOW,
    T_VALUES,
    T_DEALS,
    T_LEADER_OPENS,
    T_RECALL,
    T_SIZE,
    O_SEAT,
    O_PHASE,
    O_DEAL,
    O_FIRST,
    O_CURRENT,
    O_HANDS,
    O_BIDS,
    O_BEADS,
    O_WON,
    O_TRICK,
    O_LAST,
    O_PLAYS,
    O_SCORES,
    O_TOTALS,
    T_MADE,
) = range(23)
"""Indices into ``table``: players, colours, lowest value, values per colour, deals, whether the leader opens the
last deal (3 players), perfect recall (0/1), tensor size, the offsets of the encoder's pieces, the made points
of each deal from ``T_MADE`` on (6 at most), the first player set by the table options (-1: drawn), whether the
learning seat is drawn each game (0/1)."""
T_FIXED_FIRST = T_MADE + 6
T_DRAW_SEAT = T_FIXED_FIRST + 1
TABLE_SIZE = T_DRAW_SEAT + 1


R_STATE, R_GAMMA, R_GAMES, R_GAMES_GAMMA = range(4)
"""Columns of ``rng``: the current game's stream (state, odd increment), the slot's stream of games (likewise)."""
RNG_WIDTH = 4


def _parallel(function: Callable[..., Any]) -> Kernel:
    """``function`` compiled by numba with its loop over games on numba's threads, under a name of its own: numba's
    cache tells kernels apart by their name, line and argument types, not by their options, so that the serial and
    the parallel kernel of one function shared one cache entry, and whichever was compiled first was loaded for
    both (a parallel batch stepped on one thread, or a serial one on all)."""
    name = f"{function.__name__}_parallel"
    renamed = types.FunctionType(function.__code__, function.__globals__, name, function.__defaults__)
    renamed.__qualname__ = name
    return njit(cache=True, parallel=True)(renamed)


@njit(cache=True)
def _mix64(z):
    """SplitMix64's output function (Stafford's variant 13 of MurmurHash3's finaliser)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _mix_gamma(z):
    """An odd increment for a stream, with enough bit transitions (SplitMix's ``mixGamma``)."""
    z = (z ^ (z >> np.uint64(33))) * np.uint64(0xFF51AFD7ED558CCD)
    z = (z ^ (z >> np.uint64(33))) * np.uint64(0xC4CEB9FE1A85EC53)
    z = (z ^ (z >> np.uint64(33))) | np.uint64(1)
    transitions = 0
    x = z ^ (z >> np.uint64(1))
    while x != np.uint64(0):
        x &= x - np.uint64(1)
        transitions += 1
    return z ^ np.uint64(0xAAAAAAAAAAAAAAAA) if transitions < 24 else z


@njit(cache=True)
def _next(rng, i):
    """The next 64 random bits of slot ``i``'s current game's stream."""
    rng[i, R_STATE] += rng[i, R_GAMMA]
    return _mix64(rng[i, R_STATE])


@njit(cache=True)
def _game_stream(rng, i):
    """Start the stream of slot ``i``'s next game: split off the slot's stream of games (SplitMix's ``split``)."""
    rng[i, R_GAMES] += rng[i, R_GAMES_GAMMA]
    rng[i, R_STATE] = _mix64(rng[i, R_GAMES])
    rng[i, R_GAMES] += rng[i, R_GAMES_GAMMA]
    rng[i, R_GAMMA] = _mix_gamma(rng[i, R_GAMES])


@njit(cache=True)
def _below(rng, i, n):
    """A uniform whole number in ``0..n-1`` from game ``i``'s stream (rejection sampling: exactly uniform)."""
    bound = np.uint64(n)
    limit = np.uint64(0xFFFFFFFFFFFFFFFF) - np.uint64(0xFFFFFFFFFFFFFFFF) % bound
    while True:
        r = _next(rng, i)
        if r < limit:
            return np.int64(r % bound)


def _seed_streams(rng, slots, keys):
    """Key the stream of games of each slot ``slots[j]`` with ``keys[j]`` (two words of a ``SeedSequence``)."""
    for j in range(slots.shape[0]):
        rng[slots[j], R_GAMES] = keys[j, 0]
        rng[slots[j], R_GAMES_GAMMA] = _mix_gamma(keys[j, 1])


@njit(cache=True)
def _deal(val, col, played, st, trick, won, bids, safe, rules, gs, rng, table, i, first):
    """Shuffle and deal game ``i``'s next deal (each hand sorted), ``first`` opening it."""
    players, values, low = table[T_PLAYERS], table[T_VALUES], table[T_LOW]
    size = table[T_COLOURS] * values
    deck = np.arange(size)
    for k in range(size - 1, 0, -1):
        j = _below(rng, i, k + 1)
        deck[k], deck[j] = deck[j], deck[k]
    for seat in range(players):
        hand = np.sort(deck[seat * H : (seat + 1) * H])
        for s in range(H):
            col[i, seat, s] = hand[s] // values
            val[i, seat, s] = low + hand[s] % values
            played[i, seat, s] = False
        won[i, seat] = 0
        bids[i, seat] = -1
        safe[i, seat] = 0
        trick[i, seat, 0] = 0
        trick[i, seat, 1] = 0
    st[i, LEADER] = first
    st[i, CURRENT] = first
    st[i, LED] = -1
    st[i, COUNT] = 0
    st[i, TRICKS] = 0
    st[i, BID_TOTAL] = 0
    st[i, PHASE] = BIDDING
    st[i, FIRST] = first
    rules[i, MADE] = table[T_MADE + gs[i, DEAL]]


@njit(cache=True)
def _new_game(val, col, played, st, trick, won, bids, safe, rules, gs, scores, rng, table, i):
    """Start a new game in slot ``i`` on a stream of its own: draw its first player, clear its sheet, deal."""
    _game_stream(rng, i)
    first = table[T_FIXED_FIRST] if table[T_FIXED_FIRST] >= 0 else _below(rng, i, table[T_PLAYERS])
    if table[T_DRAW_SEAT]:
        gs[i, LEARNER] = _below(rng, i, table[T_PLAYERS])
    gs[i, DEAL] = 0
    gs[i, GAME_FIRST] = first
    gs[i, CLOSING] = 0
    scores[i, :, :] = 0
    _deal(val, col, played, st, trick, won, bids, safe, rules, gs, rng, table, i, first)


@njit(cache=True)
def is_legal(col, played, st, rules, i, action):
    """Whether action id ``action`` is legal for game ``i``'s player to act."""
    if st[i, PHASE] == BIDDING:
        return 0 <= action < BIDS and action // 2 <= max_bid(st[i], rules[i])
    if st[i, PHASE] == PLAYING and BIDS <= action < ACTIONS:
        return is_legal_play(col[i], played[i], st[i, CURRENT], st[i, LED], action - BIDS)
    return False


@njit(cache=True)
def _apply(val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, i, action, reward):
    """Apply a legal action id of game ``i``'s player to act; add any deal's points to ``reward``; return 1 when the
    game ended (the finished game stays in the slot, to be observed, until :func:`_new_game`), else 0."""
    players = table[T_PLAYERS]
    if action < BIDS:
        apply_bid(st[i], bids[i], safe[i], rules[i], action // 2, action % 2)
        return 0
    seat, slot = st[i, CURRENT], action - BIDS
    k = st[i, TRICKS] * players + st[i, COUNT]
    mem[i, k, 0] = seat
    mem[i, k, 1] = slot
    apply_play(val[i], col[i], played[i], st[i], trick[i], won[i], rules[i], slot)
    if st[i, PHASE] != OVER:
        return 0
    deal = gs[i, DEAL]
    for p in range(players):
        points = deal_score(bids[i, p], safe[i, p], won[i, p], rules[i])
        scores[i, deal, p] = points
        reward[p] += points
    gs[i, DEAL] = deal + 1
    if deal + 1 == table[T_DEALS]:
        return 1
    last = (H - 1) * players
    for place in range(players):
        holder, at = mem[i, last + place, 0], mem[i, last + place, 1]
        close[i, place, 0] = holder
        close[i, place, 1] = col[i, holder, at]
        close[i, place, 2] = val[i, holder, at]
    gs[i, CLOSING] = 1
    first = first_player(gs[i, GAME_FIRST], deal + 1, table[T_DEALS], table[T_LEADER_OPENS], scores[i])
    _deal(val, col, played, st, trick, won, bids, safe, rules, gs, rng, table, i, first)
    return 0


@njit(cache=True)
def _card(out, at, rel, colour, value, players, colours, low):
    """A card in a trick piece: its seat (relative), colour and value."""
    out[at + rel] = 1.0
    out[at + players + colour] = 1.0
    out[at + players + colours + value - low] = 1.0


@njit(cache=True)
def encode(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, i, seat, out):
    """Write into ``out`` the tensor of ``seat`` in live game ``i``: the encoder's tensor of ``view(game, seat)``
    with the deal's plays as memory (seats counted from ``seat``)."""
    players, colours, low = table[T_PLAYERS], table[T_COLOURS], table[T_LOW]
    card_width = colours + table[T_VALUES]
    slot_width = card_width + 1
    value_at = colours - low
    out[:] = 0.0
    out[table[O_SEAT] + seat] = 1.0
    out[table[O_PHASE] + (1 if st[i, PHASE] == BIDDING else 2)] = 1.0
    out[table[O_DEAL] + gs[i, DEAL]] = 1.0
    out[table[O_FIRST] + _rel(st[i, FIRST], seat, players)] = 1.0
    out[table[O_CURRENT] + _rel(st[i, CURRENT], seat, players)] = 1.0
    hands, bids_at, won_at = table[O_HANDS], table[O_BIDS], table[O_WON]
    for holder in range(players):
        rel = _rel(holder, seat, players)
        at = hands + rel * H * slot_width
        hv, hc, hp = val[i, holder], col[i, holder], played[i, holder]
        for s in range(H):
            out[at + hc[s]] = 1.0
            if hp[s]:
                out[at + value_at + hv[s]] = 1.0
                out[at + card_width] = 1.0
            elif holder != seat:
                out[at + value_at + hv[s]] = 1.0
            at += slot_width
        bid = bids[i, holder]
        if bid >= 0:
            at = bids_at + rel * (H + 3)
            out[at] = 1.0
            out[at + 1 + bid] = 1.0
            if safe[i, holder]:
                out[at + H + 2] = 1.0
        out[won_at + rel * (H + 1) + won[i, holder]] = 1.0
    if rules[i, CAP] >= 0:
        out[table[O_BEADS] + max(0, min(rules[i, CAP] - st[i, BID_TOTAL], H))] = 1.0
    place_width = players + card_width
    count, tricks = st[i, COUNT], st[i, TRICKS]
    at = table[O_TRICK]
    for k in range(tricks * players, tricks * players + count):
        holder, slot = mem[i, k, 0], mem[i, k, 1]
        _card(out, at, _rel(holder, seat, players), col[i, holder, slot], val[i, holder, slot], players, colours, low)
        at += place_width
    if count == 0 and tricks > 0:
        at = table[O_LAST]
        for k in range((tricks - 1) * players, tricks * players):
            holder, slot = mem[i, k, 0], mem[i, k, 1]
            rel = _rel(holder, seat, players)
            _card(out, at, rel, col[i, holder, slot], val[i, holder, slot], players, colours, low)
            at += place_width
    elif count == 0 and gs[i, CLOSING]:
        at = table[O_LAST]
        for place in range(players):
            rel = _rel(close[i, place, 0], seat, players)
            _card(out, at, rel, close[i, place, 1], close[i, place, 2], players, colours, low)
            at += place_width
    if table[T_RECALL]:
        width = H + players
        plays = table[O_PLAYS]
        for k in range(tricks * players + count):
            holder, slot = mem[i, k, 0], mem[i, k, 1]
            at = plays + (_rel(holder, seat, players) * H + slot) * width
            out[at + k // players] = 1.0
            out[at + H + k % players] = 1.0
    deals, done = table[T_DEALS], gs[i, DEAL]
    scores_at, totals_at = table[O_SCORES], table[O_TOTALS]
    for holder in range(players):
        rel = _rel(holder, seat, players)
        total = 0
        for d in range(done):
            out[scores_at + d * players + rel] = scores[i, d, holder] / scale
            total += scores[i, d, holder]
        out[totals_at + rel] = total / (scale * deals)


@njit(cache=True)
def encode_finished(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, i, seat, out):
    """Write into ``out`` the tensor of ``seat`` in game ``i`` that has just ended (before :func:`_new_game`), as the
    encoder writes a finished game's view: its last deal's cards all shown, the phase game over, the last deal's
    number, nobody to act, no remembered plays (the engine's table forgets them as a deal ends), the whole sheet.
    :func:`encode` (left as it is: it is the hot path) writes the last deal, then the differences are set."""
    players, deals = table[T_PLAYERS], table[T_DEALS]
    gs[i, DEAL] = deals - 1  # encode's deal being played; its sheet then holds the deals before it
    encode(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, i, seat, out)
    gs[i, DEAL] = deals
    out[table[O_PHASE] : table[O_PHASE] + 4] = 0.0
    out[table[O_PHASE] + 3] = 1.0
    out[table[O_CURRENT] : table[O_CURRENT] + players] = 0.0
    if table[T_RECALL]:
        out[table[O_PLAYS] : table[O_PLAYS] + players * H * (H + players)] = 0.0
    for holder in range(players):
        rel = _rel(holder, seat, players)
        out[table[O_SCORES] + (deals - 1) * players + rel] = scores[i, deals - 1, holder] / scale
        total = 0
        for d in range(deals):
            total += scores[i, d, holder]
        out[table[O_TOTALS] + rel] = total / (scale * deals)


@njit(cache=True)
def _rel(holder, seat, players):
    """``holder`` counted from ``seat``."""
    rel = holder - seat
    return rel + players if rel < 0 else rel


@njit(cache=True)
def legal_mask(col, played, st, rules, i, out):
    """Write game ``i``'s legal action ids into the int8 mask ``out``: bids up to the cap, or the legal plays."""
    out[:] = 0
    if st[i, PHASE] == BIDDING:
        for a in range(2 * max_bid(st[i], rules[i]) + 2):
            out[a] = 1
        return
    mark_legal_plays(col[i], played[i], st[i, CURRENT], st[i, LED], out, BIDS)


def _reset_all(val, col, played, st, trick, won, bids, safe, rules, gs, scores, rng, table):
    """Start a new game in every slot."""
    for i in range(val.shape[0]):
        _new_game(val, col, played, st, trick, won, bids, safe, rules, gs, scores, rng, table, i)


def _first_illegal(col, played, st, rules, actions):
    """The index of the first game whose action is illegal, or -1."""
    for i in range(actions.shape[0]):
        if not is_legal(col, played, st, rules, i, actions[i]):
            return i
    return -1


def _illegal_slots(col, played, st, rules, actions, skip, out):
    """Mark in ``out`` every game whose action is illegal, but for the games in ``skip`` (their actions ignored)."""
    for i in range(actions.shape[0]):
        out[i] = not skip[i] and not is_legal(col, played, st, rules, i, actions[i])


def _reset_slots(val, col, played, st, trick, won, bids, safe, rules, gs, scores, rng, table, slots):
    """Start a new game in each slot of ``slots``."""
    for i in slots:
        _new_game(val, col, played, st, trick, won, bids, safe, rules, gs, scores, rng, table, i)


def _step(
    val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, scale, actions,
    seats, obs, mask, reward, done,
):  # fmt: skip
    """Apply ``actions`` (legal, checked before), reset finished games, fill the next seat, its tensor and mask."""
    for i in prange(actions.shape[0]):
        reward[i, :] = 0.0
        done[i] = _apply(
            val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, i, actions[i],
            reward[i],
        )  # fmt: skip
        if done[i]:
            _new_game(val, col, played, st, trick, won, bids, safe, rules, gs, scores, rng, table, i)
        seat = st[i, CURRENT]
        seats[i] = seat
        encode(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, i, seat, obs[i])
        legal_mask(col, played, st, rules, i, mask[i])


step_serial: Kernel = njit(cache=True)(_step)
step_parallel: Kernel = _parallel(_step)


def _observe(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, seats, obs, mask):
    """Fill each game's tensor for ``seats[i]`` (any seat) and the legal mask of its player to act."""
    for i in range(seats.shape[0]):
        encode(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, i, seats[i], obs[i])
        legal_mask(col, played, st, rules, i, mask[i])


# -- opponents for one learning seat ---------------------------------------------------------------------------

HEURISTIC, RANDOM, LINEAR = range(3)
"""Kinds of opponents: the fast core's heuristic, uniformly random legal actions, a linear softmax policy."""


@njit(cache=True)
def _uniform(rng, i):
    """A uniform float in [0, 1) from game ``i``'s stream."""
    return (_next(rng, i) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _opponent_action(
    val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, scale, kind, weights,
    bias, i, gt, legal, work, mask,
):  # fmt: skip
    """The action of game ``i``'s player to act, an opponent of kind ``kind``."""
    seat = st[i, CURRENT]
    if kind == HEURISTIC:
        own_beliefs(val[i], col[i], played[i], seat, rules[i], gt)
        if st[i, PHASE] == BIDDING:
            return policy_bid(val[i], col[i], played[i], st[i], seat, gt, rules[i])
        n = legal_plays(col[i], played[i], seat, st[i, LED], legal)
        return BIDS + choose_play(
            val[i], col[i], played[i], st[i], trick[i], won[i], bids[i], seat, gt, rules[i], legal, n
        )
    legal_mask(col, played, st, rules, i, mask)
    if kind == RANDOM:
        count = 0
        for a in range(ACTIONS):
            count += mask[a]
        pick = _below(rng, i, count)
        for a in range(ACTIONS):
            if mask[a]:
                if pick == 0:
                    return a
                pick -= 1
    encode(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, i, seat, work)
    logits = bias.copy()
    for k in range(work.shape[0]):
        if work[k] != 0.0:
            for a in range(ACTIONS):
                logits[a] += work[k] * weights[k, a]
    best = -np.inf
    for a in range(ACTIONS):
        if mask[a] and logits[a] > best:
            best = logits[a]
    total = 0.0
    for a in range(ACTIONS):
        logits[a] = np.exp(logits[a] - best) if mask[a] else 0.0
        total += logits[a]
    r = _uniform(rng, i) * total
    last = -1
    for a in range(ACTIONS):
        if mask[a]:
            last = a
            r -= logits[a]
            if r < 0.0:
                return a
    return last


def _step_seat(
    val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, scale, kind, weights,
    bias, actions, obs, mask, reward, done, final_obs,
):  # fmt: skip
    """Apply the learning seat's ``actions`` (legal, checked before), then the opponents until the learning seat is
    to act again (in the same game, or a new one when it ended); fill its tensor, mask, reward and done flag, and,
    for a game that ended, the learning seat's tensor of the finished game in ``final_obs``. A game whose action is
    negative is left as it is (no reward, not done, its tensor and mask untouched)."""
    players = table[T_PLAYERS]
    for i in prange(actions.shape[0]):
        if actions[i] < 0:
            reward[i] = 0.0
            done[i] = False
            continue
        gt = np.zeros((H, table[T_LOW] + table[T_VALUES] + 1), dtype=np.float64)
        legal = np.empty(H, dtype=np.int64)
        work = np.empty(table[T_SIZE], dtype=np.float32)
        points = np.zeros(players, dtype=np.float32)
        me = gs[i, LEARNER]
        done[i] = False
        action = actions[i]
        while True:
            if _apply(
                val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, i, action,
                points,
            ):  # fmt: skip
                reward[i] = points[me]
                points[:] = 0.0
                done[i] = True
                encode_finished(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale,
                                i, me, final_obs[i])  # fmt: skip
                _new_game(val, col, played, st, trick, won, bids, safe, rules, gs, scores, rng, table, i)
                me = gs[i, LEARNER]
            if st[i, CURRENT] == me:
                break
            action = _opponent_action(
                val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, scale, kind,
                weights, bias, i, gt, legal, work, mask[i],
            )  # fmt: skip
        if not done[i]:
            reward[i] = points[me]
        encode(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, i, me, obs[i])
        legal_mask(col, played, st, rules, i, mask[i])


step_seat_serial: Kernel = njit(cache=True)(_step_seat)
step_seat_parallel: Kernel = _parallel(_step_seat)


def _advance_to_seat(
    val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, scale, kind, weights,
    bias, slots, obs, mask,
):  # fmt: skip
    """Let the opponents act in each game of ``slots`` until its learning seat is to act; fill its tensor and mask."""
    players = table[T_PLAYERS]
    for j in prange(slots.shape[0]):
        i = slots[j]
        gt = np.zeros((H, table[T_LOW] + table[T_VALUES] + 1), dtype=np.float64)
        legal = np.empty(H, dtype=np.int64)
        work = np.empty(table[T_SIZE], dtype=np.float32)
        points = np.zeros(players, dtype=np.float32)
        me = gs[i, LEARNER]
        while st[i, CURRENT] != me:
            action = _opponent_action(
                val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, scale, kind,
                weights, bias, i, gt, legal, work, mask[i],
            )  # fmt: skip
            _apply(
                val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, i, action,
                points,
            )  # fmt: skip
        encode(val, col, played, st, bids, safe, won, rules, gs, scores, mem, close, table, scale, i, me, obs[i])
        legal_mask(col, played, st, rules, i, mask[i])


advance_to_seat_serial: Kernel = njit(cache=True)(_advance_to_seat)
advance_to_seat_parallel: Kernel = _parallel(_advance_to_seat)

seed_streams: Kernel = njit(cache=True)(_seed_streams)
reset_all: Kernel = njit(cache=True)(_reset_all)
first_illegal: Kernel = njit(cache=True)(_first_illegal)
illegal_slots: Kernel = njit(cache=True)(_illegal_slots)
reset_slots: Kernel = njit(cache=True)(_reset_slots)
observe: Kernel = njit(cache=True)(_observe)


# -- the fast core alone: random deals, no observation (`luz bench engine`) ------------------------------------


@njit(cache=True)
def random_deals(val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, deals, mask):
    """Play uniformly random legal actions in game 0 (a new game when one ends) until ``deals`` deals have ended,
    each dealt, bid, played and scored by the rules kernel; nothing observed. ``mask``: ``int8[32]`` scratch."""
    points = np.zeros(table[T_PLAYERS], dtype=np.float32)
    ended = 0
    while ended < deals:
        deal = gs[0, DEAL]
        legal_mask(col, played, st, rules, 0, mask)
        pick = _below(rng, 0, mask.sum())
        action = 0
        while not mask[action] or pick > 0:
            pick -= mask[action]
            action += 1
        over = _apply(val, col, played, st, trick, won, bids, safe, rules, gs, scores, mem, close, rng, table, 0,
                      action, points)  # fmt: skip
        if gs[0, DEAL] != deal:
            ended += 1
        if over:
            _new_game(val, col, played, st, trick, won, bids, safe, rules, gs, scores, rng, table, 0)
    return ended
