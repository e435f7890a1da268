"""Scale-out fixtures: a fresh PostgreSQL database per run, Redis, and two real ``luz serve`` processes on it.

PostgreSQL and Redis default to ``postgresql://postgres@127.0.0.1:5432/test`` and ``redis://127.0.0.1:6379/0``
(override with ``LUZ_TEST_DATABASE_URL`` / ``LUZ_TEST_REDIS_URL``). The run creates its own database
``luz_scaleout_<random>`` there and drops it at the end, so runs never collide. When either service is unreachable
the tests are skipped, saying why; under CI (``CI`` set) they fail instead, so that they cannot be lost silently.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from typing import NoReturn
from urllib.parse import urlsplit

import pytest

from luz.bench.server import ServerProcess
from support.scaleout import two_servers

POSTGRES_URL = os.environ.get("LUZ_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("LUZ_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: the scale-out tests need PostgreSQL and Redis in CI")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a database created for this run (dropped at its end)."""
    import psycopg
    from psycopg import sql

    try:
        admin = psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=3)
    except psycopg.Error as error:
        unavailable(f"PostgreSQL unreachable at {POSTGRES_URL} ({type(error).__name__}: {error})")
    name = f"luz_scaleout_{secrets.token_hex(6)}"
    with admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            yield urlsplit(POSTGRES_URL)._replace(path=f"/{name}").geturl()
        finally:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def redis_url() -> str:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3, socket_timeout=3)
    try:
        client.ping()
    except redis.RedisError as error:
        unavailable(f"Redis unreachable at {REDIS_URL} ({type(error).__name__}: {error})")
    finally:
        client.close()
    return REDIS_URL


@pytest.fixture(scope="module")
def servers(
    postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[ServerProcess]]:
    """Two ``luz serve`` processes on free ports, one database, events through Redis (started together: they
    migrate the fresh database at the same moment). The loopback is a trusted proxy: a test's players come from
    homes of their own by ``X-Forwarded-For`` (accounts of one address exchange no rating)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LUZ_TRUSTED_PROXIES", "127.0.0.1")
        with two_servers(postgres_url, redis_url, tmp_path_factory.mktemp("servers"), bot_workers=1) as started:
            yield started
