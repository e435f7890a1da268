"""``luz eval``: the named benchmark is deterministic, plays every rotation, takes its intervals over deal sets,
loads every kind of agent, refuses bad input in one line, and reproduces the leaderboard's rows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from luz.arena import ArenaConfig, play_game
from luz.arena.stats import interval
from luz.research.benchmark import (
    ALL_TABLES,
    BENCHMARKS,
    Benchmark,
    BenchmarkError,
    BotAgent,
    Member,
    evaluate,
    leaderboard_row,
    load_agent,
    margins,
    pool_fingerprint,
    run,
)

LITE = BENCHMARKS["luz-bench-v1-lite"]
SMALL = LITE.subset(["standard-deck/3", "iello-2024/4"], deal_sets=2)
"""Two tables (3 and 4 players), two deal sets: 14 games against the heuristic."""
MIXED = BENCHMARKS["luz-bench-v1"].subset(["standard-deck/3", "iello-2024/5"], deal_sets=1)
LEADERBOARD = Path(__file__).parents[2] / "docs" / "LEADERBOARD.md"
LUZ = Path(sys.executable).with_name("luz")


def without_compute(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key != "compute"}


def test_the_same_agent_gives_the_same_result_twice_and_in_workers() -> None:
    first = evaluate("random", SMALL)
    assert without_compute(first) == without_compute(evaluate("random", SMALL))
    assert without_compute(first) == without_compute(evaluate("random", SMALL, workers=2))
    assert first["games"] == 2 * (3 + 4) and first["compute"]["cpu_seconds"] >= 0


def test_every_rotation_is_played_with_the_opponents_in_their_order() -> None:
    assert MIXED.pool[3].opponents(5) == ("heuristic", "strong:iters=64", "expert:iters=64:depth=4", "heuristic")
    assert MIXED.pool[3].opponents(3) == ("heuristic", "strong:iters=64")
    cheap = Member("mixed", ("heuristic", "heuristic:bias=1", "random"))  # the mixed member's shape, no search
    bench = Benchmark("mixed", (("iello-2024", 5),), (cheap,), 2, MIXED.seed, "")
    records = run(bench, load_agent("heuristic:noise=0.2"))
    assert [(r.deal_set, r.rotation) for r in records] == [(d, r) for d in range(2) for r in range(5)]
    order = ("heuristic:noise=0.2", "heuristic", "heuristic:bias=1", "random", "heuristic")
    for record in records:
        mine = record.seats.index("heuristic:noise=0.2")
        assert mine == record.rotation
        assert tuple(record.seats[(mine + i) % 5] for i in range(5)) == order


def test_a_bot_agent_plays_the_arenas_games() -> None:
    records = run(SMALL, BotAgent("random"))
    for (t, _, d, r), record in zip(SMALL.tasks(), records, strict=True):
        edition, players = SMALL.tables[t]
        config = ArenaConfig(("random", *["heuristic"] * (players - 1)), edition, players, 2, SMALL.seed)
        assert record == play_game(config, d, r)


def test_the_interval_is_over_deal_sets() -> None:
    result = evaluate("random", SMALL)
    margin = margins(SMALL, run(SMALL, BotAgent("random")))
    assert margin.shape == (2, 1, 2)
    expected = interval(margin.mean(axis=(0, 1)), SMALL.seed)
    assert result["headline"]["mean"] == pytest.approx(expected["mean"], abs=1e-3)
    assert result["headline"]["ci95"] == pytest.approx(expected["ci95"], abs=1e-3)
    one = evaluate("random", SMALL.subset(deal_sets=1))
    assert one["games"] == 7
    assert one["headline"]["ci95"] == [one["headline"]["mean"]] * 2  # many games, one deal set: no spread


def test_a_callable_policy_sees_the_gymnasium_observation() -> None:
    from support import policies

    policies.SIZES.clear()
    bench = LITE.subset(["iello-2024/4"], deal_sets=1)
    recall = evaluate("policy:support.policies:recording", bench)
    assert {1499} == policies.SIZES
    policies.SIZES.clear()
    view = evaluate("policy-view:support.policies:recording", bench)
    assert {939} == policies.SIZES
    assert recall["headline"] == view["headline"]  # the same choices: the first legal id
    assert recall["headline"]["mean"] < 0


def test_a_saved_maskable_ppo_model_plays_its_table(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from luz.research.sb3 import make_vec_env

    env = make_vec_env(2, players=4, seat=None, opponents="random", seed=0, perfect_recall=False)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=16, policy_kwargs={"net_arch": [8]}, seed=0)
    model.save(tmp_path / "tiny.zip")
    bench = LITE.subset(["iello-2024/4"], deal_sets=1)
    result = evaluate(f"sb3:{tmp_path / 'tiny.zip'}", bench)
    assert without_compute(result) == without_compute(evaluate(str(tmp_path / "tiny.zip"), bench)) | {
        "agent": f"sb3:{tmp_path / 'tiny.zip'}"
    }
    assert result["games"] == 4
    with pytest.raises(BenchmarkError, match="takes 939 inputs"):
        evaluate(f"sb3:{tmp_path / 'tiny.zip'}", LITE.subset(["standard-deck/3"], deal_sets=1))


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("nobody", "unknown bot"),
        ("policy:support.policies:not_callable", "no callable"),
        ("policy:no_such_module:f", "cannot import"),
        ("policy:nothing", "policy:MODULE:FUNCTION"),
        ("sb3:/no/such/model.zip", "no model file"),
    ],
)
def test_an_agent_that_cannot_load_is_refused(spec: str, error: str) -> None:
    with pytest.raises(BenchmarkError, match=error):
        load_agent(spec)


def test_an_illegal_choice_is_refused() -> None:
    with pytest.raises(BenchmarkError, match="not one of the legal"):
        evaluate("policy:support.policies:illegal", LITE.subset(["iello-2024/4"], deal_sets=1))


@pytest.mark.parametrize(
    "args",
    [
        ["nobody"],
        ["random", "--benchmark", "luz-bench-v9"],
        ["random", "--tables", "iello-2024/7"],
        ["random", "--tables", "nonsense"],
        ["random", "--deal-sets", "0"],
        ["random", "--workers", "0"],
        ["sb3:/no/such/model.zip"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str]) -> None:
    result = subprocess.run([str(LUZ), "eval", *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr[-2000:]
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and not result.stdout


def leaderboard_rows(benchmark: str) -> dict[str, list[str]]:
    """The cells of each row of ``benchmark``'s table in docs/LEADERBOARD.md, by agent."""
    text = LEADERBOARD.read_text()
    section = text.split(f"## {benchmark}\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[0].split("`")[1]] = cells
    return rows


def figure(cell: str) -> tuple[float, float, float]:
    found = re.fullmatch(r"\**([-+]\d+\.\d) \[([-+]\d+\.\d), ([-+]\d+\.\d)\]\**", cell)
    assert found, cell
    mean, low, high = map(float, found.groups())
    return mean, low, high


@pytest.mark.parametrize("agent", ["random", "selfplay"])
def test_luz_eval_reproduces_its_leaderboard_row(agent: str) -> None:
    """An agent's row of luz-bench-v1-lite (520 games against the heuristic), within its intervals."""
    row = leaderboard_rows("luz-bench-v1-lite")[agent]
    result = evaluate(agent, LITE)
    mine = [cell.strip() for cell in leaderboard_row(result).strip("|").split("|")]
    assert len(mine) == len(row) and row[-2] == str(result["games"])
    figures = [result["headline"], *(table["margin"] for table in result["tables"].values())]
    for cell, found in zip(row[1:-2], figures, strict=True):
        mean, low, high = figure(cell)
        assert low - 0.05 <= found["mean"] <= high + 0.05, (cell, found)
        assert np.isclose(found["mean"], mean, atol=0.051)


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_the_pools_bots_still_play_as_when_the_version_was_frozen(name: str) -> None:
    """A change to the play of heuristic, strong or expert fails here: freeze a new version (luz-bench-v2)."""
    assert pool_fingerprint(BENCHMARKS[name]) == BENCHMARKS[name].fingerprint
    changed = Benchmark("changed", ALL_TABLES, (Member("heuristic", ("heuristic:bias=1",)),), 20, 38, "")
    assert pool_fingerprint(changed) != BENCHMARKS["luz-bench-v1-lite"].fingerprint
