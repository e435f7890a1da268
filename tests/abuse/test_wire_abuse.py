"""Each attack against a real ``luz serve``, and the service an honest client keeps meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from luz.bench.attacks import attacker
from support.abuse import percentile, victim_moves
from support.server import ServerProcess, alive, children_of, wait_for

pytestmark = pytest.mark.slow

SERVER_ENV = {
    "LUZ_TABLES_PER_MINUTE": "5/minute",
    "LUZ_BOT_TABLES_PER_CLIENT": "3",
    "LUZ_CONNECTIONS_PER_CLIENT": "100",
    "LUZ_CONNECTIONS_PER_SECOND": "30/second",
    "LUZ_SEAT_CONNECTIONS_PER_MINUTE": "30/minute",
    "LUZ_HEADER_TIMEOUT": "1",
    "LUZ_BOT_PACE": "0.2",
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log", bot_workers=1, env=SERVER_ENV)
    process.start()
    try:
        yield process
    finally:
        process.stop()
    assert "Traceback" not in process.log(), process.log()[-3000:]


async def victim_and_health(server: ServerProcess) -> tuple[list[float], list[float]]:
    """The victim's ack times, and meanwhile the answer times of ``/healthz`` asked every 0.2 s (each a 200)."""
    health: list[float] = []

    async def poll() -> None:
        async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
            while True:
                started = time.perf_counter()
                answer = await http.get("/healthz")
                health.append(time.perf_counter() - started)
                assert answer.status_code == 200, answer.text
                await asyncio.sleep(0.2)

    poller = asyncio.create_task(poll())
    try:
        moves = await victim_moves(server.http, server.ws)
    finally:
        poller.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await poller  # (an answer other than 200 fails the test here)
    return moves, health


@pytest.mark.parametrize("kind", ["connections", "churn", "tables", "tutorials", "bots"])
def test_an_attacker_does_not_slow_another_table(server: ServerProcess, kind: str) -> None:
    alone = percentile(asyncio.run(victim_moves(server.http, server.ws)), 0.99)
    with attacker(kind, server.http, server.ws) as seen:
        during, health = asyncio.run(victim_and_health(server))
    p99 = percentile(during, 0.99)
    print(
        f"{kind}: victim's ack p99 {p99 * 1000:.1f} ms attacked, {alone * 1000:.1f} ms alone; /healthz "
        f"p50 {percentile(health, 0.5) * 1000:.1f} ms, max {max(health) * 1000:.1f} ms of {len(health)}; {seen}"
    )
    # Unprotected, these attacks took the victim's acks to seconds (p50 1.8 s under a connection flood, over a
    # second under the first strong-bot table). The bound is issue 25's: twice the victim's p99 alone, or 250 ms
    # where that is more (a p99 of 150 moves is their second slowest, and a loaded machine has stalls of its own).
    limit = max(0.25, 2 * alone)
    assert p99 < limit, f"victim's ack p99 {p99 * 1000:.0f} ms while attacked ({kind}), {alone * 1000:.0f} ms alone"
    # /healthz under 500 ms all through (a load balancer's health check must never time out): its median, and
    # nine in ten of its answers, one slow answer left to the machine's own stalls. Unprotected, seat churn took
    # its median to seconds.
    assert len(health) >= 5, health
    assert percentile(health, 0.9) < 0.5, sorted(health)
    if kind == "connections":
        codes = seen["codes"]
        # Beyond the address's rate of new sockets: closed as they open.
        assert codes.get("refused", 0) + codes.get("403", 0) >= 400, codes
    elif kind == "churn":
        codes = seen["codes"]
        # 30 new connections a minute on the seat (from any address), the others refused before the handshake (a
        # few dropped by the loaded server before its answer: InvalidMessage).
        assert seen["attempts"] >= 1000 and codes.get("accepted", 0) <= 30, seen
        assert codes.get("403", 0) >= 0.9 * seen["attempts"], seen
    elif kind in ("tables", "tutorials"):
        # Three tables of bots playing at once per client (LUZ_BOT_TABLES_PER_CLIENT), then 429s: a tutorial's
        # bots play on alone once its guest has gone (before, 300 tutorials in 20 s took a victim to 1 ack in 40 s).
        count = 60 if kind == "tables" else 300
        assert seen["statuses"] == {201: 3, 429: count - 3}, seen
        assert all(r.isdigit() and 0 < int(r) <= 60 for r in seen["retry_after"]), seen
    else:
        statuses = seen["statuses"]
        assert statuses["strong:seconds=600"] == statuses["strong:iters=1000000"] == 422, statuses
        assert statuses["strong:seconds=5"] == statuses["strong:iters=256"] == 201, statuses


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
def test_kill_9_of_the_server_leaves_no_bot_process(tmp_path: Path) -> None:
    for attempt in range(3):
        server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log", bot_workers=2)
        server.start()
        assert server.process is not None
        pid = server.process.pid
        workers = wait_for(lambda pid=pid: len(children_of(pid)) >= 2 and children_of(pid), timeout=30)
        os.kill(pid, signal.SIGKILL)  # only the server: its bot processes must go by themselves
        server.process.wait(10)
        gone = wait_for(lambda workers=workers: not any(alive(w) for w in workers), timeout=10)
        assert gone, f"attempt {attempt}: bot processes {workers} outlived their server"
        server.process = None


