# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""The opponent model in the fast core: how likely the others' bids and plays are in each sampled world.

One loop (:func:`likelihoods_with`) weighs the worlds under a family of variants of the heuristic
(:mod:`.variants`); the strong bot's model (:func:`likelihoods`, every other seat the plain heuristic, one product
per world) and the expert's (:func:`likelihoods_by_variant`, one product per seat and variant) are its two uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from .beliefs import own_beliefs
from .heuristic import bid_values, choose_play_variant, trick_chances
from .rules import COUNT, CURRENT, HIGH, LEADER, LED, PENALTY, PLAYERS, H, legal_plays, max_bid_after
from .variants import GREEDY, NOISE, PLAIN, variant_bid_chances

Array = npt.NDArray[Any]


@njit(cache=True)
def seat_bid_values(val, col, unplayed, seat, total, rules, gt, chances, values):
    """What each bid (and safety) is worth to ``seat`` at the start of the deal, from its own beliefs in world
    ``val`` (filled into ``values``, ``gt`` and ``chances`` used as scratch); returns the highest bid allowed
    after the others' ``total`` under the edition's cap."""
    own_beliefs(val, col, unplayed, seat, rules, gt)
    trick_chances(val, col, unplayed, seat, gt, rules, chances)
    top = max_bid_after(rules, total)
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
def plain_bid_chance(values, top, tricks, safety, penalty, noise):
    """The plain heuristic's chance of the bid ``tricks`` (and ``safety``) among the bids to ``top``, from their
    expected scores ``values``: ``exp(expected score / penalty)`` normalised, mixed with a uniform choice
    (``noise``). The variant of :func:`~.variants.variant_bid_chances` for the plain heuristic, in the strong bot's
    arithmetic (the same chance but for the rounding)."""
    best = values[: top + 1].max()
    norm = 0.0
    for t in range(top + 1):
        for s in range(2):
            norm += np.exp((values[t, s] - best) / penalty)
    p = np.exp((values[tricks, safety] - best) / penalty) / norm
    return (1.0 - noise) * p + noise / (2 * (top + 1))


@njit(cache=True)
def likelihoods_with(vals, col, rules, me, first, bids, safe, observed, kinds, noise_bid, noise_play, joint, out):
    """Fill ``out[k, seat, v]`` with how likely ``seat``'s bid and observed plays are in world ``vals[k]`` if it
    plays variant ``kinds[v]``; with ``joint``, ``out[k, 0, 0]`` with how likely all the others' are, every one the
    plain heuristic (``kinds`` is :data:`~.variants.PLAIN`).

    Each other seat is modelled as its variant of the heuristic deciding from what it saw then in that world (its
    own beliefs): a bid with chance proportional to ``exp(expected score / penalty)`` among those its safety rule
    allows, shifted by its bias, a play with the heuristic's choice (or the greedy one); each mixed with a uniform
    choice (``noise_bid``, ``noise_play``, or the variant's own noise if larger) for players who are not the
    heuristic. ``observed`` rows are plays ``(seat, slot, leader, count, trick seat/slot pairs..., won...,
    played mask...)`` laid out by :func:`luz.bots.strong.observed_plays`. Rows of ``me`` and of seats yet to act
    stay 1.
    """
    players, penalty = rules[PLAYERS], rules[PENALTY]
    variants = kinds.shape[0]
    any_greedy = False
    for v in range(variants):
        any_greedy = any_greedy or kinds[v, GREEDY] > 0
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
        total = np.int64(0)  # not the literal 0, for which numba compiled seat_bid_values once more
        for i in range(players):
            seat = (first + i) % players
            if bids[seat] < 0:
                break
            if seat != me:
                top = seat_bid_values(val, col, unplayed, seat, total, rules, gt, chances, values)
                if joint:
                    out[k, 0, 0] *= plain_bid_chance(values, top, bids[seat], safe[seat], penalty, noise_bid)
                else:
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
            greedy = usual
            if any_greedy:
                greedy = choose_play_variant(
                    val, col, played, st, trick, won, bids, seat, gt, rules, legal, count, True
                )
            at = 0 if joint else seat
            for v in range(variants):
                mix = max(noise_play, kinds[v, NOISE] / 1000.0)
                choice = greedy if kinds[v, GREEDY] > 0 else usual
                out[k, at, v] *= (1.0 - mix) * (choice == slot) + mix / count


def likelihoods(
    vals: Array, col: Array, rules: Array, me: int, first: int, bids: Array, safe: Array, observed: Array,
    noise_bid: float, noise_play: float, out: Array,
) -> None:  # fmt: skip
    """The strong bot's model (:func:`likelihoods_with`, joint): fill ``out[k]`` with how likely the others' bids and
    observed plays are in world ``vals[k]``, each other seat the plain heuristic (mixed with a uniform choice:
    ``noise_bid``, ``noise_play``, for players who are not the heuristic). Not compiled apart (nor
    :func:`likelihoods_by_variant`): the strong bot and the expert share :func:`likelihoods_with` compiled once."""
    joint = np.empty((vals.shape[0], 1, 1), dtype=np.float64)
    likelihoods_with(vals, col, rules, me, first, bids, safe, observed, PLAIN, noise_bid, noise_play, True, joint)
    out[:] = joint[:, 0, 0]


def likelihoods_by_variant(
    vals: Array, col: Array, rules: Array, me: int, first: int, bids: Array, safe: Array, observed: Array,
    kinds: Array, noise_bid: float, noise_play: float, out: Array,
) -> None:  # fmt: skip
    """The expert's model (:func:`likelihoods_with`, by variant): fill ``out[k, seat, v]`` with how likely
    ``seat``'s bid and observed plays are in world ``vals[k]`` if it plays variant ``kinds[v]``."""
    likelihoods_with(vals, col, rules, me, first, bids, safe, observed, kinds, noise_bid, noise_play, False, out)
