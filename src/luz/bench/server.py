"""Server load: real ``luz serve`` processes, many tables, every seat a WebSocket client of the bench.

The bench starts the server process(es) on free loopback ports (SQLite in a temporary folder by default;
PostgreSQL, and Redis for events, when given), creates the tables over HTTP, joins every seat, connects one
WebSocket client per seat (all in this process, on one asyncio event loop) and lets each client play a random
legal action whenever its view says it is its turn. It measures, for every action sent during the window:

* the time until the acting client receives the state message whose version includes its action (``self``),
* the time until each other seat of the table receives that state (``others``),

and counts acknowledgements, refusals (a ``stale`` refusal is benign, anything else is an error), games finished,
and at the end compares every acknowledged action with the database's action log (``lost`` when an acknowledged
action is missing there). Clients pace themselves under the server's per-connection message rate, so that a
fast table is not refused for flooding. With attackers (``bench_server(attacks=...)``), the same load is measured
again while each attacker of ``luz.bench.attacks`` runs. With a rolling restart (``rolling_restart=True``), each
server process in turn is stopped gracefully and replaced while the tables play; the clients reconnect to a live
process as browsers behind a proxy would, and resync.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from luz.bench.attacks import Attacker

# -- server processes ---------------------------------------------------------------------------------------

STALL_MS = 100
"""The stall watch's threshold in the bench's server processes (``LUZ_STALL_MS``), unless set."""
STALL_LINE = re.compile(r"event loop stalled (?P<ms>\d+) ms \(loop thread: (?P<cpu>\d+) ms on a CPU")
BROKER_LINE = re.compile(r"broker: (\d+) messages received from Redis")
NEXT_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d ", re.MULTILINE)
COLLECTION_LINE = re.compile(r"garbage collection of generation \d: (?P<ms>\d+) ms")


def stall_figures(servers: list[ServerProcess]) -> dict[str, Any]:
    """The stalls of ``servers`` since each was healthy (the connection wave included): how many, the longest,
    those with 100 ms or more of the loop thread's own CPU (luz's own work, not a busy machine), and the garbage
    collections over the threshold."""
    found = [entry for server in servers for entry in server.stalls()]
    stalls = [entry for entry in found if "ms" in entry]
    own_stalls = sorted((e for e in stalls if e["cpu_ms"] >= STALL_MS), key=lambda e: -float(e["cpu_ms"]))
    own = [entry["cpu_ms"] for entry in own_stalls]
    collections = [entry["collection_ms"] for entry in found if "collection_ms" in entry]
    return {
        "threshold_ms": STALL_MS,
        "stalls": len(stalls),
        "max_stall_ms": max((entry["ms"] for entry in stalls), default=0.0),
        "own_work_stalls": len(own),
        "max_own_cpu_ms": max(own, default=0.0),
        "own_work_longest": [{"cpu_ms": e["cpu_ms"], "stack": e.get("stack", [])} for e in own_stalls[:3]],
        "long_collections": len(collections),
        "max_collection_ms": max(collections, default=0.0),
    }


def free_port() -> int:
    """A TCP port free on the loopback now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def luz_command() -> list[str]:
    """How to run ``luz`` with this interpreter: the installed script next to it, else the module."""
    script = Path(sys.executable).with_name("luz")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from luz.cli import main; main()"]


