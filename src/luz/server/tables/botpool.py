"""The server's bots: the caps on bot parameters, each bot's fixed release time, and the pool of bot processes
(replaced when a worker dies; its workers exit when the server does)."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
import os
import random
import signal
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from luz.bots import BOTS, InvalidBotSpec, make_bot, parse_spec
from luz.engine import DEFAULT_EDITION, Action, Game, View, view

from ..settings import Settings

log = logging.getLogger("luz.server")

QUICK_BOTS = frozenset({"random", "heuristic"})
"""Levels that decide in milliseconds: their moves are released at the pace."""
DEFAULT_ITERS = 64
"""The strong bot's iterations when its spec names no budget (``luz.bots.strong.DEFAULT_ITERS``)."""
SEARCH_MARGIN = 0.1
"""Seconds added to a ``seconds=`` budget for handing the view to a bot process and the move back."""
STOP_GRACE = 1.0
"""Seconds a bot process has to exit on SIGTERM, when the server stops, before it is killed."""


def choose_for(bot: str, seen: View, seed: str) -> Action:
    """The move of a ``bot`` seeing ``seen`` (its seat's view, never the game), reproducible from ``seed``."""
    return make_bot(bot).choose(seen, random.Random(seed))


def warm_up() -> None:
    """Make one strong decision (of one world: the search is not the point), so that a bot process has compiled
    (or loaded) the fast core before a table needs it: numba takes seconds the first time, more than a bot's time
    for a move."""
    game = Game.new(DEFAULT_EDITION, players=4, seed=0)
    choose_for("strong:iters=1", view(game, game.current_player), "warm-up")


def load_levels() -> None:
    """Import every bot level offered to tables, at the server's start: checking a new table's bot spec builds the
    bot, and the first search bot built imported its code (numba's included) in the event loop, holding every
    table up 0.3 s to over a second (profiled under ``luz bench server --attack tables``). And start numba here,
    once, for the bot processes forked later to inherit (:func:`luz.bots.fast.start_numba`): the replacement of a
    dead one took 8 to 20 s to warm up on a busy machine, at the idle priority, most of its 0.54 s of CPU spent on
    numba's own start-up."""
    from luz.bots.fast import start_numba  # numba's import too: not at the server's import

    for name in BOTS:
        make_bot(name)
    start_numba()


async def start_bots(pool: BotPool | None) -> None:
    """:func:`load_levels` in a thread of its own (the event loop is not held: with SQLite's inline executor,
    ``asyncio.to_thread`` would run it in the loop's thread), then start ``pool``'s processes (forked from the
    event loop's thread, once nothing is being imported). The server awaits this before it answers; the processes
    then warm up while it answers and its quick bots play (a search bot's move waits in the pool, and the quick bot
    plays it at its release time until the pool is warm)."""
    loop = asyncio.get_running_loop()
    loaded: asyncio.Future[None] = loop.create_future()

    def settle() -> None:
        if not loaded.done():
            loaded.set_result(None)

    def load() -> None:
        try:
            load_levels()
        except Exception:  # a level that does not import: its tables' bots will say so; the others play
            log.exception("the bot levels did not all load")
        with contextlib.suppress(RuntimeError):  # the server stopped meanwhile: its loop is closed
            loop.call_soon_threadsafe(settle)

    threading.Thread(target=load, name="bot-levels", daemon=True).start()
    await loaded
    if pool is not None:
        pool.start()


# -- caps and release times ---------------------------------------------------------------------------------


def check_caps(spec: str, settings: Settings) -> None:
    """Refuse (:class:`InvalidBotSpec`) a bot spec whose search budget is over this server's caps."""
    _, params = parse_spec(spec)
    seconds, iters = params.get("seconds"), params.get("iters")
    oversample = params.get("oversample")
    if seconds is not None and seconds > settings.bot_seconds:
        raise InvalidBotSpec(f"seconds={seconds} is over this server's limit of {settings.bot_seconds:g} s a move")
    if iters is not None and iters > settings.bot_max_iters:
        raise InvalidBotSpec(f"iters={iters} is over this server's limit of {settings.bot_max_iters} iterations")
    if oversample is not None and oversample > settings.bot_max_oversample:
        raise InvalidBotSpec(f"oversample={oversample} is over this server's limit of {settings.bot_max_oversample}")


def within_caps(spec: str, settings: Settings) -> str:
    """``spec`` with any parameter over the caps brought down to them (a table stored before the caps, or under
    higher ones, plays on within this server's)."""
    name, params = parse_spec(spec)
    caps: dict[str, float] = {
        "seconds": settings.bot_seconds,
        "iters": settings.bot_max_iters,
        "oversample": settings.bot_max_oversample,
    }
    if all(key not in caps or value <= caps[key] for key, value in params.items()):
        return spec
    capped = {key: min(value, caps[key]) if key in caps else value for key, value in params.items()}
    return ":".join([name, *(f"{key}={value:g}" for key, value in capped.items())])


