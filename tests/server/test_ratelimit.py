"""The in-memory rate windows (ratelimit.py) on an injected clock: a fake one is advanced, nothing sleeps."""

from __future__ import annotations

import asyncio
import socket

import pytest
from limits.errors import StorageError

from luz.server.clock import FakeClock
from luz.server.ratelimit import MovingWindow, RateLimit, SharedRateLimit


def test_a_window_refuses_past_its_rate_until_its_oldest_hit_leaves() -> None:
    clock = FakeClock()
    window = MovingWindow("2/minute", clock)
    assert window.hit("a") is None
    clock.advance(20)
    assert window.hit("a") is None
    assert window.hit("a") == 40  # the first hit leaves the window 60 s after it
    assert window.hit("b") is None  # another key counts apart
    clock.advance(39.5)
    assert window.hit("a", count=False) == 1  # half a second left: one whole second to wait
    clock.advance(0.5)
    assert window.hit("a") is None  # the first hit has left; the refused ones were not counted
    assert window.hit("a") == 20


def test_looking_counts_no_hit() -> None:
    window = MovingWindow("1/second", FakeClock())
    assert [window.hit("a", count=False) for _ in range(3)] == [None] * 3
    assert window.hit("a") is None and window.hit("a") == 1


def test_keys_whose_hits_all_left_are_swept() -> None:
    clock = FakeClock()
    window = MovingWindow("5/second", clock)
    for n in range(MovingWindow.SWEEP_EVERY - 1):
        window.hit(f"k{n}")
    clock.advance(2)
    window.hit("last")  # the sweep's turn: every other key's hits have left
    assert list(window.hits) == ["last"]


def test_the_limits_without_redis_run_on_the_clock_given() -> None:
    clock = FakeClock()
    opening, shared = RateLimit("1/second", clock), SharedRateLimit("1/minute", clock=clock)

    async def hits() -> list[int | None]:
        return [await shared.hit("x"), await shared.hit("x"), await shared.wait("x")]

    assert [opening.hit("x"), opening.hit("x")] == [None, 1]
    assert asyncio.run(hits()) == [None, 60, 60]
    clock.advance(60)
    assert opening.hit("x") is None and asyncio.run(hits()) == [None, 60, 60]


def test_a_limit_made_never_to_lift_on_a_storage_failure_raises_it() -> None:
    """The login limits (api/identities.py): Redis unreachable is an error, never every attempt let through."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there once the probe is closed
    unreachable = SharedRateLimit("2/minute", f"redis://127.0.0.1:{port}/0", "test", open_on_failure=False)
    with pytest.raises(StorageError):
        asyncio.run(unreachable.hit("login-user:uma"))
