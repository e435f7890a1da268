"""The review's calibration: its stated chances and expected points against what happened, in a mixed field.

Games are played by a field of bot kinds (:data:`FIELD`, rotated over the seats), which may include outside-style
bots the review never models (:mod:`luz.bots.outside`). Every seat's bids are reviewed, and one card decision in
``cards_every`` (:func:`luz.bots.review.values_batch`): each gives a **row**, the review's raw figures for the
action chosen (its stated chance, expected points, loss and its standard error, before the calibration map) and
what happened (the bid made, the card taking its trick; the deal's points). From rows, through a calibration map
(:mod:`luz.bots.review_calibration`, the shipped one unless another is given), reported for bids and for cards:

- the stated chance against the frequency, in deciles, with the expected calibration error (the mean of
  ``|mean stated - frequency|`` over the deciles, weighted by their counts), the bias (mean stated - frequency,
  with a 95% interval over games), the Brier score against the base rate's (always stating the frequency);
- the mean expected points of the chosen actions against the points they scored, with a 95% interval over games
  (the rows of one game share its deals);
- the same by bot kind; and the raw figures (the identity map), for comparison;
- full reviews (every decision) of every seat of the first ``full_games`` games: their time (p50, p95), and the
  share of each kind's decisions best within the noise and given each label.

The map is fitted on the rows of some games (``luz bench review --rows FIT`` then ``luz bench review-fit FIT``)
and measured on the rows of others (``luz bench review --rows HELD``, or ``luz bench review-score HELD``).
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from luz.bots import make_arena_bot, play_out
from luz.bots.review import (
    LABELS,
    ReviewSettings,
    batch_count,
    decisions,
    is_forced,
    label_of,
    raw_values,
    review_game,
    values_batch,
)
from luz.bots.review_calibration import Calibration, shipped_calibration
from luz.engine import Bid, Game, get_edition, replay, to_record

FIELD = ("random", "heuristic", "strong", "expert", "pimc", "counter")
"""The bot kinds of the default field, rotated (seat ``s`` of game ``g`` plays ``FIELD[(s + g) % len(FIELD)]``):
the project's levels and two outside-style bots the review never models."""
DECILES = 10
CARDS_EVERY = 3
"""One card decision in this many is reviewed (chosen by a hash of its place, the same for every field)."""


def field_of(game_number: int, players: int, field: tuple[str, ...] = FIELD) -> list[str]:
    """The bot kind of each seat in game ``game_number``."""
    return [field[(seat + game_number) % len(field)] for seat in range(players)]


def play_game(
    edition: str, players: int, seed: int, number: int, field: tuple[str, ...] = FIELD
) -> tuple[dict[str, Any], list[str]]:
    """Game ``number`` of the bench played by the field: its record and the kind at each seat."""
    kinds = field_of(number, players, field)
    game = Game.new(edition, players=players, seed=seed * 1_000_003 + number)
    play_out(game, [make_arena_bot(kind) for kind in kinds], random.Random(f"bench-review/{seed}/{number}"))
    return to_record(game), kinds


def decision_rows(
    record: dict[str, Any], kinds: list[str], settings: ReviewSettings, cards_every: int = CARDS_EVERY
) -> list[dict[str, Any]]:
    """One row per reviewed decision of every seat (every bid, one card in ``cards_every``): the review's raw
    figures for the action chosen and what happened. A forced decision's row has only its place."""
    game = replay(record)
    edition = game.edition
    rows = []
    for seat, kind in enumerate(kinds):
        for decision in decisions(record, seat):
            bidding = isinstance(decision.chosen, Bid)
            if not bidding and _hashed(f"{seat}/{decision.key}") % cards_every:
                continue
            row: dict[str, Any] = {
                "seat": seat, "bot": kind, "deal": decision.deal + 1, "kind": "bid" if bidding else "play",
                "forced": is_forced(decision.seen), "penalty": edition.miss_penalty,
            }  # fmt: skip
            if not row["forced"]:
                seen = decision.seen
                batches = [values_batch(seen, settings, decision.key, b) for b in range(batch_count(settings))]
                actions, points, chances = raw_values(batches)
                legal = [actions.index(a) for a in seen.legal_actions]
                mine = actions.index(decision.chosen)
                best = max(legal, key=lambda a: (points[a].mean(), a == mine))
                difference = points[best] - points[mine]
                result = game.results[decision.deal]
                row.update(
                    raw_stated=float(chances[mine].mean()),
                    raw_expected=float(points[mine].mean()),
                    raw_loss=float(difference.mean()),
                    raw_se=float(difference.std(ddof=1) / math.sqrt(points.shape[1])),
                    scored=result.scores[seat],
                    maximum=result.scores[seat] == game.options.made_points[decision.deal],
                    made=(
                        edition.made(decision.chosen.tricks, decision.chosen.safety, result.tricks[seat])
                        if isinstance(decision.chosen, Bid)
                        else _took_trick(record, decision.step, seen, result.tricks[seat])
                    ),
                )
            rows.append(row)
    return rows


