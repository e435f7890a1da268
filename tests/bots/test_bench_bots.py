"""``luz bench bots``: the fast core's playouts against the engine's, and a bot's decision times."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from luz.cli import app


def test_bench_bots_reports_rates_and_decision_times() -> None:
    result = CliRunner().invoke(
        app, ["bench", "bots", "--seconds", "1", "--decisions", "4", "--bot", "strong:iters=4", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["fast_core_playouts_per_s"] > 0 and report["engine_playouts_per_s"] > 0
    assert report["ratio"] == report["fast_core_playouts_per_s"] / report["engine_playouts_per_s"]
    times = report["decisions"]
    assert times["bot"] == "strong:iters=4" and times["count"] == 4
    assert 0 < times["median_ms"] <= times["p95_ms"] <= times["max_ms"]
    plain = CliRunner().invoke(app, ["bench", "bots", "--seconds", "1", "--decisions", "2", "--bot", "heuristic"])
    assert plain.exit_code == 0 and "ratio fast core / engine" in plain.output
