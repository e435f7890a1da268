"""Players' figures: register and login latency, the rating update of a finished game, and the profile and
leaderboard answers with many games stored (``luz bench players``).

The server runs in this process (FastAPI's test client: no network, one process), on SQLite in a temporary
folder or on the PostgreSQL database given (the bench writes there: give it a throwaway one). The login limit
(10 attempts a minute) is lifted for the run: the bench measures the time of a login, not the limit.
:func:`fill_history` is the bulk insert of finished games (results, rated-game changes and ratings) that the
profile and leaderboard figures run over.
"""

from __future__ import annotations

import random
import secrets
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlalchemy.engine import Engine

from luz.bench.server import percentiles
from luz.server.db import GameRow, PlayerRow, RatingChangeRow, RatingRow, ResultRow, TableRow, make_engine
from luz.server.ratings import model, rate_game

CHUNK = 2_000


def fill_history(engine: Engine, games: int, others: int = 200, seed: int = 0) -> str:
    """Store ``games`` finished, rated 4-player games (IELLO 2024: tables, games, results, rating changes) of one
    player against three of ``others`` accounts each, and everybody's ratings; returns that player's id.
    Bulk inserts, a few thousand rows a statement."""
    rng = random.Random(seed)
    stamp = datetime.now(UTC)
    ids = [secrets.token_hex(8) for _ in range(others + 1)]
    hero = ids[0]
    players = [
        {"id": p, "name": f"Bench {n}", "username": f"bench{n}-{p[:6]}", "password_hash": None, "created_at": stamp}
        for n, p in enumerate(ids)
    ]
    mu = {p: 25.0 for p in ids}
    tables: list[dict[str, Any]] = []
    game_rows: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for number in range(games):
        table_id = f"b{number:015x}"
        finished = stamp - timedelta(minutes=games - number)
        seated = [hero, *rng.sample(ids[1:], 3)]
        rng.shuffle(seated)
        ranking = rng.sample(range(4), 4)
        tables.append(
            {
                "id": table_id,
                "name": "bench",
                "edition": "iello-2024",
                "players": 4,
                "options": {},
                "public": False,
                "grace_seconds": 30.0,
                "hints": False,
                "rated": True,
                "status": "over",
                "game_no": 1,
                "version": 200,
                "created_at": finished,
            }
        )
        game_rows.append({"table_id": table_id, "game_no": 1, "seed": number, "started_at": finished})
        for seat, player in enumerate(seated):
            place = ranking.index(seat) + 1
            results.append(
                {
                    "table_id": table_id,
                    "game_no": 1,
                    "seat": seat,
                    "player_id": player,
                    "kind": "human",
                    "name": "bench",
                    "rank": place,
                    "points": rng.randint(-60, 60),
                    "deals": 4,
                    "exact_bids": rng.randint(0, 4),
                    "safeties": rng.randint(0, 2),
                    "against_bots": False,
                    "abandoned": False,
                    "finished_at": finished,
                }
            )
            after = mu[player] + (2.5 - place) * 0.2
            changes.append(
                {
                    "table_id": table_id,
                    "game_no": 1,
                    "player_id": player,
                    "edition": "iello-2024",
                    "players": 4,
                    "place": place,
                    "mu_before": mu[player],
                    "sigma_before": 3.0,
                    "mu_after": after,
                    "sigma_after": 3.0,
                    "created_at": finished,
                }
            )
            mu[player] = after
    counts = {p: 0 for p in ids}
    for result in results:
        counts[result["player_id"]] += 1
    ratings = [
        {
            "player_id": p,
            "edition": "iello-2024",
            "players": 4,
            "mu": mu[p],
            "sigma": 3.0,
            "games": counts[p],
            "updated_at": stamp,
        }
        for p in ids
        if counts[p]
    ]
    with engine.begin() as connection:
        for row, rows in (
            (PlayerRow, players),
            (TableRow, tables),
            (GameRow, game_rows),
            (ResultRow, results),
            (RatingChangeRow, changes),
            (RatingRow, ratings),
        ):
            for start in range(0, len(rows), CHUNK):
                connection.execute(insert(row), rows[start : start + CHUNK])
    return hero


