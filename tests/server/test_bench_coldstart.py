"""``luz bench coldstart``: a first use's compile time, each in a fresh process with numba's cache empty, then warm.
Slow (the batched environment's kernels compiled in processes of their own): marked ``slow``, with the server's."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from luz.cli import app

pytestmark = pytest.mark.slow


def test_bench_coldstart_times_the_batched_environment_cold_then_warm() -> None:
    result = CliRunner().invoke(app, ["bench", "coldstart", "--parts", "vector", "--games", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert list(report["parts"]) == ["vector"]
    figures = report["parts"]["vector"]
    cold, warm = figures["cold"]["reset_and_step"], figures["warm"]["reset_and_step"]
    assert cold > 0 and warm > 0
    assert figures["ratio"]["reset_and_step"] == pytest.approx(cold / warm)


def test_bench_coldstart_refuses_an_unknown_part_in_one_line() -> None:
    result = CliRunner().invoke(app, ["bench", "coldstart", "--parts", "vector,nope"])
    assert result.exit_code == 2
    assert "parts are among play, vector, server" in result.output
