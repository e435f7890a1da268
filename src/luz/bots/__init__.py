"""Bots: players that decide from a seat's view only, and the registries that name them.

A bot is named by a spec, its name and optional parameters: ``heuristic``, ``strong``, ``strong:iters=200``,
``strong:seconds=0.5``.

>>> import random
>>> from luz.engine import Game, view
>>> game = Game.new("iello-2024", players=4, seed=5)
>>> seat = game.current_player
>>> make_bot("heuristic").choose(view(game, seat), random.Random(0)) in game.legal_actions()
True
>>> make_bot("strong:iters=16").iters
16
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Bot, InvalidBotSpec, UnknownBot, play_out
from .heuristic import HeuristicBot
from .random_bot import RandomBot


def _strong(**params: Any) -> Bot:
    from .strong import StrongBot  # numba compiles on first use: only for those who ask for it

    return StrongBot(**params)


def _expert(**params: Any) -> Bot:
    from .adaptive import AdaptiveBot

    return AdaptiveBot(**params)


def _learned(**params: Any) -> Bot:
    from .learned import LearnedBot

    return LearnedBot(**params)


def _policy(**params: Any) -> Bot:
    from .learned import PolicyBot

    return PolicyBot(**params)


def _selfplay(**params: Any) -> Bot:
    from .selfplay import SelfPlayBot

    return SelfPlayBot(**params)


def _oracle(**params: Any) -> Any:
    from .oracle import OracleBot

    return OracleBot(**params)


def _pimc(**params: Any) -> Bot:
    from .outside import PimcBot

    return PimcBot(**params)


def _counter(**params: Any) -> Bot:
    from .outside import CounterBot

    return CounterBot(**params)


def _openspiel_ismcts(**params: Any) -> Bot:
    from .openspiel_ismcts import OpenSpielISMCTSBot  # needs the optional open_spiel package

    return OpenSpielISMCTSBot(**params)


def _openspiel_ismcts_heuristic(**params: Any) -> Bot:
    from .openspiel_ismcts import OpenSpielISMCTSHeuristicBot

    return OpenSpielISMCTSHeuristicBot(**params)


BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "strong": _strong,
    "expert": _expert,
}
"""The bots offered to people (``luz play``, the server's tables): name to a factory taking the spec's parameters."""

REFERENCE_BOTS: dict[str, Callable[..., Any]] = {
    "learned": _learned,
    "policy": _policy,
    "selfplay": _selfplay,
    "oracle": _oracle,
    "pimc": _pimc,
    "counter": _counter,
    "openspiel-ismcts": _openspiel_ismcts,
    "openspiel-ismcts-h": _openspiel_ismcts_heuristic,
}
"""Bots for the arena only: ``learned`` (the strong search with the self-play policy in its playouts) and
``policy`` (that policy alone), and ``selfplay`` (the self-play network, :mod:`.selfplay`), not offered until
measured stronger (docs/BOTS.md); ``oracle`` sees its own values (a reference, never an opponent for people);
``pimc`` and ``counter`` are outside-style players, written apart and never tuned on (:mod:`.outside`);
``openspiel-ismcts`` is OpenSpiel's ISMCTS, an external anchor (needs ``luz-game[research]``), with random
rollouts or (``-h``) the heuristic's."""


def parse_spec(spec: str) -> tuple[str, dict[str, int | float]]:
    """A bot spec's name and parameters: ``"strong:iters=200:seconds=1"`` -> ``("strong", {...})``."""
    name, *pairs = str(spec).strip().lower().split(":")
    params: dict[str, int | float] = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        key = key.strip().replace("-", "_")
        try:
            value: int | float = int(text) if text.strip().lstrip("-").isdigit() else float(text)
        except ValueError:
            raise InvalidBotSpec(f"bot parameter {pair!r} of {spec!r} is not key=number") from None
        if not equals or not key.isidentifier() or key in params:
            raise InvalidBotSpec(f"bot parameter {pair!r} of {spec!r} is not key=number")
        params[key] = value
    return name.strip(), params


def make_bot(spec: str, registry: dict[str, Callable[..., Any]] | None = None) -> Bot:
    """A new bot of the kind ``spec`` names (in :data:`BOTS` unless ``registry`` is given).

    :class:`UnknownBot` lists the known names otherwise; :class:`InvalidBotSpec` for bad parameters.
    """
    registry = BOTS if registry is None else registry
    name, params = parse_spec(spec)
    try:
        factory = registry[name]
    except KeyError:
        raise UnknownBot(f"unknown bot {name!r}; bots are: {', '.join(registry)}") from None
    try:
        bot: Bot = factory(**params)
    except TypeError:
        raise InvalidBotSpec(f"bot {name!r} takes no parameter(s) {', '.join(params)}") from None
    return bot


def make_arena_bot(spec: str) -> Any:
    """A bot for the arena: any of :data:`BOTS` or :data:`REFERENCE_BOTS`."""
    return make_bot(spec, {**BOTS, **REFERENCE_BOTS})


__all__ = [
    "BOTS",
    "REFERENCE_BOTS",
    "Bot",
    "HeuristicBot",
    "InvalidBotSpec",
    "RandomBot",
    "UnknownBot",
    "make_arena_bot",
    "make_bot",
    "parse_spec",
    "play_out",
]
