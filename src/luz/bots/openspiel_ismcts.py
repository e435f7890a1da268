"""OpenSpiel's own ISMCTS as a bot: the arena's external anchor, through the OpenSpiel adapter (``luz[openspiel]``).

It searches from the seat's view alone (:func:`luz.research.openspiel.ismcts_action` draws each world from the
seat's exact beliefs), with a budget of simulations (``iters``, reproducible) or of time (``seconds``).
"""

from __future__ import annotations

import random

from luz.engine import Action, View

from .base import Bot, InvalidBotSpec

DEFAULT_SIMULATIONS = 100


class OpenSpielISMCTSBot(Bot):
    """``open_spiel.python.algorithms.ismcts.ISMCTSBot`` on the adapter's game, resampling from exact beliefs."""

    name = "openspiel-ismcts"

    def __init__(self, iters: int | None = None, seconds: float | None = None) -> None:
        if iters is not None and (isinstance(iters, bool) or not isinstance(iters, int) or iters < 1):
            raise InvalidBotSpec(f"iters must be a whole number >= 1, not {iters!r}")
        if seconds is not None and not (isinstance(seconds, int | float) and 0 < seconds <= 600):
            raise InvalidBotSpec(f"seconds must be a number in (0, 600], not {seconds!r}")
        try:
            from luz.research.openspiel import ismcts_action
        except ImportError:
            raise InvalidBotSpec("openspiel-ismcts needs OpenSpiel: pip install 'luz[openspiel]'") from None
        self._search = ismcts_action
        self.iters = DEFAULT_SIMULATIONS if iters is None and seconds is None else iters
        self.seconds = seconds

    def decide(self, view: View, rng: random.Random) -> Action:
        simulations = self.iters if self.iters is not None else 10**9
        return self._search(view, simulations=simulations, seconds=self.seconds, seed=rng.getrandbits(31))
