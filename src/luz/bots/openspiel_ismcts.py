"""OpenSpiel's own ISMCTS as a bot: the arena's external anchor, through the OpenSpiel adapter (``luz[research]``).

It searches from the seat's view alone (:func:`luz.research.openspiel.ismcts_action` draws each world from the
seat's exact beliefs), with a budget of simulations (``iters``, reproducible) or of time (``seconds``).
"""

from __future__ import annotations

import random

from luz.engine import Action, View

from .base import Bot, InvalidBotSpec, check_budget

DEFAULT_SIMULATIONS = 100


class OpenSpielISMCTSBot(Bot):
    """``open_spiel.python.algorithms.ismcts.ISMCTSBot`` on the adapter's game, resampling from exact beliefs."""

    name = "openspiel-ismcts"

    def __init__(self, iters: int | None = None, seconds: float | None = None) -> None:
        check_budget(iters, seconds)
        try:
            from luz.research.openspiel import ismcts_action
        except ImportError:
            raise InvalidBotSpec("openspiel-ismcts needs OpenSpiel: pip install 'luz[research]'") from None
        self._search = ismcts_action
        self.iters = DEFAULT_SIMULATIONS if iters is None and seconds is None else iters
        self.seconds = seconds

    def decide(self, view: View, rng: random.Random) -> Action:
        simulations = self.iters if self.iters is not None else 10**9
        return self._search(view, simulations=simulations, seconds=self.seconds, seed=rng.getrandbits(31))
