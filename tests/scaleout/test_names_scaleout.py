"""One name per identity across two server processes (PostgreSQL + Redis): a rename through one process shows at
once on the other, to a connection it holds of the table and in its answers."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect

from luz.bench.server import ServerProcess


def test_a_rename_on_one_process_shows_on_the_other(servers: list[ServerProcess]) -> None:
    one, two = servers
    spec = {"players": 3, "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]}
    with httpx.Client(timeout=30) as http:
        created = http.post(f"{one.url}/api/tables", json=spec).json()
        table_id, tokens = created["table"]["id"], {i["seat"]: i["token"] for i in created["invites"]}
        me = {"X-Luz-Session": http.post(f"{one.url}/api/me/guest").json()["session"]}
        assert http.post(f"{one.url}/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, headers=me)

    async def scenario() -> dict[str, Any]:
        # A connection of seat 1 through process two: the table is live there.
        async with connect(f"{two.ws_url}/ws/tables/{table_id}?token={tokens[1]}", open_timeout=30) as ws:
            first = json.loads(await ws.recv())
            assert first["type"] == "state"
            async with httpx.AsyncClient(timeout=30) as http:
                renamed = await http.post(f"{one.url}/api/me/name", json={"name": "Zoë Two"}, headers=me)
                assert renamed.status_code == 200, renamed.text
                deadline = time.monotonic() + 30
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
                    if message["type"] == "state" and message["table"]["seats"][0]["name"] == "Zoë Two":
                        break
                answer = await http.get(f"{two.url}/api/tables/{table_id}")
                summary: dict[str, Any] = answer.json()
                return summary

    summary = asyncio.run(scenario())
    assert summary["seats"][0]["name"] == "Zoë Two" and summary["seats"][0]["guest"] is True
