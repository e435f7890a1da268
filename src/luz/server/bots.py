"""Bot moves for the server, run in a process pool so that no table waits on another's bot."""

from __future__ import annotations

import random

from luz.bots import make_bot
from luz.engine import Action, View


def choose_for(bot: str, seen: View, seed: str) -> Action:
    """The move of a ``bot`` seeing ``seen`` (its seat's view, never the game), reproducible from ``seed``."""
    return make_bot(bot).choose(seen, random.Random(seed))