@dataclass
class ServerProcess:
    """One ``luz serve`` process on the loopback, its output going to ``log_path``."""

    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    _log: TextIO | None = None
    stalls_from: int = 0
    """Where the stall log stood when the process became healthy (its start-up's stalls are no server's)."""

    @property
    def stall_path(self) -> Path:
        """The server's stall watch log (``LUZ_STALL_MS``, ``LUZ_STALL_LOG``: stalls.py)."""
        return self.log_path.with_suffix(".stalls")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @classmethod
    def start(
        cls,
        database_url: str,
        redis_url: str | None,
        log_path: Path,
        *,
        port: int | None = None,
        bot_workers: int = 0,
        client_limits: bool = False,
        watch_stalls: bool = False,
    ) -> ServerProcess:
        """``client_limits``: keep ``luz serve``'s per-client limits (else off: the load comes from one address);
        ``watch_stalls``: the event loop's stalls logged (``stalls``)."""
        port = port or free_port()
        command = [*luz_command(), "serve", "--host", "127.0.0.1", "--port", str(port)]
        command += ["--database-url", database_url, "--bot-workers", str(bot_workers)]
        if redis_url:
            command += ["--redis-url", redis_url]
        env = {k: v for k, v in os.environ.items() if k not in ("LUZ_DATABASE_URL", "LUZ_REDIS_URL")}
        if not client_limits:
            env.setdefault("LUZ_TABLES_PER_MINUTE", "")
            env.setdefault("LUZ_GUESTS_PER_MINUTE", "")
            env.setdefault("LUZ_BOT_TABLES_PER_CLIENT", "1000000")
            env.setdefault("LUZ_CONNECTIONS_PER_SECOND", "100000/second")
            env.setdefault("LUZ_CONNECTIONS_PER_CLIENT", "100000")
        # Every player of the bench comes from one address, the attacker's too: the seat and account policies per
        # address (fair play, not load) are off even where the per-client limits are measured.
        env.setdefault("LUZ_SEATS_PER_ADDRESS", "0")
        env.setdefault("LUZ_WAITING_TABLES_PER_CLIENT", "1000000")
        env.setdefault("LUZ_RATED_MIN_ACCOUNT_HOURS", "0")
        env.setdefault("LUZ_RATED_MIN_GAMES", "0")
        env.setdefault("LUZ_ACCOUNTS_PER_ADDRESS", "")
        if watch_stalls:
            env.setdefault("LUZ_STALL_MS", str(STALL_MS))
            env["LUZ_STALL_LOG"] = str(log_path.with_suffix(".stalls"))
        log = log_path.open("w")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        return cls(port, process, log_path, log)

    @classmethod
    def start_floor(cls, database: Path, log_path: Path) -> ServerProcess:
        """The floor (``luz.bench.floor``: a bare server on the same stack) on a free port, writing ``database``."""
        port = free_port()
        log = log_path.open("w")
        command = [sys.executable, "-m", "luz.bench.floor", str(port), str(database)]
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        return cls(port, process, log_path, log)

    def broker_received(self) -> int | None:
        """The messages its broker heard from Redis, as it logged when it stopped (``None``: not logged)."""
        try:
            found = BROKER_LINE.findall(self.log_path.read_text(errors="replace"))
        except OSError:
            return None
        return int(found[-1]) if found else None

    def stalls(self) -> list[dict[str, Any]]:
        """The event loop's stalls since the process was healthy: milliseconds stalled and on the loop thread's
        CPU (``cpu_ms``: luz's own work; the rest waited for a CPU or on the system), and the collections over the
        threshold (``collection_ms``)."""
        try:
            with self.stall_path.open(errors="replace") as lines:
                lines.seek(self.stalls_from)
                text = lines.read()
        except OSError:
            return []
        found: list[dict[str, Any]] = []
        for match in STALL_LINE.finditer(text):
            entry: dict[str, Any] = {"ms": float(match["ms"]), "cpu_ms": float(match["cpu"])}
            if entry["cpu_ms"] >= STALL_MS:  # luz's own work: where the loop was (its commonest stack's last lines)
                after = NEXT_LOG_LINE.search(text, match.end())
                stack = text[match.end() : after.start() if after else len(text)].strip().splitlines()
                entry["stack"] = [line.strip() for line in stack[1:14] if line.strip()][-6:]
            found.append(entry)
        for match in COLLECTION_LINE.finditer(text):
            found.append({"collection_ms": float(match["ms"])})
        return found

    def wait_healthy(self, timeout: float = 120.0) -> None:
        """Block until ``/healthz`` answers ok; ``RuntimeError`` with the log's tail if the process dies or hangs."""
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"luz serve exited with {self.process.returncode}:\n{self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    with contextlib.suppress(OSError):
                        self.stalls_from = self.stall_path.stat().st_size
                    return
            time.sleep(0.1)
        raise RuntimeError(f"luz serve on port {self.port} not healthy after {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def trouble(self) -> list[str]:
        """The log's lines at ERROR or above and the first lines of its tracebacks."""
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return []
        return [
            f"{self.port}: {line}" for line in lines if " ERROR " in line or " CRITICAL " in line or "Error" in line
        ]

    def cpu_seconds(self) -> float | None:
        """User + system CPU time of the process so far (Linux ``/proc``; ``None`` elsewhere)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop gracefully (SIGTERM, as a supervisor would), kill if it lingers."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        if self._log is not None:
            self._log.close()
            self._log = None


@contextlib.contextmanager
def running_servers(
    count: int,
    database_url: str,
    redis_url: str | None,
    folder: Path,
    bot_workers: int = 0,
    client_limits: bool = False,
    watch_stalls: bool = False,
) -> Iterator[list[ServerProcess]]:
    """``count`` healthy server processes on one database, stopped (killed if need be) on exit.

    The first is started alone, so that it creates the schema before the others look at it.
    """
    servers: list[ServerProcess] = []
    try:
        for number in range(count):
            server = ServerProcess.start(
                database_url,
                redis_url,
                folder / f"server-{number}.log",
                bot_workers=bot_workers,
                client_limits=client_limits,
                watch_stalls=watch_stalls,
            )
            servers.append(server)
            server.wait_healthy()
        yield servers
    finally:
        for server in servers:
            server.stop()


@dataclass
class RollingRestart:
    """Each server process in turn stopped gracefully (SIGTERM) and replaced on its port while the tables play."""

    database_url: str
    redis_url: str | None
    folder: Path
    bot_workers: int
    pause: float
    """Seconds of play before each restart and after the last one (then, up to ``settle`` seconds more, until every
    table has had an action acknowledged since the last replacement was up)."""
    settle: float = 30.0
    steps: list[dict[str, Any]] = field(default_factory=list)
    retired: list[ServerProcess] = field(default_factory=list)
    done_at: float = 0.0
    """When the last replacement was healthy (perf_counter)."""

    async def run(
        self,
        servers: list[ServerProcess],
        runs: list[TableRun],
        cpu_before: list[float | None],
        progress: Callable[[str], None],
    ) -> None:
        """Replace ``servers`` in place, one at a time; ``cpu_before`` (each slot's CPU at the window's start) moved
        so that a slot's CPU over the window is its old process's and then its replacement's, start-up apart."""
        for number, old in enumerate(list(servers)):
            await asyncio.sleep(self.pause)
            progress(f"rolling restart: stopping process {number + 1} of {len(servers)} (SIGTERM)")
            cores = os.sched_getaffinity(old.process.pid) if hasattr(os, "sched_getaffinity") else None
            old_cpu = old.cpu_seconds()
            asked = time.perf_counter()
            await asyncio.to_thread(old.stop, 15.0)
            stopped = time.perf_counter()
            new = ServerProcess.start(
                self.database_url,
                self.redis_url,
                self.folder / f"server-{number}-replacement.log",
                port=old.port,
                bot_workers=self.bot_workers,
            )
            if cores is not None:
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(new.process.pid, cores)  # the cores of the process it replaces
            await asyncio.to_thread(new.wait_healthy)
            servers[number] = new
            self.retired.append(old)
            new_cpu, before = new.cpu_seconds(), cpu_before[number]
            if old_cpu is not None and new_cpu is not None and before is not None:
                cpu_before[number] = new_cpu - (old_cpu - before)
            self.steps.append(
                {
                    "process": number,
                    "exit_code": old.process.returncode,
                    "stop_s": round(stopped - asked, 2),
                    "replacement_healthy_s": round(time.perf_counter() - stopped, 2),
                }
            )
        self.done_at = time.perf_counter()
        await asyncio.sleep(self.pause)
        deadline = time.perf_counter() + self.settle
        while any(run.last_ack <= self.done_at for run in runs) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)

    def report(self, figures: Figures, runs: list[TableRun]) -> dict[str, Any]:
        """The restarts, the reconnections and the longest time a seat had no connection."""
        gaps = figures.reconnect_gaps
        return {
            "steps": self.steps,
            "reconnections": len(gaps),
            "disconnected_ms": percentiles(gaps),
            "longest_disconnected_s": round(max(gaps), 3) if gaps else 0.0,
            "settled_by_resync": figures.settled_by_resync,
            "sent_again_after_resync": figures.sent_again,
            "tables_acknowledged_after": sum(run.last_ack > self.done_at for run in runs),
        }


