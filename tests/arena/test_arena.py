"""The arena: duplicate deals in every rotation, identical results on every backend, honest statistics, reports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from luz.arena import ArenaConfig, ArenaError, GameRecord, markdown, play_game, run_arena, summarise, write_reports
from luz.arena.stats import deal_set_scores
from luz.cli import app
from luz.engine import Game, get_edition

SMALL = ArenaConfig(("strong:iters=4", "heuristic", "random"), "korokorodou-2014", 3, deal_sets=2, seed=5)


@pytest.fixture(scope="module")
def records() -> list[GameRecord]:
    return run_arena(SMALL, workers=1)


def test_every_deal_set_is_played_in_every_rotation_with_the_same_cards(records: list[GameRecord]) -> None:
    assert [(r.deal_set, r.rotation) for r in records] == SMALL.tasks() == [(d, r) for d in range(2) for r in range(3)]
    for record in records:
        assert record.seats == tuple(SMALL.bots[(seat - record.rotation) % 3] for seat in range(3))
        game = Game.new("korokorodou-2014", 3, seed=SMALL.game_seed(record.deal_set))
        assert sorted(record.ranking) == [0, 1, 2] and len(record.deals) == 6
        assert record.deals[0]["first_player"] == game.first_player
    assert SMALL.game_seed(0) != SMALL.game_seed(1)


def test_the_same_seed_gives_the_same_games_on_every_backend(records: list[GameRecord]) -> None:
    assert run_arena(SMALL, workers=2) == records
    assert play_game(SMALL, 1, 2) == records[-1]


@pytest.mark.slow  # starts a local Ray cluster (processes of its own)
def test_ray_gives_the_same_games(records: list[GameRecord]) -> None:
    pytest.importorskip("ray", reason="Ray is the optional luz-game[ray] extra")
    assert run_arena(SMALL, workers=2, use_ray=True) == records


def test_the_figures(records: list[GameRecord]) -> None:
    summary = summarise(SMALL, records)
    scores = deal_set_scores(SMALL, records)
    edition = get_edition("korokorodou-2014")
    for b, spec in enumerate(SMALL.labels()):
        bot = summary["bots"][spec]
        assert bot["score"]["mean"] == pytest.approx(scores[:, b].mean())
        low, high = bot["score"]["ci95"]
        assert scores[:, b].min() - 1e-9 <= low <= bot["score"]["mean"] <= high <= scores[:, b].max() + 1e-9
        seat_totals = [r.totals[r.seats.index(spec)] for r in records]
        assert bot["score"]["mean"] == pytest.approx(np.mean(seat_totals))
        mine = [
            (d["bids"][r.seats.index(spec)], d["safety"][r.seats.index(spec)], d["tricks"][r.seats.index(spec)])
            for r in records
            for d in r.deals
        ]
        assert bot["made_rate"] == pytest.approx(np.mean([edition.made(*m) for m in mine]))
        assert bot["exact_rate"] == pytest.approx(np.mean([tricks == bid for bid, _, tricks in mine]))
        assert bot["exact_rate"] <= bot["made_rate"]
        assert bot["safety_rate"] == pytest.approx(np.mean([m[1] for m in mine]))
        assert bot["decisions"] > 0 and bot["decision_ms"]["p95"] >= bot["decision_ms"]["median"] > 0
    assert sum(bot["win_rate"] for bot in summary["bots"].values()) == pytest.approx(1.0)
    pair = summary["pairs"][1]
    assert (pair["bot"], pair["against"]) == ("strong:iters=4", "random")
    assert pair["mean"] == pytest.approx(scores[:, 0].mean() - scores[:, 2].mean())
    assert summary["config"]["distinct_deals"] == 12 and summary["config"]["games"] == 6


def test_ratings_follow_the_rankings() -> None:
    config = ArenaConfig(("heuristic", "random", "random"), "iello-2024", 3, deal_sets=3, seed=1)
    summary = summarise(config, run_arena(config, workers=1))
    rating = summary["openskill"]
    assert rating["heuristic"]["mu"] > rating["random"]["mu"]
    assert summary["bots"]["heuristic"]["win_rate"] > summary["bots"]["random"]["win_rate"]


@pytest.mark.parametrize(
    ("bots", "edition", "players", "message"),
    [
        (("heuristic", "random"), "iello-2024", 3, "one bot per seat"),
        (("heuristic", "nobody", "random"), "iello-2024", 3, "unknown bot 'nobody'"),
        (("heuristic",) * 6, "iello-2024", 6, "played by 3, 4, 5 players"),
        (("strong:iters=0", "random", "random"), "iello-2024", 3, "iters must be"),
    ],
)
def test_impossible_arenas_are_refused(bots: tuple[str, ...], edition: str, players: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_arena(ArenaConfig(bots, edition, players, 1, 0), workers=1)
    with pytest.raises(ArenaError, match="at least one"):
        ArenaConfig(("random",) * 3, "iello-2024", 3, 0, 0).check()


def test_reports(records: list[GameRecord], tmp_path: Path) -> None:
    paths = write_reports(summarise(SMALL, records), records, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert len(data["games"]) == 6 and set(data["bots"]) == set(SMALL.labels())
    text = paths["markdown"].read_text()
    assert "| strong:iters=4 | random |" in text and "95% CI" in text
    assert "| made rate | exact rate |" in text and "exact-bid" not in text
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_command(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["arena", "--bots", "heuristic,random,random", "--games", "1", "--workers", "1", "--out", str(tmp_path)]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["config"]["players"] == 3 and (tmp_path / "report.png").exists()
    plain = runner.invoke(app, args)
    assert plain.exit_code == 0 and "| heuristic | random |" in plain.output
    bad = runner.invoke(app, ["arena", "--bots", "heuristic,oracle2,random"])
    assert bad.exit_code == 2 and "unknown bot" in bad.output
    extra = runner.invoke(app, [*args, "--rays"])
    assert extra.exit_code == 2 and "unexpected argument" in extra.output


def test_the_ray_option(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``--ray`` alone asks for a local Ray, ``--ray ADDRESS`` for a cluster."""
    seen = []

    def fake_run(config: ArenaConfig, **kwargs: object) -> list[GameRecord]:
        seen.append((kwargs["use_ray"], kwargs["ray_address"]))
        return run_arena(config, workers=1)

    monkeypatch.setattr("luz.cli.arena.run_arena", fake_run)
    runner = CliRunner()
    args = ["arena", "--bots", "random,random,random", "--games", "1", "--out", str(tmp_path), "--json"]
    assert runner.invoke(app, [*args, "--ray"]).exit_code == 0
    assert runner.invoke(app, [*args, "--ray", "10.0.0.1:6379"]).exit_code == 0
    assert runner.invoke(app, args).exit_code == 0
    assert seen == [(True, None), (True, "10.0.0.1:6379"), (False, None)]


