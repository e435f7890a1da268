"""The expert bot: the strong bot's search with an opponent model that learns each opponent during the game.

The strong bot takes every other player for the heuristic (with fixed noise). This one holds, for each other
seat, a Bayesian mixture over a family of policies, the heuristic's variants (:data:`VARIANTS`: the heuristic,
an over-bidder, an under-bidder, never or always the safety, a greedy player, a random one). From the seat's view
only:

1. the prior of each seat's variant comes from the deals already scored this game (``view.results``): how its
   tricks fell against its bid and whether it took the safety, under each variant (:data:`RESULTS`, measured);
2. each drawn world is weighed, for each other seat, by the mixture of the variants' likelihoods of the bid it
   made and the plays the seat saw (:func:`luz.bots.fast.opponents.likelihoods_by_variant`), exactly as the strong bot
   weighs them under the heuristic alone;
3. in each re-sampled world, each other seat's variant is drawn from its posterior in that world, and the
   playouts have it play that variant (:func:`luz.bots.fast.rollouts.rollouts_variants`).

Everything else (worlds drawn from the exact beliefs, the utility, the budgets) is the strong bot's, but for one
thing: by default a card's playout stops :data:`DEFAULT_DEPTH` tricks on and the learned value scores the rest of
the deal (:mod:`luz.bots.value_weights`); ``depth=10`` plays every playout to the end, as the strong bot does.
"""

from __future__ import annotations

import random

import numpy as np

from luz.engine import View
from luz.engine.beliefs import Beliefs

from .fast.opponents import likelihoods_by_variant
from .fast.rollouts import rollouts_variants
from .fast.rules import FIRST
from .strong import NOISE_BID, NOISE_PLAY, OVERSAMPLE, Position, Search, StrongBot

VARIANT_SPECS = (
    "heuristic",
    "heuristic:bias=1",
    "heuristic:bias=-1",
    "heuristic:safety=-1",
    "heuristic:safety=1",
    "heuristic:greedy=1",
    "random",
)
"""The policy family, as arena specs (the field's heuristic variants are these, and noisy ones)."""
VARIANTS = np.array(
    [[0, 0, 0, 0], [1, 0, 0, 0], [-1, 0, 0, 0], [0, -1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1000]],
    dtype=np.int64,
)
"""The family in the fast core: ``(bias, safety mode, greedy, noise in thousandths)`` per variant, as
:data:`VARIANT_SPECS`."""
DEFAULT_DEPTH = 4
"""Tricks a card's playout plays before the learned value scores the rest: measured stronger than playing to the
end and faster (``expert`` against ``expert:depth=10``, docs/BOTS.md)."""
PRIOR = np.array([0.5, 0.1, 0.1, 0.075, 0.075, 0.1, 0.05])
"""Each variant's prior weight before any deal is scored."""
RESULTS = np.array(
    [
        [
            [0.0017, 0.0017],
            [0.007, 0.0192],
            [0.0226, 0.0679],
            [0.0958, 0.3101],
            [0.047, 0.1969],
            [0.0157, 0.1307],
            [0.0105, 0.0732],
        ],  # heuristic
        [
            [0.007, 0.0192],
            [0.0226, 0.0679],
            [0.0453, 0.1272],
            [0.0767, 0.3101],
            [0.0279, 0.162],
            [0.0122, 0.0819],
            [0.0087, 0.0314],
        ],  # heuristic:bias=1
        [
            [0.0017, 0.0017],
            [0.0017, 0.0017],
            [0.007, 0.0192],
            [0.0801, 0.2544],
            [0.0645, 0.2387],
            [0.0314, 0.1411],
            [0.0139, 0.1429],
        ],  # heuristic:bias=-1
        [
            [0.007, 0.0017],
            [0.0488, 0.0017],
            [0.1115, 0.0017],
            [0.4042, 0.0017],
            [0.2352, 0.0017],
            [0.1167, 0.0017],
            [0.0645, 0.0017],
        ],  # heuristic:safety=-1
        [
            [0.0017, 0.0017],
            [0.0017, 0.0226],
            [0.0017, 0.0819],
            [0.0017, 0.4059],
            [0.0017, 0.2456],
            [0.0017, 0.1481],
            [0.0017, 0.0819],
        ],  # heuristic:safety=1
        [
            [0.0017, 0.0017],
            [0.007, 0.0192],
            [0.0226, 0.0679],
            [0.0418, 0.1132],
            [0.0575, 0.2091],
            [0.0418, 0.1847],
            [0.0279, 0.2038],
        ],  # heuristic:greedy=1
        [
            [0.27, 0.1725],
            [0.047, 0.0418],
            [0.0453, 0.0488],
            [0.0697, 0.0366],
            [0.0383, 0.0418],
            [0.0418, 0.0488],
            [0.0523, 0.0453],
        ],  # random
    ]
)
"""``RESULTS[v, d + 3, safety]``: the chance that variant ``v`` takes ``d`` tricks more than its bid (``d``
clipped to -3..3) with or without the safety, measured at tables of heuristics by
:func:`luz.bots.measure.measure_results` (``measure_results(40)``, Laplace-smoothed)."""


