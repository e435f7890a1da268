"""Attackers over the wire against a real ``luz serve``, used by ``luz bench server --attack`` and the abuse tests.

Each attacker runs in a process of its own (its client-side work does not slow the honest clients' process) and
comes from its own loopback address, ``127.0.0.2``, so the server's per-client limits apply to it as they would to a
real attacker (Linux routes all of 127.0.0.0/8 to the loopback).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import time
from collections.abc import Iterator
from typing import Any, Literal

import httpx

ATTACKER = "127.0.0.2"
"""The attacker's source address."""
CHURNERS = tuple(f"127.0.0.{n}" for n in range(2, 10))
"""The seat churn's source addresses, eight: no limit per address alone stops it."""

KINDS = ("connections", "churn", "bots", "tutorials", "tables")
"""In the order ``--attack all`` runs them (the table and tutorial floods last: they use up the address's creation
budget)."""


def attacker_http(http_url: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    return httpx.AsyncClient(base_url=http_url, timeout=30, transport=transport)


async def open_table(http: httpx.AsyncClient, **spec: Any) -> tuple[str, dict[int, str]]:
    created = (await http.post("/api/tables", json={"players": 3, "public": False, **spec})).json()
    return created["table"]["id"], {i["seat"]: i["token"] for i in created["invites"]}


async def flood_connections(http_url: str, ws_url: str, hold: float = 3.0, count: int = 300) -> dict[str, Any]:
    """Many connections on one seat's token, and many spectators, all at once: kept open ``hold`` seconds."""
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
            async with asyncio.timeout(hold):
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


async def churn_seat(http_url: str, ws_url: str, hold: float = 10.0, per_second: float = 25.0) -> dict[str, Any]:
    """New connections on one seat's token, over and over for ``hold`` seconds, from each of the eight ``CHURNERS``
    ``per_second`` (under ``luz serve``'s 30 a second per address, so that every one reaches the seat's checks):
    each reads its first message (the seat's state) and leaves. What each got: ``accepted``, a status refused
    before the handshake (``403``), a close code."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    async with attacker_http(http_url) as http:
        table_id, tokens = await open_table(http)
    url = f"{ws_url}/ws/tables/{table_id}?token={tokens[0]}"
    codes: dict[str, int] = {}

    async def one(address: str) -> None:
        try:
            async with connect(url, local_addr=(address, 0), open_timeout=30) as ws:
                await ws.recv()
            key = "accepted"
        except InvalidStatus as refused:
            key = str(refused.response.status_code)
        except ConnectionClosed as closed:
            key = str(closed.rcvd.code if closed.rcvd else "none")
        except Exception as failed:  # reset as it opened, or timed out
            key = type(failed).__name__
        codes[key] = codes.get(key, 0) + 1

    async def churn(address: str) -> None:
        loop = asyncio.get_running_loop()
        started, opened, attempts = loop.time(), 0, []
        while loop.time() - started < hold:  # at a steady pace, whether the server keeps up or not
            attempts.append(asyncio.create_task(one(address)))
            opened += 1
            await asyncio.sleep(max(0.0, started + opened / per_second - loop.time()))
        await asyncio.gather(*attempts)

    started = time.monotonic()
    await asyncio.gather(*(churn(address) for address in CHURNERS))
    return {"codes": codes, "attempts": sum(codes.values()), "seconds": time.monotonic() - started}


async def create_tables(http_url: str, ws_url: str, hold: float = 0.0, count: int = 60) -> dict[str, Any]:
    """All-bot tables as fast as the server answers (they go on playing in the server after the attacker left)."""
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


async def create_tutorials(http_url: str, ws_url: str, hold: float = 0.0, count: int = 300) -> dict[str, Any]:
    """Tutorial tables as fast as the server answers, each by a new guest (no cookie kept): its human seat's grace
    ends and its three bots play on alone."""
    statuses: dict[int, int] = {}
    retry_after: list[str] = []
    async with attacker_http(http_url) as http:
        for _ in range(count):
            http.cookies.clear()  # a new identity each time: one tutorial per identity is no limit to a flood
            answer = await http.post("/api/tutorial", json={})
            statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
            if answer.status_code == 429:
                retry_after.append(answer.headers.get("retry-after", ""))
    return {"statuses": statuses, "retry_after": retry_after}


async def maximal_bots(http_url: str, ws_url: str, hold: float = 6.0) -> dict[str, Any]:
    """Bots with the largest parameters: refused above the caps, the most the caps allow otherwise."""
    statuses: dict[str, int] = {}
    async with attacker_http(http_url) as http:
        for bot in ["strong:seconds=600", "strong:iters=1000000", "strong:seconds=5", "strong:iters=256"]:
            seats = [{"kind": "bot", "bot": bot}] * 3
            answer = await http.post("/api/tables", json={"players": 3, "seats": seats})
            statuses[bot] = answer.status_code
    await asyncio.sleep(hold)  # the capped bots think meanwhile
    return {"statuses": statuses}


ATTACKS = {
    "connections": flood_connections,
    "churn": churn_seat,
    "tables": create_tables,
    "tutorials": create_tutorials,
    "bots": maximal_bots,
}


ATTACKER_NICENESS = 10
"""The attacker process's lower CPU priority: a real attacker's client work runs on its machine, not the server's;
here it shares the server's cores, and the server's cost is what is measured."""


def _run(kind: str, http_url: str, ws_url: str, hold: float | None, results: Any, go: Any) -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(ATTACKER_NICENESS)
    go.wait()
    attack = ATTACKS[kind]
    results.update(asyncio.run(attack(http_url, ws_url) if hold is None else attack(http_url, ws_url, hold)))


class Attacker:
    """Attack ``kind`` in a process of its own; ``hold``: how long it keeps what it opened (``None``: its default).
    :meth:`start` starts the process (its interpreter and imports, a second or so of CPU), :meth:`begin` the attack.

    ``start_method`` "spawn" is needed where the starting process runs an event loop (the bench).
    """

    def __init__(
        self,
        kind: str,
        http_url: str,
        ws_url: str,
        hold: float | None = None,
        start_method: Literal["fork", "spawn"] = "fork",
    ) -> None:
        context: Any = multiprocessing.get_context(start_method)  # (typeshed: BaseContext has no Process)
        self.manager = context.Manager()
        self.results = self.manager.dict()
        self.go = context.Event()
        self.process = context.Process(target=_run, args=(kind, http_url, ws_url, hold, self.results, self.go))

    def start(self) -> None:
        self.process.start()

    def begin(self) -> None:
        self.go.set()

    def finish(self, timeout: float = 60.0) -> dict[str, Any]:
        """Wait for the attack to end (kill it after ``timeout``); what it saw."""
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        seen = dict(self.results)
        self.manager.shutdown()
        return seen


@contextlib.contextmanager
def attacker(kind: str, http_url: str, ws_url: str) -> Iterator[dict[str, Any]]:
    """Run attack ``kind`` while the block runs; what it saw, once it ended."""
    attack = Attacker(kind, http_url, ws_url)
    attack.start()
    attack.begin()
    seen: dict[str, Any] = {}
    try:
        time.sleep(0.5)  # the attack is under way
        yield seen
    finally:
        seen.update(attack.finish())
