"""Whether numba's threads pay for a batch (``parallel="auto"``, the default of the batched environments).

The rule, cheapest test first:

1. fewer than :data:`MIN_GAMES` games: one thread (each step's share of work is too small for a thread's start);
2. fewer than two cores for this process (``os.sched_getaffinity`` and numba's thread count): one thread;
3. fewer than one idle core (those cores minus the 1-minute load average, ``os.getloadavg``): one thread, since a
   busy machine takes the cores the threads would use (on the project's shared 2-core machine two threads gave
   0.67 times one core);
4. otherwise, once per process: time :data:`CALIBRATION_GAMES` games stepped on one thread and on numba's threads,
   alternately, :data:`ROUNDS` rounds each, and keep the threads only if their best round is faster than one
   thread's best by :data:`MARGIN`. The answer is cached for the process (:func:`calibrated`).

Results are the same bit for bit whichever is chosen; only speed differs.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from luz.engine import InvalidOptions

MIN_GAMES = 256
"""Below this many games, one thread."""
CALIBRATION_GAMES = 1024
ROUNDS = 3
STEPS = 20
"""Steps a calibration round times."""
MARGIN = 1.25
"""How much faster (best round against best round) the threads must be to be kept."""

Measure = Callable[[bool], float]
"""Seconds one calibration round takes, on numba's threads (``True``) or one thread (``False``)."""

_CALIBRATED: list[bool] = []


def cores() -> int:
    """The cores this process may run numba's threads on."""
    import numba

    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(allowed, int(numba.get_num_threads()))


def load() -> float:
    """The 1-minute load average (0 where the system gives none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def threads_win(measure: Measure, rounds: int = ROUNDS, margin: float = MARGIN) -> bool:
    """Whether numba's threads beat one thread by ``margin``: ``rounds`` rounds of each, alternating, best against
    best."""
    serial, threaded = float("inf"), float("inf")
    for _ in range(rounds):
        serial = min(serial, measure(False))
        threaded = min(threaded, measure(True))
    return threaded * margin < serial


def threads_pay(num_games: int, cores: int, load: float, calibrate: Callable[[], bool]) -> bool:
    """The rule of this module's docstring, its inputs given (``calibrate``, step 4, called only if 1-3 pass)."""
    if num_games < MIN_GAMES or cores < 2 or cores - load < 1.0:
        return False
    return calibrate()


def calibrated(measure: Measure) -> bool:
    """:func:`threads_win` with ``measure``, once per process."""
    if not _CALIBRATED:
        _CALIBRATED.append(threads_win(measure))
    return _CALIBRATED[0]


def use_threads(parallel: bool | str, num_games: int, measure: Measure) -> bool:
    """``parallel`` as given (``True``/``False``), or decided for ``"auto"`` by :func:`threads_pay` on this machine
    (``measure``: a batch's seconds on threads or on one thread, the calibration's clock)."""
    if isinstance(parallel, bool):
        return parallel
    if parallel == "auto":
        return threads_pay(num_games, cores(), load(), lambda: calibrated(measure))
    raise InvalidOptions(f"parallel must be True, False or 'auto', not {parallel!r}")