def is_quick(spec: str) -> bool:
    """Whether ``spec``'s bot decides in a millisecond or so (then the server process computes its moves)."""
    return parse_spec(spec)[0] in QUICK_BOTS


def release_time(spec: str, settings: Settings) -> float:
    """Seconds after its turn begins at which a bot's move is played, whatever the bot sees: the pace for a quick
    bot, a search bot's (capped) budget otherwise. A move not ready by then is the fallback bot's, at that time."""
    name, params = parse_spec(spec)
    if name in QUICK_BOTS:
        return settings.bot_pace
    iters, seconds = params.get("iters"), params.get("seconds")
    if iters is None and seconds is not None:
        budget = min(seconds, settings.bot_seconds) + SEARCH_MARGIN
    else:
        budget = min(iters or DEFAULT_ITERS, settings.bot_max_iters) * settings.bot_iteration_seconds
    return min(settings.bot_seconds, max(settings.bot_pace, budget))


# -- the pool -------------------------------------------------------------------------------------------------


BOT_NICENESS = 10
"""How much lower the bot processes' CPU priority is than the server's where the idle policy is not available."""


def _start_bot_process(parent: int) -> None:
    """In a new bot process: the default signals, yield the CPU to the server, and watch the server
    (:func:`_watch_parent`)."""
    _default_signals()
    _yield_cpu()
    _watch_parent(parent)


