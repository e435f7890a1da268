"""Bot levels for people: each offered bot with a label and its measured rating, on one OpenSkill scale.

The ratings are OpenSkill (Plackett-Luce) ratings against the field: each level played the same members of the
``quick`` field (its six heuristic variants; the field's ``random``, ``heuristic`` and ``strong`` are levels
themselves, so they are left out) on the same duplicate deal sets, in every rotation, and every level and member
was rated on one scale from all those games pooled (:mod:`luz.arena.levels`; the command is :data:`CALIBRATION`).
``rating`` is the ordinal (mu - 3 sigma), the figure the arena reports. They are measured figures, kept here so
that the server can show them without running anything.
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
    "luz arena --bots random,heuristic,strong,expert --field quick --edition iello-2024 --players 4 --games 200 "
    "--seed 121 --workers 1 --minutes 25"
)
"""The run the ratings come from: 60 deal sets were played in full by every level against every member in the
25 minutes (the same games as ``--games 60``), 1440 games a level, 5760 in all, with the bots of commit 7f6025b.
mu / sigma: random 1.1 / 2.2, heuristic 26.2 / 1.6, strong 49.7 / 2.1, expert 55.9 / 2.4 (the members: 19.5 to
25.7, sigma 1.6 to 1.7). Margin per game against the field [95% CI, clustered by deal set]: random -74.4
[-77.0, -71.9], heuristic +9.6 [+8.4, +10.9], strong +69.4 [+66.9, +71.9], expert +74.6 [+72.6, +76.7]; expert
- strong +5.2 [+3.8, +6.7], paired by deal set. Report: docs/bots/levels-field-iello4.md. (The earlier ratings,
from the four levels at one table, run CAL of docs/BOTS.md: -17.5, 17.6, 27.1, 33.6.)"""
LEVELS = (
    Level("random", "beginner", -5.4),
    Level("heuristic", "casual", 21.4),
    Level("strong", "strong", 43.5),
    Level("expert", "expert", 48.8),
)
"""The levels, weakest first."""


def levels() -> list[dict[str, Any]]:
    """Every bot of :data:`luz.bots.BOTS` as ``{"name", "label", "rating"}``, weakest first (unrated ones last)."""
    known = {level.bot: level for level in LEVELS}
    rated = [known[name] for name in known if name in BOTS]
    rated += [Level(name, name, None) for name in BOTS if name not in known]
    return [level.to_json() for level in rated]
