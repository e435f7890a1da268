"""Attackers and a victim, over the wire against a real ``luz serve``: each attacker runs in a process of its own
(its work on the client side does not slow the victim's), the victim measures its action-to-ack times."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from collections.abc import Iterator
from typing import Any

import httpx
from server_support import WirePeer, first_legal, is_over, next_turn

ATTACKER = "127.0.0.2"
"""The attacker's address (the victim's is 127.0.0.1): Linux routes all of 127.0.0.0/8 to the loopback."""


def attacker_http(http_url: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    return httpx.AsyncClient(base_url=http_url, timeout=30, transport=transport)


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
            answer = await http.post(
                f"/api/tables/{table_id}/seats/{seat}/join", json={"name": f"v{seat}", "token": token}
            )
            assert answer.status_code == 200, answer.text
    peers = [WirePeer(ws_url, table_id, tokens[s], s, None) for s in range(3)]
    for peer in peers:
        await peer.__aenter__()
    times: list[float] = []
    try:
        deadline = time.monotonic() + 120
        while len(times) < moves:
            done, mover = next_turn(peers, is_over, deadline)
            if done is not None:  # the next game, same table
                assert (await peers[0].request({"type": "next_game"}))["type"] == "ack"
                if is_over(peers[0].state):  # (the new game's state may have come before the ack)
                    await peers[0].wait(lambda m: m["type"] == "state" and not is_over(m))
                continue
            if mover is None:
                await asyncio.sleep(0.002)
                continue
            started = time.perf_counter()
            reply = await mover.act(first_legal(mover.view), version=mover.state["version"])
            times.append(time.perf_counter() - started)
            assert reply["type"] == "ack", reply
    finally:
        for peer in peers:
            await peer.close()
    return times


def _run(kind: str, http_url: str, ws_url: str, results: Any) -> None:
    results.update(asyncio.run(ATTACKS[kind](http_url, ws_url)))


@contextlib.contextmanager
def attacker(kind: str, http_url: str, ws_url: str) -> Iterator[dict[str, Any]]:
    """Run attack ``kind`` in a process of its own while the block runs; what it saw, once it ended."""
    manager = multiprocessing.Manager()
    results = manager.dict()
    process = multiprocessing.get_context("fork").Process(target=_run, args=(kind, http_url, ws_url, results))
    process.start()
    seen: dict[str, Any] = {}
    try:
        time.sleep(0.5)  # the attack is under way
        yield seen
    finally:
        process.join(60)
        if process.is_alive():
            process.kill()
        seen.update(results)
        manager.shutdown()


async def open_table(http: httpx.AsyncClient, **spec: Any) -> tuple[str, dict[int, str]]:
    created = (await http.post("/api/tables", json={"players": 3, "public": False, **spec})).json()
    return created["table"]["id"], {i["seat"]: i["token"] for i in created["invites"]}


async def flood_connections(http_url: str, ws_url: str, count: int = 300) -> dict[str, Any]:
    """Many connections on one seat's token, and many spectators: kept open."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    async with attacker_http(http_url) as http:
        table_id, tokens = await open_table(http)
    codes: dict[str, int] = {}
    opened: list[Any] = []

    async def one(path: str) -> None:
        try:
            ws = await connect(f"{ws_url}{path}", local_addr=(ATTACKER, 0), open_timeout=30)
            opened.append(ws)
            await ws.recv()
            async with asyncio.timeout(3):
                while True:
                    await ws.recv()
        except ConnectionClosed as closed:
            key = str(closed.rcvd.code if closed.rcvd else "none")
            codes[key] = codes.get(key, 0) + 1
        except InvalidStatus as refused:  # before the handshake
            key = str(refused.response.status_code)
            codes[key] = codes.get(key, 0) + 1
        except TimeoutError:  # still open
            codes["open"] = codes.get("open", 0) + 1
        except Exception:  # closed as it opened (the address opens sockets too fast)
            codes["refused"] = codes.get("refused", 0) + 1

    paths = [f"/ws/tables/{table_id}?token={tokens[0]}"] * count + [f"/ws/tables/{table_id}"] * count
    started = time.monotonic()
    await asyncio.gather(*(one(p) for p in paths))
    for ws in opened:
        with contextlib.suppress(Exception):
            await ws.close()
    return {"codes": codes, "seconds": time.monotonic() - started}


async def create_tables(http_url: str, ws_url: str, count: int = 60) -> dict[str, Any]:
    """All-bot tables as fast as the server answers."""
    statuses: dict[int, int] = {}
    retry_after: list[str] = []
    async with attacker_http(http_url) as http:
        for _ in range(count):
            seats = [{"kind": "bot", "bot": "strong"}] * 3
            answer = await http.post("/api/tables", json={"players": 3, "seats": seats})
            statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
            if answer.status_code == 429:
                retry_after.append(answer.headers.get("retry-after", ""))
    return {"statuses": statuses, "retry_after": retry_after}


async def maximal_bots(http_url: str, ws_url: str) -> dict[str, Any]:
    """Bots with the largest parameters: refused above the caps, the most the caps allow otherwise."""
    statuses: dict[str, int] = {}
    async with attacker_http(http_url) as http:
        for bot in ["strong:seconds=600", "strong:iters=1000000", "strong:seconds=5", "strong:iters=256"]:
            seats = [{"kind": "bot", "bot": bot}] * 3
            answer = await http.post("/api/tables", json={"players": 3, "seats": seats})
            statuses[bot] = answer.status_code
    await asyncio.sleep(6)  # the capped bots think meanwhile
    return {"statuses": statuses}


ATTACKS = {"connections": flood_connections, "tables": create_tables, "bots": maximal_bots}
