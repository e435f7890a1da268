"""Every way a table comes into memory resumes it the same way (``Registry.resume``): a turn-based table whose bot
was to move when the server stopped, opened right after the restart by one ``GET /api/tables/ID``, sees its bot
move within seconds (it froze for good when a request loaded it without starting its bots and the deadline scan
skipped the tables in memory). Killed (``kill -9``) and stopped (SIGTERM, a deploy); SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from luz.server.domain import build_game
from support.server import (
    ServerProcess,
    WirePeer,
    action_log,
    backend_urls,
    create_table,
    first_legal,
    join_all,
    open_store,
    seats,
    wait_for,
)

SLOW_PACE = "30"
"""The bots' pace (seconds) before the stop: the bot is still to move when the server goes."""
WITHIN = 10.0
"""Seconds the bot has to move once the table is opened after the restart (its watchdog deadline is a minute)."""


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize("stop", ["kill9", "sigterm"])
def test_a_bot_to_move_moves_once_its_table_is_opened_after_a_restart(backend: str, stop: str, tmp_path: Path) -> None:
    with backend_urls(backend, tmp_path) as url:
        asyncio.run(bot_to_move_across_a_restart(url, stop, tmp_path))


async def bot_to_move_across_a_restart(url: str, stop: str, tmp_path: Path) -> None:
    server = ServerProcess(url, tmp_path / "server.log", env={"LUZ_BOT_PACE": SLOW_PACE}).start()
    store = open_store(url)
    try:
        with httpx.Client(base_url=server.http, timeout=10) as http:
            table_id, tokens, _ = create_table(
                http,
                players=3,
                time_control="1d",
                options={"first_player": 0},
                seats=seats("human", "random", "random"),
            )
            join_all(http, table_id, tokens)
        async with WirePeer(server.ws, table_id, tokens[0], 0, None) as player:
            assert (await player.act(first_legal(player.view), player.state["version"]))["type"] == "ack"
        log = action_log(store, table_id)
        assert [row[2] for row in log] == [0]
        assert build_game(store.load(table_id)).current_player == 1  # the bot's turn, its move 30 s away
        server.kill9() if stop == "kill9" else server.stop()
        assert [row[2] for row in action_log(store, table_id)] == [0]  # it did not move before the stop
        server.env["LUZ_BOT_PACE"] = "0"
        server.start()
        with httpx.Client(base_url=server.http, timeout=10) as http:
            opened = http.get(f"/api/tables/{table_id}")
            assert opened.status_code == 200 and opened.json()["to_move"] == 1
        # Its bot moves at once (then the other bot's turn, then the human's: the game waits for seat 0).
        moved = wait_for(lambda: [row[2] for row in action_log(store, table_id)][:3] == [0, 1, 2], timeout=WITHIN)
        assert moved
        assert build_game(store.load(table_id)).current_player == 0
        assert "Traceback" not in server.log()
    finally:
        server.stop()