def machine_cpu_seconds() -> float | None:
    """Busy CPU time of the whole machine so far, all cores together (Linux ``/proc/stat``; ``None`` elsewhere)."""
    try:
        fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def pin_cores(servers: list[ServerProcess]) -> dict[str, list[int]]:
    """Run the server processes on cores of their own, apart from the bench's clients (Linux, with at least one
    core more than there are servers); the cores each got (empty where pinning is not possible)."""
    if not hasattr(os, "sched_setaffinity"):
        return {}
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) <= len(servers):
        return {}
    client_cores, server_cores = cores[-1:], cores[:-1]
    pinned: dict[str, list[int]] = {}
    try:
        for number, server in enumerate(servers):
            share = server_cores[number :: len(servers)] if len(server_cores) >= len(servers) else server_cores
            os.sched_setaffinity(server.process.pid, share)
            pinned[f"server{number}"] = share
        os.sched_setaffinity(0, client_cores)
    except OSError:
        return {}
    pinned["client"] = client_cores
    return pinned


def raise_open_files(needed: int) -> int:
    """Raise this process's soft limit of open files towards ``needed`` (children inherit it); the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# -- the clients --------------------------------------------------------------------------------------------


@dataclass
class Pending:
    """An action in flight at one table: sent by ``seat`` on ``version`` at ``sent`` (perf_counter)."""

    seat: int
    sent: float
    seen: set[int] = field(default_factory=set)


@dataclass
class TableRun:
    id: str
    players: int
    inflight: dict[int, Pending] = field(default_factory=dict)
    """Actions in flight by the version they act on (at most one: only the player to act acts)."""
    last_ack: float = 0.0
    """When one of its actions was last acknowledged (perf_counter)."""


@dataclass
class Figures:
    """What the clients observed."""

    self_latency: list[float] = field(default_factory=list)
    others_latency: list[float] = field(default_factory=list)
    acks: int = 0
    acks_in_window: int = 0
    stale: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    games_finished: int = 0
    states: int = 0
    measuring: bool = False
    reconnect_gaps: list[float] = field(default_factory=list)
    """Seconds each reconnection left its seat without a connection (closed -> the new connection's state)."""
    settled_by_resync: int = 0
    """Actions in flight when their connection closed that the resync showed stored (counted as acknowledged)."""
    sent_again: int = 0
    """Actions in flight when their connection closed that the resync showed not stored (acted again)."""

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def clear_window(self) -> None:
        """Forget the measuring window's latencies, acknowledgements and games (a new phase begins)."""
        self.self_latency, self.others_latency = [], []
        self.acks_in_window = self.games_finished = 0


class SeatClient:
    """One seat's WebSocket client: a random legal action whenever its view says it is its turn."""

    def __init__(
        self,
        table: TableRun,
        seat: int,
        url: str,
        figures: Figures,
        rng: random.Random,
        think: float,
        min_interval: float,
        local_address: str | None = None,
        fallbacks: tuple[str, ...] = (),
    ) -> None:
        self.local_address = local_address
        self.fallbacks = fallbacks
        """The seat's URL on the other server processes: where it reconnects when its connection closes (as a
        browser behind a proxy would reach a live process). Empty: a closed connection is an error."""
        self.connected = asyncio.Event()
        self.table, self.seat, self.url, self.figures, self.rng = table, seat, url, figures, rng
        self.think, self.min_interval = think, min_interval
        self.ws: Any = None
        self.version = 0
        self.latest: dict[str, Any] | None = None
        self.turn = asyncio.Event()
        self.reply = asyncio.Event()
        self.acting = False
        self.pending_id: str | None = None
        self.pending_action: tuple[int, str] | None = None
        self.last_send = 0.0
        self.acted_on = -1
        self.next_game_for = 0
        self.over_seen: set[int] = set()
        self.acked: list[tuple[int, str]] = []
        """(game number, action text) of every acknowledged action, in order."""
        self.sent = 0
        self.closed_early = False
        self.compression = False
        self.next_game_in_doubt = False
        """Whether a request for the next game was cut off by its connection closing (then asked again)."""
        self.asking_again = False
        """Whether the next game request in flight asks again for one cut off."""
        self.in_doubt: tuple[int, tuple[int, str]] | None = None
        """(version acted on, (game, action)) of an action whose connection closed before its reply: stored if
        the table moves on from that version before this seat gets another action acknowledged there."""

    async def connect(self, websockets_connect: Callable[..., Any], compression: bool, url: str | None = None) -> None:
        self.compression = compression
        self.ws = await websockets_connect(
            url or self.url,
            open_timeout=60,
            ping_interval=None,
            max_size=2**22,
            compression="deflate" if compression else None,
            **({"local_addr": (self.local_address, 0)} if self.local_address else {}),
        )

    async def receive(self, stop: asyncio.Event) -> None:
        from websockets.exceptions import ConnectionClosed

        while True:
            try:
                async for raw in self.ws:
                    self.on_message(json.loads(raw))
            except ConnectionClosed:
                pass
            if stop.is_set():
                break
            if not self.fallbacks:
                self.closed_early = True
                self.figures.error("connection_closed")
                break
            if self.ws.close_code != SERVICE_RESTART:  # a restarting server closes with 1012; anything else is wrong
                self.figures.error(f"closed_{self.ws.close_code}")
            if not await self.reconnect(stop):
                break
        self.reply.set()
        self.turn.set()

    async def reconnect(self, stop: asyncio.Event) -> bool:
        """Connect again to a live process (the others first, in turn, as a proxy would) and resync; whether
        connected before ``stop``."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        lost_at = time.perf_counter()
        self.connected.clear()
        self.abandon_request()
        urls = [*self.fallbacks, self.url]
        attempt = 0
        while not stop.is_set():
            url = urls[attempt % len(urls)]
            attempt += 1
            try:
                await self.connect(connect, self.compression, url)
                while not await self._state_received():
                    pass
            except (OSError, TimeoutError, WebSocketException):
                await asyncio.sleep(min(0.5, 0.02 * attempt))
                continue
            self.figures.reconnect_gaps.append(time.perf_counter() - lost_at)
            self.connected.set()
            self.turn.set()
            return True
        return False

    async def _state_received(self) -> bool:
        """Take in the new connection's next message; whether it was a state (the first one is: the resync)."""
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
        self.on_message(message)
        return message.get("type") == "state"

    def abandon_request(self) -> None:
        """Give up waiting for the reply to the request in flight (its connection closed): an action is then in
        doubt (``in_doubt``), and the seat may act again on that version if the resync shows it still current."""
        if self.pending_id is None:
            return
        if self.pending_action is None:
            self.next_game_for = 0  # asked again if the game is still over
            self.next_game_in_doubt = True
        elif self.in_doubt is None:  # (a second action in doubt on the same version: the first one is kept)
            self.in_doubt = (self.acted_on, self.pending_action)
        self.table.inflight.pop(self.acted_on, None)
        self.acted_on = -1
        self.pending_id, self.pending_action = None, None
        self.reply.set()

    def resolve_doubt(self, stored: bool) -> None:
        """The action in doubt was stored (the table moved on from its version: only this seat, whose turn it was,
        could move it), or not (another action of this seat was acknowledged on that version)."""
        assert self.in_doubt is not None
        if stored:
            self.acked.append(self.in_doubt[1])
            self.figures.settled_by_resync += 1
        else:
            self.figures.sent_again += 1
        self.in_doubt = None

    def next_game_overtaken(self, code: str, message: dict[str, Any]) -> bool:
        """Whether the refusal answers a next game asked again after a reconnection, whose first request, cut off by
        the restart, had been taken (a benign refusal): ``answered`` (this seat's answer is stored) or ``no_game``
        (the next game began, every seat having answered, while the state the client saw, from a process not yet
        caught up, still showed the game over)."""
        return (
            code in ("answered", "no_game")
            and self.asking_again
            and self.pending_action is None
            and message.get("id") == self.pending_id
        )

    def acting_again_on_doubt(self) -> bool:
        """Whether the request in flight is an action on the version of the action in doubt."""
        return self.in_doubt is not None and self.pending_action is not None and self.acted_on == self.in_doubt[0]

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "state":
            self.on_state(message)
        elif kind == "ack":
            if message.get("id") == self.pending_id:
                if self.acting_again_on_doubt():
                    self.resolve_doubt(stored=False)
                if self.pending_action is not None:
                    self.acked.append(self.pending_action)
                    self.table.last_ack = time.perf_counter()
                    self.figures.acks += 1
                    if self.figures.measuring:
                        self.figures.acks_in_window += 1
                self.pending_id, self.pending_action = None, None
                self.reply.set()
        elif kind == "error":
            code = str(message.get("code"))
            if code == "stale" or self.next_game_overtaken(code, message):
                self.figures.stale += 1
            else:
                self.figures.error(code)
            if message.get("id") == self.pending_id:
                if self.pending_action is not None:
                    self.table.inflight.pop(self.acted_on, None)
                self.pending_id, self.pending_action = None, None
                if self.in_doubt is not None and self.version > self.in_doubt[0]:
                    self.resolve_doubt(stored=True)
                self.reply.set()
        elif kind not in ("notes", "premove"):  # a seat's own notes and next card, told on connecting: none here
            self.figures.error(f"unexpected_{kind}")

    def on_state(self, message: dict[str, Any]) -> None:
        version = int(message["version"])
        if version < self.version:
            self.figures.error("version_went_back")
            return
        self.latest = message
        if version == self.version:
            return  # the same state again (someone connected or left)
        self.version = version
        self.figures.states += 1
        if self.in_doubt is not None and version > self.in_doubt[0] and not self.acting_again_on_doubt():
            self.resolve_doubt(stored=True)
        now = time.perf_counter()
        for acted_on, pending in list(self.table.inflight.items()):
            if acted_on < version and self.seat not in pending.seen:
                pending.seen.add(self.seat)
                if self.figures.measuring:
                    latencies = self.figures.self_latency if pending.seat == self.seat else self.figures.others_latency
                    latencies.append(now - pending.sent)
                if len(pending.seen) >= self.table.players:
                    del self.table.inflight[acted_on]
        table = message["table"]
        if table["status"] != "over":
            self.next_game_in_doubt = False  # the next game began: nothing left to ask
        if table["status"] == "over" and self.seat == 0 and table["game_no"] not in self.over_seen:
            self.over_seen.add(table["game_no"])
            if self.figures.measuring:
                self.figures.games_finished += 1
        self.turn.set()

    async def act(self, stop: asyncio.Event) -> None:
        """Send an action each time it is this seat's turn (one in flight at a time), until ``stop``."""
        while not stop.is_set() and not self.closed_early:
            await self.turn.wait()
            self.turn.clear()
            await self.connected.wait()  # reconnecting: acts once resynced
            if stop.is_set() or self.closed_early or self.latest is None:
                continue
            message = self.latest
            version, table, seen = message["version"], message["table"], message["view"]
            wants_next = table["status"] == "over" and self.next_game_for < table["game_no"]
            legal = seen["legal_actions"] if seen is not None and table["status"] == "playing" else []
            if not (wants_next or (legal and seen["current_player"] == self.seat and version > self.acted_on)):
                continue
            if self.think:
                await asyncio.sleep(self.rng.expovariate(1 / self.think))
            wait = self.last_send + self.min_interval - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            if stop.is_set() or self.latest is not message:
                self.turn.set()  # look again at the newer state
                continue
            self.sent += 1
            self.pending_id = f"{self.seat}:{self.sent}"
            self.reply.clear()
            if wants_next:
                self.next_game_for = table["game_no"]
                self.asking_again, self.next_game_in_doubt = self.next_game_in_doubt, False
                self.pending_action = None
                payload = {"type": "next_game", "id": self.pending_id}
            else:
                action = self.rng.choice(legal)
                self.acted_on = version
                self.pending_action = (table["game_no"], action_text(action))
                payload = {"type": "action", "id": self.pending_id, "action": action, "version": version}
            self.last_send = time.perf_counter()
            if not wants_next:
                self.table.inflight[version] = Pending(self.seat, self.last_send)
            try:
                await self.ws.send(json.dumps(payload))
            except Exception:
                if not self.fallbacks:
                    self.figures.error("send_failed")
                    return
                if self.pending_id == payload["id"]:  # closed before it went out, and not yet seen closed: not sent
                    self.pending_id, self.pending_action = None, None
                    self.table.inflight.pop(version, None)
                    if wants_next:
                        self.next_game_for, self.next_game_in_doubt = 0, self.asking_again
                    else:
                        self.acted_on = -1
                    continue  # the receiver reconnects; the next turn is taken once resynced
            await self.reply.wait()

    async def settle(self, timeout: float) -> bool:
        """Wait for the reply to the request in flight, if any; whether it came."""
        if self.pending_id is None:
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.reply.wait(), timeout)
        return self.pending_id is None