def _default_signals() -> None:
    """Let SIGTERM end a bot process (a forked one inherits the server's handler, which only asks the server to
    stop: the process lived on), and leave SIGINT (a Ctrl-C reaches the terminal's whole process group) to the
    server, which stops its bot processes itself."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _yield_cpu() -> None:
    """Run this process only on CPU time nothing else wants (Linux ``SCHED_IDLE``: a server or client thread that
    wakes up takes the core at once), else at a lower priority (``nice``). A busy bot must never delay a table's
    acknowledgement: measured with ``luz bench server --attack bots`` (docs/BENCHMARKS.md)."""
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # type: ignore[attr-defined,unused-ignore]
        return
    with contextlib.suppress(OSError, AttributeError):
        os.nice(BOT_NICENESS)


def _watch_parent(parent: int) -> None:
    """Exit as soon as the server that started this process is gone, however it died (``kill -9`` included),
    rather than live on as an orphan."""
    if sys.platform == "linux":  # the kernel signals the process at once when its parent dies
        with contextlib.suppress(OSError, AttributeError):
            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

    def watch() -> None:  # elsewhere (and should the signal not be set): look twice a second
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    if os.getppid() != parent:  # died before the watch began
        os._exit(1)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


@dataclass
class _Job:
    share: str
    future: Future[Any]
    fn: Any
    args: tuple[Any, ...]


class BotPool:
    """Processes computing bot moves, shared fairly: each computation belongs to a share (a table's creator) and
    the next one to run is always from the waiting share that has held the processes the least time (start-time
    fair queueing). A creator's many or slow bots thus delay their own moves, not the others'.

    When a process dies (the out-of-memory killer, a ``kill -9``) the pool is replaced at once; until the new one
    has warmed up, ``healthy`` is false (``/healthz``: degraded). Made with ``start=False``, it holds what is
    submitted until :meth:`start`."""

    def __init__(self, workers: int, start: bool = True) -> None:
        self.workers = workers
        self.replacements = 0
        self._lock = threading.RLock()  # callbacks come from the executor's thread, or at once from ours
        self._waiting: dict[str, deque[_Job]] = {}
        self._used: dict[str, float] = {}
        """Seconds of bot process each share has used (raised to ``_clock`` when it starts waiting again)."""
        self._clock = 0.0
        """The used time of the share whose computation started last: where a share that comes back starts."""
        self._running = 0
        self._generation = 0
        self._stopped = False
        self._started = False
        self._executor = self._new_executor()  # its processes start with the first computation
        self._warm: Future[None] = Future()
        if start:
            self.start()

    def start(self) -> None:
        """Start the processes: they warm up first, then take the computations waiting."""
        with self._lock:
            if self._started or self._stopped:
                return
            self._started = True
            self._warm = self._warm_up()
            self._dispatch()

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, initializer=_start_bot_process, initargs=(os.getpid(),))

    def _start(self, fn: Any, *args: Any) -> tuple[int, Future[Any]]:
        """``fn(*args)`` in the executor now, counted as running until :meth:`_ended` (the lock held, or before
        the pool is shared); with the pool's generation, which a replacement ends."""
        future = self._executor.submit(fn, *args)
        self._running += 1
        return self._generation, future

    def _ended(self, generation: int, job: _Job | None = None, done: Future[Any] | None = None) -> None:
        """A computation ended: charge its process time to its share, start the next, hand its outcome over."""
        with self._lock:
            if generation == self._generation:  # not a dead pool's computation, already uncounted
                self._running -= 1
            outcome = None if done is None or done.cancelled() or done.exception() is not None else done.result()
            if job is not None and outcome is not None:
                self._used[job.share] = self._used.get(job.share, self._clock) + outcome[0]
            self._dispatch()
        if job is not None and done is not None:
            if outcome is None:  # failed, or cancelled by the replacement of a dead pool
                failure = None if done.cancelled() else done.exception()
                job.future.set_exception(failure or BrokenProcessPool("the bot pool was replaced"))
            else:
                job.future.set_result(outcome[1])

    def _warm_up(self) -> Future[None]:
        """Compile the fast core in the (new) process before the first move; it counts as a running computation."""
        generation, future = self._start(warm_up)
        future.add_done_callback(lambda _: self._ended(generation))
        return future

    @property
    def healthy(self) -> bool:
        """Every worker alive and warmed up."""
        broken = getattr(self._executor, "_broken", False)  # set by the executor when a worker dies
        return not broken and self._warm.done() and self._warm.exception() is None

    @property
    def waiting(self) -> int:
        """Computations waiting for a free bot process (the metrics' ``luz_bot_queue``)."""
        with self._lock:
            return sum(len(queue) for queue in self._waiting.values())

    def submit(self, share: str, fn: Any, *args: Any) -> Future[Any]:
        """``fn(*args)`` in a bot process when ``share``'s turn comes. Cancelling the future while it waits
        withdraws it (no process time spent). It fails with :class:`BrokenProcessPool` if a process dies
        meanwhile: call :meth:`recover`, then submit again."""
        job = _Job(share, Future(), fn, args)
        with self._lock:
            if self._stopped:
                job.future.set_exception(BrokenProcessPool("the bot processes are stopped"))
                return job.future
            queue = self._waiting.get(share)
            if queue is None:
                queue = self._waiting[share] = deque()
                self._used[share] = max(self._used.get(share, 0.0), self._clock)
            queue.append(job)
            self._dispatch()
        return job.future

    def _dispatch(self) -> None:
        """Start waiting computations, fairest first, while a process is free (the lock held)."""
        while self._started and self._running < self.workers and self._waiting:
            share = min(self._waiting, key=self._used.__getitem__)
            queue = self._waiting[share]
            job = queue.popleft()
            if not queue:
                del self._waiting[share]
            if not job.future.set_running_or_notify_cancel():
                continue  # withdrawn while it waited
            self._clock = self._used[share]
            try:
                generation, inner = self._start(_timed, job.fn, *job.args)
            except BrokenProcessPool as dead:  # a worker died while no move was in flight
                job.future.set_exception(dead)
                continue
            inner.add_done_callback(functools.partial(self._ended, generation, job))
        for share in [s for s, used in self._used.items() if s not in self._waiting and used <= self._clock]:
            del self._used[share]  # idle and not ahead of the others: it will start again at the clock

    def recover(self) -> None:
        """Replace the pool if a worker died (the moves in flight failed; the new pool warms up first)."""
        with self._lock:
            if self._stopped or not getattr(self._executor, "_broken", False):
                return
            log.error("a bot process died: replacing the bot pool")
            self._executor.shutdown(wait=False, cancel_futures=True)
            self.replacements += 1
            self._generation += 1
            self._running = 0
            self._executor = self._new_executor()
            self._warm = self._warm_up()

    def shutdown(self, grace: float = STOP_GRACE) -> None:
        """Stop the bot processes at once, whatever they are doing (a search, compiling the fast core): the
        waiting computations are withdrawn and the processes terminated, killed if still there after ``grace``
        seconds. Nothing is lost: a bot process keeps no state, and the moves in flight were never played."""
        with self._lock:
            self._stopped = True
            for queue in self._waiting.values():
                for job in queue:
                    job.future.cancel()
            self._waiting.clear()
            processes = list(self._executor._processes.values())
            self._executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        deadline = time.monotonic() + grace
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                log.warning("bot process %s still there %g s after SIGTERM: killed", process.pid, grace)
                process.kill()
                process.join()


def _timed(fn: Any, *args: Any) -> tuple[float, Any]:
    """``fn(*args)`` in a bot process, with the seconds it held the process (what its share is charged)."""
    started = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - started, result
