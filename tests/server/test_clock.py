"""The injected clock: the real one reads the system's, the fake one moves only when told."""

import time

import pytest

from luz.server.clock import SYSTEM_CLOCK, Clock, FakeClock


def test_the_system_clock_reads_the_system_time() -> None:
    before = time.time()
    now = SYSTEM_CLOCK.now()
    assert before <= now <= time.time()
    first = SYSTEM_CLOCK.monotonic()
    assert SYSTEM_CLOCK.monotonic() >= first


def test_a_fake_clock_stands_still_until_advanced() -> None:
    clock: Clock = FakeClock(1_700_000_000.0)
    assert clock.now() == clock.now() == 1_700_000_000.0
    assert isinstance(clock, FakeClock)
    start = clock.monotonic()
    clock.advance(90)
    assert clock.now() == 1_700_000_090.0
    assert clock.monotonic() - start == 90


def test_a_fake_clock_never_goes_back() -> None:
    clock = FakeClock(10.0)
    with pytest.raises(ValueError, match="cannot go back"):
        clock.advance(-1)
    assert clock.now() == 10.0
