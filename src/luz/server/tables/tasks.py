"""Background work of the live tables: tasks kept until they end, each failure logged (nothing else stops)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

log = logging.getLogger("luz.server")


class Tasks:
    """A set of background tasks, cancelled together when the server stops."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Awaitable[Any]) -> None:
        """Run ``work`` in the background; its failure is logged (e.g. Redis unreachable)."""

        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("background work failed")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def running(self) -> set[asyncio.Task[Any]]:
        return set(self._tasks)

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()
