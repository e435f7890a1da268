"""OpenSpiel's own ISMCTS as a bot: the arena's external anchor, through the OpenSpiel adapter (``luz-game[research]``).

It searches from the seat's view alone (:func:`luz.research.openspiel.ismcts_action` draws each world from the
seat's exact beliefs), with a budget of simulations (``iters``, reproducible) or of time (``seconds``). Leaf values
are random playouts of the deal (``openspiel-ismcts``) or, for ``openspiel-ismcts-h``, the heuristic playing the
deal out for every seat in the fast core (:class:`HeuristicRolloutEvaluator`), each on its own beliefs.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from luz.engine import Action, Phase, View, view

from .base import Bot, InvalidBotSpec, check_budget
from .fast.beliefs import world_beliefs
from .fast.policy import NO_POLICY
from .fast.rollouts import play_deal
from .fast.rules import HIGH, H, deal_score
from .strong import Position

DEFAULT_SIMULATIONS = 100
DEFAULT_HEURISTIC_SIMULATIONS = 300
"""Simulations a decision with heuristic rollouts: hundreds (about 2 s a decision on the loaded project machine:
OpenSpiel's Python tree and the adapter's states cost more than the playouts in the fast core)."""


class HeuristicRolloutEvaluator:
    """An OpenSpiel evaluator: a state's value is the point totals after the heuristic plays its deal out.

    The state is one world (the search drew it from the seat's beliefs); in the playout every seat decides from
    its own beliefs in that world, never from its own values. Uniform priors, as OpenSpiel's random rollouts.
    """

    def evaluate(self, state: Any) -> np.ndarray:
        game = state.table.game
        totals = np.array(game.sheet.totals, dtype=np.float64)
        if game.phase not in (Phase.BID, Phase.PLAY) or game.current_player is None:
            return totals
        p = Position.from_view(view(game, game.current_player))
        val = np.array([[card.value for card in hand] for hand in game.deals[-1].hands], dtype=np.int64)
        played, st, trick, won, bids, safe = (
            p.played.copy(),
            p.st.copy(),
            p.trick.copy(),
            p.won.copy(),
            p.bids.copy(),
            p.safe.copy(),
        )
        players = len(won)
        gt = np.zeros((players, H, int(p.rules[HIGH]) + 2), dtype=np.float64)
        world_beliefs(val, p.col, played, p.rules, -1, False, gt)
        play_deal(val, p.col, played, st, trick, won, bids, safe, p.rules, gt, -1, False, -1, NO_POLICY, H)
        return np.asarray(totals + [deal_score(bids[s], safe[s], won[s], p.rules) for s in range(players)], np.float64)

    def prior(self, state: Any) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


class OpenSpielISMCTSBot(Bot):
    """``open_spiel.python.algorithms.ismcts.ISMCTSBot`` on the adapter's game, resampling from exact beliefs."""

    name = "openspiel-ismcts"
    default_simulations = DEFAULT_SIMULATIONS

    def __init__(self, iters: int | None = None, seconds: float | None = None) -> None:
        check_budget(iters, seconds)
        try:
            from luz.research.openspiel import ismcts_action
        except ImportError:
            raise InvalidBotSpec("openspiel-ismcts needs OpenSpiel: pip install 'luz-game[research]'") from None
        self._search = ismcts_action
        self.iters = self.default_simulations if iters is None and seconds is None else iters
        self.seconds = seconds
        self._settings: dict[str, Any] = {}

    def decide(self, view: View, rng: random.Random) -> Action:
        simulations = self.iters if self.iters is not None else 10**9
        seed = rng.getrandbits(31)
        return self._search(view, simulations=simulations, seconds=self.seconds, seed=seed, **self._settings)


class OpenSpielISMCTSHeuristicBot(OpenSpielISMCTSBot):
    """OpenSpiel's ISMCTS with the heuristic as its rollout policy (:class:`HeuristicRolloutEvaluator`)."""

    name = "openspiel-ismcts-h"
    default_simulations = DEFAULT_HEURISTIC_SIMULATIONS

    def __init__(self, iters: int | None = None, seconds: float | None = None) -> None:
        super().__init__(iters, seconds)
        self._settings = {"evaluator": _evaluator()}


def _evaluator() -> Any:
    """A :class:`HeuristicRolloutEvaluator` that OpenSpiel accepts as an ``mcts.Evaluator``."""
    from open_spiel.python.algorithms import mcts  # type: ignore[import-untyped]

    return type("HeuristicRollouts", (HeuristicRolloutEvaluator, mcts.Evaluator), {})()
