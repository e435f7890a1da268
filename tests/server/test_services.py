"""The app's services are found in one typed place: only the composition root (``api/app.py``) writes ``app.state``
and only ``api/deps.py``'s ``services_of`` reads it; every other module asks a typed dependency."""

from __future__ import annotations

import re
from pathlib import Path

import luz

SOURCES = Path(luz.__file__).parent
APP_STATE = re.compile(r"\bapp\.state\b")
ALLOWED = {"server/api/app.py", "server/api/deps.py"}


def app_state_readers() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(SOURCES.rglob("*.py")):
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if APP_STATE.search(line)]
        if lines:
            found[path.relative_to(SOURCES).as_posix()] = lines
    return found


def test_only_the_composition_root_and_the_dependencies_touch_app_state() -> None:
    readers = app_state_readers()
    assert set(readers) == ALLOWED, {k: v for k, v in readers.items() if k not in ALLOWED}
    [read] = [line for line in readers["server/api/deps.py"] if "=" in line]
    assert read == "services: Services = connection.app.state.services"
