"""Cold start: what the first use of the compiled kernels costs, with numba's cache empty, against the same use warm.

Each figure is a fresh Python process, first with ``NUMBA_CACHE_DIR`` an empty folder of its own (every kernel the
use needs compiled), then again with that folder as the first run left it (the kernels loaded from it):

- ``play``: a strong bot's first decision, imports included (what ``luz play --bots strong`` waits for first);
- ``vector``: :class:`~luz.research.vector_env.LuzVectorEnv` (heuristic opponents) made, reset and stepped once;
- ``server``: ``luz serve`` (SQLite, one bot process) until ``/healthz`` answers, until a table of quick bots
  (``heuristic``, created then) has its first move, and until ``/healthz`` says the bots are ready.

A figure is a wall-clock time from the process's start: on a shared, loaded machine it grows with the load, the
compilation most (one core's work, no waiting), hence the ratio cold / warm of the same run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

PARTS = ("play", "vector", "server")
PLAY = """
import random
from luz.bots import make_bot
from luz.engine import Game, view
game = Game.new("iello-2024", players=4, seed=0)
make_bot("strong").choose(view(game, game.current_player), random.Random(0))
"""
VECTOR = """
import sys
import numpy as np
from luz.research.vector_env import LuzVectorEnv
env = LuzVectorEnv(int(sys.argv[1]), opponents="heuristic", seed=0)
observations, _ = env.reset(seed=0)
env.step(np.array([np.flatnonzero(mask)[0] for mask in observations["action_mask"]]))
"""
SERVE = "from luz.cli import main; main()"
POLL = 0.05
"""Seconds between two looks at the server (the figures' resolution)."""


def bench_coldstart(
    parts: tuple[str, ...] = PARTS,
    games: int = 64,
    timeout: float = 1800.0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Seconds to each part's milestones cold and warm, and their ratio cold / warm (``games``: the batched
    environment's; ``timeout``: the most any one process may take)."""
    report: dict[str, Any] = {
        "unit": "seconds from a fresh process's start, numba's cache empty (cold) then filled by that run (warm)",
        "cpus": os.cpu_count(),
        "load_average": _load(),
        "parts": {},
    }
    for part in parts:
        with tempfile.TemporaryDirectory(prefix="luz-coldstart-") as folder:
            cache = Path(folder) / "numba"
            figures = {}
            for state in ("cold", "warm"):
                if progress is not None:
                    progress(f"{part}, {state}")
                figures[state] = _measure(part, cache, Path(folder), games, timeout)
        report["parts"][part] = {
            "cold": figures["cold"],
            "warm": figures["warm"],
            "ratio": {key: figures["cold"][key] / max(figures["warm"][key], 1e-9) for key in figures["cold"]},
        }
    report["load_average_after"] = _load()
    return report


def _measure(part: str, cache: Path, folder: Path, games: int, timeout: float) -> dict[str, float]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("LUZ_")}
    env["NUMBA_CACHE_DIR"] = str(cache)
    if part == "play":
        return {"first_decision": _run([sys.executable, "-c", PLAY], env, timeout)}
    if part == "vector":
        return {"reset_and_step": _run([sys.executable, "-c", VECTOR, str(games)], env, timeout)}
    return _serve(env, folder, timeout)


def _run(command: list[str], env: dict[str, str], timeout: float) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, timeout=timeout, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _serve(env: dict[str, str], folder: Path, timeout: float) -> dict[str, float]:
    """``luz serve``'s milestones: ``/healthz`` answering, a quick-bot table's first move, the bots ready."""
    port = _free_port()
    database = folder / "luz.db"
    env = {**env, "LUZ_BOT_PACE": "0"}  # the quick bots' moves released at once: the server's time, not the pace
    command = [sys.executable, "-c", SERVE, "serve", "--port", str(port), "--database-url", f"sqlite:///{database}"]
    command += ["--bot-workers", "1"]
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    with _server(command, env) as server, httpx.Client(base_url=base, timeout=10) as http:
        deadline = started + timeout

        def until(check: Callable[[], bool]) -> float:
            while not check():
                if server.poll() is not None:
                    raise RuntimeError(f"luz serve exited ({server.returncode})")
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"luz serve: not there after {timeout:g} s")
                time.sleep(POLL)
            return time.perf_counter() - started

        healthz = until(lambda: _answer(http, "/healthz") is not None)
        created = http.post("/api/tables", json={"players": 3, "seats": [{"kind": "bot", "bot": "heuristic"}] * 3})
        created.raise_for_status()
        table, version = created.json()["table"], created.json()["table"]["version"]  # a move: a new version
        first_move = until(lambda: (_answer(http, f"/api/tables/{table['id']}") or {}).get("version", 0) > version)
        bots_ready = until(lambda: (_answer(http, "/healthz") or {}).get("bots") == "ready")
    return {"healthz": healthz, "quick_bot_first_move": first_move, "bots_ready": bots_ready}


@contextlib.contextmanager
def _server(command: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` in a session of its own (its bot processes with it), stopped and gone afterwards."""
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _answer(http: httpx.Client, path: str) -> dict[str, Any] | None:
    """``path``'s JSON if the server answers it with 200, else ``None``."""
    try:
        response = http.get(path)
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    answer: dict[str, Any] = response.json()
    return answer


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _load() -> float | None:
    with contextlib.suppress(OSError, AttributeError):
        return os.getloadavg()[0]
    return None
