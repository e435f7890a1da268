"""``luz bench adapters``: figures for every adapter and ISMCTS, as JSON and as a table."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from luz.cli import app

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'luz-game[research]')")
pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install 'luz-game[research]')")

runner = CliRunner()


def test_bench_adapters_json() -> None:
    result = runner.invoke(app, ["bench", "adapters", "--seconds", "1", "--players", "3", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["table"] == "iello-2024/3"
    names = {"engine", "openspiel", "openspiel_with_infostate_tensors", "pettingzoo", "gymnasium"}
    assert set(report["games_per_s"]) == names == set(report["ratio_to_engine"])
    assert all(rate > 0 for rate in report["games_per_s"].values())
    assert report["ratio_to_engine"]["engine"] == 1
    assert all(rate > 0 for rate in report["ismcts"]["simulations_per_s"].values())


def test_bench_adapters_table_and_bad_table() -> None:
    result = runner.invoke(app, ["bench", "adapters", "--seconds", "1", "--edition", "standard-deck", "--players", "3"])
    assert result.exit_code == 0, result.output
    assert "gymnasium" in result.stdout and "ISMCTS" in result.stdout
    refused = runner.invoke(app, ["bench", "adapters", "--edition", "standard-deck", "--players", "5"])
    assert refused.exit_code == 2 and "played by 3, 4 players" in refused.output


def test_bench_vector_json_and_table() -> None:
    result = runner.invoke(app, ["bench", "vector", "--seconds", "2", "--players", "3", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["table"] == "iello-2024/3"
    names = {"engine", "engine_with_tensors", "openspiel_with_infostate_tensors", "pettingzoo"}
    batches = {f"batch_{n}" for n in (1, 64, 1024, 4096)} | {"batch_4096_all_cores"}
    # The JAX row is there exactly when luz-game[jax] is installed (else the report says what is missing).
    jax_rows = {f"jax_4096_jit_vmap_{report['jax']['platform']}"} if "jax" in report else set()
    assert ("jax" in report) != ("missing_jax" in report)
    assert set(report["ratio_to_engine"]) == names | batches | jax_rows
    # A learning seat's steps of the two VectorEnvs: another unit, measured beside the rest but given no ratio.
    agents = (
        {
            f"agent_steps_jax_vector_env_4096_random_opponents_in_jax_{report['jax_vector_env']['platform']}",
            "agent_steps_numba_vector_env_4096_random_opponents",
        }
        if "jax_vector_env" in report
        else set()
    )
    assert ("jax" in report) == bool(agents)
    assert set(report["steps_per_s"]) == names | batches | jax_rows | agents
    assert all(rate > 0 for rate in report["steps_per_s"].values())
    assert report["ratio_to_pettingzoo"]["pettingzoo"] == 1
    assert set(report["references"]) == names
    shown = runner.invoke(app, ["bench", "vector", "--seconds", "2", "--edition", "standard-deck", "--players", "3"])
    assert shown.exit_code == 0, shown.output
    assert "batch 4096 all cores" in shown.stdout and "luz_v0" in shown.stdout
    assert "luz's own PettingZoo wrapper" in shown.stdout  # the references named for what they are
    refused = runner.invoke(app, ["bench", "vector", "--edition", "standard-deck", "--players", "5"])
    assert refused.exit_code == 2 and "played by 3, 4 players" in refused.output
