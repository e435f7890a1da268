"""The random bot: a uniform choice among the legal actions (a baseline)."""

from __future__ import annotations

import random

from luz.engine import Action, View

from .base import Bot


class RandomBot(Bot):
    """Chooses uniformly among the legal actions."""

    name = "random"

    def decide(self, view: View, rng: random.Random) -> Action:
        return rng.choice(view.legal_actions)
