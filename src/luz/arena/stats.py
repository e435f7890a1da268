"""Arena statistics: per bot and per pair of bots, with confidence intervals clustered by duplicate deal set.

A bot's score in a deal set is the mean of its seats' game totals over the set's rotations; means, differences and
their 95% intervals come from the deal sets (a percentile bootstrap resampling whole deal sets), so a lucky deal
counts once for every bot. Decision times are reported but kept out of everything that must be reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np

from luz.engine import get_edition

from .core import ArenaConfig, GameRecord

BOOTSTRAP = 2000
"""Bootstrap resamples of the deal sets."""


def deal_set_scores(config: ArenaConfig, records: Sequence[GameRecord]) -> np.ndarray:
    """``scores[d, b]``: bot ``b``'s mean game total over its seats in deal set ``d``'s games."""
    labels = config.labels()
    sums = np.zeros((config.deal_sets, len(labels)))
    counts = np.zeros_like(sums)
    for record in records:
        for seat, spec in enumerate(record.seats):
            sums[record.deal_set, labels.index(spec)] += record.totals[seat]
            counts[record.deal_set, labels.index(spec)] += 1
    return sums / counts


class Interval(TypedDict):
    """A mean and its 95% interval, ``[low, high]``."""

    mean: float
    ci95: list[float]


def interval(values: np.ndarray, seed: int) -> Interval:
    """Mean of per-deal-set ``values`` and its 95% percentile-bootstrap interval over deal sets."""
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(BOOTSTRAP, len(values)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"mean": float(values.mean()), "ci95": [float(low), float(high)]}


def ratings(labels: Sequence[str], records: Sequence[GameRecord]) -> dict[str, dict[str, float]]:
    """OpenSkill (Plackett-Luce) ratings of the bot specs ``labels`` from every game's ranking, games taken in the
    order given (an arena's report order).

    Each seat is a one-player team rated with its bot's current rating; a bot with several seats in a game gets
    the mean of their updated ratings.
    """
    from openskill.models import PlackettLuce  # only when reporting: keeps `luz` quick to start

    model = PlackettLuce()
    current = {spec: model.rating(name=spec) for spec in labels}
    for record in records:
        places = {seat: place for place, seat in enumerate(record.ranking)}
        teams = [[model.rating(mu=current[spec].mu, sigma=current[spec].sigma)] for spec in record.seats]
        rated = model.rate(teams, ranks=[places[seat] for seat in range(len(record.seats))])
        for spec in set(record.seats):
            mine = [team[0] for team, seated in zip(rated, record.seats, strict=True) if seated == spec]
            current[spec] = model.rating(
                mu=float(np.mean([r.mu for r in mine])), sigma=float(np.mean([r.sigma for r in mine])), name=spec
            )
    return {
        spec: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())} for spec, r in current.items()
    }


def bot_figures(config: ArenaConfig, records: Sequence[GameRecord], spec: str) -> dict[str, Any]:
    """Win rate, bids made, safety use and success, and decision times of one bot over all its seats."""
    edition = get_edition(config.edition)
    games = wins = deals = made = exact = safety = safety_made = 0
    times: list[float] = []
    for record in records:
        for seat, seated in enumerate(record.seats):
            if seated != spec:
                continue
            games += 1
            wins += record.winner == seat
            times.extend(record.seconds[seat])
            for deal in record.deals:
                bid, safe, tricks = deal["bids"][seat], deal["safety"][seat], deal["tricks"][seat]
                deals += 1
                hit = edition.made(bid, safe, tricks)
                made += hit
                exact += tricks == bid
                safety += safe
                safety_made += safe and hit
    seconds = np.array(times) if times else np.zeros(1)
    return {
        "seats_played": games,
        "win_rate": wins / games,
        "bids": deals,
        "made_rate": made / deals,
        "exact_rate": exact / deals,
        "safety_rate": safety / deals,
        "safety_success": safety_made / safety if safety else None,
        "decisions": len(times),
        "decision_ms": {
            "mean": float(seconds.mean() * 1000),
            "median": float(np.median(seconds) * 1000),
            "p95": float(np.percentile(seconds, 95) * 1000),
            "max": float(seconds.max() * 1000),
        },
    }


def summarise(config: ArenaConfig, records: Sequence[GameRecord]) -> dict[str, Any]:
    """The arena's figures: per bot, per pair of bots (row minus column), and ratings."""
    labels = config.labels()
    scores = deal_set_scores(config, records)
    bots = {}
    for b, spec in enumerate(labels):
        bots[spec] = {"score": interval(scores[:, b], config.seed), **bot_figures(config, records, spec)}
    pairs = []
    for a, first in enumerate(labels):
        for b, second in enumerate(labels[a + 1 :], start=a + 1):
            difference = interval(scores[:, a] - scores[:, b], config.seed)
            low, high = difference["ci95"]
            pairs.append({"bot": first, "against": second, **difference, "significant": low > 0 or high < 0})
    return {
        "config": {
            "bots": list(config.bots),
            "edition": config.edition,
            "players": config.players,
            "deal_sets": config.deal_sets,
            "games": len(records),
            "deals_played": sum(len(r.deals) for r in records),
            "distinct_deals": config.deal_sets * get_edition(config.edition).deals(config.players),
            "seed": config.seed,
            "orders": [list(order) for order in config.orders()],
        },
        "bots": bots,
        "pairs": pairs,
        "openskill": ratings(labels, records),
    }