def _took_trick(record: dict[str, Any], step: int, seen: Any, deal_tricks: int) -> bool:
    """Whether the card played at ``step`` (from the view ``seen``) took its trick."""
    seat, won = seen.seat, seen.tricks_won[seen.seat]
    if sum(seen.tricks_won) == 9:  # the deal's last trick: the score sheet says
        return bool(deal_tricks > won)
    after = replay(record, upto=step + seen.players - len(seen.trick.plays))
    return bool(after.tricks_won[seat] > won)


def _hashed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def calibrated(rows: list[dict[str, Any]], calibration: Calibration) -> list[dict[str, Any]]:
    """The unforced rows with their figures through ``calibration``: ``stated``, ``expected``, ``loss``, ``label``."""
    out = []
    for row in rows:
        if row["forced"]:
            continue
        penalty = row["penalty"]
        slope = calibration.line(row["kind"])[0]
        loss, se = row["raw_loss"] * slope, row["raw_se"] * slope
        least = {label: share * penalty for label, share in LABELS}
        out.append({
            **row,
            "stated": float(calibration.chance(row["kind"], np.array([row["raw_stated"]]))[0]),
            "expected": float(calibration.points(row["kind"], np.array(row["raw_expected"]), penalty)),
            "loss": loss,
            "label": label_of(loss, se, least),
            "accuracy": calibration.accuracy(loss, penalty),
        })  # fmt: skip
    return out


