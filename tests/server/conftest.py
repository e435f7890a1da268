"""Fixtures of the game-server tests.

``database_url`` runs a test on SQLite and on PostgreSQL (a fresh schema per test; skipped with the reason when
PostgreSQL cannot be reached). Helpers live in ``tests/support/server.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from luz.server import Settings, app_services, create_app
from support.server import Truth, backend_urls

BACKENDS = ["sqlite", "postgresql"]
INTEGRATION_FIXTURES = frozenset({"database_url", "sqlite_url", "settings", "client", "module_client", "truth"})
"""A test that takes one of these runs the whole server app in process on a real database: ``integration``."""
HERE = Path(__file__).parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient` is deprecated")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``integration`` every server test that takes a database or an app (``make test-fast`` leaves them to
    ``make test``); the unit tests of the server's parts use fakes, or a SQLite file of their own."""
    for item in items:
        if item.path.is_relative_to(HERE) and INTEGRATION_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: SQLite, then PostgreSQL."""
    with backend_urls(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/luz.sqlite3"


@pytest.fixture
def settings(database_url: str) -> Settings:
    # Test clients act as fast as they can: the rate limit is tested on its own (test_rate_limit).
    return Settings(database_url=database_url, bot_workers=0, messages_per_second=10_000)


@pytest.fixture
def client(settings: Settings) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module", params=BACKENDS)
def module_client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One app per module and backend, for the many small tests that each need only a request or two."""
    from fastapi.testclient import TestClient

    with backend_urls(request.param, tmp_path_factory.mktemp("db")) as url:
        settings = Settings(database_url=url, bot_workers=0, messages_per_second=10_000)
        with TestClient(create_app(settings)) as test_client:
            yield test_client


@pytest.fixture
def truth(client: Any) -> Truth:
    return Truth(app_services(client.app).tables.store)
