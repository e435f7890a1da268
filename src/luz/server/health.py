"""Whether the database answers, for ``/healthz``: pinged from a thread of its own, so that a health check never
waits for the database, nor behind whatever the event loop has queued (a SQLite server runs its database calls in
the loop's thread: api.app.InlineExecutor). Under a flood of connections, a ping awaited by ``/healthz`` itself made
it answer in seconds, and a load balancer with a 5 s timeout would have taken the process for dead."""

from __future__ import annotations

import logging
import threading
import time

from sqlalchemy.engine import Engine

from .db import execute_raw

log = logging.getLogger("luz.server")

INTERVAL = 1.0
"""Seconds between two pings."""
STALE_AFTER = 3.0
"""Seconds without an answered ping after which the database counts as unreachable (a ping that hangs, or fails)."""


class DatabaseHealth:
    """Pings ``engine`` every ``interval`` seconds from a thread until :meth:`stop`; :attr:`reachable` says whether
    one was answered in the last ``stale_after`` seconds."""

    def __init__(self, engine: Engine, interval: float = INTERVAL, stale_after: float = STALE_AFTER) -> None:
        self.engine, self.interval, self.stale_after = engine, interval, stale_after
        self._answered = time.monotonic()  # the server has just migrated the database: it answered
        self.pings = 0  # answered so far
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="luz-database-health", daemon=True)
        self._thread.start()

    @property
    def reachable(self) -> bool:
        return time.monotonic() - self._answered <= self.stale_after

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(self.interval)  # a ping that hangs is left to its (daemon) thread

    def _run(self) -> None:
        failing = False
        while not self._stopped.is_set():
            try:
                self._ping()
                self._answered = time.monotonic()
                self.pings += 1
                if failing:
                    log.warning("database answers again")
                failing = False
            except Exception as error:  # unreachable, refused, its file gone: /healthz says so (503)
                if not failing:
                    log.warning("database ping failed: %s", type(error).__name__)
                failing = True
            self._stopped.wait(self.interval)

    def _ping(self) -> None:
        connection = self.engine.raw_connection()
        try:
            execute_raw(connection, "SELECT 1")
        finally:
            connection.close()