def test_a_killed_bot_worker_is_replaced_and_the_game_finishes(server: ServerProcess) -> None:
    spec = {"players": 3, "seats": [{"kind": "bot", "bot": "strong:iters=16"}] * 3}
    table_id = httpx.post(f"{server.http}/api/tables", json=spec, timeout=10).json()["table"]["id"]
    assert server.process is not None
    wait_for(lambda: httpx.get(f"{server.http}/healthz").json()["status"] == "ok", timeout=60, step=0.1)
    (worker,) = children_of(server.process.pid)

    def version() -> int:
        return int(httpx.get(f"{server.http}/api/tables/{table_id}").json()["version"])

    wait_for(lambda: version() > 3, timeout=30, step=0.05)
    os.kill(worker, signal.SIGKILL)
    killed = time.monotonic()
    # Every poll below opens a connection: at most 20 a second, under this server's 30 (a faster poll is refused).
    health = wait_for(lambda: httpx.get(f"{server.http}/healthz").json(), timeout=10, step=0.05)
    wait_for(lambda: httpx.get(f"{server.http}/healthz").json()["bot_pool_replacements"] == 1, timeout=10, step=0.05)
    assert health["status"] in ("ok", "degraded")
    wait_for(lambda: httpx.get(f"{server.http}/healthz").json()["status"] == "ok", timeout=60, step=0.05)
    recovered = time.monotonic() - killed
    (replacement,) = children_of(server.process.pid)
    assert replacement != worker
    # The game goes on to its end (the quick bot moved while the pool warmed up).
    wait_for(
        lambda: httpx.get(f"{server.http}/api/tables/{table_id}").json()["status"] == "over", timeout=120, step=0.1
    )
    print(f"bot pool recovered {recovered:.2f} s after its worker was killed")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_replaced_bot_worker_warms_up_on_the_compiled_code(server: ServerProcess) -> None:
    """The replacement of a dead bot process loads the compiled fast core from numba's cache and inherits numba's
    own start-up from the server (done once as it starts): 0.06 s of CPU, where it spent 0.5 s, 0.4 of them
    starting numba. A bot process runs at the idle priority, so on a busy machine each tenth of a second of CPU
    it needs was seconds of `/healthz` saying `degraded` (8 to 28 s measured). CPU time, not wall time: it holds
    on a loaded machine."""
    assert server.process is not None
    wait_for(lambda: httpx.get(f"{server.http}/healthz").json()["status"] == "ok", timeout=300, step=0.1)
    (worker,) = children_of(server.process.pid)  # warmed up: the fast core is in the cache on disk
    os.kill(worker, signal.SIGKILL)
    wait_for(lambda: httpx.get(f"{server.http}/healthz").json()["bot_pool_replacements"] == 1, timeout=10, step=0.05)
    wait_for(lambda: httpx.get(f"{server.http}/healthz").json()["status"] == "ok", timeout=60, step=0.05)
    (replacement,) = children_of(server.process.pid)
    warm_up = cpu_seconds(replacement)  # no table: the warm-up is all it did
    assert warm_up < 0.25, f"the replacement took {warm_up:.2f} s of CPU to warm up"
    print(f"the replacement warmed up on {warm_up:.2f} s of CPU")