def _timed(call: Callable[[], Any], times: int) -> list[float]:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def bench_players(
    database_url: str | None = None,
    accounts: int = 20,
    games: int = 10_000,
    rated_games: int = 200,
    reads: int = 50,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The figures: register and login (``accounts`` of each), ``rated_games`` rating updates (4 players, each in
    its own transaction, CPU time too), then ``reads`` profile and leaderboard answers with ``games`` stored."""
    from fastapi.testclient import TestClient

    from luz.server import Settings, app_services, create_app
    from luz.server.ratelimit import SharedRateLimit

    say = progress or (lambda message: None)
    with tempfile.TemporaryDirectory() as folder:
        url = database_url or f"sqlite:///{Path(folder) / 'luz.sqlite3'}"
        settings = Settings(database_url=url, bot_workers=0, guests_per_minute=None)
        report: dict[str, Any] = {"database": make_engine(url).dialect.name, "accounts": accounts, "games": games}
        app = create_app(settings)
        with TestClient(app) as client:
            app_services(app).identities.logins = SharedRateLimit(f"{10**9}/minute")
            say(f"register and log in {accounts} accounts")
            names = [f"b{secrets.token_hex(5)}" for _ in range(accounts)]
            registers, logins = [], []
            for name in names:
                client.cookies.clear()  # each account a client of its own, by header
                session = client.post("/api/me/guest").json()["session"]
                body = {"username": name, "password": "correct horse battery"}
                start = time.perf_counter()
                answer = client.post("/api/account/register", json=body, headers={"X-Luz-Session": session})
                registers.append(time.perf_counter() - start)
                assert answer.status_code == 201, answer.text
            for name in names:
                client.cookies.clear()
                body = {"username": name, "password": "correct horse battery"}
                start = time.perf_counter()
                answer = client.post("/api/account/login", json=body, headers={"X-Luz-Session": ""})
                logins.append(time.perf_counter() - start)
                assert answer.status_code == 200, answer.text
            report["register_ms"], report["login_ms"] = percentiles(registers), percentiles(logins)

            engine: Engine = app_services(app).engine
            say(f"store {games:,} finished games")
            start = time.perf_counter()
            hero = fill_history(engine, games)
            report["fill_seconds"] = round(time.perf_counter() - start, 1)

            say(f"{rated_games} rating updates")
            pool = [secrets.token_hex(8) for _ in range(40)]
            with engine.begin() as connection:
                connection.execute(
                    insert(PlayerRow),
                    [{"id": p, "name": "r", "username": f"r-{p}", "created_at": datetime.now(UTC)} for p in pool],
                )
            rng = random.Random(1)
            model()  # imported and built before the clock starts
            updates, cpu = [], time.process_time()
            for number in range(rated_games):
                seated = rng.sample(pool, 4)
                ranks = rng.sample(range(1, 5), 4)
                results = [
                    {"player_id": p, "kind": "human", "rank": r, "abandoned": False}
                    for p, r in zip(seated, ranks, strict=True)
                ]
                start = time.perf_counter()
                with engine.begin() as connection:
                    rate_game(connection, f"r{number:015x}", 1, "iello-2024", 4, results)
                updates.append(time.perf_counter() - start)
            report["rating_update_ms"] = percentiles(updates)
            report["rating_update_cpu_ms_mean"] = round((time.process_time() - cpu) * 1000 / rated_games, 3)

            say(f"{reads} profile and leaderboard reads")
            client.get(f"/api/players/{hero}")  # a first read warms the database's caches
            profile = _timed(lambda: client.get(f"/api/players/{hero}").raise_for_status(), reads)
            leaderboard = "/api/leaderboard?edition=iello-2024&players=4"
            board = _timed(lambda: client.get(leaderboard).raise_for_status(), reads)
            report["profile_ms"], report["leaderboard_ms"] = percentiles(profile), percentiles(board)
            report["profile_games_listed"] = len(client.get(f"/api/players/{hero}").json()["games"])
    return report
