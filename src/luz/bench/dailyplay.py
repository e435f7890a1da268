"""``luz bench daily-play``: many players playing today's daily deal at once on one ``luz serve`` process.

The bench starts one real server process (SQLite in a temporary folder by default, PostgreSQL when given; its
per-client limits lifted, since every player comes from the bench's one address; one bot worker process, as
deployed), gives each player an identity of its own (a guest), starts its attempt at today's deal
(``POST /api/daily/{edition}``: a private table, the player at seat 0 against the site's bots) and connects it over
the WebSocket. During the window each player, whenever its view says it is its turn, thinks a random time between
``think_min`` and ``think_max`` seconds, then sends a random legal action and waits for its ``ack``. It reports the
acks' latency, the actions, the refusals and errors, the finished attempts and the server's CPU per action.

The reference, in the same run: the same players, one by one at an ordinary private table of the same edition
(``POST /api/tables``: the player at seat 0, the same bots at the others), played the same way on a fresh server
process. What the daily costs above an ordinary table is the difference.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import resource
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from luz.bench.server import (
    ServerProcess,
    machine_cpu_seconds,
    pause_collector,
    percentiles,
    raise_open_files,
    resume_collector,
)

EDITION = "iello-2024"
"""The daily deal played (the first the page shows)."""


def tree_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time so far of process ``pid`` and its living descendants (the bot workers; Linux
    ``/proc``; ``None`` elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (OSError, ValueError, IndexError):
        return None
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(tree_cpu_seconds(int(child)) or 0.0 for child in children)


@dataclass
class Figures:
    """What the players observed."""

    ack_latency: list[float] = field(default_factory=list)
    actions: int = 0
    """The players' actions acknowledged during the window."""
    table_actions: int = 0
    """Actions the players saw their tables take during the window (theirs and their bots')."""
    finished: int = 0
    """Games finished during the window (an attempt over)."""
    stale: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    measuring: bool = False

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class Player:
    """One player's WebSocket client: after a think time, a random legal action whenever it is its turn."""

    def __init__(self, url: str, seat: int, figures: Figures, rng: random.Random, think: tuple[float, float]) -> None:
        self.url, self.seat, self.figures, self.rng, self.think = url, seat, figures, rng, think
        self.ws: Any = None
        self.latest: dict[str, Any] | None = None
        self.version = 0
        self.acted_on = -1
        self.over = False
        self.closed = False
        self.sent = 0
        self.pending: tuple[str, float] | None = None
        """The id of the action in flight and when it was sent (perf_counter)."""
        self.turn = asyncio.Event()
        self.reply = asyncio.Event()

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(self.url, open_timeout=60, ping_interval=None, max_size=2**22, compression="deflate")

    async def receive(self, stop: asyncio.Event) -> None:
        from websockets.exceptions import ConnectionClosed

        with contextlib.suppress(ConnectionClosed):
            async for raw in self.ws:
                self.on_message(json.loads(raw))
        if not stop.is_set():
            self.figures.error("connection_closed")
        self.closed = True
        self.turn.set()
        self.reply.set()

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "state":
            self.on_state(message)
        elif kind == "ack" and self.pending is not None and message.get("id") == self.pending[0]:
            if self.figures.measuring:
                self.figures.ack_latency.append(time.perf_counter() - self.pending[1])
                self.figures.actions += 1
            self.pending = None
            self.reply.set()
        elif kind == "error":
            code = str(message.get("code"))
            if code == "stale":  # the table moved on while the action was on its way: benign
                self.figures.stale += 1
            else:
                self.figures.error(code)
            if self.pending is not None and message.get("id") == self.pending[0]:
                self.pending = None
                self.reply.set()
        elif kind not in ("ack", "notes", "chat", "premove"):  # a seat's own notes and next card: none here
            self.figures.error(f"unexpected_{kind}")

    def on_state(self, message: dict[str, Any]) -> None:
        version = int(message["version"])
        if version < self.version:
            self.figures.error("version_went_back")
            return
        if self.figures.measuring:
            self.figures.table_actions += version - self.version
        self.version, self.latest = version, message
        if message["table"]["status"] == "over" and not self.over:
            self.over = True
            if self.figures.measuring:
                self.figures.finished += 1
        self.turn.set()

    def my_turn(self) -> bool:
        if self.latest is None or self.latest["table"]["status"] != "playing" or self.version <= self.acted_on:
            return False
        seen = self.latest["view"]
        return seen is not None and seen["current_player"] == self.seat and bool(seen["legal_actions"])

    async def act(self, stop: asyncio.Event) -> None:
        """Think, then act, each time it is this player's turn (one action in flight), until ``stop`` or over."""
        while not (stop.is_set() or self.closed or self.over):
            await self.turn.wait()
            self.turn.clear()
            if stop.is_set() or not self.my_turn():
                continue
            version = self.version
            await asyncio.sleep(self.rng.uniform(*self.think))
            if stop.is_set() or self.version != version:
                self.turn.set()  # look again at the newer state
                continue
            assert self.latest is not None
            action = self.rng.choice(self.latest["view"]["legal_actions"])
            self.sent += 1
            self.acted_on = version
            self.pending = (f"{self.seat}:{self.sent}", time.perf_counter())
            self.reply.clear()
            payload = {"type": "action", "id": self.pending[0], "action": action, "version": version}
            try:
                await self.ws.send(json.dumps(payload))
            except Exception:
                self.figures.error("send_failed")
                return
            await self.reply.wait()

    async def settle(self, timeout: float) -> bool:
        """Wait for the reply to the action in flight, if any; whether it came."""
        if self.pending is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.reply.wait(), timeout)
        return self.pending is None


