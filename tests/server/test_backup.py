"""``luz backup`` and ``luz restore`` (docs/DEPLOY.md, "Backups"): a game in progress backed up while the real server
runs, the database lost, restored, and the table resumed where it was; and each command's refusals, one line each.

Slow (server starts take seconds): marked ``slow``.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
from pathlib import Path

import httpx
import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory

from luz.server.db import MIGRATIONS, make_engine, migrate
from support.server import (
    LUZ,
    Message,
    ServerProcess,
    Truth,
    WirePeer,
    action_log,
    assert_stored,
    create_joined,
    migrate_to,
    open_store,
    play_wire,
    seats,
)

pytestmark = pytest.mark.slow


def head_revision() -> str:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return str(ScriptDirectory.from_config(config).get_current_head())


HEAD = head_revision()


def luz(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LUZ), *map(str, arguments)], capture_output=True, text=True, timeout=120, check=False)


def refused(done: subprocess.CompletedProcess[str], words: str) -> None:
    """Exit status 2 and one line on stderr saying ``words``, never a traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def create_and_join(server: ServerProcess, **spec: object) -> tuple[str, dict[int, str]]:
    """A table created and its human seats joined (each by a guest); its id and the seats' tokens."""
    with httpx.Client(base_url=server.http, timeout=10) as http:
        return create_joined(http, **spec)


def human_to_move(message: Message) -> bool:
    """A state in which seat 0 (the human) is to act: nothing else moves until it does."""
    return (
        message["type"] == "state" and message["view"]["current_player"] == 0 and bool(message["view"]["legal_actions"])
    )


