"""The review's calibration map: fitted on rows, it recovers what happened; the shipped one is a valid map."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.special import expit, logit

from luz.bots.review_calibration import (
    SHIPPED,
    Calibration,
    fit,
    isotonic_knots,
    logistic_knots,
    shipped_calibration,
)


def over_confident(stated: np.ndarray) -> np.ndarray:
    """The chance that a bid stated at ``stated`` is made, in these rows: ``expit(0.6 logit(stated) - 0.4)``."""
    return np.asarray(expit(0.6 * logit(stated) - 0.4), dtype=np.float64)


def rows(count: int, seed: int) -> list[dict[str, Any]]:
    """Bench-like rows where a bid stated at ``s`` is made with chance :func:`over_confident` and scores
    ``0.5 * expected - 2 * penalty`` plus noise; cards take their trick with chance ``s``."""
    rng = np.random.default_rng(seed)
    out = []
    for kind in ("bid", "play"):
        stated = rng.uniform(0.01, 0.99, count)
        expected = rng.normal(5.0, 10.0, count)
        truth = over_confident(stated) if kind == "bid" else stated
        scored = (0.5 * expected - 10.0 if kind == "bid" else expected) + rng.normal(0.0, 1.0, count)
        for s, e, made, points in zip(stated, expected, rng.random(count) < truth, scored, strict=True):
            out.append({
                "kind": kind, "forced": False, "penalty": 5, "raw_stated": float(s), "raw_expected": float(e),
                "raw_loss": 2.0, "made": bool(made), "scored": float(points),
            })  # fmt: skip
    out.append({"kind": "bid", "forced": True, "penalty": 5})
    return out


def test_the_fitted_map_recovers_what_happened() -> None:
    calibration = fit(rows(4000, seed=1), "synthetic")
    stated = np.linspace(0.05, 0.95, 10)
    assert np.abs(calibration.chance("bid", stated) - over_confident(stated)).max() < 0.03
    assert np.abs(calibration.chance("play", stated) - stated).max() < 0.06
    slope, offset = calibration.bid_line
    assert slope == pytest.approx(0.5, abs=0.02) and offset == pytest.approx(-2.0, abs=0.05)
    assert calibration.play_line[0] == pytest.approx(1.0, abs=0.02)
    assert calibration.accuracy_scale == pytest.approx(2.0 * 0.75 / 5 / np.log(2), rel=0.05)
    assert Calibration.from_json(calibration.to_json()) == calibration


@pytest.mark.parametrize("fitter", [isotonic_knots, logistic_knots])
def test_a_chance_map_is_increasing_from_0_to_1(fitter: Any) -> None:
    rng = np.random.default_rng(3)
    stated = rng.random(500).round(1)  # ties, and chances of 0 and 1
    knots = np.array(fitter(stated.tolist(), (rng.random(500) < stated).tolist()))
    assert knots[0, 0] == 0.0 and knots[-1, 0] == 1.0
    assert (np.diff(knots[:, 0]) > 0).all() and (np.diff(knots[:, 1]) >= 0).all()
    assert ((knots[:, 1] >= 0) & (knots[:, 1] <= 1)).all()


def test_the_shipped_map_is_valid() -> None:
    calibration = shipped_calibration()
    assert SHIPPED.exists() and calibration.fitted_on
    for knots in (calibration.bid_knots, calibration.play_knots):
        xs, ys = zip(*knots, strict=True)
        assert xs[0] == 0.0 and xs[-1] == 1.0 and list(xs) == sorted(xs) and list(ys) == sorted(ys)
    assert calibration.bid_line[0] > 0 and calibration.play_line[0] > 0 and calibration.accuracy_scale > 0
    assert calibration.accuracy(0.0, 5) == 100.0
    assert calibration.accuracy(calibration.accuracy_scale * 5 * np.log(2), 5) == pytest.approx(50.0)
