"""The server's writer of actions: one thread, one database connection, group commits.

Every action of every table goes through ``ActionWriter.append``: the call queues the action and waits, off the
event loop, for the transaction that holds it to be committed (so an acknowledged action is stored, as before).
The thread takes every action queued while it stored the last ones and stores them in one transaction (a group
commit), each checked against its own table's version (a stale one stores nothing and refuses only itself), in
the order of their tables (two processes' batches lock PostgreSQL's rows in one order: no deadlock). It keeps one
DB-API connection (no pool checkout, no ping per action) and runs the same statement strings on it (prepared once:
``Store.append_plain``); the game's last action and one that unrates the game take SQLAlchemy's longer path
(``Store.append_action``), in the same thread. The thread ends, giving its connection back, after ``IDLE_SECONDS``
with nothing to store (it starts again with the next action), and at ``close``.

An in-memory SQLite database is one per connection: there the actions are stored at once in the caller's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections import defaultdict
from typing import Any

from .store import AppendedAction, Store

log = logging.getLogger("luz.server.appends")

IDLE_SECONDS = 2.0
"""Seconds the thread waits for an action before it ends (and gives its connection back)."""

Queued = tuple[AppendedAction, "asyncio.Future[int]"]


class ActionWriter:
    """Stores ``store``'s actions from a thread of its own, in group commits (see the module's docstring)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        url = store.engine.url
        self.inline = url.get_backend_name() == "sqlite" and (url.database or ":memory:") == ":memory:"
        self._queue: queue.SimpleQueue[Queued | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.batches = 0
        """Transactions committed (for tests and benches: ``actions / batches`` is the mean group)."""

    async def append(self, appended: AppendedAction) -> int:
        """Store ``appended``; its table's new version once committed. :class:`StaleVersion` if the table moved."""
        if self.inline:
            return self.store.append_action(appended)
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._queue.put((appended, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="luz-action-writer", daemon=True)
                self._thread.start()
        return await future

    def close(self) -> None:
        """Store what is queued, then end the thread and give its connection back."""
        with self._lock:
            thread = self._thread
            if thread is not None:
                self._queue.put(None)
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        connection: Any = None
        try:
            while True:
                try:
                    first = self._queue.get(timeout=IDLE_SECONDS)
                except queue.Empty:
                    with self._lock:
                        if self._queue.empty():
                            self._thread = None
                            return
                    continue
                batch: list[Queued] = []
                ending = first is None
                if first is not None:
                    batch.append(first)
                while True:
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if item is None:
                        ending = True
                    else:
                        batch.append(item)
                if batch:
                    connection, outcomes = self._stored([appended for appended, _ in batch], connection)
                    settle(batch, outcomes)
                if ending:
                    with self._lock:
                        self._thread = None
                    return
        finally:
            if connection is not None:
                with contextlib.suppress(Exception):
                    connection.close()

    def _stored(self, batch: list[AppendedAction], connection: Any) -> tuple[Any, list[int | BaseException]]:
        """Each action's new version or its error; the connection to keep (``None``: a new one next time)."""
        outcomes: list[int | BaseException] = [0] * len(batch)
        plain = sorted((n for n, appended in enumerate(batch) if appended.plain), key=lambda n: batch[n].table_id)
        for number, appended in enumerate(batch):
            if not appended.plain:
                try:
                    outcomes[number] = self.store.append_action(appended)
                except Exception as error:
                    outcomes[number] = error
        groups = [plain] if plain else []
        while groups:
            group = groups.pop(0)
            try:
                if connection is None:
                    connection = self.store.engine.raw_connection()
                stored = self.store.append_plain(connection, [batch[n] for n in group])
                self.batches += 1
            except Exception as error:
                with contextlib.suppress(Exception):
                    connection.invalidate()  # whatever went wrong, the next transaction has a fresh connection
                connection = None
                if len(group) > 1:  # each on its own: one action's trouble is not the others'
                    log.warning("a group commit of %d actions failed (%s): stored one by one", len(group), error)
                    groups += [[n] for n in group]
                else:
                    outcomes[group[0]] = error
                continue
            for number, outcome in zip(group, stored, strict=True):
                outcomes[number] = outcome
        return connection, outcomes


def settle(batch: list[Queued], outcomes: list[int | BaseException]) -> None:
    """Hand each waiting caller its outcome, on its own loop: one wake-up per loop for the whole batch."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[int], int | BaseException]]] = defaultdict(list)
    for (_, future), outcome in zip(batch, outcomes, strict=True):
        by_loop[future.get_loop()].append((future, outcome))
    for loop, settled in by_loop.items():
        with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: nobody waits there any more
            loop.call_soon_threadsafe(_resolve, settled)


def _resolve(settled: list[tuple[asyncio.Future[int], int | BaseException]]) -> None:
    for future, outcome in settled:
        if future.cancelled():
            continue
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)
