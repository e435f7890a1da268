"""``luz bench daily``: a day's daily results (``GET /api/daily/{edition}/results``: the scores' histogram, the
best players, guests, the bids, your rank, percentile and share text) read from a database holding ``results``
finished attempts of that day, against the reference of one attempt read by its key in the same run."""

from __future__ import annotations

import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from luz.bench.server import percentiles

DAY = date(2026, 12, 6)
EDITION = "iello-2024"


def fill(engine: Any, results: int, seed: int = 0) -> str:
    """Store ``results`` finished attempts of ``DAY`` (one guest in ten, unranked), their scores and bids counted
    as settling them would; returns the player id of the one whose results are read."""
    from sqlalchemy import insert

    from luz.server.db import DailyAttemptRow, DailyBidRow, DailyScoreRow, PlayerRow

    rng = random.Random(seed)
    scores = [rng.randint(-60, 100) for _ in range(results)]
    players = [{"id": f"p{n:07d}", "name": f"player {n}"} for n in range(results)]
    attempts = [
        {
            "day": DAY.isoformat(),
            "edition": EDITION,
            "player_id": p["id"],
            "name": p["name"],
            "guest": n % 10 == 0,  # one in ten: guests, never ranked
            "table_id": f"{n:016x}",
            "status": "finished",
            "ranked": n % 10 != 0,
            "score": scores[n],
            "marks": ",".join(rng.choice(("made", "missed", "safety")) for _ in range(4)),
            "started_at": 0.0,
        }
        for n, p in enumerate(players)
    ]
    bids = [
        {"day": DAY.isoformat(), "edition": EDITION, "deal": deal, "bid": bid, "safety": safety, "players": 1 + bid}
        for deal in range(1, 5)
        for bid in range(11)
        for safety in (False, True)
    ]
    with engine.begin() as connection:
        for start in range(0, results, 10_000):
            connection.execute(insert(PlayerRow), players[start : start + 10_000])
            connection.execute(insert(DailyAttemptRow), attempts[start : start + 10_000])
        connection.execute(insert(DailyBidRow), bids)
        counts = Counter(score for n, score in enumerate(scores) if n % 10 != 0)  # the ranked ones
        rows = [{"day": DAY.isoformat(), "edition": EDITION, "score": s, "players": n} for s, n in counts.items()]
        connection.execute(insert(DailyScoreRow), rows)
    return str(players[min(results - 1, results // 2 + 1)]["id"])  # an account (every tenth is a guest)


def analyze(engine: Any) -> None:
    """Give PostgreSQL's planner the statistics of the rows just stored, as autovacuum gives a database that has run
    a while: freshly bulk-filled, it has none, and looked one attempt up by the ``daily_board`` index (day, edition:
    the whole day's rows) instead of a unique one, 300 ms a read."""
    from sqlalchemy import text

    with engine.begin() as connection:
        connection.execute(text("ANALYZE"))


def timed(read: Callable[[], object], count: int) -> dict[str, Any]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        read()
        times.append(time.perf_counter() - started)
    return percentiles(times)


def bench_daily(results: int, reads: int, database_url: str | None = None) -> dict[str, Any]:
    """Figures of ``reads`` reads of the day's results with ``results`` attempts stored, and as many reads of one
    attempt by its key (the reference), on ``database_url`` (an empty database; default: a new SQLite file)."""
    from luz.server.api.daily import GUESTS, LEADERS, results_json
    from luz.server.daily_records import DailyRecords
    from luz.server.db import make_engine, migrate

    with tempfile.TemporaryDirectory(prefix="luz-bench-daily-") as folder:
        url = database_url or f"sqlite:///{Path(folder) / 'luz.sqlite3'}"
        engine = make_engine(url)
        try:
            migrate(engine)
            started = time.perf_counter()
            player = fill(engine, results)
            filled = time.perf_counter() - started
            if engine.dialect.name == "postgresql":
                analyze(engine)
            records = DailyRecords(engine)
            key = DAY.isoformat()

            def board() -> dict[str, Any]:
                attempt = records.attempt(key, EDITION, player)
                return results_json(records.board(key, EDITION, LEADERS, GUESTS), attempt, DAY, EDITION)

            answer = board()
            timed(board, max(1, reads // 10))  # warm
            leaderboard = timed(board, reads)
            reference = timed(lambda: records.attempt(key, EDITION, player), reads)
        finally:
            engine.dispose()
    p99, base = leaderboard["p99"], reference["p99"]
    return {
        "database": engine.dialect.name,
        "results": results,
        "fill_seconds": round(filled, 1),
        "leaderboard_ms": leaderboard,
        "reference_ms": reference,
        "ratio_p99_leaderboard_over_reference": round(p99 / base, 1) if p99 and base else None,
        "players_ranked": answer["players"],
        "your_percentile": answer["you"]["percentile"],
    }
