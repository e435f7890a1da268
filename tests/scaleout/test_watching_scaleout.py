"""Watching across two processes: the lobby's "Playing now" adds up the spectators of both processes, whichever
answers; at a ``show_hands`` table, a spectator on the other process sees every hand, unless its identity holds a
seat (taken through the first process, its player having agreed)."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import AsyncExitStack
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from luz.bench.server import ServerProcess

HEADER = "X-Luz-Session"


def started(http: httpx.Client, server: ServerProcess, **spec: Any) -> tuple[str, dict[str, str]]:
    """A table of one human seat (joined: the game starts, waiting for its first bid) and two bots; the seat's
    player's identity header."""
    body = {
        "players": 3,
        "grace_seconds": 3600,
        "options": {"first_player": 0},
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
        **spec,
    }
    created = http.post(f"{server.url}/api/tables", json=body)
    assert created.status_code == 201, created.text
    table_id, token = created.json()["table"]["id"], created.json()["invites"][0]["token"]
    me = {HEADER: http.post(f"{server.url}/api/me/guest").json()["session"]}
    joined = http.post(f"{server.url}/api/tables/{table_id}/seats/0/join", json={"token": token}, headers=me)
    assert joined.status_code == 200, joined.text
    if spec.get("show_hands"):  # its game starts once the player agreed that anyone watching sees the cards
        agreed = http.post(
            f"{server.url}/api/tables/{table_id}/show-hand", headers={"Authorization": f"Bearer {token}"}
        )
        assert agreed.json()["status"] == "playing", agreed.text
    return table_id, me


def spectators(http: httpx.Client, server: ServerProcess, table_id: str) -> int | None:
    answer = http.get(f"{server.url}/api/tables", params={"status": "playing"})
    assert answer.status_code == 200, answer.text
    return next((t["spectators"] for t in answer.json() if t["id"] == table_id), None)


def counted_everywhere(http: httpx.Client, servers: list[ServerProcess], table_id: str, expected: int) -> None:
    deadline = time.monotonic() + 20
    while [spectators(http, server, table_id) for server in servers] != [expected] * len(servers):
        assert time.monotonic() < deadline, [spectators(http, server, table_id) for server in servers]
        time.sleep(0.05)


async def first_state(ws: ClientConnection) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 20))
        if message["type"] == "state":
            return message  # type: ignore[no-any-return]


def test_playing_now_counts_the_spectators_of_both_processes(servers: list[ServerProcess]) -> None:
    one, two = servers
    with httpx.Client(timeout=30) as http:
        table_id, _ = started(http, one, name="counted")
        counted_everywhere(http, servers, table_id, 0)

        async def watch() -> None:
            async with AsyncExitStack() as stack:
                watching = []
                for server in (one, one, two):
                    ws = await stack.enter_async_context(connect(f"{server.ws_url}/ws/tables/{table_id}"))
                    await first_state(ws)
                    watching.append(ws)
                await asyncio.to_thread(counted_everywhere, http, servers, table_id, 3)
                await watching[2].close()
                await asyncio.to_thread(counted_everywhere, http, servers, table_id, 2)

        asyncio.run(watch())
        counted_everywhere(http, servers, table_id, 0)


def test_a_spectator_on_the_other_process_sees_every_hand_unless_it_holds_a_seat(servers: list[ServerProcess]) -> None:
    one, two = servers
    with httpx.Client(timeout=30) as http:
        table_id, player = started(http, one, public=False, show_hands=True)

        async def views() -> tuple[dict[str, Any], dict[str, Any]]:
            url = f"{two.ws_url}/ws/tables/{table_id}"
            # The friend from another address: one of the player's would be refused the hands (its client's).
            async with (
                connect(url, local_addr=("127.0.0.3", 0)) as friend,
                connect(url, additional_headers=player) as seated,
            ):
                return (await first_state(friend))["view"], (await first_state(seated))["view"]

        friend, seated = asyncio.run(views())
    assert friend["phase"] == "bid" and all(s["card"] for hand in friend["hands"] for s in hand)
    assert seated["phase"] == "bid" and all(s["card"] is None for hand in seated["hands"] for s in hand)
