"""Abuse tests: each attack on the server, and the service another client keeps meanwhile.

Helpers come from ``tests/support/server.py`` and ``tests/support/abuse.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.server import ServerProcess


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient` is deprecated")


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
