"""A rematch across two server processes (PostgreSQL + Redis): offered through one, declined through the other,
offered again and accepted; each process's players see every step, and the next game starts once, rotated."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from luz.bench.server import ServerProcess

TIMEOUT = 150.0


@dataclass
class Seat:
    """One seat's connection: it plays the first legal action on its turn and keeps every state and reply."""

    seat: int
    ws: ClientConnection
    states: list[dict[str, Any]] = field(default_factory=list)
    replies: dict[str, dict[str, Any]] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    acted_on: int = -1
    sent: int = 0

    async def run(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            if message["type"] == "state":
                self.states.append(message)
                await self.maybe_act(message)
            elif message["type"] in ("ack", "error") and isinstance(message["id"], str):
                self.replies[message["id"]] = message
            self.changed.set()

    async def maybe_act(self, message: dict[str, Any]) -> None:
        seen, version = message["view"], message["version"]
        if seen is None or message["table"]["status"] != "playing" or version <= self.acted_on:
            return
        if seen["current_player"] == self.seat and seen["legal_actions"]:
            self.acted_on = version
            action = seen["legal_actions"][0]
            await self.ws.send(json.dumps({"type": "action", "action": action, "version": version}))

    async def until(self, check: Any) -> dict[str, Any]:
        """The first state (newest first) that ``check`` accepts, waiting for it."""
        while True:
            found = next((s for s in reversed(self.states) if check(s)), None)
            if found is not None:
                return found
            self.changed.clear()
            await self.changed.wait()

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.sent += 1
        ident = f"{self.seat}:{self.sent}"
        await self.ws.send(json.dumps({**message, "id": ident}))
        while ident not in self.replies:
            self.changed.clear()
            await self.changed.wait()
        return self.replies[ident]


def offer(state: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = state["table"]["rematch"] or {}
    return found


async def _rematch(servers: list[ServerProcess]) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
        spec = {"players": 3, "grace_seconds": 600, "seats": seats}
        created = await http.post(f"{servers[0].url}/api/tables", json=spec)
        assert created.status_code == 201, created.text
        table_id = created.json()["table"]["id"]
        tokens = {invite["seat"]: invite["token"] for invite in created.json()["invites"]}
        for seat, token in tokens.items():
            session = (await http.post(f"{servers[seat].url}/api/me/guest")).json()["session"]
            joined = await http.post(
                f"{servers[seat].url}/api/tables/{table_id}/seats/{seat}/join",
                json={"name": f"p{seat} {table_id[:6]}", "token": token},
                headers={"X-Luz-Session": session},
            )
            assert joined.status_code == 200, joined.text
    ann, bob = [
        Seat(seat, await connect(f"{servers[seat].ws_url}/ws/tables/{table_id}?token={tokens[seat]}", open_timeout=30))
        for seat in (0, 1)
    ]
    tasks = [asyncio.create_task(seat.run()) for seat in (ann, bob)]
    try:
        opening = await ann.until(lambda s: s["view"] is not None and s["view"]["deal_number"] == 1)
        first = opening["view"]["first_player"]
        for seat in (ann, bob):
            await seat.until(lambda s: s["table"]["status"] == "over")
        assert (await ann.request({"type": "rematch", "accept": True}))["type"] == "ack"
        assert offer(await bob.until(lambda s: offer(s).get("by") == 0))["accepted"] == [0]
        assert (await bob.request({"type": "rematch", "accept": False}))["type"] == "ack"
        await ann.until(lambda s: offer(s).get("declined") == 1)
        assert (await bob.request({"type": "rematch", "accept": True}))["type"] == "ack"
        await ann.until(lambda s: offer(s).get("by") == 1 and offer(s).get("declined") is None)
        again = await bob.request({"type": "rematch", "accept": True})
        assert again["type"] == "error" and again["code"] == "answered"
        assert (await ann.request({"type": "rematch", "accept": True}))["type"] == "ack"
        for seat in (ann, bob):
            started = await seat.until(lambda s: s["table"]["game_no"] == 2 and s["view"]["deal_number"] == 1)
            assert started["view"]["first_player"] == (first + 1) % 3, "the seats rotated by one"
            assert started["table"]["rematch"] is None
    finally:
        for seat in (ann, bob):
            await seat.ws.close()
        await asyncio.gather(*tasks, return_exceptions=True)


def test_a_rematch_across_two_processes(servers: list[ServerProcess]) -> None:
    asyncio.run(asyncio.wait_for(_rematch(servers), TIMEOUT))
