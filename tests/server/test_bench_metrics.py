"""``luz bench metrics`` runs end to end against a real server (figures are not checked: they belong to
docs/BENCHMARKS.md), and the server it scrapes holds the tables it made."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from luz.cli import app

pytestmark = pytest.mark.slow


def test_the_metrics_bench_measures_every_figure() -> None:
    done = CliRunner().invoke(app, ["bench", "metrics", "--tables", "3", "--scrapes", "5", "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["live_tables_reported"] == 3
    for path in ("metrics", "healthz"):
        assert report[path]["ms"]["count"] == 5 and report[path]["ms"]["p50"] > 0, path
        assert report[path]["bytes"] > 0
    assert report["ratio_p50_metrics_over_healthz"] > 0
