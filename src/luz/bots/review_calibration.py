"""The review's calibration map: what its playouts say, mapped to what happened in games of a mixed field.

The playouts of a review (:mod:`luz.bots.review`) state, for each option, the seat's expected points and a chance
(a bid made, a card taking its trick). Measured against what happened at tables of players the review does not
model, those raw figures are over-confident; this map, fitted on other games than those it is measured on
(``luz bench review-fit``, docs/REVIEW.md), corrects them:

- each chance through an increasing map, linear between its knots: for bids a logistic curve of the stated
  chance's logit (Platt scaling, fitted by maximum likelihood), for cards the isotonic regression of what
  happened on the stated chance. Five-fold cross-validation over the games of the fit set chose them: the
  logistic curve stated bids' chances with an ECE of 0.034 against the isotonic map's 0.040, at the same Brier
  score (0.207); for cards the isotonic map's Brier score was the better (0.048 against 0.051), their chances
  being mostly near 0 or 1, where one logistic curve cannot follow them (docs/BOTS.md, "Review");
- every playout's points through one line, ``slope * points + offset * penalty`` (``penalty``: the edition's
  points per trick missed; one line for bids, one for cards), so that expected points match points scored on
  average and a loss (a difference of points) is scaled by ``slope``;
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


@dataclass(frozen=True, slots=True)
class Calibration:
    """A review's calibration map (see the module's docstring)."""

    bid_knots: tuple[tuple[float, float], ...] = ((0.0, 0.0), (1.0, 1.0))
    play_knots: tuple[tuple[float, float], ...] = ((0.0, 0.0), (1.0, 1.0))
    bid_line: tuple[float, float] = (1.0, 0.0)
    """A bid's points: ``(slope, offset)``."""
    play_line: tuple[float, float] = (1.0, 0.0)
    """A card's points: ``(slope, offset)``."""
    accuracy_scale: float = 1.0
    fitted_on: str = "nothing: the identity"

    def chance(self, kind: str, raw: np.ndarray) -> np.ndarray:
        """The calibrated chance of each raw ``chance`` of a ``kind`` (``"bid"`` or ``"play"``) decision."""
        knots = np.array(self.bid_knots if kind == "bid" else self.play_knots)
        return np.asarray(np.interp(raw, knots[:, 0], knots[:, 1]), dtype=np.float64)

    def points(self, kind: str, raw: np.ndarray, penalty: int) -> np.ndarray:
        """The calibrated points of raw playout ``points`` of a ``kind`` decision in an edition with this
        ``penalty`` a trick missed."""
        slope, offset = self.line(kind)
        return np.asarray(slope * raw + offset * penalty, dtype=np.float64)

    def line(self, kind: str) -> tuple[float, float]:
        """The points' ``(slope, offset)`` of a ``kind`` (``"bid"`` or ``"play"``) decision."""
        return self.bid_line if kind == "bid" else self.play_line

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
            bid_line=(float(data["bid_line"][0]), float(data["bid_line"][1])),
            play_line=(float(data["play_line"][0]), float(data["play_line"][1])),
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
    """An increasing map from stated chances to frequencies: the isotonic regression of what happened on the stated
    chance (pool adjacent violators, the rows of one stated value together), as knots ``(stated, frequency)`` from
    0 to 1 at the ends of each constant piece (scipy: ``luz-game[arena]``; only fitting needs it)."""
    from scipy.optimize import isotonic_regression  # type: ignore[import-untyped]

    values, inverse, counts = np.unique(np.round(stated, 4), return_inverse=True, return_counts=True)
    means = np.bincount(inverse, weights=np.asarray(happened, dtype=np.float64)) / counts
    fitted = isotonic_regression(means, weights=counts.astype(np.float64)).x
    knots = []
    for k, (x, y) in enumerate(zip(values, fitted, strict=True)):
        if k in (0, len(values) - 1) or fitted[k - 1] != y or fitted[k + 1] != y:
            knots.append((round(float(x), 4), round(float(y), 4)))
    if knots[0][0] > 0:
        knots.insert(0, (0.0, knots[0][1]))
    if knots[-1][0] < 1:
        knots.append((1.0, knots[-1][1]))
    return tuple(knots)


LOGIT_CLIP = 0.005
"""Stated chances are clipped to ``[LOGIT_CLIP, 1 - LOGIT_CLIP]`` where their logit is taken (a playout's 0 or 1)."""


def logistic_knots(stated: Sequence[float], happened: Sequence[float]) -> tuple[tuple[float, float], ...]:
    """Platt scaling: the chance ``expit(a * logit(stated) + b)``, ``a`` and ``b`` of the greatest likelihood of
    what happened (scipy's optimiser), as knots at every hundredth of the stated chance (increasing when ``a`` is
    positive, as it is on any informative stated chance)."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit  # type: ignore[import-untyped]

    def logit(chance: np.ndarray) -> np.ndarray:
        clipped = np.clip(chance, LOGIT_CLIP, 1 - LOGIT_CLIP)
        return np.asarray(np.log(clipped / (1 - clipped)), dtype=np.float64)

    z = logit(np.asarray(stated, dtype=np.float64))
    made = np.asarray(happened, dtype=np.float64)

    def negative_log_likelihood(params: np.ndarray) -> float:
        logits = params[0] * z + params[1]
        return -float((made * log_expit(logits) + (1 - made) * log_expit(-logits)).sum())

    a, b = minimize(negative_log_likelihood, np.array([1.0, 0.0]), method="BFGS").x
    grid = np.linspace(0.0, 1.0, 101)
    chances = expit(a * logit(grid) + b)
    return tuple((round(float(x), 4), round(float(y), 4)) for x, y in zip(grid, chances, strict=True))


def fit(rows: Sequence[dict[str, Any]], fitted_on: str) -> Calibration:
    """The map fitted on bench rows (``luz bench review --rows``): bids' (logistic) and cards' (isotonic) raw stated
    chance against what happened, their raw expected points against points scored (least squares), and the
    accuracy scale from every row's calibrated loss."""
    rows = [r for r in rows if not r["forced"]]
    bids = [r for r in rows if r["kind"] == "bid"]
    plays = [r for r in rows if r["kind"] == "play"]
    lines = {"bid": _line(bids), "play": _line(plays)}
    losses = [r["raw_loss"] * lines[r["kind"]][0] / r["penalty"] for r in rows]
    return Calibration(
        bid_knots=logistic_knots([r["raw_stated"] for r in bids], [float(r["made"]) for r in bids]),
        play_knots=isotonic_knots([r["raw_stated"] for r in plays], [float(r["made"]) for r in plays]),
        bid_line=lines["bid"],
        play_line=lines["play"],
        accuracy_scale=round(float(np.mean(losses)) / math.log(2), 4),
        fitted_on=fitted_on,
    )


def _line(rows: Sequence[dict[str, Any]]) -> tuple[float, float]:
    """``(slope, offset)`` of the points scored on the raw expected points and the penalty (least squares)."""
    penalty = np.array([r["penalty"] for r in rows], dtype=np.float64)
    expected = np.array([r["raw_expected"] for r in rows], dtype=np.float64)
    scored = np.array([r["scored"] for r in rows], dtype=np.float64)
    (slope, offset), *_ = np.linalg.lstsq(np.column_stack([expected, penalty]), scored, rcond=None)
    return round(float(slope), 4), round(float(offset), 4)
