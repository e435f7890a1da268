"""``luz bench daily`` runs end to end (figures are not checked: they belong to docs/BENCHMARKS.md): the day's
results it reads are those of the attempts it stored, and a bad option is one line and exit 2."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from luz.cli import app


def test_the_daily_bench_reads_the_results_it_stored() -> None:
    done = CliRunner().invoke(app, ["bench", "daily", "--results", "2000", "--reads", "5", "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["database"] == "sqlite" and report["results"] == 2000
    assert report["players_ranked"] == 1800  # one attempt in ten is a guest's, never ranked
    assert 0 < report["your_percentile"] <= 100
    for figures in ("leaderboard_ms", "reference_ms"):
        assert report[figures]["count"] == 5 and report[figures]["p99"] > 0
    assert report["ratio_p99_leaderboard_over_reference"] > 0


def test_a_bad_option_is_refused() -> None:
    done = CliRunner().invoke(app, ["bench", "daily", "--results", "0"])
    assert done.exit_code == 2 and "--results" in done.output