def test_protocol_details_over_the_wire(server: ServerProcess) -> None:
    async def check() -> None:
        created = httpx.post(f"{server.http}/api/tables", json={"players": 3}, timeout=10).json()
        table_id, token = created["table"]["id"], created["invites"][0]["token"]
        async with connect(f"{server.ws}/ws/tables/{table_id}?token={token}") as ws:

            async def reply() -> dict[str, object]:
                while True:
                    message: dict[str, object] = json.loads(await ws.recv())
                    if message["type"] != "state":
                        return message

            await ws.send("x" * 10_000)  # over the 4 KiB limit: an error, not a closed socket
            assert (await reply())["code"] == "too_large"
            await ws.send(json.dumps({"type": "action", "id": "abc", "action": "nope"}))
            refused = await reply()
            assert refused["code"] == "malformed" and refused["id"] == "abc", refused
            await ws.send(json.dumps({"type": "ping", "id": 7}))
            assert await reply() == {"type": "pong", "id": 7}

    asyncio.run(check())
    # A client that sends its headers slowly is cut off.
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as slow:
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        with pytest.raises((ConnectionError, TimeoutError)):
            while time.monotonic() - started < 4:
                slow.sendall(b"X-Slow: 1\r\n")
                time.sleep(0.2)
                if slow.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) == b"":
                    raise ConnectionResetError("closed by the server")
        assert time.monotonic() - started < 3


def test_a_socket_from_another_site_with_the_cookie_is_refused(server: ServerProcess) -> None:
    async def check() -> None:
        async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
            created = (await http.post("/api/tables", json={"players": 3, "public": False})).json()
            table_id, token = created["table"]["id"], created["invites"][0]["token"]
            joined = await http.post(f"/api/tables/{table_id}/seats/0/join", json={"token": token})
            assert joined.status_code == 200, joined.text  # the cookie's guest holds seat 0
            cookie = "; ".join(f"{name}={value}" for name, value in http.cookies.items())
        base = f"{server.ws}/ws/tables/{table_id}"
        for query in ("?me=1", f"?token={token}", ""):
            with pytest.raises(InvalidStatus) as refused:  # another site's page, its visitor's cookie sent along
                await connect(
                    base + query, origin=Origin("https://evil.example"), additional_headers={"Cookie": cookie}
                )
            assert refused.value.response.status_code == 403, query
        # This site's page (the browser sends its own origin) plays, and chats, as its visitor.
        async with connect(f"{base}?me=1", origin=Origin(server.http), additional_headers={"Cookie": cookie}) as ws:
            state = json.loads(await ws.recv())
            assert state["type"] == "state" and state["seat"] == 0, state
            await ws.send(json.dumps({"type": "chat", "id": 1, "text": "hello"}))
            while (message := json.loads(await ws.recv()))["type"] != "ack":
                assert message["type"] != "error", message
        async with connect(f"{base}?token={token}") as ws:  # no Origin (the CLI, scripts): allowed
            assert json.loads(await ws.recv())["seat"] == 0

    asyncio.run(check())