def database_files(path: Path) -> list[Path]:
    return [Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm")]


def test_a_game_in_progress_survives_backup_loss_and_restore(tmp_path: Path) -> None:
    asyncio.run(backup_lose_restore(tmp_path))


async def backup_lose_restore(tmp_path: Path) -> None:
    path = tmp_path / "luz.sqlite3"
    url = f"sqlite:///{path}"
    backup_file = tmp_path / "backups" / "luz-backup.sqlite3"
    server = ServerProcess(url, tmp_path / "server.log").start()
    try:
        table_id, tokens = create_and_join(server, players=3, seats=seats("human", "random", "random"))
        store = open_store(url)
        peer = WirePeer(server.ws, table_id, tokens[0], 0, Truth(store))
        await peer.__aenter__()
        try:

            async def third_ack(_: WirePeer, __: Message) -> bool:
                return len(peer.acks) == 3

            await play_wire([peer], after_ack=third_ack)
            # The bots answer; the table then waits for the human seat (nothing moves during the backup).
            before = peer.state if human_to_move(peer.state) else await peer.wait(human_to_move)
            done = await asyncio.to_thread(luz, "backup", backup_file, "--database-url", url)
            assert done.returncode == 0, done.stderr
            assert f"backup written to {backup_file}: 1 tables, 1 games" in done.stdout
            assert f"schema {HEAD}, integrity ok" in done.stdout
            # The running server's database cannot be restored over (the server alone has it open: the test's own
            # connections are closed first, and reopened by the checks of what the peer receives).
            store.engine.dispose()
            refused(luz("restore", backup_file, "--database-url", url, "--force"), "in use by a running server")
        finally:
            await peer.close()
        log_before = action_log(store, table_id)
        acked = list(peer.acks)
        assert len(log_before) >= 3 and not list((tmp_path / "backups").glob(".*.tmp"))
        store.engine.dispose()
        server.stop()

        for lost in database_files(path):
            lost.unlink(missing_ok=True)
        done = luz("restore", backup_file, "--database-url", url)
        assert done.returncode == 0, done.stderr
        assert f"restored {path}: 1 tables, 1 games, {len(log_before)} actions" in done.stdout

        server.start()
        store = open_store(url)
        assert action_log(store, table_id) == log_before
        for version, action in acked:
            assert_stored(store, table_id, version, action)
        peer = WirePeer(server.ws, table_id, tokens[0], 0, Truth(store))
        await peer.__aenter__()
        try:
            assert peer.state["version"] == before["version"]
            assert peer.view == before["view"]

            async def three_more(_: WirePeer, __: Message) -> bool:
                return len(peer.acks) == 3

            after = await play_wire([peer], after_ack=three_more)
            assert after["version"] > before["version"]
        finally:
            await peer.close()
        log_after = action_log(store, table_id)
        assert log_after[: len(log_before)] == log_before and len(log_after) > len(log_before)
        store.engine.dispose()
    finally:
        server.stop()


# -- refusals --------------------------------------------------------------------------------------------------


@pytest.fixture
def database(tmp_path: Path) -> str:
    """A migrated, empty SQLite database's URL."""
    url = f"sqlite:///{tmp_path}/luz.sqlite3"
    engine = make_engine(url)
    migrate(engine)
    engine.dispose()
    return url


def test_backup_refuses_what_it_cannot_copy(tmp_path: Path, database: str) -> None:
    out = tmp_path / "out.sqlite3"
    refused(luz("backup", out, "--database-url", f"sqlite:///{tmp_path}/none.sqlite3"), "no database file at")
    refused(luz("backup", out, "--database-url", "postgresql://luz@db/luz"), "pg_dump and pg_restore")
    refused(luz("backup", out, "--database-url", "not a url"), "not a database URL")
    refused(luz("backup", out, "--database-url", "sqlite:///:memory:"), "in-memory database")
    refused(luz("backup", tmp_path, "--database-url", database), "is a folder")
    (tmp_path / "junk.sqlite3").write_text("not a database, only text\n" * 100)
    refused(luz("backup", out, "--database-url", f"sqlite:///{tmp_path}/junk.sqlite3"), "not an SQLite database")
    sqlite3.connect(tmp_path / "other.sqlite3").execute("CREATE TABLE t (x)").connection.close()
    refused(luz("backup", out, "--database-url", f"sqlite:///{tmp_path}/other.sqlite3"), "not a luz database")
    assert not out.exists() and not list(tmp_path.glob(".out.sqlite3.*"))


def test_restore_refuses_bad_backups_and_an_existing_database(tmp_path: Path, database: str) -> None:
    target = f"sqlite:///{tmp_path}/restored.sqlite3"
    refused(luz("restore", tmp_path / "none.sqlite3", "--database-url", target), "no database file at")
    (tmp_path / "junk.sqlite3").write_text("not a database, only text\n" * 100)
    refused(luz("restore", tmp_path / "junk.sqlite3", "--database-url", target), "not an SQLite database")
    backup_file = tmp_path / "backup.sqlite3"
    assert luz("backup", backup_file, "--database-url", database).returncode == 0
    refused(luz("restore", backup_file, "--database-url", "postgresql://luz@db/luz"), "pg_dump and pg_restore")
    refused(luz("restore", backup_file, "--database-url", f"sqlite:///{tmp_path}"), "is a folder")
    # A backup from a newer luz (a schema revision this code does not know) is not restored.
    newer = tmp_path / "newer.sqlite3"
    assert luz("backup", newer, "--database-url", database).returncode == 0
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    refused(luz("restore", newer, "--database-url", target), "schema revision 9999, unknown to this luz")
    assert not (tmp_path / "restored.sqlite3").exists() and not list(tmp_path.glob(".restored.sqlite3.*"))
    # An existing database is replaced only when asked.
    assert luz("restore", backup_file, "--database-url", target).returncode == 0
    refused(luz("restore", backup_file, "--database-url", target), "exists: pass --force")
    assert luz("restore", backup_file, "--database-url", target, "--force").returncode == 0


def test_an_older_backup_is_migrated_up_and_keeps_its_rows(tmp_path: Path) -> None:
    old = f"sqlite:///{tmp_path}/old.sqlite3"
    engine = make_engine(old)
    try:
        migrate_to(engine, "0004")
        with engine.begin() as connection:
            connection.exec_driver_sql(
                "INSERT INTO tables (id, name, edition, players, options, public, grace_seconds, status, game_no,"
                " version, created_at, hints) VALUES ('t1', 'old', 'iello-2024', 3, '{}', 1, 30, 'over', 1, 9,"
                " CURRENT_TIMESTAMP, 0)"
            )
            connection.exec_driver_sql(
                "INSERT INTO games (table_id, game_no, seed, started_at) VALUES ('t1', 1, 7, CURRENT_TIMESTAMP)"
            )
    finally:
        engine.dispose()
    backup_file = tmp_path / "old-backup.sqlite3"
    done = luz("backup", backup_file, "--database-url", old)
    assert done.returncode == 0 and "1 tables, 1 games, 0 actions" in done.stdout and "schema 0004" in done.stdout
    restored = tmp_path / "restored.sqlite3"
    done = luz("restore", backup_file, "--database-url", f"sqlite:///{restored}")
    assert done.returncode == 0, done.stderr
    assert f"schema {HEAD}, integrity ok" in done.stdout
    with sqlite3.connect(restored) as connection:
        assert connection.execute("SELECT version, status, rated FROM tables").fetchall() == [(9, "over", 0)]
        assert connection.execute("SELECT seed FROM games").fetchall() == [(7,)]
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [(HEAD,)]
