"""The bot interface: a bot decides from one seat's :class:`~luz.engine.View`, never from the game itself.

A view hides the seat's own unplayed values, so a bot cannot see what the rules hide from its seat.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence

from luz.engine import Action, Game, LuzError, View, view


class UnknownBot(LuzError):
    """No bot is registered under this name."""


class InvalidBotSpec(LuzError):
    """A bot's parameters are malformed or out of range (``strong:iters=0``)."""


def check_budget(iters: object, seconds: object) -> None:
    """Refuse a search budget that is not ``iters`` >= 1 (a whole number) or ``seconds`` in (0, 600]."""
    if iters is not None and (isinstance(iters, bool) or not isinstance(iters, int) or iters < 1):
        raise InvalidBotSpec(f"iters must be a whole number >= 1, not {iters!r}")
    if seconds is not None and not (isinstance(seconds, int | float) and 0 < seconds <= 600):
        raise InvalidBotSpec(f"seconds must be a number in (0, 600], not {seconds!r}")


class Bot(ABC):
    """A player that chooses one of ``view.legal_actions``; the same view and generator state give the same action."""

    name: str

    def choose(self, view: View, rng: random.Random) -> Action:
        """The action this bot takes, one of ``view.legal_actions``."""
        if not view.legal_actions:
            raise ValueError(f"seat {view.seat} has nothing to choose: it is not its turn")
        return self.decide(view, rng)

    @abstractmethod
    def decide(self, view: View, rng: random.Random) -> Action:
        """The bot's decision, given a view with at least one legal action."""


def play_out(game: Game, bots: Sequence[Bot], rng: random.Random) -> None:
    """Play ``game`` to its end, each seat's bot deciding from that seat's view only."""
    while game.current_player is not None:
        seat = game.current_player
        game.apply(bots[seat].choose(view(game, seat), rng), seat)
