"""A watch on the event loop (``LUZ_STALL_MS``): every time the loop does not come round for longer than that, one
log line with how long, how much of it the loop's thread spent on a CPU, and what it was doing (its Python stack,
sampled by a watchdog thread while it lasts); and each garbage collection longer than that.

One stalled loop holds every table of the process, so the latency tail of a busy server is its stalls. The CPU
share tells them apart: a stall that burns CPU is work done in one go (a collection, a long step); one that does
not is a wait on the operating system (a disk flush) or a machine too busy to run the server.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import logging
import sys
import threading
import time
import traceback
from typing import Any

log = logging.getLogger("luz.server.stalls")


def _thread_cpu(clock: int | None) -> float:
    return time.clock_gettime(clock) if clock is not None else 0.0


def _runqueue_wait(native_id: int) -> float:
    """Seconds the thread has waited on a run queue, runnable but not run: the machine was busy (Linux
    ``schedstat``; 0 elsewhere)."""
    try:
        with open(f"/proc/self/task/{native_id}/schedstat") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class StallWatch:
    """Watches the running loop from a thread of its own; ``stop`` ends it. Keeps ``stalls`` and ``collections``
    (the last thousand of each) for tests and benches."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold_s: float) -> None:
        self.loop, self.threshold = loop, threshold_s
        self.loop_thread = threading.get_ident()
        self._native = threading.get_native_id()
        try:
            self._clock: int | None = time.pthread_getcpuclockid(self.loop_thread)
        except (AttributeError, OSError):
            self._clock = None
        self.beat = time.monotonic()
        self.stalls: collections.deque[dict[str, Any]] = collections.deque(maxlen=1000)
        self.collections: collections.deque[dict[str, Any]] = collections.deque(maxlen=1000)
        self.totals: dict[str, dict[str, Any]] = {}
        """Every collection since the start: count, total and longest milliseconds, by generation."""
        self._gc_start = (0.0, 0.0)
        self._running = True
        self._tick = max(0.002, threshold_s / 10)
        self._handle: asyncio.TimerHandle | None = None
        self._heartbeat()
        gc.callbacks.append(self._on_gc)
        self._thread = threading.Thread(target=self._watch, name="luz-stall-watch", daemon=True)
        self._thread.start()

    def _heartbeat(self) -> None:
        self.beat = time.monotonic()
        if self._running:
            self._handle = self.loop.call_later(self._tick, self._heartbeat)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if threading.get_ident() != self.loop_thread:
            return
        if phase == "start":
            self._gc_start = (time.monotonic(), _thread_cpu(self._clock))
            return
        wall = time.monotonic() - self._gc_start[0]
        cpu = _thread_cpu(self._clock) - self._gc_start[1]
        entry = {"generation": info.get("generation"), "ms": round(1000 * wall, 1), "cpu_ms": round(1000 * cpu, 1)}
        entry["collected"] = info.get("collected")
        self.collections.append(entry)
        totals = self.totals.setdefault(
            f"gen{entry['generation']}", {"count": 0, "ms": 0.0, "cpu_ms": 0.0, "max_ms": 0.0}
        )
        totals["count"] += 1
        totals["ms"] += entry["ms"]
        totals["cpu_ms"] += entry["cpu_ms"]
        totals["max_ms"] = max(totals["max_ms"], entry["ms"])
        if wall > self.threshold:
            log.warning("garbage collection of generation %s: %.0f ms (%s)", entry["generation"], 1000 * wall, entry)

    def _watch(self) -> None:
        cpu_start, wait_start = _thread_cpu(self._clock), _runqueue_wait(self._native)
        while self._running:
            time.sleep(self._tick)
            beat = self.beat
            late = time.monotonic() - beat - self._tick
            if late <= self.threshold:
                cpu_start, wait_start = _thread_cpu(self._clock), _runqueue_wait(self._native)
                continue
            # Stalled: sample the loop's stack until it comes round again.
            samples: collections.Counter[str] = collections.Counter()
            while self._running and self.beat == beat:
                frame = sys._current_frames().get(self.loop_thread)
                if frame is not None:
                    stack = traceback.extract_stack(frame)[-12:]
                    samples["".join(f"\n    {s.filename}:{s.lineno} {s.name}" for s in stack)] += 1
                time.sleep(0.005)
            stalled = time.monotonic() - beat - self._tick
            cpu = _thread_cpu(self._clock) - cpu_start  # from the last tick seen (about the stall's start) on
            waited = _runqueue_wait(self._native) - wait_start
            top = samples.most_common(3)
            entry = {
                "ms": round(1000 * stalled, 1),
                "cpu_ms": round(1000 * cpu, 1),
                "runqueue_ms": round(1000 * waited, 1),
                "samples": sum(samples.values()),
                "stacks": [(count, stack) for stack, count in top],
            }
            self.stalls.append(entry)
            cpu_start, wait_start = _thread_cpu(self._clock), _runqueue_wait(self._native)
            log.warning(
                "event loop stalled %.0f ms (loop thread: %.0f ms on a CPU, %.0f ms runnable waiting for one, the rest"
                " blocked), %d samples:%s",
                1000 * stalled,
                1000 * cpu,
                1000 * waited,
                entry["samples"],
                "".join(f"\n  {count}x{stack}" for count, stack in top),
            )

    def census(self) -> None:
        """Log the collector's heap: objects tracked in each generation, the commonest types, and what a full
        collection costs now (it stalls the loop: a diagnostic, on ``SIGUSR1``)."""
        sizes = [len(gc.get_objects(generation)) for generation in range(3)]
        types = collections.Counter(type(o).__name__ for o in gc.get_objects())
        started, cpu = time.monotonic(), _thread_cpu(self._clock)
        gc.collect()
        log.warning(
            "census: tracked by generation %s (frozen %d), counts %s, thresholds %s; full collection now %.0f ms"
            " (%.0f ms CPU); commonest types %s",
            sizes,
            gc.get_freeze_count(),
            gc.get_count(),
            gc.get_threshold(),
            1000 * (time.monotonic() - started),
            1000 * (_thread_cpu(self._clock) - cpu),
            types.most_common(25),
        )

    def summary(self) -> dict[str, Any]:
        """The collections and stalls kept: count, total and longest, by generation."""
        by_gen = {gen: {k: round(v, 1) for k, v in figures.items()} for gen, figures in sorted(self.totals.items())}
        stalls = [s["ms"] for s in self.stalls]
        return {
            "collections": by_gen,
            "stalls": len(stalls),
            "stall_ms": round(sum(stalls), 1),
            "max_stall_ms": max(stalls, default=0),
        }

    def stop(self) -> None:
        log.warning("stall watch summary: %s", self.summary())
        self._running = False
        if self._handle is not None:
            self._handle.cancel()
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)


def watch_from_env() -> StallWatch | None:
    """A watch on the running loop when ``LUZ_STALL_MS`` (milliseconds) is set, else ``None``; its lines also go
    to the file ``LUZ_STALL_LOG`` when set."""
    import os

    value = os.environ.get("LUZ_STALL_MS", "").strip()
    if not value:
        return None
    path = os.environ.get("LUZ_STALL_LOG")  # also to this file (the server's own log may be thrown away: benches)
    if path:
        handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        log.addHandler(handler)
    loop = asyncio.get_running_loop()
    watch = StallWatch(loop, float(value) / 1000)
    import signal

    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGUSR1, watch.census)
    return watch
