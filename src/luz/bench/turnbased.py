"""Turn-based load: many stored turn-based tables, few of them active, as a server of correspondence games sees it.

``bench_turn_based`` (``luz bench server --turn-based``):

1. seeds ``tables`` turn-based tables (4 seats: 3 humans with player ids and invite tokens, 1 bot; days per
   move) straight into the database, in bulk: each has a ``games`` row with a seed and its clock, the first
   player to move, its deadline days ahead. The seeds are real: each table rebuilds from its record
   (``store.build_game``). Nobody is told of these turns (``notify_at`` empty, as if told already);
2. starts ``luz serve`` on that database (``ServerProcess``) and times process start to ``/healthz`` 200;
3. for ``active`` tables, over ``seconds``: one move per table a minute, spread evenly: the seat to move connects
   with its token (the table out of memory: ``LUZ_IDLE_TABLE_SECONDS`` low), gets its state, acts, gets its ack,
   waits until the bot seat (if it came to move) has moved, disconnects. Measured: connect to ack, connect to
   state, act to ack;
4. the Web Push of the turns: every human of the active tables has a subscription on a local push service
   (``LUZ_PUSH_ALLOW_LOCAL=1``); measured: from the moment the bench saw the turn pass to a player (the ack of
   the previous move, or the state of the bot's move after it) to the push's POST arriving;
5. deadlines: ``deadlines`` other tables have their turn's start moved back past the deadline (as days passing
   would); measured: how long until each has its timeout move stored (the action counts), fired per second;
6. the resident memory (VmRSS) of each server process at the end.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import random
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from luz.bench.server import ServerProcess, percentiles, raise_open_files

HUMANS = 3
SEATS = 4
BOT_SEAT = 3
DAYS = 3
"""Days per move of the seeded tables."""
MOVE_PERIOD_S = 60.0
"""Each active table gets one move in this period."""
CHUNK = 5000
"""Rows per INSERT of the seeding."""


# -- the push service -----------------------------------------------------------------------------------------


class PushSink:
    """A Web Push service on 127.0.0.1 answering 201 to every POST, recording when each arrived (``time.time()``)
    by path; ``with PushSink() as sink:`` runs it in a thread."""

    def __init__(self) -> None:
        self.arrivals: list[tuple[str, float]] = []
        self._lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                at = time.time()
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with sink._lock:
                    sink.arrivals.append((self.path, at))
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> PushSink:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def taken(self) -> list[tuple[str, float]]:
        with self._lock:
            return list(self.arrivals)


def subscription_keys() -> tuple[str, str]:
    """A browser's subscription keys (p256dh: a P-256 public point, auth: 16 bytes), base64url: one pair for all."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    point = ec.generate_private_key(ec.SECP256R1()).public_key()
    return b64(point.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)), b64(os.urandom(16))


# -- seeding ----------------------------------------------------------------------------------------------------


def table_id(number: int) -> str:
    return f"tb{number:012d}"


def player_id(number: int, seat: int) -> str:
    return f"pl{number:012d}{seat}"


def seat_token(number: int, seat: int) -> str:
    return f"bench-{number}-{seat}"


@dataclass
class Seeded:
    """What the bench keeps of the seeded tables: each table's turn start (epoch ms) and first mover."""

    count: int
    since: list[int]
    seconds: float