Seat = Callable[[Any, str, dict[str, str]], Awaitable[tuple[str, int, str]]]
"""How a player gets its table: (HTTP client, server URL, its session header) -> (table id, seat, token)."""


async def post(http: Any, url: str, body: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> Any:
    """POST ``body`` and return the answer's JSON; a transport error retried (a kept-alive connection the server
    just closed), an HTTP error raised."""
    import httpx

    for attempt in range(4):
        try:
            answer = await http.post(url, json=body, headers=headers)
        except httpx.TransportError:
            if attempt == 3:
                raise
            await asyncio.sleep(0.2 * (attempt + 1))
            continue
        answer.raise_for_status()
        return answer.json()
    raise AssertionError("not reached")


async def daily_attempt(http: Any, url: str, session: dict[str, str]) -> tuple[str, int, str]:
    """Start the player's attempt at today's deal."""
    body = await post(http, f"{url}/api/daily/{EDITION}", headers=session)
    return str(body["table_id"]), int(body["seat"]), str(body["token"])


async def ordinary_table(http: Any, url: str, session: dict[str, str]) -> tuple[str, int, str]:
    """Create a private table of the daily's edition and bots, the player at the daily's seat, and join it."""
    from luz.server import daily

    deal = daily.deal_of(EDITION)
    bot = {"kind": "bot", "bot": daily.BOT}
    spec = {
        "edition": EDITION,
        "players": deal.players,
        "public": False,
        "grace_seconds": 3600,  # (the most): its bots never take the seat of a player still being seated
        "options": {"first_player": daily.SEAT},
        "seats": [{"kind": "human"} if seat == daily.SEAT else bot for seat in range(deal.players)],
    }
    body = await post(http, f"{url}/api/tables", spec, session)
    table_id = str(body["table"]["id"])
    token = next(invite["token"] for invite in body["invites"] if invite["seat"] == daily.SEAT)
    await post(http, f"{url}/api/tables/{table_id}/seats/{daily.SEAT}/join", {"name": "bench", "token": token}, session)
    return table_id, daily.SEAT, token


async def _gather_limited(coroutines: list[Awaitable[Any]], limit: int) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coroutine: Awaitable[Any]) -> Any:
        async with gate:
            return await coroutine

    return await asyncio.gather(*(one(c) for c in coroutines))