STOPPED_CLEANLY = (0, -signal.SIGTERM)
"""Exit statuses of a server process stopped by SIGTERM within its grace (uvicorn raises the signal again once it
has shut down cleanly); a kill after the grace ends in -SIGKILL."""
SERVICE_RESTART = 1012
"""The close code of a server process stopping for a restart (server/http.py)."""


def action_text(action: dict[str, Any]) -> str:
    """The stored text form of a JSON action (``bid:2+``, ``play:4``)."""
    if action["type"] == "bid":
        return f"bid:{action['tricks']}{'+' if action.get('safety') else ''}"
    return f"play:{action['slot']}"


# -- the run ------------------------------------------------------------------------------------------------


def percentiles(samples: list[float]) -> dict[str, float | int | None]:
    """p50/p95/p99/max in milliseconds (nearest rank), and the count."""
    if not samples:
        return {"count": 0, "p50": None, "p95": None, "p99": None, "max": None}
    ordered = sorted(samples)

    def rank(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.5) - 1))] * 1000, 2)

    return {
        "count": len(ordered),
        "p50": rank(0.50),
        "p95": rank(0.95),
        "p99": rank(0.99),
        "max": round(ordered[-1] * 1000, 2),
    }


async def _gather_limited(coroutines: list[Any], limit: int) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coroutine: Any) -> Any:
        async with gate:
            return await coroutine

    return await asyncio.gather(*(one(c) for c in coroutines))