def test_the_oracle_and_the_openspiel_anchor_take_part() -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel is the optional luz-game[research] extra")
    config = ArenaConfig(("oracle", "openspiel-ismcts:iters=3", "heuristic"), "iello-2024", 3, deal_sets=1, seed=2)
    summary = summarise(config, run_arena(config, workers=1))
    assert set(summary["bots"]) == {"oracle", "openspiel-ismcts:iters=3", "heuristic"}


def test_a_time_limit_keeps_the_first_deal_sets_played_in_full(records: list[GameRecord]) -> None:
    """Out of time at once: only the first deal set starts, and its games are those of a one-set arena."""
    config = ArenaConfig(SMALL.bots, SMALL.edition, SMALL.players, deal_sets=50, seed=SMALL.seed)
    for workers in (1, 2):
        assert run_arena(config, workers=workers, minutes=0) == records[:3]
    assert run_arena(SMALL, workers=1, minutes=60) == records


def test_the_command_says_when_the_time_ran_out(tmp_path: Path) -> None:
    args = ["arena", "--bots", "random,random,random", "--games", "40", "--minutes", "0", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "1 of 40 deal sets played (the same as --games 1)" in result.output
    assert json.loads((tmp_path / "report.json").read_text())["config"]["deal_sets"] == 1


def test_without_a_terminal_the_progress_is_a_line_each_tenth_of_the_games(tmp_path: Path) -> None:
    args = ["arena", "--bots", "random,random,random", "--games", "4", "--workers", "1", "--out", str(tmp_path)]
    lines = [line for line in CliRunner().invoke(app, args).output.splitlines() if line.startswith("games ")]
    assert len(lines) == 10 and lines[-1].startswith("games 12/12 (100%), 0:")
    assert lines[0].startswith("games 2/12 (16%)")
    quiet = CliRunner().invoke(app, [*args, "--json"]).output
    assert "games " not in quiet and json.loads(quiet)["config"]["games"] == 12


def test_seatings_play_every_order_of_the_bots_around_the_table() -> None:
    assert len(ArenaConfig(("strong", "oracle", "heuristic", "heuristic"), seatings=True).orders()) == 3
    assert len(ArenaConfig(("a", "b", "c", "d"), seatings=True).orders()) == 6
    assert ArenaConfig(("a", "b", "c", "d"), seatings=False).orders() == [("a", "b", "c", "d")]
    assert len(ArenaConfig(("h", "h", "s", "o"), seatings=True).orders()) == 3
    config = ArenaConfig(("heuristic", "random", "heuristic:bias=1"), "korokorodou-2014", 3, 1, 4, seatings=True)
    records = run_arena(config, workers=1)
    assert len(records) == config.games_per_set() == 6
    followers = {(r.seats[s], r.seats[(s + 1) % 3]) for r in records for s in range(3)}
    assert len(followers) == 6  # each bot sits right after each other one in some game
    assert len({r.deals[0]["first_player"] for r in records}) == 1 and len({str(r.deals) for r in records}) > 1
    summary = summarise(config, records)
    assert summary["config"]["games"] == 6 and len(summary["config"]["orders"]) == 2
    assert "each of the 2 orders" in markdown(summary)
