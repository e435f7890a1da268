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
    "--seed 121 --workers 2 --minutes 10"
)
"""The run the ratings come from: 58 deal sets were played in full by every level against every member in the
10 minutes (the same games as ``--games 58``), 1392 games a level, 5568 in all, the expert with the learned value
(depth 4). mu / sigma: random -1.0 / 2.2, heuristic 27.0 / 1.6, strong 48.4 / 2.1, expert 50.5 / 2.1 (the
members: 19.5 to 26.1, sigma 1.6 to 1.7). Margin per game against the field [95% CI, clustered by deal set]:
random -74.8 [-77.5, -72.0], heuristic +9.6 [+8.3, +10.8], strong +69.5 [+66.8, +72.0], expert +68.0 [+65.1,
+71.0]; expert - strong -1.4 [-3.3, +0.5], paired by deal set (head to head the expert wins: docs/BOTS.md).
Report: docs/bots/levels-field-iello4.md. (Earlier: run LF, the expert with playouts to the end, 60 deal sets:
-5.4, 21.4, 43.5, 48.8; run CAL, the four levels at one table: -17.5, 17.6, 27.1, 33.6.)"""
LEVELS = (
    Level("random", "beginner", -7.5),
    Level("heuristic", "casual", 22.2),
    Level("strong", "strong", 42.2),
    Level("expert", "expert", 44.1),
)
"""The levels, weakest first."""


def levels() -> list[dict[str, Any]]:
    """Every bot of :data:`luz.bots.BOTS` as ``{"name", "label", "rating"}``, weakest first (unrated ones last)."""
    known = {level.bot: level for level in LEVELS}
    rated = [known[name] for name in known if name in BOTS]
    rated += [Level(name, name, None) for name in BOTS if name not in known]
    return [level.to_json() for level in rated]
