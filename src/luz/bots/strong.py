"""The strong bot: search over exact belief samples in which every simulated player decides from its own information.

Each decision:

1. draws hidden worlds exactly uniformly from the seat's :class:`~luz.engine.beliefs.Beliefs` (its own unplayed
   values, hence the aside), ``oversample`` times more than it will play out;
2. weighs each world by an opponent model: how likely the others' bids, and their plays in the tricks the seat
   saw, are in that world, each other player taken as the heuristic deciding from what *it* saw then (its own
   exact beliefs in that world, never that world's truth of its own hand), mixed with a uniform choice;
3. re-samples the worlds to play out in proportion to those weights (systematic resampling);
4. plays the deal out in every kept world once for each of its legal actions (:func:`luz.bots.fast.rollouts.rollouts`),
   everyone, itself included, then following the heuristic policy on their own beliefs;
5. bids the bid and safety with the best mean utility over the simulated tricks (each safety scored from the same
   playouts), or plays the card with the best mean utility. The utility is the deal's points minus ``spite``
   times the mean of the others' points (default 1): make the bid, and break the others'.

The budget is a number of worlds (``iters``: reproducible for a given seed) or a time per decision (``seconds``).
With ``depth``, a playout of a card stops ``depth`` tricks on and the learned value
(:mod:`luz.bots.value_weights`) scores the rest of the deal: cheaper playouts, so more worlds in a time budget.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from luz.engine import Action, Bid, Phase, Play, View
from luz.engine.beliefs import Beliefs

from .base import Bot, InvalidBotSpec, check_budget
from .fast.opponents import likelihoods
from .fast.policy import NO_POLICY
from .fast.rollouts import rollouts
from .fast.rules import BIDDING, FIRST, PHASE, PLAYING, TRICKS, H, deal_score, rules_array
from .fast.value import NO_VALUE
from .value_weights import shipped_value

DEFAULT_ITERS = 64
"""Worlds played out per decision by default (each legal action once per world): a few milliseconds; more worlds
measured no stronger against the heuristic (docs/BOTS.md)."""
OVERSAMPLE = 4
"""Uniform worlds drawn for each world played out: the opponent model re-samples among them."""
NOISE_BID, NOISE_PLAY = 0.25, 0.35
"""Weight of a uniform choice in the model of the others' bids and plays (they may not be the heuristic)."""
TIME_BATCH = 8
"""Worlds per batch under a time budget."""


@dataclass(frozen=True, slots=True)
class Position:
    """The seat's view as fast-core arrays; its own unplayed values (``val[seat]``) are left at 0."""

    seat: int
    val: np.ndarray
    col: np.ndarray
    played: np.ndarray
    st: np.ndarray
    trick: np.ndarray
    won: np.ndarray
    bids: np.ndarray
    safe: np.ndarray
    rules: np.ndarray
    observed: np.ndarray
    """The others' plays in the tricks the seat saw, with what was on the table then (see :func:`observed_plays`)."""

    @classmethod
    def from_view(cls, seen: View) -> Position:
        if seen.seat is None or seen.phase not in (Phase.BID, Phase.PLAY) or seen.trick is None:
            raise ValueError("a position is a seat's view during a deal")
        players = seen.players
        val = np.array([[s.value or 0 for s in hand] for hand in seen.hands], dtype=np.int64)
        val[seen.seat] = [s.value if s.played and s.value is not None else 0 for s in seen.hands[seen.seat]]
        col = np.array([[s.colour for s in hand] for hand in seen.hands], dtype=np.int64)
        played = np.array([[s.played for s in hand] for hand in seen.hands], dtype=np.bool_)
        plays = seen.trick.plays
        led = plays[0][2].colour if plays else -1
        bid_total = sum(b.tricks for b in seen.bids if b is not None)
        phase = BIDDING if seen.phase is Phase.BID else PLAYING
        current = seen.current_player if seen.current_player is not None else seen.seat
        st = np.array(
            [seen.trick.leader, current, led, len(plays), sum(seen.tricks_won), bid_total, phase, seen.first_player],
            dtype=np.int64,
        )
        trick = np.zeros((players, 2), dtype=np.int64)
        for i, (seat, slot, _) in enumerate(plays):
            trick[i] = seat, slot
        return cls(
            seat=seen.seat,
            val=val,
            col=col,
            played=played,
            st=st,
            trick=trick,
            won=np.array(seen.tricks_won, dtype=np.int64),
            bids=np.array([-1 if b is None else b.tricks for b in seen.bids], dtype=np.int64),
            safe=np.array([0 if b is None else int(b.safety) for b in seen.bids], dtype=np.int64),
            rules=rules_array(seen.edition, players, seen.options, seen.deal_number),
            observed=observed_plays(seen, played),
        )


