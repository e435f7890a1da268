"""Rate limits held across server processes: with Redis, every process counts a client's hits together."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from luz.bench.server import ServerProcess
from support.scaleout import two_servers


@pytest.fixture
def limited_servers(
    postgres_url: str, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[ServerProcess]]:
    monkeypatch.setenv("LUZ_TABLES_PER_MINUTE", "3/minute")
    with two_servers(postgres_url, redis_url, tmp_path) as started:
        yield started


def test_a_client_limit_holds_across_server_processes(limited_servers: list[ServerProcess]) -> None:
    """Three tables a minute for one client: two created on one process and one on the other use them up, on
    both (per process, it could create three on each)."""
    first, second = limited_servers
    for server in (first, first, second):
        answer = httpx.post(f"{server.url}/api/tables", json={"players": 3}, timeout=10)
        assert answer.status_code == 201, answer.text
    for server in (first, second):
        refused = httpx.post(f"{server.url}/api/tables", json={"players": 3}, timeout=10)
        assert refused.status_code == 429, refused.text
        assert 0 < int(refused.headers["retry-after"]) <= 60
