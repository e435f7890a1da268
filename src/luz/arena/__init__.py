"""The arena: bots against bots on duplicate deals, with honest statistics (``luz arena``)."""

from .core import ArenaConfig, ArenaError, GameRecord, play_game
from .report import markdown, write_reports
from .run import run_arena
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
