"""The review's calibration map: what its playouts say, mapped to what happened in games of a mixed field.

The playouts of a review (:mod:`luz.bots.review`) state, for each option, the seat's expected points and a chance
(a bid made, a card taking its trick). Measured against what happened at tables of players the review does not
model, those raw figures are over-confident; this map, fitted on other games than those it is measured on
(``luz bench review-fit``, docs/REVIEW.md), corrects them:

- each chance through an increasing map (isotonic regression of what happened on the stated chance, one map for
  bids and one for cards, linear between its knots);
- every playout's points through one line, ``slope * points + offset * penalty`` (``penalty``: the edition's
  points per trick missed), so that expected points match points scored on average and a loss (a difference of
  points) is scaled by ``slope``;
- a decision's **accuracy**, ``100 * exp(-loss / (accuracy_scale * penalty))``: 100 for the best, 50 for a loss of
  ``accuracy_scale * ln 2`` penalties, the field's mean loss per decision where it was fitted.

The map is data: ``review_calibration.json`` beside this module, written by :func:`fit` through ``luz bench
review-fit`` from the rows ``luz bench review --rows`` saved.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

SHIPPED = Path(__file__).with_name("review_calibration.json")
"""The shipped map."""
LEAST_BLOCK = 20
"""Fewest rows a knot of a chance map stands for: neighbouring values of the stated chance are pooled until then."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """A review's calibration map (see the module's docstring)."""

    bid_knots: tuple[tuple[float, float], ...] = ((0.0, 0.0), (1.0, 1.0))
    play_knots: tuple[tuple[float, float], ...] = ((0.0, 0.0), (1.0, 1.0))
    slope: float = 1.0
    offset: float = 0.0
    accuracy_scale: float = 1.0
    fitted_on: str = "nothing: the identity"

    def chance(self, kind: str, raw: np.ndarray) -> np.ndarray:
        """The calibrated chance of each raw ``chance`` of a ``kind`` (``"bid"`` or ``"play"``) decision."""
        knots = np.array(self.bid_knots if kind == "bid" else self.play_knots)
        return np.asarray(np.interp(raw, knots[:, 0], knots[:, 1]), dtype=np.float64)

    def points(self, raw: np.ndarray, penalty: int) -> np.ndarray:
        """The calibrated points of raw playout ``points`` in an edition with this ``penalty`` a trick missed."""
        return np.asarray(self.slope * raw + self.offset * penalty, dtype=np.float64)

    def accuracy(self, loss: float, penalty: int) -> float:
        """A decision's accuracy in percent from its (calibrated) loss."""
        return 100.0 * math.exp(-max(loss, 0.0) / (self.accuracy_scale * penalty))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        return cls(
            bid_knots=tuple((float(x), float(y)) for x, y in data["bid_knots"]),
            play_knots=tuple((float(x), float(y)) for x, y in data["play_knots"]),
            slope=float(data["slope"]),
            offset=float(data["offset"]),
            accuracy_scale=float(data["accuracy_scale"]),
            fitted_on=str(data["fitted_on"]),
        )


IDENTITY = Calibration()
"""No correction (the playouts' own figures; an accuracy scale of one penalty)."""


@functools.cache
def shipped_calibration() -> Calibration:
    """The shipped map (:data:`SHIPPED`), or the identity where none is shipped."""
    if not SHIPPED.exists():
        return IDENTITY
    return Calibration.from_json(json.loads(SHIPPED.read_text()))


def isotonic_knots(stated: Sequence[float], happened: Sequence[float]) -> tuple[tuple[float, float], ...]:
    """An increasing map from stated chances to frequencies (isotonic regression, pooled into blocks of at least
    :data:`LEAST_BLOCK` rows), as knots ``(mean stated, frequency)`` from 0 to 1 (scipy: ``luz-game[arena]``; only
    fitting needs it)."""
    from scipy.optimize import isotonic_regression  # type: ignore[import-untyped]

    order = np.argsort(np.asarray(stated, dtype=np.float64), kind="stable")
    x = np.asarray(stated, dtype=np.float64)[order]
    y = np.asarray(happened, dtype=np.float64)[order]
    blocks_x, blocks_y, weights = [], [], []
    start = 0
    while start < len(x):
        end = min(start + LEAST_BLOCK, len(x))
        while end < len(x) and x[end] == x[end - 1]:  # ties stay in one block
            end += 1
        if len(x) - end < LEAST_BLOCK:
            end = len(x)
        blocks_x.append(float(x[start:end].mean()))
        blocks_y.append(float(y[start:end].mean()))
        weights.append(end - start)
        start = end
    fitted = isotonic_regression(blocks_y, weights=weights).x
    knots = [(0.0, float(fitted[0]))] if blocks_x[0] > 0 else []
    knots += [(bx, float(by)) for bx, by in zip(blocks_x, fitted, strict=True)]
    if blocks_x[-1] < 1:
        knots.append((1.0, float(fitted[-1])))
    return tuple((round(kx, 4), round(ky, 4)) for kx, ky in knots)


def fit(rows: Sequence[dict[str, Any]], fitted_on: str) -> Calibration:
    """The map fitted on bench rows (``luz bench review --rows``): bids' and cards' raw stated chance against what
    happened, bids' raw expected points against points scored (least squares), and the accuracy scale from every
    row's calibrated loss."""
    rows = [r for r in rows if not r["forced"]]
    bids = [r for r in rows if r["kind"] == "bid"]
    plays = [r for r in rows if r["kind"] == "play"]
    penalty = np.array([r["penalty"] for r in bids], dtype=np.float64)
    expected = np.array([r["raw_expected"] for r in bids], dtype=np.float64)
    scored = np.array([r["scored"] for r in bids], dtype=np.float64)
    design = np.column_stack([expected, penalty])
    (slope, offset), *_ = np.linalg.lstsq(design, scored, rcond=None)
    losses = [r["raw_loss"] * slope / r["penalty"] for r in rows]
    return Calibration(
        bid_knots=isotonic_knots([r["raw_stated"] for r in bids], [float(r["made"]) for r in bids]),
        play_knots=isotonic_knots([r["raw_stated"] for r in plays], [float(r["made"]) for r in plays]),
        slope=round(float(slope), 4),
        offset=round(float(offset), 4),
        accuracy_scale=round(float(np.mean(losses)) / math.log(2), 4),
        fitted_on=fitted_on,
    )
