"""Bots: players that decide from a seat's view only, and the registry that names them.

>>> import random
>>> from luz.engine import Game, view
>>> game = Game.new("iello-2024", players=4, seed=5)
>>> seat = game.current_player
>>> make_bot("heuristic").choose(view(game, seat), random.Random(0)) in game.legal_actions()
True
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, UnknownBot, play_out
from .heuristic import HeuristicBot
from .random_bot import RandomBot

BOTS: dict[str, Callable[[], Bot]] = {"random": RandomBot, "heuristic": HeuristicBot}
"""The registry: bot name to a factory of fresh bots (later bots register here)."""


def make_bot(name: str) -> Bot:
    """A new bot of the kind registered as ``name``; :class:`UnknownBot` lists the known names otherwise."""
    try:
        factory = BOTS[name.strip().lower()]
    except KeyError:
        raise UnknownBot(f"unknown bot {name!r}; bots are: {', '.join(BOTS)}") from None
    return factory()


__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot", "UnknownBot", "make_bot", "play_out"]
