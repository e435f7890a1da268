"""Rate limits held across server processes: with Redis, every process counts a client's hits together."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.requests import Request

from luz.bench.server import ServerProcess
from luz.server.api.identities import Identities
from luz.server.db import make_engine, migrate
from luz.server.identity import LOGIN_ATTEMPTS_PER_MINUTE, Players
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


def test_the_login_limits_are_counted_together_through_redis(redis_url: str, tmp_path: Path) -> None:
    """Two processes' login limiters (``Identities``) on one Redis: a client's attempts at a username, alternating
    between them, meet one limit."""
    engine = make_engine(f"sqlite:///{tmp_path}/logins.sqlite3")
    migrate(engine)
    request = Request({"type": "http", "client": ("192.0.2.1", 5000), "headers": []})

    async def attempts() -> list[bool]:
        scope = secrets.token_hex(6)  # this test's keys only
        processes = [Identities(Players(engine), "key", redis_url, False, scope=scope) for _ in range(2)]
        try:
            return [await processes[n % 2].allow_login(request, "uma") for n in range(LOGIN_ATTEMPTS_PER_MINUTE + 2)]
        finally:
            for identities in processes:
                identities.close()

    try:
        assert asyncio.run(attempts()) == [True] * LOGIN_ATTEMPTS_PER_MINUTE + [False, False]
    finally:
        engine.dispose()
