"""Fixtures of the browser tests: a real ``luz serve`` (temporary SQLite database) per test module, and Debian's
headless Chromium driven by Playwright (``executable_path``: no browser download).

Where Chromium or Playwright is missing the browser tests skip with the reason, except under CI (``CI`` set),
where ``.ci/run`` installs Chromium and a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.server import ServerProcess

CHROMIUM = os.environ.get("LUZ_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient` is deprecated")


def browser_problem() -> str | None:
    """Why the browser tests cannot run here (``None``: they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install -e '.[dev]')"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set LUZ_CHROMIUM)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    problem = browser_problem()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests must run in CI: {problem}")
        pytest.skip(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """``luz serve`` on a free port with an empty SQLite database (bots in the server process). The loopback is a
    trusted proxy: each browser context comes from an address of its own (``open_player``'s ``X-Forwarded-For``),
    as players of different homes do (accounts of one address exchange no rating)."""
    folder = tmp_path_factory.mktemp("web")
    env = {"LUZ_TRUSTED_PROXIES": "127.0.0.1"}
    process = ServerProcess(f"sqlite:///{folder}/luz.sqlite3", folder / "server.log", env=env).start()
    yield process
    process.stop()
