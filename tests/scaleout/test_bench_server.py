"""Smoke tests of ``luz bench server``: it runs, stops by itself, and finds no error and no lost action."""

from __future__ import annotations

import json
import subprocess

from luz.bench.server import luz_command


def run_bench(*options: str) -> dict:
    command = [*luz_command(), "bench", "server", "--tables", "3", "--seconds", "5", "--json", *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict = json.loads(done.stdout)  # one JSON object, nothing else on stdout
    return report


def check(report: dict, processes: int) -> None:
    assert report["benchmark"] == "server"
    assert report["clients"] == 12 and report["processes"] == processes
    assert report["errors"] == 0, report["error_kinds"]
    assert report["lost_actions"] == 0
    assert report["crashed_servers"] == []
    assert report["server_errors"] == 0, report["server_error_lines"]
    assert report["actions"] > 0 and report["actions_per_s"] > 0
    for who in ("self", "others"):
        latency = report["latency_ms"][who]
        assert latency["count"] > 0
        assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"] <= latency["max"]
    server_cpu = sum(v for k, v in report["timings_s"].items() if k.startswith("server") and k.endswith("_cpu_s"))
    assert report["server_cpu_ms_per_action"] > 0
    served = sum(phase["actions"] for phase in report["phases"])  # the server's CPU is measured over every phase
    assert abs(report["server_cpu_ms_per_action"] - 1000 * server_cpu / served) <= 10 / served + 1
    pinned = report["pinned_cores"]
    if pinned:  # the servers' cores and the clients' are apart
        servers = {core for name, cores in pinned.items() if name != "client" for core in cores}
        assert len(pinned) == processes + 1 and servers and not servers & set(pinned["client"])


def test_bench_server_sqlite() -> None:
    report = run_bench()
    check(report, processes=1)
    assert report["database"] == "sqlite" and report["redis"] is False
    floor = report["floor"]  # the same load on a bare server of the same stack, its reference
    assert floor["actions"] > 0 and floor["lost_actions"] == 0 and floor["errors"] == {}
    ratio = report["server_cpu_ms_per_action"] / floor["server_cpu_ms_per_action"]  # of the rounded figures
    assert abs(report["ratio_to_floor"] - ratio) <= 0.01 * ratio + 0.01
    stalls = report["stalls"]
    assert stalls["threshold_ms"] == 100 and 0 <= stalls["own_work_stalls"] <= stalls["stalls"]


def test_bench_server_two_processes(postgres_url: str, redis_url: str) -> None:
    report = run_bench("--processes", "2", "--database-url", postgres_url, "--redis-url", redis_url)
    check(report, processes=2)
    assert report["database"] == "postgresql" and report["redis"] is True
    across = report["broker"]  # each process's messages heard from Redis per action it served
    assert len(across) == 2 and all(p["received"] is not None and p["actions_served"] > 0 for p in across)
    assert report["floor"] is not None


def test_bench_server_attack_measures_with_and_without_the_attacker() -> None:
    report = run_bench("--seconds", "2", "--attack", "tables")
    check(report, processes=1)
    unattacked, attacked = report["phases"]
    assert unattacked["attack"] is None and attacked["attack"] == "tables"
    assert report["latency_ms"] == unattacked["latency_ms"] and report["actions"] == unattacked["actions"]
    for phase in (unattacked, attacked):
        assert phase["actions"] > 0 and phase["actions_per_s"] > 0
        assert phase["latency_ms"]["self"]["count"] > 0
    # The attacker meets luz serve's own limit on table creation (10 a minute per address), the honest tables don't.
    statuses = attacked["attacker"]["statuses"]
    assert statuses["429"] >= 50 and statuses["201"] + statuses["429"] == 60, statuses


def test_bench_server_attack_of_an_unknown_kind_is_one_line() -> None:
    command = [*luz_command(), "bench", "server", "--attack", "sockets"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    kinds = "connections, churn, bots, tutorials, tables, all"
    assert done.stderr.count("\n") == 1 and f"--attack must be one of {kinds}" in done.stderr


def test_bench_server_with_clocks() -> None:
    report = run_bench("--seconds", "3", "--clock", "1+5")
    check(report, processes=1)
    assert report["clock"] == "1+5"


def test_bench_server_refuses_an_unknown_clock() -> None:
    command = [*luz_command(), "bench", "server", "--tables", "1", "--clock", "2+1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "--clock must be one of 1+5, 3+10, 5+15" in done.stderr
    assert "Traceback" not in done.stderr
