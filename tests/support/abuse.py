"""The victim of the abuse tests, over the wire against a real ``luz serve``: it measures its action-to-ack times.
The attackers are in ``luz.bench.attacks``."""

from __future__ import annotations

import asyncio
import time

import httpx

from support.server import WirePeer, first_legal, is_over, next_turn


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def victim_moves(http_url: str, ws_url: str, moves: int = 150) -> list[float]:
    """A table of three humans played by one (honest) client: its action-to-ack times in seconds."""
    async with httpx.AsyncClient(base_url=http_url, timeout=30) as http:
        created = (await http.post("/api/tables", json={"players": 3, "public": False})).json()
        table_id = created["table"]["id"]
        tokens = {i["seat"]: i["token"] for i in created["invites"]}
        for seat, token in tokens.items():
            http.cookies.clear()  # one seat per identity: each seat joins as a guest of its own
            answer = await http.post(
                f"/api/tables/{table_id}/seats/{seat}/join", json={"name": f"v{seat}", "token": token}
            )
            assert answer.status_code == 200, answer.text
    peers = [WirePeer(ws_url, table_id, tokens[s], s, None) for s in range(3)]
    for peer in peers:
        await peer.__aenter__()
    times: list[float] = []
    sent: dict[int | None, float] = {}
    try:
        deadline = time.monotonic() + 120
        while len(times) < moves:
            done, mover = next_turn(peers, is_over, deadline)
            if done is not None:  # the next game, same table: a rematch every seat accepts
                for peer in peers:
                    reply = await peer.request({"type": "next_game"})
                    assert reply["type"] == "ack", reply
                if is_over(peers[0].state):  # (the new game's state may have come before the ack)
                    await peers[0].wait(lambda m: m["type"] == "state" and not is_over(m))
                continue
            if mover is None:
                await asyncio.sleep(0.002)
                continue
            # An honest client stays under the server's 20 messages a second per connection (a person does).
            wait = sent.get(mover.seat, 0.0) + 0.07 - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            sent[mover.seat] = time.monotonic()
            started = time.perf_counter()
            reply = await mover.act(first_legal(mover.view), version=mover.state["version"])
            times.append(time.perf_counter() - started)
            assert reply["type"] == "ack", reply
    finally:
        for peer in peers:
            await peer.close()
    return times
