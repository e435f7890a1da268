# mypy: disable-error-code="no-untyped-def"
# (numba kernels: numba types their arrays when it compiles them; the Python side is typed)
"""Rollouts in the fast core: deals played out in sampled worlds, every seat deciding from its own beliefs.

One loop plays a deal (:func:`play_deal_with`): each seat plays its variant of the heuristic (:mod:`.variants`; the
plain heuristic is the row of zeros), its cards by a learned play policy unless it is :data:`~.policy.NO_POLICY`.
:func:`rollouts` (everyone the heuristic) and :func:`rollouts_variants` (each seat its variant) are its two uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from .beliefs import own_beliefs, world_beliefs
from .heuristic import bid_values, choose_play_variant, trick_chances
from .policy import NO_POLICY, choose_play_policy
from .rules import BIDDING, CURRENT, HIGH, LED, PHASE, PLAYERS, H, apply_bid, apply_play, legal_plays, max_bid
from .value import running, settle
from .variants import GREEDY, NOISE, variant_bid

Array = npt.NDArray[Any]


@njit(cache=True)
def play_deal_with(
    val, col, played, st, trick, won, bids, safe, rules, gt, me, exact_self, opening, kinds, policy, stop
):
    """Play the deal to its end, ``me`` taking action ``opening`` (``tricks * 2 + safety`` or a slot), then each seat
    playing its variant ``kinds[seat]`` of the heuristic on its own beliefs (updated as it reveals its own cards;
    a variant's noise drawn from numba's generator), the cards of a seat that is not greedy by the learned play
    ``policy`` (:func:`~.policy.choose_play_policy`) unless it is :data:`~.policy.NO_POLICY`; or only until
    ``stop`` tricks are played (:func:`~.value.running`: ``stop`` = :data:`H`, the whole deal)."""
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
            elif kind[GREEDY] > 0:
                choice = choose_play_variant(
                    val, col, played, st, trick, won, bids, seat, gt[seat], rules, legal, count, True
                )
            else:
                choice = choose_play_policy(
                    val, col, played, st, trick, won, bids, seat, gt[seat], rules, legal, count, policy
                )
            apply_play(val, col, played, st, trick, won, rules, choice)
            stale[seat] = not (seat == me and exact_self)
        if seat == me:
            forced = -1


@njit(cache=True)
def play_deal(val, col, played, st, trick, won, bids, safe, rules, gt, me, exact_self, opening, policy, stop):
    """:func:`play_deal_with`, every seat the plain heuristic (its cards by ``policy``)."""
    kinds = np.zeros((rules[PLAYERS], 4), dtype=np.int64)
    play_deal_with(
        val, col, played, st, trick, won, bids, safe, rules, gt, me, exact_self, opening, kinds, policy, stop
    )


@njit(cache=True)
def rollouts_with(
    vals, kinds, col, played, st, trick, won, bids, safe, rules, me, exact_self, firsts, policy, seed, stop, value,
    scores, tricks,
):  # fmt: skip
    """For each world ``vals[k]`` and each first action ``firsts[a]`` of ``me``, play the deal out (the seats of
    world ``k`` playing the variants ``kinds[k, seat]``, the cards by the play ``policy``, see
    :func:`play_deal_with`): fill ``scores[a, k, seat]`` with the deal's points and ``tricks[a, k, seat]`` with the
    tricks taken. With ``stop`` below :data:`H`, a playout in the play stops once ``stop`` tricks are played and the
    learned ``value`` scores the rest (:func:`~.value.settle`; ``scores`` float then, ``tricks`` only those taken so
    far). Numba's generator is seeded with ``seed`` first (unless it is negative), so that noisy variants are
    reproducible."""
    if seed >= 0:
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
            play_deal_with(
                val, col, p2, st2, trick2, won2, bids2, safe2, rules, gt2, me, exact_self, firsts[a], kinds[k],
                policy, stop,
            )  # fmt: skip
            settle(val, col, p2, st2, won2, bids2, safe2, rules, value, scores[a, k], tricks[a, k])


def rollouts(
    vals: Array, col: Array, played: Array, st: Array, trick: Array, won: Array, bids: Array, safe: Array,
    rules: Array, me: int, exact_self: bool, firsts: Array, policy: Array, stop: int, value: Array, scores: Array,
    tricks: Array,
) -> None:  # fmt: skip
    """:func:`rollouts_with`, every seat the plain heuristic (the cards by the play ``policy``). Not compiled apart
    (nor :func:`rollouts_variants`): a compiled wrapper optimises the code of the kernel it calls again, as part of
    its own (4.8 of the 45 s of a strong bot's first decision under load), and the strong bot, the expert and the
    reviews share :func:`rollouts_with` compiled once."""
    kinds = np.zeros((vals.shape[0], rules[PLAYERS], 4), dtype=np.int64)
    rollouts_with(
        vals, kinds, col, played, st, trick, won, bids, safe, rules, me, exact_self, firsts, policy, -1, stop, value,
        scores, tricks,
    )  # fmt: skip


def rollouts_variants(
    vals: Array, kinds: Array, col: Array, played: Array, st: Array, trick: Array, won: Array, bids: Array,
    safe: Array, rules: Array, me: int, exact_self: bool, firsts: Array, seed: int, stop: int, value: Array,
    scores: Array, tricks: Array,
) -> None:  # fmt: skip
    """:func:`rollouts_with`, the seats of world ``k`` playing the variants ``kinds[k, seat]`` (the heuristic's
    cards), numba's generator seeded with ``seed`` first."""
    rollouts_with(
        vals, kinds, col, played, st, trick, won, bids, safe, rules, me, exact_self, firsts, NO_POLICY, seed, stop,
        value, scores, tricks,
    )  # fmt: skip
