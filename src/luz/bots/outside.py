"""Outside-style bots for the review's calibration: players the review never models, written apart from luz's bots.

The review (:mod:`luz.bots.review`) models every other player as the heuristic or one of its variants. These bots
decide otherwise, so that its stated chances are checked against a field it did not expect:

- ``pimc``: perfect-information Monte Carlo without an opponent model: hidden worlds drawn uniformly from the
  seat's beliefs (no weighing by the others' bids or plays), each action played out, its own points only;
- ``counter``: a rule-based counter that never searches: it bids the sum of its cards' estimated chances of
  winning a trick (the trump colour counted double) and plays its strongest card while short of its bid, its
  weakest once the bid is reached. Its rules were written once and never tuned against the review.

Arena bots (:data:`luz.bots.REFERENCE_BOTS`: ``luz arena --bots pimc``, and ``luz arena --field outside`` plays
them both); they are offered to no one.
"""

from __future__ import annotations

import random

import numpy as np

from luz.bots.base import Bot
from luz.bots.strong import Position, Search, StrongBot
from luz.engine import Action, Bid, Play, View
from luz.engine.beliefs import Beliefs


class UniformSearch(Search):
    """The strong bot's search with no opponent model: every world consistent with the view equally likely."""

    def worlds(self, count: int) -> np.ndarray:
        p = self.position
        assert self.beliefs is not None
        vals = np.repeat(p.val[None], count, axis=0)
        vals[:, p.seat, list(self.beliefs.slots)] = self.beliefs.sample_values(count, self.rng)
        return vals


class PimcBot(StrongBot):
    """Perfect-information Monte Carlo: uniform worlds, each action played out, its own points only."""

    name = "pimc"

    def __init__(self, iters: int = 48) -> None:
        super().__init__(iters=iters, spite=0.0)

    def search(self, view: View, rng: random.Random) -> Search:
        generator = np.random.default_rng(rng.getrandbits(64))
        return UniformSearch(Position.from_view(view), Beliefs(view), generator, spite=0.0)


class CounterBot(Bot):
    """A rule-based counter: bids its cards' estimated winners, plays strong while short of its bid, weak after."""

    name = "counter"

    def decide(self, view: View, rng: random.Random) -> Action:
        assert view.seat is not None
        strength = self._strengths(view)
        if isinstance(view.legal_actions[0], Bid):
            bids = [a for a in view.legal_actions if isinstance(a, Bid)]
            wanted = round(sum(strength.values()))
            tricks = min((b.tricks for b in bids), key=lambda t: abs(t - wanted))
            safety = wanted >= 3 and Bid(tricks, True) in bids
            return Bid(tricks, safety)
        plays = [a for a in view.legal_actions if isinstance(a, Play)]
        bid = view.bids[view.seat]
        short = bid is None or view.tricks_won[view.seat] < bid.tricks
        ranked = sorted(plays, key=lambda a: (strength[a.slot], a.slot))
        return ranked[-1] if short else ranked[0]

    @staticmethod
    def _strengths(view: View) -> dict[int, float]:
        """Each unplayed slot's estimated chance of winning a trick: its expected rank within its colour's values,
        squared, doubled for a trump (at most 1)."""
        assert view.seat is not None
        low, high = view.edition.values[view.players]
        trump = view.edition.trump
        table = Beliefs(view).table()
        strength = {}
        for slot_view in view.hands[view.seat]:
            if slot_view.played:
                continue
            expected = sum(v * p for v, p in table[slot_view.slot].items())
            share = ((expected - low) / (high - low)) ** 2
            strength[slot_view.slot] = min(1.0, share * (2.0 if slot_view.colour == trump else 1.0))
        return strength
