"""``luz replay``, ``luz view`` and ``luz bench engine`` through the command line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from luz.cli import app
from luz.engine import Game, view
from luz.engine.record import dumps
from support.reference import random_steps

runner = CliRunner()


def _played(edition: str, players: int, seed: int, actions: int | None = None) -> Game:
    game = Game.new(edition, players, seed=seed)
    random_steps(game, random.Random(seed), actions)
    return game


@pytest.fixture
def finished(tmp_path: Path) -> tuple[Game, Path]:
    game = _played("iello-2024", 3, seed=5)
    path = tmp_path / "game.json"
    path.write_text(dumps(game, ["Ana", "Bo", "Cy"]))
    return game, path


def test_replay_prints_the_outcome(finished: tuple[Game, Path]) -> None:
    game, path = finished
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    winner = ["Ana", "Bo", "Cy"][game.outcome().winner]  # type: ignore[union-attr]
    assert f"Winner: {winner}." in result.output


def test_replay_json_matches_the_game(finished: tuple[Game, Path]) -> None:
    game, path = finished
    result = runner.invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["finished"] is True
    assert report["totals"] == list(game.sheet.totals)
    assert report["winner"] == game.outcome().winner  # type: ignore[union-attr]
    assert [d["scores"] for d in report["deals"]] == [list(r.scores) for r in game.results]


def test_replay_of_an_unfinished_game(tmp_path: Path) -> None:
    game = _played("standard-deck", 4, seed=9, actions=50)
    path = tmp_path / "live.json"
    path.write_text(dumps(game))
    result = runner.invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["finished"] is False and report["actions"] == 50 and "winner" not in report


def test_replay_rejects_an_illegal_action_with_its_place(finished: tuple[Game, Path]) -> None:
    _, path = finished
    data = json.loads(path.read_text())
    data["deals"][1]["actions"][0] = "play:0"  # a play during bidding
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2
    assert "deal 2, action 1" in result.stderr and "bid first" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("content", ["{not json", "[]", '{"version": 1, "edition": "chess"}'])
def test_replay_rejects_bad_files(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2 and result.stderr.startswith("luz: ")
    assert result.stdout == ""


def test_replay_of_a_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(tmp_path / "nope.json")])
    assert result.exit_code == 2 and "cannot read" in result.stderr


def test_view_is_the_engine_view_after_k_actions(finished: tuple[Game, Path]) -> None:
    _, path = finished
    result = runner.invoke(app, ["view", str(path), "--seat", "1", "--after", "20"])
    assert result.exit_code == 0
    expected = _played("iello-2024", 3, seed=5, actions=20)
    assert json.loads(result.stdout) == view(expected, 1).to_json()
    own = json.loads(result.stdout)["hands"][1]
    assert all(slot["value"] is None for slot in own if not slot["played"])
    assert [slot["slot"] for slot in own] == list(range(10)), "the JSON counts slots from 0, as the record does"


def test_commands_printing_json_say_it_counts_from_0() -> None:
    """People see slots from 1 (luz play, luz review's text); the JSON keeps the record's 0 and the help says so."""
    for command, said in (
        ("view", "seats and slots count from 0 in it, as in the record; luz play shows slots from 1"),
        ("review", "card slots (play:SLOT) count from 0, as its 'indexing' says; the text counts cards from 1"),
    ):
        result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "100"})
        assert result.exit_code == 0
        assert said in " ".join(result.stdout.replace("│", " ").split()), command


def test_view_for_a_spectator_has_no_unplayed_values(finished: tuple[Game, Path]) -> None:
    _, path = finished
    result = runner.invoke(app, ["view", str(path), "--spectator", "--after", "7"])
    assert result.exit_code == 0
    hands = json.loads(result.stdout)["hands"]
    assert all(slot["value"] is None for hand in hands for slot in hand if not slot["played"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "3"], "--seat must be 0..2"),
        ([], "either --seat N or --spectator"),
        (["--seat", "0", "--spectator"], "either --seat N or --spectator"),
        (["--seat", "0", "--after", "1000"], "only 132 actions"),
    ],
)
def test_view_rejects_bad_arguments(finished: tuple[Game, Path], args: list[str], message: str) -> None:
    _, path = finished
    result = runner.invoke(app, ["view", str(path), *args])
    assert result.exit_code == 2 and message in result.stderr


def test_bench_engine_json_reports_every_table() -> None:
    result = runner.invoke(app, ["bench", "engine", "--seconds", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report["luz"]) == {
        "korokorodou-2014/3",
        "korokorodou-2014/4",
        "iello-2024/3",
        "iello-2024/4",
        "iello-2024/5",
        "standard-deck/3",
        "standard-deck/4",
    }
    assert all(rate > 0 for rate in report["luz"].values())
    head = report["head_to_head"]
    assert head["fast_core"] > 0 and set(head) == set(report["counts"])
    if report["openspiel_oh_hell"] is not None:
        assert report["ratio"] == pytest.approx(report["luz"]["standard-deck/4"] / report["openspiel_oh_hell"], 0.01)
        assert set(head) == {"luz", "oh_hell_python", "oh_hell_cpp", "fast_core"}
        assert report["fast_core_ratio_to_oh_hell_cpp"] == pytest.approx(head["fast_core"] / head["oh_hell_cpp"], 0.01)
