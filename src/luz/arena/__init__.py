"""The arena: bots against bots on duplicate deals, with honest statistics (``luz arena``)."""

from .core import ArenaConfig, ArenaError, GameRecord, play_game, run_arena
from .report import markdown, write_reports
from .stats import summarise

__all__ = [
    "ArenaConfig",
    "ArenaError",
    "GameRecord",
    "markdown",
    "play_game",
    "run_arena",
    "summarise",
    "write_reports",
]
