"""The review's calibration: its stated chances and expected points against what happened, in a mixed field.

Games are played by a field of several bot kinds (:data:`FIELD`, a seat each, rotated by one seat a game). Every
seat's bid decisions are reviewed (:func:`luz.bots.review.review_decision`, cards are not needed for this figure):
the review states, for the bid chosen, its chance of being made and its expected points for the deal; the deal
then says whether it was made and what it scored. Reported:

- the stated chance against the made frequency, in deciles of the stated chance, and the expected calibration
  error (the mean of ``|mean stated - made frequency|`` over the deciles, weighted by their bids);
- the mean expected points of the chosen bids against the mean points they scored, and their difference with a
  95% confidence interval that takes the games as the independent units (the bids of one game share its deals);
- the same by bot kind;
- full reviews (every decision) of every seat of the first ``full_games`` games: their time (p50, p95), and the
  share of each kind's decisions best within the noise and given each label.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from luz.bots import make_bot, play_out
from luz.bots.review import LABELS, ReviewSettings, decisions, review_decision, review_game
from luz.engine import Bid, Game, replay, to_record

FIELD = ("random", "heuristic", "strong", "expert")
"""The bot kinds of the default field, one a seat, rotated (seat ``s`` of game ``g`` plays ``FIELD[(s + g) % 4]``)."""
DECILES = 10


def field_of(game_number: int, players: int, field: tuple[str, ...] = FIELD) -> list[str]:
    """The bot kind of each seat in game ``game_number``."""
    return [field[(seat + game_number) % len(field)] for seat in range(players)]


def play_game(
    edition: str, players: int, seed: int, number: int, field: tuple[str, ...] = FIELD
) -> tuple[dict[str, Any], list[str]]:
    """Game ``number`` of the bench played by the field: its record and the kind at each seat."""
    kinds = field_of(number, players, field)
    game = Game.new(edition, players=players, seed=seed * 1_000_003 + number)
    play_out(game, [make_bot(kind) for kind in kinds], random.Random(f"bench-review/{seed}/{number}"))
    return to_record(game), kinds


def bid_rows(record: dict[str, Any], kinds: list[str], settings: ReviewSettings) -> list[dict[str, Any]]:
    """One row per reviewed bid of every seat: stated chance and expected points, made and points scored."""
    game = replay(record)
    edition = game.edition
    rows = []
    for seat, kind in enumerate(kinds):
        for decision in decisions(record, seat):
            if not isinstance(decision.chosen, Bid):
                continue
            review = review_decision(decision.seen, decision.chosen, settings, f"{decision.deal}:{decision.index}")
            result = game.results[decision.deal]
            bid = decision.chosen
            row: dict[str, Any] = {"seat": seat, "kind": kind, "deal": decision.deal + 1, "forced": review["forced"]}
            if not review["forced"]:
                chosen = next(o for o in review["options"] if o["action"] == review["action"])
                row.update(
                    stated=chosen["chance"],
                    expected=chosen["points"],
                    made=edition.made(bid.tricks, bid.safety, result.tricks[seat]),
                    scored=result.scores[seat],
                    label=review["label"],
                )
            rows.append(row)
    return rows


def deciles(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stated chance against made frequency in deciles of the stated chance (a chance of 1 in the last)."""
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


def clustered_difference(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean points scored minus mean expected points, with a 95% interval over games as independent units."""
    if not rows:
        return {"expected": None, "scored": None, "difference": None, "ci95": None}
    differences = np.array([r["scored"] - r["expected"] for r in rows], dtype=np.float64)
    games = np.array([r["game"] for r in rows])
    mean = float(differences.mean())
    sums = np.array([(differences[games == g] - mean).sum() for g in np.unique(games)])
    clusters = len(sums)
    se = math.sqrt(clusters / (clusters - 1) * float((sums**2).sum())) / len(rows) if clusters > 1 else math.nan
    return {
        "expected": _mean([r["expected"] for r in rows]),
        "scored": _mean([float(r["scored"]) for r in rows]),
        "difference": mean,
        "ci95": [mean - 1.96 * se, mean + 1.96 * se] if clusters > 1 else None,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Calibration figures of some reviewed (unforced) bids."""
    table = deciles(rows)
    return {
        "bids": len(rows),
        "mean_stated": _mean([r["stated"] for r in rows]),
        "made_frequency": _mean([float(r["made"]) for r in rows]),
        "ece": calibration_error(table),
        "points": clustered_difference(rows),
        "deciles": table,
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
) -> dict[str, Any]:
    """Play ``games`` games with the field and review every seat's bids (``worlds`` per decision, default the
    review's); fully review every seat of the first ``full_games`` of them (``full_worlds`` per decision, default
    the review's). ``field``: the bot specs, rotated over the seats."""
    settings = ReviewSettings() if worlds is None else ReviewSettings(worlds=worlds)
    full_settings = ReviewSettings() if full_worlds is None else ReviewSettings(worlds=full_worlds)
    rows: list[dict[str, Any]] = []
    full: list[tuple[str, dict[str, Any], float]] = []
    deals = 0
    began = time.perf_counter()
    for number in range(games):
        record, kinds = play_game(edition, players, seed, number, field)
        deals += len(record["deals"])
        rows += [{**row, "game": number} for row in bid_rows(record, kinds, settings)]
        if number < full_games:
            for seat, kind in enumerate(kinds):
                start = time.perf_counter()
                review = review_game(record, seat, full_settings)
                full.append((kind, review, time.perf_counter() - start))
        if progress and (number + 1) % 10 == 0:
            progress(f"{number + 1}/{games} games, {len(rows)} bids, {time.perf_counter() - began:.0f} s")
    counted = [r for r in rows if not r["forced"]]
    return {
        "benchmark": "review calibration",
        "edition": edition,
        "players": players,
        "field": list(field),
        "games": games,
        "deals": deals,
        "seed": seed,
        "settings": {"worlds": settings.worlds, "oversample": settings.oversample, "seed": settings.seed},
        "forced_bids": len(rows) - len(counted),
        **summary(counted),
        "by_kind": {kind: summary([r for r in counted if r["kind"] == kind]) for kind in dict.fromkeys(field)},
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