async def _drive(
    servers: list[ServerProcess],
    *,
    tables: int,
    players: int,
    seconds: float,
    think: float,
    seed: int,
    edition: str,
    compression: bool,
    progress: Callable[[str], None],
    attacks: list[str],
    clock: str | None = None,
    rolling: RollingRestart | None = None,
    split: bool = True,
) -> tuple[Figures, list[SeatClient], list[TableRun], dict[str, float], list[dict[str, Any]]]:
    import httpx
    from websockets.asyncio.client import connect

    from luz.server.settings import Settings

    rng = random.Random(seed)
    figures = Figures()
    runs: list[TableRun] = []
    clients: list[SeatClient] = []
    timings: dict[str, float] = {}
    min_interval = 1.05 / Settings.messages_per_second
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:

        async def post(
            url: str, body: dict[str, Any], client: httpx.AsyncClient = http, headers: dict[str, str] | None = None
        ) -> dict[str, Any]:
            for attempt in range(4):  # a kept-alive connection the server just closed is an error to retry
                try:
                    answer = await client.post(url, json=body, headers=headers)
                    answer.raise_for_status()
                    reply: dict[str, Any] = answer.json()
                    return reply
                except httpx.TransportError:
                    if attempt == 3:
                        raise
                    await asyncio.sleep(0.2 * (attempt + 1))
            raise AssertionError("not reached")

        async def create(number: int) -> None:
            if attacks:  # each table its own client address, as real players are, under the server's limits
                address = honest_address(number)
                transport = httpx.AsyncHTTPTransport(local_address=address)
                async with httpx.AsyncClient(timeout=60, transport=transport) as own:
                    await create_from(number, own, address)
            else:
                await create_from(number, http, None)

        async def create_from(number: int, client: httpx.AsyncClient, address: str | None) -> None:
            home = servers[number % len(servers)]
            spec: dict[str, Any] = {"edition": edition, "players": players, "name": f"bench {number}"}
            spec["grace_seconds"] = 3600
            if clock is not None:  # a timed table (server/clocks.py)
                spec["time_control"] = clock
            body = await post(f"{home.url}/api/tables", spec, client)
            run = TableRun(body["table"]["id"], players)
            runs.append(run)
            for invite in body["invites"]:
                seat = invite["seat"]
                place = (number + (seat if split else 0)) % len(servers)
                server = servers[place]
                path = f"/ws/tables/{run.id}?token={invite['token']}"
                others = servers[place + 1 :] + servers[:place]
                seat_client = SeatClient(
                    run,
                    seat,
                    f"{server.ws_url}{path}",
                    figures,
                    random.Random(rng.getrandbits(64)),
                    think,
                    min_interval,
                    address,
                    tuple(f"{other.ws_url}{path}" for other in others) if rolling else (),
                )
                clients.append(seat_client)
                guest = await post(f"{server.url}/api/me/guest", {}, client)  # one seat per identity: a guest each
                await post(
                    f"{server.url}/api/tables/{run.id}/seats/{seat}/join",
                    {"name": f"bench{seat}", "token": invite["token"]},
                    client,
                    {"X-Luz-Session": guest["session"]},
                )

        progress(f"creating {tables} tables of {players} seats")
        await _gather_limited([create(n) for n in range(tables)], 32)
        timings["setup_s"] = time.perf_counter() - started

    stop = asyncio.Event()
    progress(f"connecting {len(clients)} WebSocket clients")
    started = time.perf_counter()
    await _gather_limited([c.connect(connect, compression) for c in clients], 64)
    timings["connect_s"] = time.perf_counter() - started
    for client in clients:
        client.connected.set()
    receivers = [asyncio.create_task(c.receive(stop)) for c in clients]
    await asyncio.sleep(0.5)  # let the greetings land

    # The attackers' processes start now, outside the windows (their interpreters' start is no attack).
    attackers = {kind: await asyncio.to_thread(_started_attacker, kind, servers[0], seconds) for kind in attacks}
    # The clients' own collections stalled their loop (full collections of their 4,000 connections' heap: 0.5-0.8 s
    # of CPU every few seconds), which the latencies counted as the server's: none while measuring.
    pause_collector()
    cpu_before = [s.cpu_seconds() for s in servers]
    machine_before = machine_cpu_seconds()
    own_before = resource.getrusage(resource.RUSAGE_SELF)
    progress(f"playing for {seconds:g} s")
    figures.measuring = True
    started = time.perf_counter()
    actors = [asyncio.create_task(c.act(stop)) for c in clients]
    for client in clients:
        client.turn.set()
    if rolling is not None:
        await rolling.run(servers, runs, cpu_before, progress)
    else:
        await asyncio.sleep(seconds)
    phases = [phase_figures(figures, None, time.perf_counter() - started)]
    for kind in attacks:
        phases.append(await _attacked_phase(kind, attackers[kind], figures, seconds, progress))
    figures.measuring = False
    stop.set()
    timings["window_s"] = elapsed = time.perf_counter() - started
    for client in clients:
        client.turn.set()
    own_after = resource.getrusage(resource.RUSAGE_SELF)
    cpu_after = [s.cpu_seconds() for s in servers]
    machine_after = machine_cpu_seconds()
    resume_collector()

    progress("waiting for the last replies, closing")
    settled = await asyncio.gather(*(c.settle(10) for c in clients))
    figures.errors["no_reply"] = settled.count(False) + figures.errors.get("no_reply", 0)
    if not figures.errors["no_reply"]:
        del figures.errors["no_reply"]
    for task in actors:
        task.cancel()
    await asyncio.gather(*actors, return_exceptions=True)
    await asyncio.gather(*(asyncio.wait_for(c.ws.close(), 10) for c in clients), return_exceptions=True)
    await asyncio.gather(*(asyncio.wait_for(r, 10) for r in receivers), return_exceptions=True)

    timings["client_cpu_s"] = (own_after.ru_utime + own_after.ru_stime) - (own_before.ru_utime + own_before.ru_stime)
    for number, (before, after) in enumerate(zip(cpu_before, cpu_after, strict=True)):
        if before is not None and after is not None:
            timings[f"server{number}_cpu_s"] = after - before
    if machine_before is not None and machine_after is not None:
        timings["machine_cpu_s"] = machine_after - machine_before
    timings["window_s"] = elapsed
    return figures, clients, runs, timings, phases