def seed_tables(
    database_url: str,
    count: int,
    *,
    seed: int = 0,
    subscribed: int = 0,
    push_origin: str = "",
    progress: Callable[[str], None] = lambda _: None,
) -> Seeded:
    """Store ``count`` turn-based tables with a game started at each (see the module's docstring); the players of
    the first ``subscribed`` tables get a push subscription at ``push_origin/push/<player id>``."""
    from sqlalchemy import insert

    from luz.engine import DEFAULT_EDITION
    from luz.engine.editions import get_edition
    from luz.server.clock import SYSTEM_CLOCK
    from luz.server.db import GameRow, PlayerRow, PushSubscriptionRow, SeatRow, TableRow, make_engine, migrate
    from luz.server.store import token_hash
    from luz.server.tables.model import QUICK_BOT
    from luz.server.timecontrol import DAY_MS, new_clock, stored_time_control, turn_of

    started = time.perf_counter()
    rng = random.Random(seed)
    edition = get_edition(DEFAULT_EDITION)
    options = [edition.options(SEATS, first_player=k).to_json() for k in range(HUMANS)]
    control = stored_time_control("3d")
    assert control is not None and control["reserve_ms"] == DAYS * DAY_MS
    kinds = ["human"] * HUMANS + ["bot"]
    now = SYSTEM_CLOCK.now_ms()
    p256dh, auth = subscription_keys()
    engine = make_engine(database_url)
    since: list[int] = []
    try:
        migrate(engine)
        for start in range(0, count, CHUNK):
            numbers = range(start, min(count, start + CHUNK))
            tables, seats, players, games, subscriptions = [], [], [], [], []
            for n in numbers:
                clock = new_clock(control, kinds, now)
                assert clock is not None
                clock["since"] = now - rng.randrange(6 * 3600 * 1000)  # the turn began up to 6 hours ago
                since.append(clock["since"])
                first = n % HUMANS
                turn = turn_of(control, clock, first, {BOT_SEAT})
                tables.append(
                    {
                        "id": table_id(n),
                        "name": f"turn-based {n}",
                        "edition": DEFAULT_EDITION,
                        "players": SEATS,
                        "options": options[first],
                        "public": False,
                        "grace_seconds": 30.0,
                        "hints": False,
                        "rated": False,
                        "status": "playing",
                        "game_no": 1,
                        "version": 5,
                        "time_control": control,
                        "clock": clock,
                        "turn_based": True,
                        "to_move": turn.to_move,
                        "deadline": turn.deadline,
                        "notify_at": None,  # told already: the notifier has nothing to catch up with
                        "remind_at": turn.remind_at,
                    }
                )
                games.append({"table_id": table_id(n), "game_no": 1, "seed": rng.getrandbits(62)})
                for seat in range(SEATS):
                    human = seat != BOT_SEAT
                    if human:
                        players.append({"id": player_id(n, seat), "name": f"p{n}-{seat}"})
                        if n < subscribed:
                            subscriptions.append(
                                {
                                    "endpoint": f"{push_origin}/push/{player_id(n, seat)}",
                                    "player_id": player_id(n, seat),
                                    "p256dh": p256dh,
                                    "auth": auth,
                                }
                            )
                    seats.append(
                        {
                            "table_id": table_id(n),
                            "seat": seat,
                            "kind": "human" if human else "bot",
                            "bot": None if human else QUICK_BOT,
                            "name": f"p{n}-{seat}" if human else None,
                            "token_hash": token_hash(seat_token(n, seat)) if human else None,
                            "joined": True,
                            "player_id": player_id(n, seat) if human else None,
                        }
                    )
            with engine.begin() as connection:
                connection.execute(insert(PlayerRow), players)
                connection.execute(insert(TableRow), tables)
                connection.execute(insert(SeatRow), seats)
                connection.execute(insert(GameRow), games)
                if subscriptions:
                    connection.execute(insert(PushSubscriptionRow), subscriptions)
            progress(f"seeded {numbers.stop:,} / {count:,} tables")
    finally:
        engine.dispose()
    return Seeded(count, since, time.perf_counter() - started)


def age_tables(database_url: str, seeded: Seeded, numbers: list[int]) -> int:
    """Move the turn's start of tables ``numbers`` back past their deadline (``DAYS`` days and a second): the
    epoch ms they were aged at."""
    from sqlalchemy import bindparam, update

    from luz.server.clock import SYSTEM_CLOCK
    from luz.server.db import TableRow, make_engine
    from luz.server.timecontrol import DAY_MS, new_clock, stored_time_control

    control = stored_time_control("3d")
    engine = make_engine(database_url)
    back = DAYS * DAY_MS + 1000
    rows = []
    for n in numbers:
        clock = new_clock(control, ["human"] * HUMANS + ["bot"], SYSTEM_CLOCK.now_ms())
        assert clock is not None and control is not None
        clock["since"] = seeded.since[n] - back
        rows.append(
            {
                "key": table_id(n),
                "new_clock": clock,
                "new_deadline": clock["since"] + control["reserve_ms"],
                "new_remind": clock["since"] + control["reserve_ms"] * 3 // 4,
            }
        )
    statement = (
        update(TableRow)
        .where(TableRow.id == bindparam("key"))
        .values(clock=bindparam("new_clock"), deadline=bindparam("new_deadline"), remind_at=bindparam("new_remind"))
    )
    try:
        with engine.begin() as connection:
            connection.execute(statement, rows)
        return SYSTEM_CLOCK.now_ms()
    finally:
        engine.dispose()


