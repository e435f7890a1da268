"""Garbage collection that never scans the long-lived heap, and no full collection while tables are live.

A busy server's heap is mostly its connections (each WebSocket holds some 200 objects that the collector tracks:
the ASGI stack's suspended coroutines, its headers, its WebSocket objects), which live as long as the player
plays. CPython's collector scans them again and again: at 1,000 tables (4,000 connections, some 860,000 tracked
objects) a collection of the middle generation took 0.8 s of CPU and a full one 1.4 s, during which the event loop,
and so every table, waits (docs/DEPLOY.md).

Serving makes no cyclic garbage: a table's changes are freed by their reference counts, and so are HTTP requests,
WebSocket connections opened and closed, and the HTTP protocol of a connection upgraded to a WebSocket (whose
cycle with its parser http.py breaks: found with ``gc.DEBUG_SAVEALL`` on ``luz bench server`` runs, where it was
the only cyclic garbage after start-up, some 60 objects per connection). What start-up leaves (migrations, the
bots' compilation) is collected once, before serving.

Here CPython's collector runs as usual on the young objects, and every ``interval`` seconds the loop freezes what
is tracked (``gc.freeze``: a constant-time move to the permanent generation; frozen objects are never scanned
again, and are still freed by their reference counts), so that no automatic collection sees more than half a
second's objects. Should cyclic garbage be frozen all the same, a full collection runs only when the process's
memory has grown by ``growth`` since the last one *and* ``quiet()`` says no table is live (nobody waits then);
while tables are live it is put off (logged once per growth), never run.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import time
from collections.abc import Callable

log = logging.getLogger("luz.server.collector")

INTERVAL = 0.5
"""Seconds between two freezes of the survivors."""
GROWTH = 1.0
"""A full collection once the process's memory has grown by this fraction since the last one."""


def memory_size() -> int:
    """The process's resident memory in bytes (Linux); elsewhere its peak so far (0 if not known)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024
    except (ImportError, OSError):
        return 0


class FreezingCollector:
    """Freezes the survivors on ``loop`` every ``interval`` seconds (``stop`` gives the collector back as it was);
    a full collection first (the warm-up, before serving), then only when ``quiet()``."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        quiet: Callable[[], bool],
        interval: float = INTERVAL,
        growth: float = GROWTH,
    ) -> None:
        self.loop, self.quiet, self.interval, self.growth = loop, quiet, interval, growth
        self.full_collections = 0
        self.put_off = False
        """Whether a full collection is due and waits for the process to be quiet (logged once)."""
        self._full()
        self._handle = loop.call_later(interval, self._step)

    def _full(self) -> float:
        """Unfreeze, collect everything, freeze what is live; its seconds."""
        started = time.perf_counter()
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.size_after_full = max(1, memory_size())
        self.full_collections += 1
        self.put_off = False
        return time.perf_counter() - started

    def _step(self) -> None:
        try:
            size = memory_size()  # not gc.get_freeze_count(), which walks the frozen heap: 0.2 s at 1,000 tables
            if size <= (1 + self.growth) * self.size_after_full:
                gc.freeze()
            elif self.quiet():
                previous = self.size_after_full
                took = self._full()
                log.info(
                    "full garbage collection, no table live (grown from %d to %d MB): %.0f ms",
                    previous >> 20,
                    size >> 20,
                    1000 * took,
                )
            else:
                if not self.put_off:
                    self.put_off = True
                    log.info(
                        "memory grew from %d to %d MB: a full collection waits until no table is live",
                        self.size_after_full >> 20,
                        size >> 20,
                    )
                gc.freeze()
        finally:
            self._handle = self.loop.call_later(self.interval, self._step)

    def stop(self) -> None:
        self._handle.cancel()
        gc.unfreeze()


def from_env(quiet: Callable[[], bool]) -> FreezingCollector | None:
    """The freezing collector on the running loop when ``LUZ_GC`` is ``freeze`` (``luz serve``'s default), else
    ``None``: CPython's own collector alone (``LUZ_GC=auto``; tests and other hosts of the app). ``quiet``: whether
    no table is live (then a full collection, if due, holds up nobody)."""
    if os.environ.get("LUZ_GC", "auto").strip().lower() != "freeze":
        return None
    return FreezingCollector(asyncio.get_running_loop(), quiet)
