"""PettingZoo's naming: ``from luz.research import luz_v0; env = luz_v0.env(players=4)``."""

from .pettingzoo import env, raw_env

__all__ = ["env", "raw_env"]
