"""SQLite's WAL checkpoints in a thread of their own, off the event loop.

A SQLite server commits in the event loop's thread (api.app.InlineExecutor). By default the commit that takes the WAL
past 1,000 pages also checkpoints it: copies those pages into the database file and flushes both files to disk,
20-40 ms on a quiet disk (far more on a busy one) during which every table waits. Here a thread checkpoints every
``INTERVAL`` seconds instead (PASSIVE: it takes no lock that a writer waits for, and it releases the GIL while it
copies and flushes), and the writers' own checkpoint is kept only as a bound: at ``FALLBACK_PAGES`` of WAL, should
the thread lag behind (each of its checkpoints must catch the WAL with no commit in between for the next writer to
start the WAL over; the writer's checkpoint, with no commit beside it, always does).

Durability is unchanged: a commit is in the WAL before its action is acknowledged, flushed to disk at a checkpoint
(``synchronous=NORMAL``: an acknowledged action survives the server process being killed, not a power loss).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from .db import execute_raw

log = logging.getLogger("luz.server.checkpoints")

INTERVAL = 0.05
"""Seconds between two checkpoints of the thread."""
FALLBACK_PAGES = 8192
"""WAL pages at which a writer checkpoints after all (SQLite's default is 1,000): 32 MB of 4 KB pages."""


class Checkpointer:
    """Checkpoints ``engine``'s SQLite database from a thread until ``stop``."""

    def __init__(self, engine: Engine, interval: float = INTERVAL) -> None:
        self.engine, self.interval = engine, interval
        self.checkpoints = 0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="luz-wal-checkpoints", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        connection = self.engine.raw_connection()
        failed = False
        try:
            while not self._stopped.wait(self.interval):
                try:
                    execute_raw(connection, "PRAGMA wal_checkpoint(PASSIVE)")
                    self.checkpoints += 1
                except Exception as error:  # e.g. the database file went away: the writers' checkpoints remain
                    if not failed:
                        log.warning("WAL checkpoint failed: %s (the writers checkpoint meanwhile)", error)
                    failed = True
        finally:
            connection.close()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)


def start(engine: Engine) -> Checkpointer | None:
    """For a SQLite file: writers checkpoint only at ``FALLBACK_PAGES`` and a thread checkpoints meanwhile; call
    before the engine opens its first connection (the setting is made on each). ``None`` for other databases."""
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return None

    @event.listens_for(engine, "connect")
    def _fallback_only(connection: Any, _: Any) -> None:
        cursor = connection.cursor()
        cursor.execute(f"PRAGMA wal_autocheckpoint={FALLBACK_PAGES}")
        cursor.close()

    engine.dispose()  # connections already open (none, normally) get the setting too
    return Checkpointer(engine)