def observed_plays(seen: View, played: np.ndarray) -> np.ndarray:
    """One row per play of another seat in the tricks ``seen`` shows, with the table as it was just before it.

    A row is ``seat, slot, leader, cards already in the trick, (seat, slot) of each of them (padded), tricks won
    then by each seat, played-slot mask then`` (flattened): the deal's known tricks are its last ones (the current
    trick, the one just completed, or all with the trick-history option), so undoing them in reverse gives each
    earlier table exactly.
    """
    assert seen.trick is not None
    players = seen.players
    known = list(seen.trick_history or ([seen.last_trick] if seen.last_trick else []))
    known.append(seen.trick)
    mask, won = played.copy(), list(seen.tricks_won)
    rows = []
    for trick in reversed(known):
        if trick.winner is not None:
            won[trick.winner] -= 1
        for k in range(len(trick.plays) - 1, -1, -1):
            seat, slot, _ = trick.plays[k]
            mask[seat, slot] = False
            if seat == seen.seat:
                continue
            before = [[s, t] for s, t, _ in trick.plays[:k]] + [[0, 0]] * (players - k)
            rows.append([seat, slot, trick.leader, k, *np.ravel(before), *won, *mask.ravel().astype(np.int64)])
    width = 4 + 3 * players + players * H
    return np.array(rows, dtype=np.int64).reshape(len(rows), width)


class StrongBot(Bot):
    """Belief-sampling search with an opponent model; every simulated player decides from its own information."""

    name = "strong"
    policy: np.ndarray = NO_POLICY
    """The playouts' play policy (:func:`luz.bots.fast.policy.choose_play_policy`): the heuristic's here."""

    def __init__(
        self,
        iters: int | None = None,
        seconds: float | None = None,
        oversample: int = OVERSAMPLE,
        spite: float = 1.0,
        depth: int | None = None,
        value: int | None = None,
    ) -> None:
        check_budget(iters, seconds)
        if isinstance(oversample, bool) or not isinstance(oversample, int) or oversample < 1:
            raise InvalidBotSpec(f"oversample must be a whole number >= 1, not {oversample!r}")
        self.iters = DEFAULT_ITERS if iters is None and seconds is None else iters
        self.seconds = seconds
        if not isinstance(spite, int | float) or not 0 <= spite <= 1:
            raise InvalidBotSpec(f"spite must be a number in [0, 1], not {spite!r}")
        self.oversample = oversample
        self.spite = float(spite)
        self.depth, self.value = check_depth(depth, value)

    def decide(self, view: View, rng: random.Random) -> Action:
        if len(view.legal_actions) == 1:
            return view.legal_actions[0]
        start = time.perf_counter()
        return self.search(view, rng).run(view.legal_actions, self.iters, self.seconds, start)

    def search(self, view: View, rng: random.Random) -> Search:
        """This decision's search (it draws its generator's seed from ``rng``)."""
        generator = np.random.default_rng(rng.getrandbits(64))
        search = Search(Position.from_view(view), Beliefs(view), generator, self.oversample, self.spite, self.policy)
        return search.truncated(self.depth, self.value)


def check_depth(depth: int | None, value: int | None = None) -> tuple[int | None, np.ndarray]:
    """A playout depth (``None``: to the end of the deal) and the value that scores the rest after it: the shipped
    value's training step ``value`` (``None``: :data:`luz.bots.value_weights.DEFAULT_STEP`)."""
    if depth is None:
        if value is not None:
            raise InvalidBotSpec("value scores the rest of a deal after depth tricks: give a depth too")
        return None, NO_VALUE
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= H:
        raise InvalidBotSpec(f"depth must be a whole number of tricks in 1..{H}, not {depth!r}")
    return depth, shipped_value(value)


