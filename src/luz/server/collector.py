"""Garbage collection that never scans the long-lived heap: what survives half a second is frozen.

A busy server's heap is mostly its connections (each WebSocket holds some 200 objects that the collector tracks:
the ASGI stack's suspended coroutines, its headers, its WebSocket objects), which live as long as the player
plays. CPython's collector scans them again and again: at 1,000 tables (4,000 connections, some 860,000 tracked
objects) a collection of the middle generation took 0.8 s of CPU and a full one 1.4 s, during which the event loop,
and so every table, waits (docs/DEPLOY.md). A table's own changes make no cyclic garbage (its game, views and
messages are freed by their reference counts), so nearly nothing the collector scans there is garbage.

Here CPython's collector runs as usual on the young objects, and every ``interval`` seconds the loop freezes what
is tracked (``gc.freeze``: a constant-time move to the permanent generation; frozen objects are never scanned
again, and are still freed by their reference counts), so that no automatic collection sees more than half a
second's objects. Cyclic garbage among frozen objects (a closed connection's, say) waits for a full collection,
made only when the process's memory has grown by ``growth`` since the last one: memory stays within about
``1 + growth`` times what is live, and full collections are rare (as the heap doubles: logged with their duration).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import time

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
    """Freezes the survivors on ``loop`` every ``interval`` seconds (``stop`` gives the collector back as it was)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, interval: float = INTERVAL, growth: float = GROWTH) -> None:
        self.loop, self.interval, self.growth = loop, interval, growth
        self.full_collections = 0
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
        return time.perf_counter() - started

    def _step(self) -> None:
        try:
            size = memory_size()  # not gc.get_freeze_count(), which walks the frozen heap: 0.2 s at 1,000 tables
            if size > (1 + self.growth) * self.size_after_full:
                previous = self.size_after_full
                took = self._full()
                log.warning(
                    "full garbage collection (the process grew from %d to %d MB): %.0f ms",
                    previous >> 20,
                    size >> 20,
                    1000 * took,
                )
            else:
                gc.freeze()
        finally:
            self._handle = self.loop.call_later(self.interval, self._step)

    def stop(self) -> None:
        self._handle.cancel()
        gc.unfreeze()


def from_env() -> FreezingCollector | None:
    """The freezing collector on the running loop when ``LUZ_GC`` is ``freeze`` (``luz serve``'s default), else
    ``None``: CPython's own collector alone (``LUZ_GC=auto``; tests and other hosts of the app)."""
    if os.environ.get("LUZ_GC", "auto").strip().lower() != "freeze":
        return None
    return FreezingCollector(asyncio.get_running_loop())