def action_counts(engine: Any, ids: list[str]) -> dict[str, int]:
    """Stored actions per table (tables without any left out)."""
    from sqlalchemy import func, select

    from luz.server.db import ActionRow

    counts: dict[str, int] = {}
    with engine.connect() as connection:
        for start in range(0, len(ids), 500):
            query = (
                select(ActionRow.table_id, func.count())
                .where(ActionRow.table_id.in_(ids[start : start + 500]))
                .group_by(ActionRow.table_id)
            )
            counts.update({row[0]: int(row[1]) for row in connection.execute(query)})
    return counts


# -- the active tables ------------------------------------------------------------------------------------------


@dataclass
class Active:
    """What the movers observed."""

    connect_to_ack: list[float] = field(default_factory=list)
    connect_to_state: list[float] = field(default_factory=list)
    act_to_ack: list[float] = field(default_factory=list)
    idle_before: list[float] = field(default_factory=list)
    """Seconds each measured table had nobody connected before the move (> idle seconds + sweep: out of memory)."""
    moves: int = 0
    wrong_seat: int = 0
    """Connections of a seat that was not to move (the bench's guess of the mover was wrong): reconnected."""
    errors: dict[str, int] = field(default_factory=dict)
    turn_passed: dict[str, list[float]] = field(default_factory=dict)
    """By player id: when (``time.time()``) the bench saw the turn pass to that player."""

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


async def _move_once(
    ws_url: str, number: int, mover: dict[int, int], left: dict[int, float], active: Active, rng: random.Random
) -> None:
    """One move at table ``number``: connect as its mover, state, act, ack, wait for the bot, disconnect."""
    from websockets.asyncio.client import connect

    idle = time.perf_counter() - left[number] if number in left else None
    cold = True
    for _ in range(3):
        seat = mover.get(number, number % HUMANS)
        url = f"{ws_url}/ws/tables/{table_id(number)}?token={seat_token(number, seat)}"
        began = time.perf_counter()
        async with connect(url, open_timeout=30, ping_interval=None, max_size=2**22) as ws:
            state: dict[str, Any] | None = None
            while state is None:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if message.get("type") == "state" and message.get("view") is not None:
                    state = message
            got_state = time.perf_counter()
            view = state["view"]
            if state["table"]["status"] != "playing":
                active.error("game_not_playing")
                return
            if view["current_player"] != seat:
                current = int(view["current_player"])
                if current != BOT_SEAT:
                    mover[number] = current
                    active.wrong_seat += 1
                    cold = False  # the table is in memory now: the next connection is not a cold one
                    continue
                # the bot is to move: wait for its move, then look again
                await _until_human(ws, mover, number, active, int(state["version"]), wait_for_bot=True)
                cold = False
                continue
            version = int(state["version"])
            action = rng.choice(view["legal_actions"])
            acted = time.perf_counter()
            await ws.send(json.dumps({"type": "action", "id": "m", "action": action, "version": version}))
            early: list[dict[str, Any]] = []
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if message.get("type") == "ack" and message.get("id") == "m":
                    break
                if message.get("type") == "state":
                    early.append(message)  # the state of the move may come before its ack
                if message.get("type") == "error":
                    active.error(str(message.get("code")))
                    return
            acked = time.perf_counter()
            active.moves += 1
            if cold:
                active.connect_to_ack.append(acked - began)
                active.connect_to_state.append(got_state - began)
                active.act_to_ack.append(acked - acted)
                if idle is not None:
                    active.idle_before.append(idle)
            await _until_human(ws, mover, number, active, version, early=early)
        left[number] = time.perf_counter()
        return
    active.error("no_mover_found")


