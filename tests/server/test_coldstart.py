"""A server started with numba's cache empty: it answers and its tables play while its bot process compiles.
Slow (a server process, compiling): marked ``slow``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from luz.server.tables.botpool import BotPool
from support.server import ServerProcess, children_of, seats, wait_for

pytestmark = pytest.mark.slow


def test_a_cold_server_plays_quick_bots_and_falls_back_for_strong_ones_before_its_bots_are_warm(
    tmp_path: Path, sqlite_url: str
) -> None:
    cache = tmp_path / "numba"  # empty: the bot process compiles the fast core (tens of seconds of CPU)
    server = ServerProcess(sqlite_url, tmp_path / "server.log", bot_workers=1, env={"NUMBA_CACHE_DIR": str(cache)})
    try:
        server.start()  # /healthz answered 200
        with httpx.Client(base_url=server.http, timeout=10) as http:
            health = http.get("/healthz").json()
            assert health["status"] == "degraded" and health["bots"] == "starting"
            tables = {
                kind: http.post("/api/tables", json={"players": 3, "seats": seats(*kinds)}).json()["table"]
                for kind, kinds in (("quick", ("heuristic",) * 3), ("strong", ("strong", "heuristic", "heuristic")))
            }

            def moves(table: dict[str, Any]) -> int:
                return int(http.get(f"/api/tables/{table['id']}").json()["version"]) - int(table["version"])

            # A move a version: after three, every seat has bid, the strong one by the quick bot at its release time.
            wait_for(lambda: all(moves(table) >= 3 for table in tables.values()), timeout=120)
            health = http.get("/healthz").json()
        assert health["bots"] == "starting", "the bot process warmed up before the first moves: nothing shown"
        assert "went over its time" in server.log()  # the strong seat's move was the quick bot's
    finally:
        server.stop()


def test_a_pool_made_unstarted_holds_its_computations_until_it_starts() -> None:
    """The server makes its pool before it has imported the bot levels, and starts it after (botpool.start_bots):
    no process is forked before, and what is submitted meanwhile waits for it."""
    pool = BotPool(2, start=False)
    try:
        before = children_of(os.getpid())
        waiting = pool.submit("a table", os.getpid)
        assert not waiting.done() and not pool.healthy
        assert children_of(os.getpid()) == before
        pool.start()
        assert waiting.result(timeout=120) not in (os.getpid(), *before)  # in a bot process, the other warming up
    finally:
        pool.shutdown()