_collector_paused: list[bool] = []
"""Whether the collector was on when ``pause_collector`` paused it (empty: not paused)."""


def pause_collector() -> None:
    """No garbage collection in this process until ``resume_collector``: what lives now frozen, the collector off."""
    if not _collector_paused:
        _collector_paused.append(gc.isenabled())
        gc.collect()
        gc.freeze()
        gc.disable()


def resume_collector() -> None:
    """The collector as before ``pause_collector`` (nothing if not paused)."""
    if _collector_paused:
        gc.unfreeze()
        if _collector_paused.pop():
            gc.enable()


def honest_address(table: int) -> str:
    """The loopback source address of honest table ``table``'s clients (127.1.0.1 onwards; never the attacker's)."""
    return f"127.1.{table // 250}.{table % 250 + 1}"


def phase_figures(figures: Figures, attack: str | None, window: float) -> dict[str, Any]:
    """The honest clients' figures since the last phase (then cleared for the next one)."""
    phase = {
        "attack": attack,
        "seconds": round(window, 2),
        "actions": figures.acks_in_window,
        "actions_per_s": round(figures.acks_in_window / window, 1) if window else 0.0,
        "latency_ms": {"self": percentiles(figures.self_latency), "others": percentiles(figures.others_latency)},
        "games_finished": figures.games_finished,
    }
    figures.clear_window()
    return phase


def _started_attacker(kind: str, server: ServerProcess, seconds: float) -> Attacker:
    """Attacker ``kind``'s process, started and waiting for the word to attack (holding for ``seconds`` + 1)."""
    from luz.bench.attacks import Attacker

    attack = Attacker(kind, server.url, server.ws_url, seconds + 1, "spawn")
    attack.start()
    return attack