async def _until_human(
    ws: Any,
    mover: dict[int, int],
    number: int,
    active: Active,
    version: int,
    wait_for_bot: bool = False,
    early: list[dict[str, Any]] | None = None,
) -> None:
    """Read states (``early`` first: those that came before the ack) until one after ``version`` has a human to
    move (the bot moving in between); note when the turn passed to that human's player."""
    deadline = time.perf_counter() + 15
    waiting = list(early or ())
    while time.perf_counter() < deadline:
        if waiting:
            message = waiting.pop(0)
        else:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, deadline - time.perf_counter())))
            except TimeoutError:
                break
        if message.get("type") != "state" or int(message["version"]) <= version or message.get("view") is None:
            continue
        if message["table"]["status"] != "playing":
            return
        current = int(message["view"]["current_player"])
        if current != BOT_SEAT:
            mover[number] = current
            if not wait_for_bot:
                active.turn_passed.setdefault(player_id(number, current), []).append(time.time())
            return
    active.error("no_human_to_move")


async def _drive_active(
    servers: list[ServerProcess], count: int, seconds: float, seed: int, progress: Callable[[str], None]
) -> tuple[Active, float]:
    rng = random.Random(seed)
    active = Active()
    mover: dict[int, int] = {}
    left: dict[int, float] = {}
    schedule = sorted(
        (k * MOVE_PERIOD_S + MOVE_PERIOD_S * n / count, n)
        for n in range(count)
        for k in range(int(seconds // MOVE_PERIOD_S) + 1)
        if k * MOVE_PERIOD_S + MOVE_PERIOD_S * n / count < seconds
    )
    tasks: set[asyncio.Task[None]] = set()
    started = time.perf_counter()
    progress(f"{count} active tables, a move each a minute, for {seconds:g} s ({len(schedule)} moves)")

    async def guarded(number: int) -> None:
        server = servers[number % len(servers)]
        try:
            await _move_once(server.ws_url, number, mover, left, active, rng)
        except Exception as failure:
            active.error(type(failure).__name__)

    for at, number in schedule:
        wait = started + at - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        task = asyncio.create_task(guarded(number))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    await asyncio.sleep(max(0.0, started + seconds - time.perf_counter()))  # the window is the whole ``seconds``
    window = time.perf_counter() - started
    if tasks:
        await asyncio.wait(tasks, timeout=30)
    return active, window


def push_latencies(active: Active, arrivals: list[tuple[str, float]]) -> tuple[list[float], int]:
    """For each push that arrived, the time since the bench saw the turn pass to its player (the latest such
    moment before it came); and the turns passed that got no push."""
    latencies: list[float] = []
    pending = {player: sorted(times) for player, times in active.turn_passed.items()}
    for path, at in sorted(arrivals, key=lambda item: item[1]):
        player = path.rsplit("/", 1)[-1]
        times = pending.get(player)
        if not times:
            continue
        earlier = [t for t in times if t <= at]
        if not earlier:
            continue
        latencies.append(at - earlier[-1])
        times.remove(earlier[-1])
    return latencies, sum(len(t) for t in pending.values())


# -- deadlines --------------------------------------------------------------------------------------------------


def measure_deadlines(
    database_url: str, seeded: Seeded, numbers: list[int], timeout: float, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Age ``numbers``' turns past their deadline and poll until each has its timeout's move stored."""
    from luz.server.db import make_engine

    ids = [table_id(n) for n in numbers]
    engine = make_engine(database_url)
    try:
        before = action_counts(engine, ids)
        progress(f"{len(ids)} deadlines moved into the past; waiting for their timeouts")
        aged = time.time()
        age_tables(database_url, seeded, numbers)
        fired: dict[str, float] = {}
        limit = aged + timeout
        while len(fired) < len(ids) and time.time() < limit:
            time.sleep(0.25)
            counts = action_counts(engine, [i for i in ids if i not in fired])
            at = time.time()
            for key, count in counts.items():
                if count > before.get(key, 0):
                    fired[key] = at
    finally:
        engine.dispose()
    delays = sorted(at - aged for at in fired.values())
    span = delays[-1] if delays else 0.0
    return {
        "deadlines_aged": len(ids),
        "deadlines_fired": len(fired),
        "deadlines_fired_per_s": round(len(fired) / span, 1) if span else None,
        "deadline_to_timeout_move_stored_ms": percentiles(delays),
        "deadlines_all_fired_after_s": round(span, 2) if len(fired) == len(ids) else None,
    }


# -- the run ----------------------------------------------------------------------------------------------------


def memory_per_loaded_table(before: list[int | None], after: list[int | None], loaded: int) -> float | None:
    """The servers' resident memory grown while ``loaded`` tables were brought into memory (the deadlines' tables,
    each loaded to play its timeout), per table (the moves' work and the allocator's slack count too; a table that
    leaves memory meanwhile, idle, gives its memory to the next: let ``idle_seconds`` outlast the deadlines' phase);
    ``None`` if unknown or nothing was loaded."""
    if not loaded or None in before or None in after:
        return None
    grown = sum(a for a in after if a is not None) - sum(b for b in before if b is not None)
    return max(0.0, grown / loaded)


TRACED_TABLES = 2000
"""Tables loaded in the bench's own process to trace their memory (``traced_table_memory``)."""


def traced_table_memory(database_url: str, numbers: list[int]) -> float:
    """Bytes Python allocates per table brought into memory by ``Registry.get`` (tracemalloc: the ``Table``, its
    state, rebuilt game and armed timers, what each held table costs; neither the allocator's slack nor the
    process's fixed cost), over the seeded tables ``numbers``, loaded one after another in this process."""
    import gc
    import tracemalloc

    from luz.server import Settings
    from luz.server.db import make_engine
    from luz.server.store import Store
    from luz.server.tables import Registry
    from luz.server.tables.broker import MemoryBroker

    async def load() -> float:
        engine = make_engine(database_url)
        registry = Registry(Store(engine), MemoryBroker(), None, Settings(database_url=database_url, bot_workers=0))
        try:
            await registry.get(table_id(numbers[0]))  # the first load's imports and caches
            gc.collect()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                for number in numbers[1:]:
                    await registry.get(table_id(number))
                gc.collect()
                return (tracemalloc.get_traced_memory()[0] - before) / (len(numbers) - 1)
            finally:
                tracemalloc.stop()
        finally:
            await registry.close()
            engine.dispose()

    return asyncio.run(load())


def rss_bytes(pid: int) -> int | None:
    """VmRSS of process ``pid`` (Linux ``/proc``), in bytes."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """``os.environ`` with ``values`` (the server processes inherit it), as before afterwards."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def bench_turn_based(
    tables: int = 100_000,
    active: int = 1000,
    seconds: float = 60.0,
    deadlines: int = 2000,
    processes: int = 1,
    database_url: str | None = None,
    redis_url: str | None = None,
    idle_seconds: float = 5.0,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the turn-based load and return the report (see the module's docstring)."""
    say = progress or (lambda _: None)
    if processes > 1 and not (database_url and database_url.startswith("postgresql") and redis_url):
        raise ValueError("several processes need a shared PostgreSQL database and Redis (--database-url, --redis-url)")
    active = min(active, tables)
    deadlines = max(0, min(deadlines, tables - active))
    raise_open_files(4 * active + 1024)
    folder = Path(tempfile.mkdtemp(prefix="luz-bench-turn-based-"))
    url = database_url or f"sqlite:///{folder / 'luz.sqlite3'}"
    servers: list[ServerProcess] = []
    try:
        with PushSink() as sink:
            say(f"seeding {tables:,} turn-based tables ({url.split('://')[0]})")
            seeded = seed_tables(url, tables, seed=seed, subscribed=active, push_origin=sink.origin, progress=say)
            traced = min(TRACED_TABLES, tables - active - deadlines)  # tables the run never touches
            traced_per_table = traced_table_memory(url, list(range(tables - traced, tables))) if traced > 1 else None
            env = {
                "LUZ_IDLE_TABLE_SECONDS": f"{idle_seconds:g}",
                "LUZ_PUSH_ALLOW_LOCAL": "1",
                "LUZ_MAX_TURN_BASED_GAMES": "1000000",
            }
            startups: list[float] = []
            with _environment(env):
                for number in range(processes):
                    began = time.perf_counter()
                    server = ServerProcess.start(url, redis_url, folder / f"server-{number}.log", bot_workers=0)
                    servers.append(server)
                    server.wait_healthy(120)
                    startups.append(time.perf_counter() - began)
            say(f"server(s) healthy after {', '.join(f'{s:.2f}' for s in startups)} s")
            rss_started = [rss_bytes(s.process.pid) for s in servers]
            cpu_before = [s.cpu_seconds() for s in servers]
            moved, window = asyncio.run(_drive_active(servers, active, seconds, seed, say))
            cpu_after = [s.cpu_seconds() for s in servers]
            time.sleep(5)  # the notifier's last scans (every 2 s)
            pushes, unpushed = push_latencies(moved, sink.taken())
            rss_before_deadlines = [rss_bytes(s.process.pid) for s in servers]
            fired = measure_deadlines(url, seeded, list(range(active, active + deadlines)), 120, say)
            rss_end = [rss_bytes(s.process.pid) for s in servers]
            crashed = [s.log_tail(10) for s in servers if s.process.poll() is not None]
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    trouble = [line for s in servers for line in s.trouble()]
    mib = 1024 * 1024
    per_table = memory_per_loaded_table(rss_before_deadlines, rss_end, int(fired["deadlines_fired"]))
    return {
        "benchmark": "server-turn-based",
        "tables": tables,
        "active_tables": active,
        "window_s": round(window, 2),
        "database": url.split("://")[0].split("+")[0],
        "redis": bool(redis_url),
        "processes": processes,
        "idle_table_seconds": idle_seconds,
        "seeding_s": round(seeded.seconds, 2),
        "startup_to_healthz_s": [round(s, 2) for s in startups],
        "rss_after_start_mib": [None if r is None else round(r / mib, 1) for r in rss_started],
        "rss_after_run_mib": [None if r is None else round(r / mib, 1) for r in rss_end],
        "stored_tables": tables,
        "rss_growth_per_table_loaded_kib": None if per_table is None else round(per_table / 1024, 1),
        "loaded_tables_per_gib": int(2**30 // per_table) if per_table else None,
        "traced_kib_per_loaded_table": None if traced_per_table is None else round(traced_per_table / 1024, 1),
        "loaded_tables_per_gib_traced": int(2**30 // traced_per_table) if traced_per_table else None,
        "server_cpu_percent_in_window": [
            None if a is None or b is None else round(100 * (a - b) / window, 1)
            for b, a in zip(cpu_before, cpu_after, strict=True)
        ],
        "machine_cores": os.cpu_count(),
        "moves_acked": moved.moves,
        "moves_acked_per_s": round(moved.moves / window, 1) if window else 0.0,
        "cold_moves_measured": len(moved.connect_to_ack),
        "cold_connect_to_ack_ms": percentiles(moved.connect_to_ack),
        "cold_connect_to_state_ms": percentiles(moved.connect_to_state),
        "cold_act_to_ack_ms": percentiles(moved.act_to_ack),
        "idle_before_move_min_s": round(min(moved.idle_before), 1) if moved.idle_before else None,
        "wrong_seat_reconnects": moved.wrong_seat,
        "move_errors": dict(sorted(moved.errors.items())),
        "turns_passed_to_subscribed_players": sum(len(t) for t in moved.turn_passed.values()),
        "pushes_received": len(sink.arrivals),
        "turn_passed_to_push_received_ms": percentiles(pushes),
        "turns_passed_without_push": unpushed,
        **fired,
        "server_errors": len(trouble),
        "server_error_lines": trouble[:20],
        "crashed_servers": crashed,
    }