def variant_prior(view: View) -> np.ndarray:
    """``prior[seat, v]``: the chance that ``seat`` plays variant ``v``, given the deals scored so far this game."""
    log = np.tile(np.log(PRIOR), (view.players, 1))
    for result in view.results:
        for seat in range(view.players):
            d = min(max(result.tricks[seat] - result.bids[seat], -3), 3)
            log[seat] += np.log(RESULTS[:, d + 3, int(result.safety[seat])])
    prior = np.exp(log - log.max(axis=1, keepdims=True))
    return np.asarray(prior / prior.sum(axis=1, keepdims=True), dtype=np.float64)


class AdaptiveSearch(Search):
    """The strong bot's search, each other seat playing a variant drawn from its posterior in each world."""

    def __init__(
        self,
        position: Position,
        beliefs: Beliefs,
        prior: np.ndarray,
        rng: np.random.Generator,
        oversample: int = OVERSAMPLE,
    ) -> None:
        super().__init__(position, beliefs, rng, oversample)
        self.prior = prior
        """``prior[seat, v]``: each seat's variant before this deal's bids and plays (:func:`variant_prior`)."""

    def playouts(self, firsts: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        p = self.position
        worlds, kinds = self.worlds_and_variants(count)
        scores = np.zeros((len(firsts), len(worlds), len(p.won)))
        tricks = np.zeros(scores.shape, dtype=np.int64)
        state = (p.col, p.played, p.st, p.trick, p.won, p.bids, p.safe, p.rules)
        seed = int(self.rng.integers(2**31))
        rollouts_variants(worlds, kinds, *state, p.seat, False, firsts, seed, self.stop(), self.value, scores, tricks)
        return scores, tricks

    def worlds_and_variants(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``count`` worlds (``val`` arrays) weighed by the mixture model and re-sampled, and for each the variant
        row of every seat (the seat itself: the heuristic)."""
        p = self.position
        assert self.beliefs is not None
        players = len(p.won)
        drawn = count * self.oversample
        vals = np.repeat(p.val[None], drawn, axis=0)
        vals[:, p.seat, list(self.beliefs.slots)] = self.beliefs.sample_values(drawn, self.rng)
        likely = np.empty((drawn, players, len(VARIANTS)))
        first = int(p.st[FIRST])
        likelihoods_by_variant(
            vals, p.col, p.rules, p.seat, first, p.bids, p.safe, p.observed, VARIANTS, NOISE_BID, NOISE_PLAY, likely
        )
        joint = likely * self.prior[None]
        joint /= joint.max(axis=(0, 2), keepdims=True)  # each seat's scale: keeps the products well above 0
        marginal = joint.sum(axis=2)
        marginal[:, p.seat] = 1.0
        weights = marginal.prod(axis=1)
        cumulative = np.cumsum(weights / weights.sum())
        picks = np.minimum(np.searchsorted(cumulative, (self.rng.random() + np.arange(count)) / count), drawn - 1)
        posterior = np.cumsum(joint[picks] / joint[picks].sum(axis=2, keepdims=True), axis=2)
        chosen = (posterior < self.rng.random((count, players, 1))).sum(axis=2)
        chosen = np.minimum(chosen, len(VARIANTS) - 1)
        chosen[:, p.seat] = 0
        return vals[picks], VARIANTS[chosen]


class AdaptiveBot(StrongBot):
    """The strong bot's search with an opponent model learnt, from the seat's view, during the game."""

    name = "expert"

    def __init__(
        self,
        iters: int | None = None,
        seconds: float | None = None,
        oversample: int = OVERSAMPLE,
        depth: int | None = DEFAULT_DEPTH,
        value: int | None = None,
    ) -> None:
        super().__init__(iters, seconds, oversample, depth=depth, value=value)

    def search(self, view: View, rng: random.Random) -> Search:
        generator = np.random.default_rng(rng.getrandbits(64))
        prior = variant_prior(view)
        search = AdaptiveSearch(Position.from_view(view), Beliefs(view), prior, generator, self.oversample)
        return search.truncated(self.depth, self.value)