async def _drive(
    server: ServerProcess,
    seat: Seat,
    *,
    players: int,
    seconds: float,
    think: tuple[float, float],
    seed: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """Seat ``players`` players by ``seat``, connect them, let them play ``seconds``; the phase's figures."""
    import httpx

    rng = random.Random(seed)
    figures = Figures()
    started = time.perf_counter()
    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:

        async def seated() -> Player:
            guest = await post(http, f"{server.url}/api/me/guest", {})
            table_id, number, token = await seat(http, server.url, {"X-Luz-Session": guest["session"]})
            url = f"{server.ws_url}/ws/tables/{table_id}?token={token}"
            return Player(url, number, figures, random.Random(rng.getrandbits(64)), think)

        progress(f"{players} identities each starting a table")
        clients: list[Player] = await _gather_limited([seated() for _ in range(players)], 32)
    setup = time.perf_counter() - started
    progress(f"connecting {players} WebSocket clients")
    started = time.perf_counter()
    await _gather_limited([c.connect() for c in clients], 64)
    connect = time.perf_counter() - started
    stop = asyncio.Event()
    receivers = [asyncio.create_task(c.receive(stop)) for c in clients]
    await asyncio.sleep(0.5)  # the first states land
    pause_collector()  # the clients' own collections would count as the server's latency
    server_before, machine_before = tree_cpu_seconds(server.process.pid), machine_cpu_seconds()
    own_before = resource.getrusage(resource.RUSAGE_SELF)
    progress(f"playing for {seconds:g} s")
    figures.measuring = True
    started = time.perf_counter()
    actors = [asyncio.create_task(c.act(stop)) for c in clients]
    await asyncio.sleep(seconds)
    figures.measuring = False
    stop.set()
    window = time.perf_counter() - started
    server_after, machine_after = tree_cpu_seconds(server.process.pid), machine_cpu_seconds()
    own_after = resource.getrusage(resource.RUSAGE_SELF)
    resume_collector()
    progress("waiting for the last replies, closing")
    for client in clients:
        client.turn.set()
    settled = await asyncio.gather(*(c.settle(10) for c in clients))
    if settled.count(False):
        figures.errors["no_reply"] = settled.count(False)
    for task in actors:
        task.cancel()
    await asyncio.gather(*actors, return_exceptions=True)
    await asyncio.gather(*(asyncio.wait_for(c.ws.close(), 10) for c in clients), return_exceptions=True)
    await asyncio.gather(*(asyncio.wait_for(r, 10) for r in receivers), return_exceptions=True)

    cpu = None if server_before is None or server_after is None else server_after - server_before
    machine = None if machine_before is None or machine_after is None else machine_after - machine_before
    client_cpu = (own_after.ru_utime + own_after.ru_stime) - (own_before.ru_utime + own_before.ru_stime)
    return {
        "seconds": round(window, 2),
        "setup_s": round(setup, 2),
        "connect_s": round(connect, 2),
        "actions": figures.actions,
        "actions_per_s": round(figures.actions / window, 1),
        "table_actions": figures.table_actions,
        "ack_ms": percentiles(figures.ack_latency),
        "games_finished": figures.finished,
        "stale_refusals": figures.stale,
        "errors": sum(figures.errors.values()),
        "error_kinds": dict(sorted(figures.errors.items())),
        "server_cpu_ms_per_action": per_action(cpu, figures.actions),
        "server_cpu_ms_per_table_action": per_action(cpu, figures.table_actions),
        "cpu_percent": {
            "server": None if cpu is None else round(100 * cpu / window, 1),
            "clients": round(100 * client_cpu / window, 1),
            "machine": None if machine is None else round(100 * machine / window, 1),
        },
    }


def per_action(cpu: float | None, actions: int) -> float | None:
    """Milliseconds of ``cpu`` seconds per action (``None`` without CPU time or actions)."""
    return round(1000 * cpu / actions, 2) if cpu is not None and actions else None


def _phase(
    name: str,
    seat: Seat,
    url: str,
    folder: Path,
    *,
    players: int,
    seconds: float,
    think: tuple[float, float],
    seed: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """One phase on a fresh server process: the players' figures, and the server's crash or error lines."""
    progress(f"{name}: starting the server ({url.split('://')[0]})")
    server = ServerProcess.start(url, None, folder / f"{name}.log", bot_workers=1)
    try:
        server.wait_healthy(600)  # (on a database of the daily's, its unfinished tables restored first)
        figures = asyncio.run(
            _drive(server, seat, players=players, seconds=seconds, think=think, seed=seed, progress=progress)
        )
        crashed = server.log_tail(10) if server.process.poll() is not None else None
    finally:
        server.stop()
        resume_collector()  # also when the run failed
    trouble = server.trouble()
    return {**figures, "crashed": crashed, "server_errors": len(trouble), "server_error_lines": trouble[:20]}


def bench_daily_play(
    players: int = 1000,
    seconds: float = 60.0,
    think: tuple[float, float] = (2.0, 4.0),
    database_url: str | None = None,
    seed: int = 0,
    reference: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the daily phase, then (``reference``) the ordinary tables' phase; the report (the module's docstring).

    ``database_url``: a throwaway database both phases write to (default: a SQLite file of each phase's in a
    temporary folder)."""
    say = progress or (lambda _: None)
    load_before = [round(v, 1) for v in os.getloadavg()]
    open_files = raise_open_files(4 * players + 1024)
    folder = Path(tempfile.mkdtemp(prefix="luz-bench-daily-play-"))

    def phase(name: str, seat: Seat) -> dict[str, Any]:
        # SQLite: a database of each phase's (a server started on the daily's would first restore its tables)
        where = database_url or f"sqlite:///{folder / name}.sqlite3"
        return _phase(name, seat, where, folder, players=players, seconds=seconds, think=think, seed=seed, progress=say)

    try:
        daily = phase("daily", daily_attempt)
        ordinary = phase("ordinary", ordinary_table) if reference else None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    p99 = daily["ack_ms"]["p99"]
    base = ordinary["ack_ms"]["p99"] if ordinary else None
    cpu, base_cpu = daily["server_cpu_ms_per_action"], ordinary["server_cpu_ms_per_action"] if ordinary else None
    return {
        "benchmark": "daily-play",
        "edition": EDITION,
        "players": players,
        "database": (database_url or "sqlite").split(":")[0].split("+")[0],
        "think_s": list(think),
        "open_files_limit": open_files,
        "cores": os.cpu_count() or 0,
        "load_average": {"before": load_before, "after": [round(v, 1) for v in os.getloadavg()]},
        **daily,
        "reference": ordinary,
        "ratio_p99_daily_over_reference": round(p99 / base, 2) if p99 and base else None,
        "ratio_cpu_daily_over_reference": round(cpu / base_cpu, 2) if cpu and base_cpu else None,
    }
