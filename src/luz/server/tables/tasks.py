"""Background work of the live tables: tasks kept until they end, each failure logged (nothing else stops)."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable
from typing import Any

log = logging.getLogger("luz.server")


class Tasks:
    """A set of background tasks, cancelled together when the server stops; once closed, new work is dropped (the
    services it would use, Redis or the database, are being closed: a failure then is no failure of the work)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def spawn(self, work: Awaitable[Any]) -> None:
        """Run ``work`` in the background; its failure is logged (e.g. Redis unreachable)."""
        if self._closed:
            if inspect.iscoroutine(work):
                work.close()  # never awaited: closed, so that Python does not warn of it
            return

        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("background work failed")

        def done(task: asyncio.Task[Any]) -> None:
            self._tasks.discard(task)
            if inspect.iscoroutine(work) and inspect.getcoroutinestate(work) == inspect.CORO_CREATED:
                work.close()  # cancelled before it began (the server stopping): closed, so that Python does not warn

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(done)

    def running(self) -> set[asyncio.Task[Any]]:
        return set(self._tasks)

    def cancel(self) -> None:
        """Cancel the work running now (new work still runs)."""
        for task in list(self._tasks):
            task.cancel()

    async def close(self) -> None:
        """Cancel the work running, wait for it to end, and drop any work spawned from now on."""
        self._closed = True
        self.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
