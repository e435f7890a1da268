"""Bot moves for the server: the caps on bot parameters, each bot's fixed release time, and the pool of bot
processes (replaced when a worker dies; its workers exit when the server does)."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import random
import signal
import sys
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from luz.bots import InvalidBotSpec, make_bot, parse_spec
from luz.engine import Action, Game, View, view

from .settings import Settings

log = logging.getLogger("luz.server")

QUICK_BOTS = frozenset({"random", "heuristic"})
"""Levels that decide in milliseconds: their moves are released at the pace."""
DEFAULT_ITERS = 64
"""The strong bot's iterations when its spec names no budget (``luz.bots.strong.DEFAULT_ITERS``)."""
SEARCH_MARGIN = 0.1
"""Seconds added to a ``seconds=`` budget for handing the view to a bot process and the move back."""


def choose_for(bot: str, seen: View, seed: str) -> Action:
    """The move of a ``bot`` seeing ``seen`` (its seat's view, never the game), reproducible from ``seed``."""
    return make_bot(bot).choose(seen, random.Random(seed))


def warm_up() -> None:
    """Make one strong decision, so that a bot process has compiled (or loaded) the fast core before a table
    needs it: numba takes seconds the first time, more than a bot's time for a move."""
    game = Game.new("iello-2024", players=4, seed=0)
    choose_for("strong", view(game, game.current_player), "warm-up")


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
"""How much lower the bot processes' CPU priority is than the server's: a busy bot never slows a table's acks."""


def _start_bot_process(parent: int) -> None:
    """In a new bot process: yield the CPU to the server, and watch the server (:func:`_watch_parent`)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(BOT_NICENESS)
    _watch_parent(parent)


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


class BotPool:
    """Processes computing bot moves. When one dies (the out-of-memory killer, a ``kill -9``) the pool is
    replaced at once; until the new one has warmed up, ``healthy`` is false (``/healthz``: degraded)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.replacements = 0
        self._executor = self._new_executor()
        self._warm: Future[None] = self._executor.submit(warm_up)

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, initializer=_start_bot_process, initargs=(os.getpid(),))

    @property
    def healthy(self) -> bool:
        """Every worker alive and warmed up."""
        broken = getattr(self._executor, "_broken", False)  # set by the executor when a worker dies
        return not broken and self._warm.done() and self._warm.exception() is None

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        """``fn(*args)`` in a bot process. Its future fails with :class:`BrokenProcessPool` if a process dies
        meanwhile: call :meth:`recover`, then submit again."""
        try:
            return self._executor.submit(fn, *args)
        except BrokenProcessPool:  # a worker died while no move was in flight
            self.recover()
            return self._executor.submit(fn, *args)

    def recover(self) -> None:
        """Replace the pool if a worker died (the moves in flight failed; the new pool warms up first)."""
        if not getattr(self._executor, "_broken", False):
            return
        log.error("a bot process died: replacing the bot pool")
        self._executor.shutdown(wait=False, cancel_futures=True)
        self.replacements += 1
        self._executor = self._new_executor()
        self._warm = self._executor.submit(warm_up)

    def shutdown(self) -> None:
        self._executor.shutdown(cancel_futures=True)