def deciles(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stated chance against frequency in deciles of the stated chance (a chance of 1 in the last)."""
    table = []
    for k in range(DECILES):
        inside = [r for r in rows if min(int(r["stated"] * DECILES), DECILES - 1) == k]
        table.append({
            "range": [k / DECILES, (k + 1) / DECILES],
            "count": len(inside),
            "mean_stated": _mean([r["stated"] for r in inside]),
            "made_frequency": _mean([float(r["made"]) for r in inside]),
        })  # fmt: skip
    return table


def calibration_error(table: list[dict[str, Any]]) -> float | None:
    """The expected calibration error: ``|mean stated - made frequency|`` over the deciles, weighted by count."""
    total: int = sum(d["count"] for d in table)
    if not total:
        return None
    weighted: float = sum(d["count"] * abs(d["mean_stated"] - d["made_frequency"]) for d in table if d["count"])
    return weighted / total


def clustered_mean(values: np.ndarray, games: np.ndarray) -> tuple[float, list[float] | None]:
    """The mean of ``values`` and its 95% interval with the games as independent units."""
    mean = float(values.mean())
    sums = np.array([(values[games == g] - mean).sum() for g in np.unique(games)])
    clusters = len(sums)
    if clusters < 2:
        return mean, None
    se = math.sqrt(clusters / (clusters - 1) * float((sums**2).sum())) / len(values)
    return mean, [mean - 1.96 * se, mean + 1.96 * se]


def clustered_difference(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean points scored minus mean expected points, with a 95% interval over games as independent units."""
    if not rows:
        return {"expected": None, "scored": None, "difference": None, "ci95": None}
    differences = np.array([r["scored"] - r["expected"] for r in rows], dtype=np.float64)
    mean, interval = clustered_mean(differences, np.array([r["game"] for r in rows]))
    return {
        "expected": _mean([r["expected"] for r in rows]),
        "scored": _mean([float(r["scored"]) for r in rows]),
        "difference": mean,
        "ci95": interval,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Calibration figures of some reviewed (unforced, calibrated) rows of one kind."""
    if not rows:
        return {"bids": 0, "ece": None, "deciles": deciles(rows), "points": clustered_difference(rows)}
    table = deciles(rows)
    stated = np.array([r["stated"] for r in rows])
    made = np.array([float(r["made"]) for r in rows])
    bias, interval = clustered_mean(stated - made, np.array([r["game"] for r in rows]))
    base = float(made.mean())
    return {
        "bids": len(rows),
        "mean_stated": float(stated.mean()),
        "made_frequency": base,
        "ece": calibration_error(table),
        "bias": bias,
        "bias_ci95": interval,
        "brier": float(((stated - made) ** 2).mean()),
        "base_rate_brier": float(((base - made) ** 2).mean()),
        "points": clustered_difference(rows),
        "deciles": table,
    }


def score_rows(
    rows: list[dict[str, Any]], field: tuple[str, ...], calibration: Calibration | None = None
) -> dict[str, Any]:
    """Bids' and cards' figures from bench rows through ``calibration`` (default: the shipped map), with the raw
    ones; validity figures: mean loss and accuracy per decision by bot kind, expert bids at the deal's maximum
    labelled blunders."""
    calibration = calibration or shipped_calibration()
    through = calibrated(rows, calibration)
    raw = calibrated(rows, Calibration())
    bids = [r for r in through if r["kind"] == "bid"]
    cards = [r for r in through if r["kind"] == "play"]
    maxima = [r for r in bids if r["bot"] == "expert" and r["maximum"]]
    return {
        "forced_bids": sum(r["forced"] for r in rows if r["kind"] == "bid"),
        **summary(bids),
        "by_kind": {kind: summary([r for r in bids if r["bot"] == kind]) for kind in dict.fromkeys(field)},
        "cards": summary(cards),
        "raw": {
            "bids": summary([r for r in raw if r["kind"] == "bid"]),
            "cards": summary([r for r in raw if r["kind"] == "play"]),
        },
        "validity": {kind: _validity([r for r in through if r["bot"] == kind]) for kind in dict.fromkeys(field)},
        "expert_maximum_bids": len(maxima),
        "expert_maximum_blunders": sum(r["label"] == "blunder" for r in maxima),
        "calibration": calibration.fitted_on,
    }


def _validity(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean loss per reviewed decision (95% interval over games) and mean accuracy."""
    if not rows:
        return {"decisions": 0}
    mean, interval = clustered_mean(np.array([r["loss"] for r in rows]), np.array([r["game"] for r in rows]))
    return {
        "decisions": len(rows),
        "mean_loss": mean,
        "ci95": interval,
        "accuracy": _mean([r["accuracy"] for r in rows]),
    }


def full_review_figures(
    reviews: list[tuple[str, dict[str, Any], float]], field: tuple[str, ...] = FIELD
) -> dict[str, Any]:
    """Per kind: full reviews' decisions, share best within the noise, share of each label; and their times."""
    kinds: dict[str, Any] = {}
    for kind in dict.fromkeys(field):
        mine = [review for k, review, _ in reviews if k == kind]
        counted = [d for review in mine for d in review["decisions"] if not d["forced"]]
        if not mine:
            continue
        kinds[kind] = {
            "games": len(mine),
            "decisions": len(counted),
            "best_within_noise": _mean([float(d["best_within_noise"]) for d in counted]),
            "labels": {label: _mean([float(d["label"] == label) for d in counted]) for label, _ in LABELS},
            "expected_lost_per_game": _mean([review["game"]["expected_lost"] for review in mine]),
            "accuracy": _mean(
                [review["game"]["accuracy"] for review in mine if review["game"]["accuracy"] is not None]
            ),
        }
    seconds = np.array([s for _, _, s in reviews]) if reviews else None
    return {
        "reviews": len(reviews),
        "seconds_p50": None if seconds is None else float(np.percentile(seconds, 50)),
        "seconds_p95": None if seconds is None else float(np.percentile(seconds, 95)),
        "by_kind": kinds,
    }


def bench_review(
    games: int = 250,
    worlds: int | None = None,
    seed: int = 0,
    edition: str = "iello-2024",
    players: int = 4,
    full_games: int = 4,
    full_worlds: int | None = None,
    field: tuple[str, ...] = FIELD,
    progress: Callable[[str], None] | None = None,
    cards_every: int = CARDS_EVERY,
    rows_out: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games with the field and review every seat's bids and one card in ``cards_every``
    (``worlds`` per decision, default the review's; each row handed to ``rows_out`` too); fully review every seat
    of the first ``full_games`` of them (``full_worlds`` per decision, default the review's). ``field``: the bot
    specs (any arena bot: :func:`luz.bots.make_arena_bot`), rotated over the seats."""
    get_edition(edition)
    settings = ReviewSettings() if worlds is None else ReviewSettings(worlds=worlds)
    full_settings = ReviewSettings() if full_worlds is None else ReviewSettings(worlds=full_worlds)
    rows: list[dict[str, Any]] = []
    full: list[tuple[str, dict[str, Any], float]] = []
    deals = 0
    began = time.perf_counter()
    for number in range(games):
        record, kinds = play_game(edition, players, seed, number, field)
        deals += len(record["deals"])
        fresh = [{**row, "game": number, "seed": seed} for row in decision_rows(record, kinds, settings, cards_every)]
        for row in fresh:
            if rows_out:
                rows_out(row)
        rows += fresh
        if number < full_games:
            for seat, kind in enumerate(kinds):
                start = time.perf_counter()
                review = review_game(record, seat, full_settings)
                full.append((kind, review, time.perf_counter() - start))
        if progress and (number + 1) % 10 == 0:
            progress(f"{number + 1}/{games} games, {len(rows)} rows, {time.perf_counter() - began:.0f} s")
    return {
        "benchmark": "review calibration",
        "edition": edition,
        "players": players,
        "field": list(field),
        "games": games,
        "deals": deals,
        "seed": seed,
        "settings": {"worlds": settings.worlds, "oversample": settings.oversample, "seed": settings.seed},
        "cards_every": cards_every,
        **score_rows(rows, field),
        "full_reviews": {"worlds": full_settings.worlds, **full_review_figures(full, field)},
        "seconds": time.perf_counter() - began,
    }


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def server_review_times(games: int, worlds: int | None = None, players: int = 4) -> dict[str, Any]:
    """Seconds from asking a server for a review to reading it: ``games`` games of heuristic bots played at a real
    server (the app with one bot process, on a temporary SQLite database), each reviewed for seat 0 through
    ``POST``/``GET /api/tables/{id}/games/1/review`` (``worlds`` per decision, default the server's)."""
    import tempfile
    import warnings

    with warnings.catch_warnings():  # starlette's note on its httpx dependency, for its own tests
        warnings.simplefilter("ignore", DeprecationWarning)
        from fastapi.testclient import TestClient

    from luz.server import Settings, create_app

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite:///{folder}/luz.sqlite3", bot_workers=1, messages_per_second=10_000)
        if worlds is not None:
            settings = replace(settings, review_worlds=worlds)
        times = []
        with TestClient(create_app(settings)) as client:
            session = {"X-Luz-Session": client.post("/api/me/guest").json()["session"]}
            for _ in range(games):
                spec = {"players": players, "seats": [{"kind": "bot", "bot": "heuristic"}] * players}
                table_id = client.post("/api/tables", json=spec).json()["table"]["id"]
                while client.get(f"/api/tables/{table_id}").json()["status"] != "over":
                    time.sleep(0.05)
                path = f"/api/tables/{table_id}/games/1/review?seat=0"
                start = time.perf_counter()
                client.post(path, headers=session).raise_for_status()
                while client.get(path).status_code != 200:
                    time.sleep(0.02)
                times.append(time.perf_counter() - start)
    seconds = np.array(times)
    return {
        "reviews": games,
        "worlds": settings.review_worlds,
        "seconds_p50": float(np.percentile(seconds, 50)),
        "seconds_p95": float(np.percentile(seconds, 95)),
    }
