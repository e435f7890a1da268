"""Abuse tests: each attack on the server, and the service another client keeps meanwhile.

Helpers come from ``tests/support/server.py`` and ``tests/support/abuse.py``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.server import ServerProcess


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient` is deprecated")
    own_session()


def own_session() -> None:
    """Run these tests' servers and bot processes in a session of their own, as a deployed server runs in a service
    of its own. Linux shares the CPU between sessions first (autogroups) and the bot processes run under
    ``SCHED_IDLE``: a CPU-bound process in the session that started pytest (a loaded machine's) would otherwise
    leave them almost nothing, and the tests would time that starvation instead of the attack. Only where pytest
    is not its process group's leader (under ``make``); a Ctrl-C to ``make`` still ends it (``PR_SET_PDEATHSIG``)."""
    with contextlib.suppress(OSError):
        os.setsid()
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG: SIGINT when make ends


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start ``luz serve`` on SQLite with the environment given (a module's limits and a test's own) and
    ``bot_workers`` bot processes; each server is stopped at the end and its log checked for tracebacks."""
    started: list[ServerProcess] = []

    def start(bot_workers: int = 0, **env: str) -> ServerProcess:
        database = f"sqlite:///{tmp_path}/luz.sqlite3"
        process = ServerProcess(database, tmp_path / "server.log", bot_workers=bot_workers, env=env)
        started.append(process.start())
        return process

    yield start
    for process in started:
        process.stop()
        assert "Traceback" not in process.log(), process.log()[-3000:]
