"""Abuse tests: each attack on the server, and the service another client keeps meanwhile.

Helpers come from the server tests (``tests/server/server_support.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "server"))
sys.path.insert(0, str(Path(__file__).parent))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: starts real `luz serve` processes (a few seconds each)")
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient` is deprecated")
