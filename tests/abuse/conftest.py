"""Abuse tests: each attack on the server, and the service another client keeps meanwhile.

Helpers come from ``tests/support/server.py`` and ``tests/support/abuse.py``.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient` is deprecated")
