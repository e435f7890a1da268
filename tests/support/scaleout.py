"""Helpers of the scale-out tests: server processes sharing one database and Redis."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from luz.bench.server import ServerProcess


@contextlib.contextmanager
def two_servers(postgres_url: str, redis_url: str, folder: Path, **options: int) -> Iterator[list[ServerProcess]]:
    """Two ``luz serve`` processes on one database and Redis, healthy; stopped at the end."""
    started = [ServerProcess.start(postgres_url, redis_url, folder / f"server-{n}.log", **options) for n in (1, 2)]
    try:
        for server in started:
            server.wait_healthy(timeout=60)
        yield started
    finally:
        for server in started:
            server.stop()