class Search:
    """One decision's search: worlds drawn, weighed, re-sampled and played out, utilities summed by action."""

    def __init__(
        self,
        position: Position,
        beliefs: Beliefs | None,
        rng: np.random.Generator,
        oversample: int = OVERSAMPLE,
        spite: float = 1.0,
        policy: np.ndarray = NO_POLICY,
    ) -> None:
        self.position = position
        self.beliefs = beliefs
        """``None``: the seat knows its own values (``position.val`` holds them), so there is one world."""
        self.rng = rng
        self.oversample = oversample
        self.spite = spite
        """Weight of the others' mean points in the utility (0: only one's own points)."""
        self.policy = policy
        """The playouts' play policy (:data:`luz.bots.fast.policy.NO_POLICY`: the heuristic's)."""
        self.depth: int | None = None
        """Tricks a card's playout plays (``None``: to the end of the deal); the learned ``value`` scores the rest."""
        self.value = NO_VALUE

    def truncated(self, depth: int | None, value: np.ndarray) -> Search:
        """This search with card playouts stopped ``depth`` tricks on and the rest scored by ``value``."""
        self.depth, self.value = depth, value
        return self

    def stop(self) -> int:
        """The tricks after which a playout stops (:data:`luz.bots.fast.rules.H`: at the end of the deal); a bid's
        playouts always go to the end, since the bid is valued by the tricks taken."""
        st = self.position.st
        if self.depth is None or st[PHASE] == BIDDING:
            return H
        return min(int(st[TRICKS]) + self.depth, H)

    def run(
        self, legal: tuple[Action, ...], iters: int | None, seconds: float | None, start: float | None = None
    ) -> Action:
        """The best legal action after ``iters`` worlds, or as many as fit in ``seconds`` counted from ``start``
        (a ``time.perf_counter()``, default now), at least one batch."""
        firsts, totals = self.totals(legal, iters, seconds, start)
        if isinstance(legal[0], Bid):
            tricks, safety = np.unravel_index(int(np.argmax(totals)), totals.shape)
            return Bid(int(tricks), bool(safety))
        return Play(int(firsts[int(np.argmax(totals[:, 0]))]))

    def totals(
        self, legal: tuple[Action, ...], iters: int | None, seconds: float | None, start: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The first actions (bids' tricks ``* 2``, or slots) and their summed utilities ``[action, safety]`` over
        the worlds played out (the budget as :meth:`run`)."""
        bidding = isinstance(legal[0], Bid)
        if bidding:
            top = max(a.tricks for a in legal if isinstance(a, Bid))
            firsts = np.arange(top + 1, dtype=np.int64) * 2
        else:
            firsts = np.array([a.slot for a in legal if isinstance(a, Play)], dtype=np.int64)
        totals = np.zeros((len(firsts), 2))
        if iters is not None:
            totals += self.utilities(firsts, iters, bidding)
        else:
            assert seconds is not None
            start, batch = time.perf_counter() if start is None else start, 0.0
            while batch == 0.0 or time.perf_counter() - start + batch <= seconds:
                began = time.perf_counter()
                totals += self.utilities(firsts, TIME_BATCH, bidding)
                batch = time.perf_counter() - began
        return firsts, totals

    def utilities(self, firsts: np.ndarray, count: int, bidding: bool) -> np.ndarray:
        """Summed utility of each first action over ``count`` worlds: ``[action, safety]`` (safety 0 for a play)."""
        p = self.position
        scores, tricks = self.playouts(firsts, count)
        players = len(p.won)
        others = self.spite * (scores.sum(axis=2) - scores[:, :, p.seat]) / (players - 1)
        result = np.zeros((len(firsts), 2))
        if not bidding:
            result[:, 0] = (scores[:, :, p.seat] - others).sum(axis=1)
            return result
        taken = tricks[:, :, p.seat]
        for a, first in enumerate(firsts):
            for safety in (0, 1):
                mine = np.array([deal_score(first // 2, safety, t, p.rules) for t in range(H + 1)])
                result[a, safety] = (mine[taken[a]] - others[a]).sum()
        return result

    def playouts(self, firsts: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Points and tricks ``[action, world, seat]`` of the deal played out in ``count`` worlds after each first
        action."""
        p = self.position
        worlds = self.worlds(count)
        scores = np.zeros((len(firsts), len(worlds), len(p.won)))
        tricks = np.zeros(scores.shape, dtype=np.int64)
        state = (p.col, p.played, p.st, p.trick, p.won, p.bids, p.safe, p.rules)
        exact = self.beliefs is None
        rollouts(worlds, *state, p.seat, exact, firsts, self.policy, self.stop(), self.value, scores, tricks)
        return scores, tricks

    def worlds(self, count: int) -> np.ndarray:
        """``count`` worlds as ``val`` arrays: drawn uniformly, weighed by the opponent model, re-sampled."""
        p = self.position
        if self.beliefs is None:
            return np.repeat(p.val[None], 1, axis=0)
        drawn = count * self.oversample
        vals = np.repeat(p.val[None], drawn, axis=0)
        vals[:, p.seat, list(self.beliefs.slots)] = self.beliefs.sample_values(drawn, self.rng)
        weights = np.empty(drawn)
        first = int(p.st[FIRST])
        likelihoods(vals, p.col, p.rules, p.seat, first, p.bids, p.safe, p.observed, NOISE_BID, NOISE_PLAY, weights)
        cumulative = np.cumsum(weights / weights.sum())  # > 0: every factor is at least its noise share
        picks = np.searchsorted(cumulative, (self.rng.random() + np.arange(count)) / count)
        return vals[np.minimum(picks, drawn - 1)]
