"""A rolling restart of two ``luz serve`` processes under load (``luz bench server --rolling-restart``): each process
in turn stopped with SIGTERM and replaced while the tables play; the clients reconnect to a live process and
resync. No acknowledged action may be lost, and every table plays on after the restarts."""

from __future__ import annotations

import json
import signal
import subprocess

from luz.bench.server import luz_command


def test_a_rolling_restart_of_two_processes_loses_no_acknowledged_action(postgres_url: str, redis_url: str) -> None:
    command = [*luz_command(), "bench", "server", "--processes", "2", "--database-url", postgres_url]
    command += ["--redis-url", redis_url, "--tables", "4", "--seconds", "6", "--rolling-restart", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["errors"] == 0, report["error_kinds"]
    assert report["lost_actions"] == 0
    assert report["crashed_servers"] == [] and report["server_errors"] == 0, report["server_error_lines"]
    assert report["actions"] > 0
    rolling = report["rolling_restart"]
    assert [step["process"] for step in rolling["steps"]] == [0, 1]
    for step in rolling["steps"]:
        assert step["exit_code"] in (0, -signal.SIGTERM), step  # stopped within its grace, not killed
    # Every client was on a process that stopped at least once (the second one's, twice), and came back.
    assert rolling["reconnections"] >= report["clients"]
    assert rolling["disconnected_ms"]["count"] == rolling["reconnections"]
    # Every table acknowledged actions after the last replacement was up: none was left stuck.
    assert rolling["tables_acknowledged_after"] == report["tables"]


def test_a_rolling_restart_needs_two_processes() -> None:
    command = [*luz_command(), "bench", "server", "--rolling-restart"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "--rolling-restart needs --processes 2 or more" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