async def _attacked_phase(
    kind: str, attack: Attacker, figures: Figures, seconds: float, progress: Callable[[str], None]
) -> dict[str, Any]:
    """The honest load measured ``seconds`` while attacker ``kind`` runs (from its own process and address)."""
    progress(f"attack {kind}: playing for {seconds:g} s more")
    attack.begin()
    await asyncio.sleep(0.5)  # the attack is under way
    figures.clear_window()
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    phase = phase_figures(figures, kind, time.perf_counter() - started)
    phase["attacker"] = await asyncio.to_thread(attack.finish)
    return phase


def check_log(database_url: str, clients: list[SeatClient], runs: list[TableRun]) -> dict[str, int]:
    """Compare every acknowledged action with the database's action log.

    Each seat's actions go only through its own client, so the k-th action the client saw acknowledged in a game
    must be the k-th stored action of that seat in that game. ``lost``: acknowledged, not stored (or stored
    differently); ``unacknowledged``: stored, never acknowledged (replies cut off at the end); ``stored``: rows.
    """
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from luz.server.db import ActionRow, make_engine

    ids = [run.id for run in runs]
    stored: dict[tuple[str, int, int], list[str]] = {}
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            for start in range(0, len(ids), 500):
                rows = session.execute(
                    select(ActionRow.table_id, ActionRow.game_no, ActionRow.seat, ActionRow.action)
                    .where(ActionRow.table_id.in_(ids[start : start + 500]))
                    .order_by(ActionRow.table_id, ActionRow.game_no, ActionRow.seq)
                )
                for table_id, game_no, seat, text in rows:
                    stored.setdefault((table_id, game_no, seat), []).append(text)
    finally:
        engine.dispose()
    lost = matched = 0
    for client in clients:
        games: dict[int, list[str]] = {}
        for game_no, text in client.acked:
            games.setdefault(game_no, []).append(text)
        for game_no, texts in games.items():
            log = stored.get((client.table.id, game_no, client.seat), [])
            for k, text in enumerate(texts):
                if k < len(log) and log[k] == text:
                    matched += 1
                else:
                    lost += 1
    count = sum(len(texts) for texts in stored.values())
    return {"stored": count, "lost": lost, "unacknowledged": count - matched}


def broker_figures(servers: list[ServerProcess], clients: list[SeatClient]) -> list[dict[str, Any]]:
    """Each process's messages heard from Redis (over the whole run, set-up included) per action it served (its
    own clients' acknowledged actions): what other processes' work costs it."""
    served = {server.port: 0 for server in servers}
    for client in clients:
        port = int(client.url.split(":")[2].split("/")[0])
        served[port] = served.get(port, 0) + len(client.acked)
    figures = []
    for server in servers:
        received, actions = server.broker_received(), served[server.port]
        per_action = round(received / actions, 2) if received is not None and actions else None
        figures.append({"received": received, "actions_served": actions, "received_per_action": per_action})
    return figures


