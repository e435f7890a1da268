"""The oracle: the strong bot's search given its own values, a reference that measures what the hidden cards cost.

It is not a :class:`~luz.bots.base.Bot` (a bot decides from a view only): the arena hands it its own cards beside
its view. It is never offered to people (:data:`luz.bots.REFERENCE_BOTS`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from luz.engine import Action, Card, View

from .strong import Position, Search


class OracleBot:
    """Plays out its one known world (the others still decide from their own beliefs) and takes the best action."""

    name = "oracle"
    sees_own_cards = True

    def choose_seeing(self, view: View, own: Sequence[Card], rng: random.Random) -> Action:
        """The action for ``view``, knowing that the seat holds ``own`` (its hand as dealt, in slot order)."""
        if not view.legal_actions:
            raise ValueError(f"seat {view.seat} has nothing to choose: it is not its turn")
        if len(view.legal_actions) == 1:
            return view.legal_actions[0]
        assert view.seat is not None
        position = Position.from_view(view)
        position.val[view.seat] = [card.value for card in own]
        search = Search(position, None, np.random.default_rng(rng.getrandbits(64)))
        return search.run(view.legal_actions, iters=1, seconds=None)
