"""Levels against the field: several bots, each against the same members on the same deal sets, on one scale."""

from __future__ import annotations

import dataclasses
import json
import sys
import types
from pathlib import Path

import pytest
from typer.testing import CliRunner

from luz.arena import GameRecord
from luz.arena import field as field_module
from luz.arena.field import FIELDS, FieldConfig, Member, play_tables, run_field, summarise_field
from luz.arena.levels import LevelsConfig, levels_markdown, pooled, run_levels, summarise_levels
from luz.cli import app, main

MEMBERS = (Member("over-bidder", "heuristic:bias=1", False), Member("noisy", "heuristic:noise=0.2", True))
SMALL = LevelsConfig(("random", "heuristic"), MEMBERS, "korokorodou-2014", 3, deal_sets=3, seed=7, field="test")

Games = list[dict[int, list[GameRecord]]]


@pytest.fixture(scope="module")
def games() -> Games:
    return run_levels(SMALL, workers=1)


def test_every_bot_meets_the_same_members_on_the_same_deal_sets(games: Games) -> None:
    for b, bot in enumerate(SMALL.bots):
        for m, member in enumerate(MEMBERS):
            records = games[b][m]
            assert [(r.deal_set, r.rotation) for r in records] == [(d, r) for d in range(3) for r in range(3)]
            for record in records:
                assert sorted(record.seats) == sorted([bot, member.spec, member.spec])
                assert record.seats[record.rotation] == bot
    for m in range(len(MEMBERS)):  # the same deals: the same first player of each deal, whoever plays them
        starts = [[[deal["first_player"] for deal in r.deals] for r in games[b][m]] for b in range(2)]
        assert starts[0] == starts[1]
    # each bot's games are those of its own gauntlet against those members: interleaving changes nothing
    alone = FieldConfig("heuristic", MEMBERS, "korokorodou-2014", 3, deal_sets=3, seed=7)
    assert run_field(alone, workers=1) == games[1]
    summary = summarise_levels(SMALL, games)
    assert [b["overall"] for b in summary["bots"]] == [
        summarise_field(gauntlet, games[b])["overall"] for b, gauntlet in enumerate(SMALL.gauntlets())
    ]
    kinds = [m.kind for m in MEMBERS]
    assert [[m["kind"] for m in b["members"]] for b in summary["bots"]] == [kinds, kinds]
    assert [m["spec"] for m in summary["config"]["members"]] == [m.spec for m in MEMBERS]
    assert summary["config"]["deal_sets"] == 3 and summary["config"]["games"] == 2 * 2 * 3 * 3


def test_the_games_are_rated_in_one_pool_interleaved_by_deal_set_member_rotation_bot(games: Games) -> None:
    order = [
        (
            r.deal_set,
            [m.spec for m in MEMBERS].index(r.seats[r.rotation - 1]),
            r.rotation,
            SMALL.bots.index(r.seats[r.rotation]),
        )
        for r in pooled(SMALL, games)
    ]
    assert order == SMALL.tasks() == sorted(order)
    assert {t[3] for t in order[:2]} == {0, 1}  # the bots alternate from the first games on
    summary = summarise_levels(SMALL, games)
    rated = {b["bot"]: b["openskill"] for b in summary["bots"]} | {
        m["spec"]: m["openskill"] for m in summary["members"]
    }
    assert set(rated) == {"random", "heuristic", *(m.spec for m in MEMBERS)}
    for figure in rated.values():
        assert figure["ordinal"] == pytest.approx(figure["mu"] - 3 * figure["sigma"])
    # the gap is huge: the heuristic far above random, random below every heuristic member
    assert rated["heuristic"]["ordinal"] > rated["random"]["ordinal"] + 10
    assert all(rated[m.spec]["mu"] > rated["random"]["mu"] for m in MEMBERS)
    random_margin, heuristic_margin = (b["overall"]["mean"] for b in summary["bots"])
    assert random_margin < -50 and heuristic_margin > random_margin + 100
    [pair] = summary["pairs"]  # paired by deal set: the mean difference is the difference of the means
    assert (pair["bot"], pair["against"], pair["significant"]) == ("heuristic", "random", True)
    assert pair["mean"] == pytest.approx(heuristic_margin - random_margin)
    assert pair["ci95"][0] <= pair["mean"] <= pair["ci95"][1]
    report = levels_markdown(summary)
    assert "| heuristic | " in report and "| noisy | heuristic:noise=0.2 | yes |" in report
    assert "| heuristic | random | " in report


