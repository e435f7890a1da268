"""Backing up and restoring the embedded SQLite database with SQLite's online backup API (``luz backup``,
``luz restore``; docs/DEPLOY.md, "Backups").

A backup is a consistent copy taken while the server runs: the database is in WAL mode, so one backup step reads a
snapshot while the server goes on writing. Both ways write a temporary file beside the target, check it
(``PRAGMA integrity_check``) and only then rename it into place, so that a failure never leaves half a file.
PostgreSQL is backed up with ``pg_dump`` (the recipe in docs/DEPLOY.md).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from luz.server.db import MIGRATIONS, make_engine, migrate

PG_DUMP_RECIPE = "docs/DEPLOY.md#backups"
LUZ_TABLES = ("alembic_version", "tables", "games", "actions")
"""Tables every luz database has, whatever its revision."""


class BackupError(Exception):
    """Why a backup or a restore cannot be made, in one line for the operator."""


@dataclass(frozen=True)
class Summary:
    """What a backup or restored database holds."""

    path: Path
    revision: str
    tables: int
    games: int
    actions: int
    size_bytes: int


def sqlite_path(database_url: str) -> Path:
    """The file of an SQLite URL; ``BackupError`` for PostgreSQL (``pg_dump``), memory or anything else."""
    try:
        url = make_url(database_url)
    except ArgumentError:
        raise BackupError(f"not a database URL: {database_url!r}") from None
    if url.get_backend_name() == "postgresql":
        raise BackupError(f"a PostgreSQL database is backed up with pg_dump and pg_restore: see {PG_DUMP_RECIPE}")
    if url.get_backend_name() != "sqlite":
        raise BackupError(f"not an SQLite or PostgreSQL URL: {url.get_backend_name()}://...")
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory database has nothing to back up")
    return Path(url.database)


@contextlib.contextmanager
def _connected(path: Path, *, read_only: bool = False) -> Iterator[sqlite3.Connection]:
    """A connection to the existing database file ``path`` (never creating one), closed on exit."""
    if not path.is_file():
        raise BackupError(f"no database file at {path}")
    mode = "ro" if read_only else "rw"
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, timeout=10)
    except sqlite3.Error as error:
        raise BackupError(f"cannot open {path}: {error}") from None
    try:
        yield connection
    finally:
        connection.close()


def _checked(connection: sqlite3.Connection, path: Path) -> str:
    """The Alembic revision of a luz database that passes ``PRAGMA integrity_check``; ``BackupError`` otherwise."""
    try:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not set(LUZ_TABLES) <= names:
            raise BackupError(f"{path} is not a luz database (no {', '.join(sorted(set(LUZ_TABLES) - names))} table)")
        problems = [row[0] for row in connection.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise BackupError(f"{path} fails SQLite's integrity check: {'; '.join(problems)[:200]}")
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path} is not an SQLite database ({error})") from None
    if revision is None:
        raise BackupError(f"{path} is not a luz database (no schema revision)")
    return str(revision[0])


def _summary(path: Path) -> Summary:
    with _connected(path, read_only=True) as connection:
        revision = _checked(connection, path)
        tables, games, actions = (
            connection.execute(f"SELECT count(*) FROM {name}").fetchone()[0]  # fixed names, no input
            for name in ("tables", "games", "actions")
        )
    return Summary(path, revision, tables, games, actions, path.stat().st_size)


def _temporary_beside(target: Path) -> Path:
    """A fresh, empty file's path in ``target``'s folder (so that the final rename stays on one file system)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise BackupError(f"cannot write in {target.parent}: {error.strerror or error}") from None
    os.close(handle)
    return Path(name)


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """Copy ``source`` into the file ``target`` with the online backup API, as one self-contained file."""
    destination = sqlite3.connect(target)
    try:
        source.backup(destination)  # one step: a consistent snapshot, the server's writers never blocked (WAL)
        destination.execute("PRAGMA journal_mode=DELETE")  # no -wal file beside the copy: one file holds it all
    finally:
        destination.close()


def _move_into_place(temporary: Path, target: Path) -> None:
    """Rename ``temporary`` over ``target`` once its bytes are on disk; any stale ``-wal``/``-shm`` of ``target``
    (which SQLite would replay into the new file) removed first."""
    with temporary.open("rb+") as handle:
        os.fsync(handle.fileno())
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    os.replace(temporary, target)


def backup(database_url: str, out: Path) -> Summary:
    """Copy the SQLite database of ``database_url`` to ``out`` (replaced if it exists), safe while the server runs."""
    source_path = sqlite_path(database_url)
    if out.resolve() == source_path.resolve():
        raise BackupError("the backup cannot be the database itself")
    if out.is_dir():
        raise BackupError(f"{out} is a folder: name the backup file")
    with _connected(source_path) as source:
        _checked(source, source_path)
        temporary = _temporary_beside(out)
        try:
            _copy(source, temporary)
            with _connected(temporary, read_only=True) as copy:
                _checked(copy, temporary)
            _move_into_place(temporary, out)
        except (OSError, sqlite3.Error) as error:
            raise BackupError(f"cannot write {out}: {getattr(error, 'strerror', None) or error}") from None
        finally:
            temporary.unlink(missing_ok=True)
    return _summary(out)


def in_use(path: Path) -> bool:
    """Whether another connection (a running server's) has the WAL database ``path`` open.

    Every open connection to a WAL database holds a shared lock on it; an exclusive lock is then refused at once.
    """
    try:
        connection = sqlite3.connect(path, timeout=0, isolation_level=None)
    except sqlite3.Error as error:
        raise BackupError(f"cannot open {path}: {error}") from None
    try:
        connection.execute("PRAGMA locking_mode=EXCLUSIVE")
        connection.execute("BEGIN EXCLUSIVE")
        connection.execute("ROLLBACK")
    except sqlite3.OperationalError:
        return True
    finally:
        connection.close()
    return False


def known_revisions() -> set[str]:
    """The schema revisions this code's migrations know (a backup at another one is from a newer luz)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}


def restore(backup_path: Path, database_url: str, *, force: bool = False) -> Summary:
    """Restore ``backup_path`` as the SQLite database of ``database_url``, migrated up as ``luz serve`` would.

    Refused when the backup is no luz database, fails its integrity check or comes from a newer luz; when the
    database is in use by a running server; and when it exists, unless ``force``.
    """
    target = sqlite_path(database_url)
    if target.is_dir():
        raise BackupError(f"{target} is a folder, not a database file")
    with _connected(backup_path, read_only=True) as source:
        revision = _checked(source, backup_path)
        if revision not in known_revisions():
            raise BackupError(f"{backup_path} is at schema revision {revision}, unknown to this luz: use a newer one")
        if target.exists():
            if in_use(target):
                raise BackupError(f"{target} is in use by a running server: stop it first")
            if not force:
                raise BackupError(f"{target} exists: pass --force to replace it (back it up first)")
        temporary = _temporary_beside(target)
        try:
            _copy(source, temporary)
            engine = make_engine(f"sqlite:///{temporary}")
            try:
                migrate(engine)
            finally:
                engine.dispose()
            with _connected(temporary) as restored:
                _checked(restored, temporary)
                restored.execute("PRAGMA journal_mode=DELETE")
            _move_into_place(temporary, target)
        except (OSError, sqlite3.Error) as error:
            raise BackupError(f"cannot write {target}: {getattr(error, 'strerror', None) or error}") from None
        finally:
            temporary.unlink(missing_ok=True)
    return _summary(target)
