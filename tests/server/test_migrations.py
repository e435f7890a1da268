"""The Alembic migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from luz.server.db import Base, make_engine, migrate
from support.server import migrate_to


def test_the_migrations_match_the_models(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        migrate(engine)
        migrate(engine)  # a second run (another process starting) changes nothing
        with engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    finally:
        engine.dispose()
    assert differences == []


def test_migrating_from_0004_keeps_what_was_stored(database_url: str) -> None:
    """0005 (ratings), 0006 (clocks) and 0007 (chat) on a database at 0004 with a player, a finished table, its game
    and results: all kept; the table unrated and untimed, the results not abandoned, nobody rated, no chat; the new
    chat table takes a message."""
    from sqlalchemy import text

    from luz.server.store import Store

    engine = make_engine(database_url)
    try:
        migrate_to(engine, "0004")
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO players (id, name, username, password_hash, created_at)"
                    " VALUES ('p1', 'Ann', 'ann', 'hash', CURRENT_TIMESTAMP)"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO tables (id, name, edition, players, options, public, grace_seconds, status, game_no,"
                    " version, created_at, hints) VALUES ('t1', 'old', 'iello-2024', 3, '{}', true, 30, 'over', 1,"
                    " 9, CURRENT_TIMESTAMP, false)"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO seats (table_id, seat, kind, bot, name, token_hash, joined, player_id)"
                    " VALUES ('t1', 0, 'human', NULL, 'Ann', 'abc', true, 'p1')"
                )
            )
            connection.execute(
                text("INSERT INTO games (table_id, game_no, seed, started_at) VALUES ('t1', 1, 7, CURRENT_TIMESTAMP)")
            )
            connection.execute(
                text(
                    "INSERT INTO results (table_id, game_no, seat, player_id, kind, name, rank, points, deals,"
                    " exact_bids, safeties, against_bots, finished_at)"
                    " VALUES ('t1', 1, 0, 'p1', 'human', 'Ann', 1, 42, 5, 3, 1, true, CURRENT_TIMESTAMP)"
                )
            )
        migrate(engine)
        with engine.begin() as connection:
            assert connection.execute(text("SELECT name, username FROM players")).one() == ("Ann", "ann")
            assert connection.execute(text("SELECT version, status, rated FROM tables")).one() == (9, "over", False)
            assert connection.execute(text("SELECT player_id, name FROM seats")).one() == ("p1", "Ann")
            assert connection.execute(text("SELECT seed FROM games")).scalar_one() == 7
            assert connection.execute(text("SELECT player_id, rank, points, abandoned FROM results")).one() == (
                "p1",
                1,
                42,
                False,
            )
            assert connection.execute(text("SELECT COUNT(*) FROM ratings")).scalar_one() == 0
            assert connection.execute(text("SELECT COUNT(*) FROM rating_changes")).scalar_one() == 0
            assert connection.execute(text("SELECT count(*) FROM chat")).scalar_one() == 0
            connection.execute(
                text(
                    "INSERT INTO chat (table_id, game_no, channel, seat, player_id, name, text, created_at)"
                    " VALUES ('t1', 1, 'players', 0, 'p1', 'Ann', 'gg', CURRENT_TIMESTAMP)"
                )
            )
            assert connection.execute(text("SELECT id, text FROM chat")).one() == (1, "gg")
        state = Store(engine).load("t1")
        assert state is not None and (state.name, state.status, state.version, state.seed) == ("old", "over", 9, 7)
        assert state.time_control is None and state.clock is None
    finally:
        engine.dispose()