def test_the_same_seed_gives_the_same_ratings(games: Games) -> None:
    summary = summarise_levels(SMALL, games)
    again = summarise_levels(SMALL, run_levels(SMALL, workers=1))
    assert again == summary
    other = dataclasses.replace(SMALL, seed=8)
    assert summarise_levels(other, run_levels(other, workers=1))["bots"] != summary["bots"]


def test_a_time_limit_keeps_the_deal_sets_played_in_full_by_every_bot_and_member(
    games: Games, monkeypatch: pytest.MonkeyPatch
) -> None:
    played = 0
    per_set = len(SMALL.tasks()) // SMALL.deal_sets

    def count(_: GameRecord) -> None:
        nonlocal played
        played += 1

    # the clock passes the limit in the middle of the second deal set: that set is finished, no third one starts
    clock = types.SimpleNamespace(monotonic=lambda: 0.0 if played < per_set + 1 else 1e9)
    monkeypatch.setattr(field_module, "time", clock)
    cut = run_levels(SMALL, workers=1, progress=count, minutes=1)
    assert played == 2 * per_set
    assert cut == [{m: rs[: 2 * SMALL.players] for m, rs in by_member.items()} for by_member in games]
    assert summarise_levels(SMALL, cut)["config"]["deal_sets"] == 2
    # a table that misses one game of a deal set drops that set for every table
    tables = [table for gauntlet in SMALL.gauntlets() for table in gauntlet.tables()]
    tasks = [(t, d, r) for d in range(2) for t in range(len(tables)) for r in range(3) if (t, d, r) != (3, 1, 2)]
    kept = play_tables(tables, tasks, workers=1)
    assert all({r.deal_set for r in records} == {0} and len(records) == 3 for records in kept.values())


def test_the_levels_command(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["arena", "--bots", "random,heuristic", "--field", "fast", "--players", "3", "--edition", "korokorodou-2014"]
    result = runner.invoke(app, [*args, "--games", "1", "--workers", "1", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    members = [m.spec for m in FIELDS["fast"] if m.spec not in ("random", "heuristic")]
    assert [m["spec"] for m in summary["config"]["members"]] == members
    assert [b["bot"] for b in summary["bots"]] == ["random", "heuristic"]
    assert all(len(b["members"]) == len(members) for b in summary["bots"])
    saved = json.loads((tmp_path / "levels.json").read_text())
    assert len(saved["games"]["heuristic"][FIELDS["fast"][1].kind]) == 3  # one deal set, 3 rotations
    assert (tmp_path / "levels.md").read_text() == levels_markdown(summary)


@pytest.mark.parametrize(
    ("bots", "field", "message"),
    [
        ("random,nope", "quick", "unknown bot 'nope'"),
        ("random,heuristic", "nope", "fields are: quick, full, fast"),
        ("random,random", "quick", "the bot 'random' is given twice"),
        (",", "quick", "give the bot or bots under test"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    bots: str, field: str, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    result = CliRunner().invoke(app, ["arena", "--bots", bots, "--field", field])
    assert result.exit_code == 2 and message in " ".join(result.output.replace("│", " ").split())
    monkeypatch.setattr(sys, "argv", ["luz", "arena", "--bots", bots, "--field", field])
    with pytest.raises(SystemExit) as exited:
        main()  # the `luz` command: the error as one line on stderr, no box, no traceback
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert len(error.splitlines()) == 1 and message in error and "arena: Invalid value" in error
