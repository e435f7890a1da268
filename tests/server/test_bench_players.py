"""``luz bench players`` runs end to end (figures are not checked: they belong to docs/BENCHMARKS.md), and its
bulk insert stores games that profiles read."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from luz.bench.players import bench_players, fill_history
from luz.server.db import make_engine, migrate
from luz.server.history import PROFILE_GAMES, profile


@pytest.mark.integration  # the bench runs the whole app in process on a SQLite file
def test_the_players_bench_measures_every_figure() -> None:
    report = bench_players(accounts=2, games=60, rated_games=5, reads=3)
    for key, count in (("register_ms", 2), ("login_ms", 2), ("rating_update_ms", 5), ("profile_ms", 3)):
        assert report[key]["count"] == count and report[key]["p50"] > 0, key
    assert report["profile_games_listed"] == PROFILE_GAMES


def test_the_bulk_history_is_what_a_profile_reads(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        migrate(engine)
        hero = fill_history(engine, games=30, others=10)
        found = profile(engine, hero)
        assert found is not None
        assert found["stats"]["all"]["games"] == 30 and len(found["games"]) == 30
        assert all(game["rating_change"] is not None for game in found["games"])
        [rating] = found["ratings"]
        assert rating["games"] == 30 and rating["provisional"] is False
        with engine.connect() as connection:
            assert connection.execute(text("SELECT COUNT(*) FROM results")).scalar_one() == 120
    finally:
        engine.dispose()
