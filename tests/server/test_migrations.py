"""The Alembic migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from luz.server.db import Base, make_engine, migrate


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


def test_clocks_migration_keeps_the_tables_stored_before_it(database_url: str) -> None:
    """0006 (clocks) on a database at 0004 with a table in play: the table, its seats and actions are kept, and it
    stays untimed."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from luz.server.db import MIGRATIONS
    from luz.server.store import Store

    engine = make_engine(database_url)
    try:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0004")
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO tables (id, name, edition, players, options, public, grace_seconds, hints, status,"
                    " game_no, version, created_at) VALUES ('old', 'Old table', 'iello-2024', 3, '{}', true, 30,"
                    " false, 'playing', 1, 5, CURRENT_TIMESTAMP)"
                )
            )
            for seat in range(3):
                connection.execute(
                    text(
                        "INSERT INTO seats (table_id, seat, kind, name, joined) VALUES ('old', :s, 'human', :n, true)"
                    ),
                    {"s": seat, "n": f"p{seat}"},
                )
            connection.execute(
                text("INSERT INTO games (table_id, game_no, seed, started_at) VALUES ('old', 1, 7, CURRENT_TIMESTAMP)")
            )
        migrate(engine)
        state = Store(engine).load("old")
    finally:
        engine.dispose()
    assert state is not None
    assert (state.name, state.status, state.version, state.seed) == ("Old table", "playing", 5, 7)
    assert [s.name for s in state.seats] == ["p0", "p1", "p2"]
    assert state.time_control is None and state.clock is None
