"""Resuming across processes: the process holding a turn-based table whose bot is to move goes (``kill -9`` or
SIGTERM); the table opened on another process (one ``GET /api/tables/ID``) sees its bot move within seconds."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from luz.bench.server import ServerProcess
from luz.server.domain import build_game
from support.server import WirePeer, action_log, create_table, first_legal, join_all, open_store, seats, wait_for

WITHIN = 10.0
"""Seconds the bot has to move once the table is opened on the other process (its watchdog deadline: a minute)."""


@pytest.mark.parametrize("stop", ["kill9", "sigterm"])
def test_a_bot_to_move_moves_once_its_table_is_opened_on_another_process(
    servers: list[ServerProcess],
    postgres_url: str,
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop: str,
) -> None:
    _, other = servers
    monkeypatch.setenv("LUZ_BOT_PACE", "30")  # its bots are still to move when it goes
    going = ServerProcess.start(postgres_url, redis_url, tmp_path / "going.log")
    store = open_store(postgres_url)
    try:
        going.wait_healthy(timeout=60)
        with httpx.Client(base_url=going.url, timeout=10) as http:
            table_id, tokens, _ = create_table(
                http,
                players=3,
                time_control="1d",
                options={"first_player": 0},
                seats=seats("human", "random", "random"),
            )
            join_all(http, table_id, tokens)

        async def bid() -> None:
            async with WirePeer(going.ws_url, table_id, tokens[0], 0, None) as player:
                assert (await player.act(first_legal(player.view), player.state["version"]))["type"] == "ack"

        asyncio.run(bid())
        assert build_game(store.load(table_id)).current_player == 1
        if stop == "kill9":
            going.process.kill()
            going.process.wait(10)
        else:
            going.stop()
        assert [row[2] for row in action_log(store, table_id)] == [0]
        with httpx.Client(base_url=other.url, timeout=10) as http:
            opened = http.get(f"/api/tables/{table_id}")
            assert opened.status_code == 200 and opened.json()["to_move"] == 1
        assert wait_for(lambda: [row[2] for row in action_log(store, table_id)][:3] == [0, 1, 2], timeout=WITHIN)
        assert other.process.poll() is None
    finally:
        going.stop()
        store.engine.dispose()
