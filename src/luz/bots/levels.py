"""Bot levels for people: each offered bot with a label and its measured rating, on one OpenSkill scale.

The ratings are OpenSkill (Plackett-Luce) ratings from one arena in which the four levels met on duplicate deals,
every rotation (the command is :data:`CALIBRATION`); ``rating`` is the ordinal (mu - 3 sigma), the figure the
arena reports. They are measured figures, kept here so that the server can show them without running anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import BOTS


@dataclass(frozen=True, slots=True)
class Level:
    """One offered bot: its spec, a label for people, and its measured rating (``None``: not rated)."""

    bot: str
    label: str
    rating: float | None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.bot, "label": self.label, "rating": self.rating}


CALIBRATION = (
    "luz arena --bots random,heuristic,strong,expert --edition iello-2024 --players 4 --games 40 --seed 31 --workers 1"
)
"""The arena the ratings come from (40 deal sets, 160 games; mu / sigma: random -4.9 / 4.2, heuristic 26.0 / 2.8,
strong 35.2 / 2.7, expert 42.1 / 2.8; expert - strong +16.2 [+8.2, +23.8] points a game, both at a mean 36.6 ms
a decision)."""
LEVELS = (
    Level("random", "beginner", -17.5),
    Level("heuristic", "casual", 17.6),
    Level("strong", "strong", 27.1),
    Level("expert", "expert", 33.6),
)
"""The levels, weakest first."""


def levels() -> list[dict[str, Any]]:
    """Every bot of :data:`luz.bots.BOTS` as ``{"name", "label", "rating"}``, weakest first (unrated ones last)."""
    known = {level.bot: level for level in LEVELS}
    rated = [known[name] for name in known if name in BOTS]
    rated += [Level(name, name, None) for name in BOTS if name not in known]
    return [level.to_json() for level in rated]
