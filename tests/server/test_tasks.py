"""The live tables' background work: a failure is logged, and once closed (the server stopping) the work running
has ended and new work is dropped, so nothing uses Redis or the database after they close."""

from __future__ import annotations

import asyncio
import inspect
import logging
import warnings

import pytest

from luz.server.tables.tasks import Tasks


def test_a_failure_is_logged_and_close_ends_the_running_work_and_drops_new_work(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []

    async def scenario() -> None:
        tasks = Tasks()
        started = asyncio.Event()

        async def fails() -> None:
            raise ConnectionError("Redis unreachable")

        async def waits() -> None:
            started.set()
            try:
                await asyncio.Event().wait()
            finally:
                ran.append("cleaned up")

        async def late() -> None:
            ran.append("late work ran")

        tasks.spawn(fails())
        tasks.spawn(waits())
        await started.wait()
        await tasks.close()
        assert not tasks.running(), "close returns once the running work has ended"
        tasks.spawn(late())
        await asyncio.sleep(0)  # a turn of the loop: a task spawned now would have started
        assert not tasks.running()

    with caplog.at_level(logging.ERROR, logger="luz.server"):
        asyncio.run(scenario())
    assert ran == ["cleaned up"]
    assert [record.getMessage() for record in caplog.records] == ["background work failed"]


def test_work_cancelled_before_it_began_is_closed_without_a_warning() -> None:
    """The server stops right after a change spawned its broker word (a spectator's count): the word never runs,
    and Python is not left to warn of a coroutine never awaited."""

    async def word() -> None:
        raise AssertionError("never runs")

    async def scenario() -> None:
        tasks = Tasks()
        work = word()
        tasks.spawn(work)
        await tasks.close()  # before the loop ever ran its task
        assert inspect.getcoroutinestate(work) == inspect.CORO_CLOSED and not tasks.running()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asyncio.run(scenario())