def bench_floor(
    folder: Path,
    pin: bool,
    *,
    tables: int,
    players: int,
    seconds: float,
    think: float,
    seed: int,
    edition: str,
    compression: bool,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """The same load on the floor (``luz.bench.floor``): its CPU per action, latencies and lost actions."""
    database = folder / "floor.sqlite3"
    progress("the floor: a bare server on the same stack, the same load")
    floor = ServerProcess.start_floor(database, folder / "floor.log")
    try:
        floor.wait_healthy()
        pinned = pin_cores([floor]) if pin else {}
        figures, seat_clients, runs, timings, phases = asyncio.run(
            _drive(
                [floor],
                tables=tables,
                players=players,
                seconds=seconds,
                think=think,
                seed=seed,
                edition=edition,
                compression=compression,
                progress=progress,
                attacks=[],
            )
        )
    finally:
        floor.stop()
        resume_collector()
    log = check_log(f"sqlite:///{database}", seat_clients, runs)
    actions = phases[0]["actions"]
    cpu = timings.get("server0_cpu_s")
    return {
        "actions": actions,
        "actions_per_s": phases[0]["actions_per_s"],
        "latency_ms": phases[0]["latency_ms"],
        "errors": dict(sorted(figures.errors.items())),
        "lost_actions": log["lost"],
        "server_cpu_ms_per_action": round(1000 * cpu / actions, 3) if cpu is not None and actions else None,
        "cpu_percent": cpu_percent(timings, timings["window_s"]),
        "pinned_cores": pinned,
    }


def ratio(cpu_per_action: float | None, floor: dict[str, Any] | None) -> float | None:
    """luz's server CPU per action over the floor's (``None`` without both)."""
    floor_ms: float | None = floor["server_cpu_ms_per_action"] if floor else None
    if cpu_per_action is None or not floor_ms:
        return None
    return round(1000 * cpu_per_action / floor_ms, 2)


def cpu_percent(timings: dict[str, float], window: float) -> dict[str, float]:
    """CPU use over the window in % of one core: the bench's clients, each server, everything else on the machine
    (``others``: the database, Redis, other programs), and the number of cores."""
    figures = {k.removesuffix("_cpu_s"): 100 * v / window for k, v in timings.items() if k.endswith("_cpu_s")}
    machine = figures.pop("machine", None)
    if machine is not None:
        figures["others"] = max(0.0, machine - sum(figures.values()))
    figures["cores"] = os.cpu_count() or 0
    return {k: round(v, 1) for k, v in figures.items()}


def bench_server(
    tables: int = 200,
    clients_per_table: int = 4,
    seconds: float = 30.0,
    processes: int = 1,
    database_url: str | None = None,
    redis_url: str | None = None,
    think: float = 0.0,
    seed: int = 0,
    edition: str = "iello-2024",
    compression: bool = True,
    progress: Callable[[str], None] | None = None,
    pin: bool = True,
    attacks: tuple[str, ...] = (),
    clock: str | None = None,
    rolling_restart: bool = False,
    floor: bool = True,
    split_tables: bool = True,
) -> dict[str, Any]:
    """Run the load and return the report (see the module's docstring).

    ``split_tables``: with several processes, the seats of each table on different processes (what crosses
    processes is measured); else each table's seats all on one (a process then holds only its own tables).

    ``floor``: then the same load, by the same clients, on the floor (``luz.bench.floor``: a bare server on the
    same stack), in its own window; the report's ``floor`` and ``ratio_to_floor`` (luz's server CPU per action
    over the floor's). Not with attackers, clocks or a rolling restart (whose work the floor does not do).

    ``rolling_restart``: ``seconds / 3`` of play, then each process in turn stopped with SIGTERM, replaced on its
    port and waited for until healthy, with ``seconds / 3`` of play between and after (and until every table has
    had an action acknowledged since, up to 30 s more); the report's
    ``rolling_restart`` says how long each step took, the reconnections and the longest a seat was disconnected.

    ``clock``: every table timed with this preset of ``luz.server.timecontrol.PRESETS`` (e.g. ``3+10``).

    ``attacks``: after the window without attacker, one more window of the same load per attacker kind (see
    ``luz.bench.attacks``), in that order on the same server; the figures of each are in the report's ``phases``.
    The server then keeps ``luz serve``'s per-client limits, and each honest table comes from its own loopback
    address (``honest_address``), as real players do; the attacker from 127.0.0.2.
    """
    say = progress or (lambda _: None)
    if processes > 1 and not (database_url and database_url.startswith("postgresql") and redis_url):
        raise ValueError("several processes need a shared PostgreSQL database and Redis (--database-url, --redis-url)")
    if rolling_restart and (processes < 2 or attacks):
        raise ValueError("a rolling restart needs two processes or more and no attacker")
    clients = tables * clients_per_table
    open_files = raise_open_files(4 * clients + 1024)
    floor = floor and not (attacks or clock or rolling_restart)
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    folder = Path(tempfile.mkdtemp(prefix="luz-bench-server-"))
    url = database_url or f"sqlite:///{folder / 'luz.sqlite3'}"
    try:
        say(f"starting {processes} server process(es) ({url.split('://')[0]}{', redis' if redis_url else ''})")
        # Attacked, the server runs as deployed: luz serve's limits and its default of one bot worker process.
        deployed = bool(attacks)
        rolling = RollingRestart(url, redis_url, folder, bot_workers=0, pause=seconds / 3) if rolling_restart else None
        with running_servers(
            processes,
            url,
            redis_url,
            folder,
            bot_workers=1 if deployed else 0,
            client_limits=deployed,
            watch_stalls=True,
        ) as servers:
            pinned = pin_cores(servers) if pin else {}
            figures, seat_clients, runs, timings, phases = asyncio.run(
                _drive(
                    servers,
                    tables=tables,
                    players=clients_per_table,
                    seconds=seconds,
                    think=think,
                    seed=seed,
                    edition=edition,
                    compression=compression,
                    progress=say,
                    attacks=list(attacks),
                    clock=clock,
                    rolling=rolling,
                    split=split_tables,
                )
            )
            logs = [s.log_tail(10) for s in servers if s.process.poll() is not None]
            stalls = stall_figures(servers)
        across = broker_figures(servers, seat_clients) if redis_url and not rolling else None
        retired = rolling.retired if rolling else []
        logs += [s.log_tail(10) for s in retired if s.process.returncode not in STOPPED_CLEANLY]
        trouble = [line for s in retired + servers for line in s.trouble()]
        say("checking the action log")
        log = check_log(url, seat_clients, runs)
        if affinity is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, affinity)  # the cores pin_cores took from the clients, back for the floor
        floor_report = None
        if floor:
            floor_report = bench_floor(
                folder,
                pin,
                tables=tables,
                players=clients_per_table,
                seconds=seconds,
                think=think,
                seed=seed,
                edition=edition,
                compression=compression,
                progress=say,
            )
    finally:
        resume_collector()  # also when the run failed
        shutil.rmtree(folder, ignore_errors=True)
    window = timings.pop("window_s")
    errors = sum(figures.errors.values())
    unattacked = phases[0]
    server_cpu = [v for k, v in timings.items() if k.startswith("server") and k.endswith("_cpu_s")]
    served = sum(phase["actions"] for phase in phases)  # the CPU was measured over every phase
    cpu_per_action = sum(server_cpu) / served if server_cpu and served else None
    return {
        "benchmark": "server",
        "tables": tables,
        "clients_per_table": clients_per_table,
        "clients": clients,
        "processes": processes,
        "database": url.split("://")[0].split("+")[0],
        "redis": bool(redis_url),
        "seconds": unattacked["seconds"],
        "think_s": think,
        "clock": clock,
        "compression": compression,
        "open_files_limit": open_files,
        "actions": unattacked["actions"],
        "actions_per_s": unattacked["actions_per_s"],
        "latency_ms": unattacked["latency_ms"],
        "errors": errors,
        "error_kinds": dict(sorted(figures.errors.items())),
        "stale_refusals": figures.stale,
        "acks_total": figures.acks,
        "lost_actions": log["lost"],
        "unacknowledged_actions": log["unacknowledged"],
        "stored_actions": log["stored"],
        "games_finished": sum(phase["games_finished"] for phase in phases),
        "states_received": figures.states,
        "timings_s": {k: round(v, 2) for k, v in timings.items()},
        "cpu_percent": cpu_percent(timings, window),
        "server_cpu_ms_per_action": None if cpu_per_action is None else round(1000 * cpu_per_action, 3),
        "stalls": stalls,
        "broker": across,
        "split_tables": split_tables,
        "floor": floor_report,
        "ratio_to_floor": ratio(cpu_per_action, floor_report),
        "pinned_cores": pinned,
        "crashed_servers": logs,
        "server_errors": len(trouble),
        "server_error_lines": trouble[:20],
        "phases": phases,
        "rolling_restart": rolling.report(figures, runs) if rolling else None,
    }
