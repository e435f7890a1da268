"""``luz bench daily-play`` runs end to end on a few players (figures are not checked: they belong to
docs/BENCHMARKS.md): both phases play, every action sent is acknowledged, no error; a bad option is one line and
exit 2."""

from __future__ import annotations

import json
import subprocess

import pytest
from typer.testing import CliRunner

from luz.bench.server import luz_command
from luz.cli import app

pytestmark = pytest.mark.slow


def check_phase(phase: dict, seconds: float) -> None:
    assert phase["errors"] == 0, phase["error_kinds"]
    assert phase["crashed"] is None and phase["server_errors"] == 0, phase["server_error_lines"]
    assert phase["seconds"] >= seconds
    assert phase["actions"] > 0 and phase["table_actions"] > phase["actions"]  # the bots played between
    ack = phase["ack_ms"]
    assert ack["count"] == phase["actions"]
    assert 0 < ack["p50"] <= ack["p95"] <= ack["p99"] <= ack["max"]
    assert phase["server_cpu_ms_per_action"] > 0


def test_a_few_players_play_the_daily_deal_and_ordinary_tables() -> None:
    options = ["--players", "5", "--seconds", "6", "--think-min", "0.2", "--think-max", "0.5", "--json"]
    done = subprocess.run(
        [*luz_command(), "bench", "daily-play", *options], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)  # one JSON object, nothing else on stdout
    assert report["benchmark"] == "daily-play" and report["players"] == 5 and report["database"] == "sqlite"
    assert report["think_s"] == [0.2, 0.5]
    check_phase(report, 6)
    check_phase(report["reference"], 6)
    assert report["ratio_p99_daily_over_reference"] > 0 and report["ratio_cpu_daily_over_reference"] > 0


def test_a_bad_option_is_refused() -> None:
    done = CliRunner().invoke(app, ["bench", "daily-play", "--think-min", "3", "--think-max", "2"])
    assert done.exit_code == 2 and "--think-max" in done.output
