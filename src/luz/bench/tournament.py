"""``luz bench tournament``: forming one round of a big duplicate Swiss tournament (``luz.server.tournament``: the
standings from every finished round, the pairing, the seats), against a reference in the same run: the least any
pairing does, the same players sorted by score and cut into tables. Timed in alternating slices."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from luz.server.tournament import Entry, meetings, pair, seats_held, standings


def history(players: list[str], size: int, rounds: int, seed: int) -> list[list[Entry]]:
    """``rounds`` finished rounds of random points, each seated by the pairing as a real tournament is."""
    rng = random.Random(seed)
    played: list[list[Entry]] = []
    for _ in range(rounds):
        order = [line.player for line in standings(players, played)]
        tables = pair(order, size, meetings(played), seats_held(played))
        played.append(
            [
                Entry(n, seat, player, rng.randint(-60, 120))
                for n, seated in enumerate(tables)
                for seat, player in enumerate(seated)
            ]
        )
    return played


def form(players: list[str], size: int, played: list[list[Entry]]) -> list[list[str | None]]:
    """What the server does to form the next round (tables/rounds.py), without the database."""
    order = [line.player for line in standings(players, played)]
    return pair(order, size, meetings(played), seats_held(played))


def reference(players: list[str], size: int, played: list[list[Entry]]) -> list[list[str]]:
    """The floor: the players sorted by their summed points, cut into tables in order."""
    totals = dict.fromkeys(players, 0)
    for entries in played:
        for entry in entries:
            if entry.player is not None:
                totals[entry.player] += entry.points
    order = sorted(players, key=lambda p: -totals[p])
    return [order[n : n + size] for n in range(0, len(order), size)]


def bench_tournament(
    tables: int = 64, size: int = 4, rounds: int = 8, repeats: int = 20, seed: int = 0
) -> dict[str, Any]:
    """Milliseconds to form round ``rounds + 1`` of ``tables`` tables of ``size`` (median of ``repeats``), the
    reference's, and their ratio."""
    players = [f"player-{n:04}" for n in range(tables * size)]
    played = history(players, size, rounds, seed)
    timed: dict[str, list[float]] = {"form": [], "reference": []}
    runs: dict[str, Callable[[], object]] = {
        "form": lambda: form(players, size, played),
        "reference": lambda: reference(players, size, played),
    }
    for _ in range(repeats):  # alternating: a noisy machine slows both alike
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            timed[name].append((time.perf_counter() - start) * 1000)
    formed = form(players, size, played)
    repeats_met = meetings(played)
    repeated = sum(
        repeats_met[frozenset((a, b))] > 0
        for seated in formed
        for i, a in enumerate(seated)
        for b in seated[i + 1 :]
        if a is not None and b is not None
    )
    form_ms, reference_ms = statistics.median(timed["form"]), statistics.median(timed["reference"])
    return {
        "tables": len(formed),
        "players": len(players),
        "size": size,
        "finished_rounds": rounds,
        "form_ms": round(form_ms, 3),
        "reference_ms": round(reference_ms, 3),
        "ratio": round(form_ms / reference_ms, 1),
        "under_1s": form_ms < 1000,
        "repeat_pairs": repeated,
        "reference_repeat_pairs": sum(
            repeats_met[frozenset((a, b))] > 0
            for seated in reference(players, size, played)
            for i, a in enumerate(seated)
            for b in seated[i + 1 :]
        ),
    }


def bench_door(tables: int = 64, size: int = 4) -> dict[str, Any]:
    """Seconds to form round 1 of ``tables`` tables through the server's door in this process, on SQLite in a
    temporary folder: the pairing, the round claimed with every table (one transaction), every table's players
    seated and its game started on the round's seed (a ``StartRound`` each, one transaction each)."""
    import secrets
    import tempfile
    from datetime import UTC, datetime

    from fastapi.testclient import TestClient
    from sqlalchemy import insert

    from luz.server import Settings, app_services, create_app
    from luz.server.db import PlayerRow, TournamentPlayerRow

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite:///{folder}/luz.sqlite3", bot_workers=0)
        app = create_app(settings)
        with TestClient(app) as client:
            services = app_services(app)
            portal = client.portal
            assert portal is not None
            tournament = services.tournaments.create(
                name="bench",
                edition="iello-2024",
                size=size,
                rounds=3,
                time_control={"reserve_ms": 300_000, "increment_ms": 15_000},
                rated=False,
                starts_at=None,
                capacity=tables * size,
                created_by=None,
            )
            stamp = datetime.now(UTC)
            with services.engine.begin() as connection:
                for n in range(tables * size):
                    player = secrets.token_hex(8)
                    connection.execute(insert(PlayerRow).values(id=player, name=f"p{n}", created_at=stamp))
                    connection.execute(
                        insert(TournamentPlayerRow).values(
                            tournament_id=tournament, player_id=player, lot=n, joined_at=stamp
                        )
                    )
            start = time.perf_counter()
            portal.call(services.rounds.form, tournament, 1)
            seconds = time.perf_counter() - start
            formed = len(services.tournaments.tables(tournament, 1))
    return {"door_tables": formed, "door_seconds": round(seconds, 3)}
