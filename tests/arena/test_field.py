"""The gauntlet: one bot against each member of a field on the same deal sets, margins clustered by deal set."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from luz.arena import ArenaError
from luz.arena.field import FIELDS, FieldConfig, Member, field_members, margins, run_field, summarise_field
from luz.cli import app

SMALL = FieldConfig(
    "heuristic",
    (Member("random", "random", False), Member("over-bidder", "heuristic:bias=1", True)),
    "korokorodou-2014",
    3,
    deal_sets=2,
    seed=5,
)


def test_every_member_meets_the_bot_on_the_same_deals() -> None:
    games = run_field(SMALL, workers=1)
    assert [len(games[m]) for m in range(2)] == [6, 6]
    for m, member in enumerate(SMALL.members):
        for record in games[m]:
            assert sorted(record.seats) == sorted(["heuristic", member.spec, member.spec])
    first_deals = {m: [r.deals[0]["bids"] for r in games[m] if r.rotation == 0] for m in range(2)}
    assert first_deals[0] != first_deals[1]  # different players, so different bids ...
    summary = summarise_field(SMALL, games)
    assert summary["config"]["deal_sets"] == 2 and summary["config"]["games"] == 12
    for m, figure in enumerate(summary["members"]):
        mine = [r.totals[r.seats.index("heuristic")] for r in games[m]]
        theirs = [t for r in games[m] for s, t in zip(r.seats, r.totals, strict=True) if s != "heuristic"]
        assert figure["mean"] == pytest.approx(np.mean(mine) - np.mean(theirs))
        assert figure["ci95"][0] <= figure["mean"] <= figure["ci95"][1]
        assert 0 <= figure["exact_rate"] <= figure["made_rate"] <= 1
    overall = np.mean([margins(SMALL, games[m], 2) for m in range(2)], axis=0)
    assert summary["overall"]["mean"] == pytest.approx(overall.mean())
    assert summary["held_out"]["mean"] == pytest.approx(summary["members"][1]["mean"])  # the one held-out member
    unheld = dataclasses.replace(SMALL, members=tuple(Member(m.kind, m.spec, False) for m in SMALL.members))
    assert summarise_field(unheld, games)["held_out"] is None
    assert summary["members"][0]["mean"] > 50  # the heuristic far ahead of random players


def test_a_field_leaves_out_the_bot_under_test_and_names_its_held_out_members() -> None:
    assert "strong" not in [m.spec for m in field_members("quick", "strong")]
    assert "strong" in [m.spec for m in field_members("quick", "expert")]
    assert {m.kind for m in FIELDS["full"] if m.held_out} >= {"noisy", "strong (today's)"}
    assert FIELDS["full"][-1].spec == "openspiel-ismcts-h"
    assert [m.spec for m in FIELDS["fast"]] == [m.spec for m in FIELDS["quick"] if m.spec != "strong"]
    with pytest.raises(ArenaError, match="fields are: quick, full, fast, outside"):
        field_members("nope", "strong")


def test_the_outside_field_is_players_that_no_bot_of_ours_models() -> None:
    """``outside``: pimc and counter, both held out of tuning, playable at a table (the counter's table here)."""
    assert [(m.spec, m.held_out) for m in FIELDS["outside"]] == [("pimc", True), ("counter", True)]
    counter = FieldConfig("heuristic", FIELDS["outside"][1:], "iello-2024", 3, deal_sets=1, seed=7)
    [records] = run_field(counter, workers=1).values()
    assert len(records) == 3 and all(sorted(r.seats) == ["counter", "counter", "heuristic"] for r in records)
    assert len({tuple(r.totals) for r in records}) > 1, "the counter plays its cards: the rotations differ"


def test_the_field_command(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["arena", "--bots", "random", "--field", "quick", "--players", "3", "--edition", "korokorodou-2014"]
    result = runner.invoke(app, [*args, "--games", "1", "--workers", "1", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert len(summary["members"]) == len(FIELDS["quick"]) - 1  # random is the bot under test
    assert summary["overall"]["mean"] < 0
    report = (tmp_path / "field.md").read_text()
    assert "| **overall** |" in report and "| **overall, held-out kinds only** | | yes |" in report
    assert summary["held_out"]["mean"] < 0
    none = runner.invoke(app, ["arena", "--bots", ",", "--field", "quick"])
    assert none.exit_code == 2 and "give the bot or bots under test" in none.output
    unknown = runner.invoke(app, ["arena", "--bots", "random", "--field", "nope"])
    assert unknown.exit_code == 2 and "fields are: quick, full, fast" in unknown.output
