"""The decision of ``parallel="auto"``: numba's threads only where they pay (an injected timer, no timing)."""

from __future__ import annotations

import pytest

from luz.engine import InvalidOptions
from luz.research import threads


class Clock:
    """A fake measure: each round of one thread takes ``serial`` seconds, of the threads ``threaded``."""

    def __init__(self, serial: float, threaded: float) -> None:
        self.times = {False: serial, True: threaded}
        self.calls: list[bool] = []

    def __call__(self, threaded: bool) -> float:
        self.calls.append(threaded)
        return self.times[threaded]


def test_threads_are_kept_only_when_faster_by_the_margin() -> None:
    assert threads.threads_win(Clock(serial=1.0, threaded=0.5))
    assert not threads.threads_win(Clock(serial=1.0, threaded=0.9))  # faster, but within the margin
    assert not threads.threads_win(Clock(serial=1.0, threaded=1.5))
    clock = Clock(serial=1.0, threaded=0.5)
    threads.threads_win(clock, rounds=3)
    assert clock.calls == [False, True] * 3  # alternating rounds


def test_best_rounds_are_compared() -> None:
    rounds = iter([3.0, 0.5, 1.0, 0.9, 1.0, 0.9])  # one slow round of one thread (a busy moment) is not kept

    def measure(threaded: bool) -> float:
        return next(rounds)

    assert threads.threads_win(measure)


@pytest.mark.parametrize(
    ("games", "cores", "load", "expected", "calibrated"),
    [
        (255, 16, 0.0, False, False),  # too few games: no calibration
        (4096, 1, 0.0, False, False),  # one core
        (4096, 2, 1.5, False, False),  # under one idle core
        (4096, 16, 15.5, False, False),
        (4096, 2, 0.5, True, True),  # idle cores: the calibration decides
        (256, 16, 3.0, True, True),
    ],
)
def test_the_rule_asks_the_calibration_only_with_idle_cores(
    games: int, cores: int, load: float, expected: bool, calibrated: bool
) -> None:
    asked: list[bool] = []

    def calibrate() -> bool:
        asked.append(True)
        return True

    assert threads.threads_pay(games, cores, load, calibrate) is expected
    assert bool(asked) is calibrated


def test_the_calibration_runs_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "_CALIBRATED", [])
    clock = Clock(serial=1.0, threaded=0.4)
    assert threads.calibrated(clock)
    assert threads.calibrated(Clock(serial=1.0, threaded=2.0))  # cached: not measured again
    assert len(clock.calls) == 2 * threads.ROUNDS


def test_parallel_given_is_kept_and_auto_follows_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    never = Clock(serial=1.0, threaded=0.4)  # measured only if the calibration were not cached
    assert threads.use_threads(True, 1, never) and not threads.use_threads(False, 10**6, never)
    monkeypatch.setattr(threads, "cores", lambda: 8)
    monkeypatch.setattr(threads, "load", lambda: 0.0)
    monkeypatch.setattr(threads, "_CALIBRATED", [True])
    assert threads.use_threads("auto", 4096, never) and not threads.use_threads("auto", 16, never)
    monkeypatch.setattr(threads, "load", lambda: 7.5)
    assert not threads.use_threads("auto", 4096, never)
    with pytest.raises(InvalidOptions):
        threads.use_threads("yes", 4096, never)
    assert never.calls == []


def test_the_machines_inputs_are_read() -> None:
    assert threads.cores() >= 1 and threads.load() >= 0.0
