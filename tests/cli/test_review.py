"""``luz review`` and ``luz bench review`` through the command line (small numbers of worlds and games)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from luz.bots import make_bot, play_out
from luz.bots.review import ReviewSettings, review_game
from luz.cli import app
from luz.engine import Game, to_record
from luz.engine.record import dumps

runner = CliRunner()


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    game = Game.new("iello-2024", players=3, seed=6)
    play_out(game, [make_bot("heuristic"), make_bot("random"), make_bot("heuristic")], random.Random(6))
    path = tmp_path_factory.mktemp("review") / "game.json"
    path.write_text(dumps(game, ["Ana", "Bo", "Cy"]))
    return path


def test_one_seat_as_json_is_the_review_of_that_seat(finished: Path) -> None:
    result = runner.invoke(app, ["review", str(finished), "--seat", "1", "--json", "--worlds", "8"])
    assert result.exit_code == 0, result.output
    review = json.loads(result.stdout)
    expected = review_game(json.loads(finished.read_text()), 1, ReviewSettings(worlds=8))
    assert review == expected and review["seat"] == 1 and review["settings"]["worlds"] == 8
    # The JSON counts from 0 and says so; people read cards from 1 (the text below, the web).
    assert review["indexing"] == "seat, index, step and slots (play:SLOT) from 0; deal numbers from 1"
    assert {d["deal"] for d in review["decisions"]} == {1, 2, 3, 4}
    slots = {int(d["action"].partition(":")[2]) for d in review["decisions"] if d["kind"] == "play"}
    assert slots == set(range(10)), "every card of a hand is played each deal: slots 0 to 9"


def test_every_seat_as_json_is_a_list_in_seat_order(finished: Path) -> None:
    result = runner.invoke(app, ["review", "-", "--json", "--worlds", "4"], input=finished.read_text())
    assert result.exit_code == 0, result.output
    reviews = json.loads(result.stdout)
    assert isinstance(reviews, list) and [r["seat"] for r in reviews] == [0, 1, 2]
    assert all(r["format"] == "luz-review" for r in reviews)


def test_the_text_shows_deals_labelled_decisions_and_the_game(finished: Path) -> None:
    result = runner.invoke(app, ["review", str(finished), "--seat", "1", "--worlds", "16"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    review = review_game(json.loads(finished.read_text()), 1, ReviewSettings(worlds=16))
    out = result.stdout
    assert out.startswith("Bo (seat 1), iello-2024, 3 players") and "blunder >= 10" in out
    for deal in review["deals"]:
        assert f"{deal['decision_loss']:.1f}" in out and f"{deal['luck']:+.1f}" in out
    labelled = [d for d in review["decisions"] if d["label"]]
    assert labelled  # the random seat makes some
    for decision in labelled:
        assert f"{decision['label']}: " in out and f"lost {decision['loss']:.1f} ± {decision['se']:.1f}" in out
        for action in (decision["action"], decision["best"]):
            kind, _, rest = action.partition(":")
            shown = f"bid {rest}" if kind == "bid" else f"card {int(rest) + 1}"  # people count cards from 1
            assert shown in out
    assert "card 0" not in out
    game = review["game"]
    assert f"{game['points']} points = {game['start_value']:.1f} start - {game['decision_loss']:.1f} lost" in out
    assert f"accuracy {game['accuracy']:.0f}% over {game['decisions']} decisions" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "3"], "--seat must be 0..2, not 3"),
        (["--seat", "-1"], "--seat must be 0..2, not -1"),
    ],
)
def test_a_bad_seat_is_one_line_and_status_2(finished: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["review", str(finished), *args, "--worlds", "4"])
    assert result.exit_code == 2 and result.stderr == f"luz: {message}\n" and result.stdout == ""


def test_bad_records_are_one_line_and_status_2(tmp_path: Path) -> None:
    game = Game.new("iello-2024", players=3, seed=1)
    game.apply(game.legal_actions()[0])
    unfinished = tmp_path / "live.json"
    unfinished.write_text(json.dumps(to_record(game)))
    cases = [
        (str(unfinished), "the game is not finished"),
        (str(tmp_path / "missing.json"), "cannot read"),
        ("-", "is not JSON"),
    ]
    for path, message in cases:
        result = runner.invoke(app, ["review", path], input="{nope")
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("luz: ") and message in result.stderr and result.stderr.count("\n") == 1
        assert "Traceback" not in result.output


def test_bench_review_reports_calibration_and_full_reviews() -> None:
    args = ["bench", "review", "--games", "2", "--worlds", "4", "--full-games", "1", "--full-worlds", "4"]
    args += ["--players", "3", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["games"] == 2 and report["deals"] == 8 and report["settings"]["worlds"] == 4
    assert report["bids"] + report["forced_bids"] == 2 * 4 * 3
    assert sum(d["count"] for d in report["deciles"]) == report["bids"]
    assert 0.0 <= report["ece"] <= 1.0
    points = report["points"]
    assert points["difference"] == pytest.approx(points["scored"] - points["expected"])
    low, high = points["ci95"]
    assert low <= points["difference"] <= high
    assert sum(kind["bids"] for kind in report["by_kind"].values()) == report["bids"]
    full = report["full_reviews"]
    assert full["reviews"] == 3 and 0 < full["seconds_p50"] <= full["seconds_p95"]
    assert sum(kind["games"] for kind in full["by_kind"].values()) == 3
    text = runner.invoke(app, args[:-1], env={"COLUMNS": "200"})
    assert text.exit_code == 0 and "expected calibration error" in text.stdout and "best within noise" in text.stdout
    for bad in (["--players", "6"], ["--field", "heuristic,nobody"]):
        refused = runner.invoke(app, ["bench", "review", *bad])
        assert refused.exit_code == 2 and refused.stdout == "", refused.output


def test_bench_review_plays_the_field_given() -> None:
    args = ["bench", "review", "--games", "1", "--worlds", "4", "--full-games", "0", "--field", "heuristic", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["field"] == ["heuristic"] and list(report["by_kind"]) == ["heuristic"]
    assert report["by_kind"]["heuristic"]["bids"] == report["bids"] > 0 and report["full_reviews"]["reviews"] == 0


def test_bench_review_times_reviews_through_a_server() -> None:
    args = ["bench", "review", "--games", "1", "--worlds", "4", "--full-games", "0", "--full-worlds", "4"]
    result = runner.invoke(app, [*args, "--players", "3", "--server-games", "2", "--json"])
    assert result.exit_code == 0, result.output
    served = json.loads(result.stdout)["server_reviews"]
    assert served["reviews"] == 2 and served["worlds"] == 4 and 0 < served["seconds_p50"] <= served["seconds_p95"]


def test_bench_review_rows_fit_a_map_and_score_other_rows(tmp_path: Path) -> None:
    """Rows of one run fit a map (``review-fit``); rows of another are scored through the shipped map."""
    fit_rows, held_rows, out = tmp_path / "fit.jsonl", tmp_path / "held.jsonl", tmp_path / "map.json"
    for seed, rows in ((1, fit_rows), (2, held_rows)):
        args = ["bench", "review", "--games", "1", "--worlds", "4", "--full-games", "0", "--players", "3"]
        result = runner.invoke(app, [*args, "--seed", str(seed), "--cards-every", "2", "--rows", str(rows), "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        lines = [json.loads(line) for line in rows.read_text().splitlines()]
        assert sum(r["kind"] == "bid" and not r["forced"] for r in lines) == report["bids"] > 0
        assert sum(r["kind"] == "play" and not r["forced"] for r in lines) == report["cards"]["bids"] > 0
        assert {r["bot"] for r in lines} <= {"random", "heuristic", "strong", "expert", "pimc", "counter"}
    fitted = runner.invoke(app, ["bench", "review-fit", str(fit_rows), "--out", str(out)])
    assert fitted.exit_code == 0, fitted.output
    calibration = json.loads(out.read_text())
    assert {"bid_knots", "play_knots", "bid_line", "play_line", "accuracy_scale", "fitted_on"} <= set(calibration)
    scored = runner.invoke(app, ["bench", "review-score", str(held_rows), "--json"])
    assert scored.exit_code == 0, scored.output
    figures = json.loads(scored.stdout)
    assert figures["bids"] > 0 and 0.0 <= figures["ece"] <= 1.0 and figures["brier"] >= 0.0
    assert figures["raw"]["bids"]["bids"] == figures["bids"]
    bad = runner.invoke(app, ["bench", "review-score", str(tmp_path / "missing.jsonl")])
    assert bad.exit_code == 2
