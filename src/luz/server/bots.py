"""Bot moves for the server, run in a process pool so that no table waits on another's bot."""

from __future__ import annotations

import random

from luz.bots import make_bot
from luz.engine import Action, Game, View, view


def choose_for(bot: str, seen: View, seed: str) -> Action:
    """The move of a ``bot`` seeing ``seen`` (its seat's view, never the game), reproducible from ``seed``."""
    return make_bot(bot).choose(seen, random.Random(seed))


def warm_up() -> None:
    """Make one strong decision, so that a bot process has compiled (or loaded) the fast core before a table
    needs it: numba takes seconds the first time, more than a bot's time for a move."""
    game = Game.new("iello-2024", players=4, seed=0)
    choose_for("strong", view(game, game.current_player), "warm-up")
