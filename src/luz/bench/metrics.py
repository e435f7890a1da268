"""``luz bench metrics``: what a Prometheus scrape of ``GET /metrics`` costs a real ``luz serve`` holding a number of
live tables (the answer's time and size, and the server's CPU time per scrape), against ``GET /healthz`` in the same
run as the reference."""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from luz.bench.server import ServerProcess, free_port, luz_command, percentiles

TABLE = {"players": 3, "grace_seconds": 600, "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]}
"""A table whose game starts once its two humans join and then waits for them (nobody connects): live, idle."""


def start_server(folder: Path, token: str) -> ServerProcess:
    """``luz serve`` on SQLite in ``folder``, its metrics behind ``token``, without the per-client limits (every
    request of the bench comes from one address)."""
    port = free_port()
    command = [*luz_command(), "serve", "--port", str(port), "--bot-workers", "0"]
    command += ["--database-url", f"sqlite:///{folder}/luz.sqlite3"]
    env = {
        "LUZ_METRICS_TOKEN": token,
        "LUZ_TABLES_PER_MINUTE": "",
        "LUZ_GUESTS_PER_MINUTE": "",
        "LUZ_SEATS_PER_ADDRESS": "0",
        "LUZ_WAITING_TABLES_PER_CLIENT": "1000000",
        "LUZ_CONNECTIONS_PER_SECOND": "100000/second",
    }
    log_path = folder / "server.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env={**os.environ, **env}
    )
    server = ServerProcess(port, process, log_path, log)
    server.wait_healthy()
    return server


def fill(http: Any, tables: int) -> None:
    """Create ``tables`` tables and seat their humans (a guest each): each game starts and waits for them."""
    for _ in range(tables):
        created = http.post("/api/tables", json=TABLE)
        created.raise_for_status()
        table_id = created.json()["table"]["id"]
        for invite in created.json()["invites"]:
            session = http.post("/api/me/guest").json()["session"]
            joined = http.post(
                f"/api/tables/{table_id}/seats/{invite['seat']}/join",
                json={"name": f"p{invite['seat']}", "token": invite["token"]},
                headers={"X-Luz-Session": session},
            )
            joined.raise_for_status()


def timed_requests(server: ServerProcess, http: Any, path: str, count: int, headers: dict[str, str]) -> dict[str, Any]:
    """``count`` GETs of ``path`` one after the other: their times, the answer's size, the server's CPU per GET."""
    times: list[float] = []
    size = 0
    cpu_before = server.cpu_seconds()
    for _ in range(count):
        started = time.perf_counter()
        answer = http.get(path, headers=headers)
        times.append(time.perf_counter() - started)
        answer.raise_for_status()
        size = len(answer.content)
    cpu_after = server.cpu_seconds()
    cpu_ms = None if cpu_before is None or cpu_after is None else round((cpu_after - cpu_before) * 1000 / count, 3)
    return {"ms": percentiles(times), "bytes": size, "server_cpu_ms_per_request": cpu_ms}


def bench_metrics(tables: int, scrapes: int, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Figures of ``scrapes`` scrapes of a server holding ``tables`` live tables, and as many ``/healthz``."""
    import httpx

    token = secrets.token_hex(32)
    with tempfile.TemporaryDirectory(prefix="luz-bench-metrics-") as folder:
        server = start_server(Path(folder), token)
        try:
            with httpx.Client(base_url=server.url, timeout=30) as http:
                if progress:
                    progress(f"creating {tables} tables")
                fill(http, tables)
                if progress:
                    progress(f"{scrapes} scrapes of /metrics, then {scrapes} GET /healthz")
                auth = {"Authorization": f"Bearer {token}"}
                metrics = timed_requests(server, http, "/metrics", scrapes, auth)
                health = timed_requests(server, http, "/healthz", scrapes, {})
                exposition = http.get("/metrics", headers=auth).text
        finally:
            server.stop()
    live = next(float(line.split()[-1]) for line in exposition.splitlines() if line.startswith("luz_live_tables "))
    p50, reference = metrics["ms"]["p50"], health["ms"]["p50"]
    return {
        "tables": tables,
        "live_tables_reported": live,
        "metrics": metrics,
        "healthz": health,
        "ratio_p50_metrics_over_healthz": round(p50 / reference, 2) if p50 and reference else None,
    }
