"""luz.research.dataset: a luz export as imitation-learning arrays, each row the acting seat's own view."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from luz.bots import make_bot
from luz.engine import Game, parse_action, replay, to_record, view
from luz.research.dataset import build, main
from luz.research.encoding import Encoder, action_id


def played(seed: int, names: list[str]) -> dict[str, Any]:
    """A finished game of bots at iello-2024/4, as ``luz export`` writes it (names and a site)."""
    game = Game.new("iello-2024", 4, seed=seed)
    bots, rng = [make_bot("heuristic"), make_bot("random")] * 2, random.Random(seed)
    while game.current_player is not None:
        seat = game.current_player
        game.apply(bots[seat].choose(view(game, seat), rng))
    record = to_record(game, names)
    record["site"] = {"table": f"t{seed}", "game": 1, "finished_at": "2026-12-06T01:00:00+00:00"}
    return record


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """An export of two games, the second without its seed (its hands authoritative, its first player named);
    and the games' records, both with their seeds (replayed here to check each row)."""
    games = [played(3, ["Ana", "Bo", "Cy", "Di"]), played(4, ["Ed", "Flo", "Gus", "Hal"])]
    exported = [games[0], games[1] | {"seed": None}]
    path = tmp_path_factory.mktemp("export") / "export.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in exported) + "\n")
    return path, games


def test_each_row_is_the_acting_seats_view_its_mask_its_action_and_the_outcome(
    export: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    path, records = export
    out = tmp_path / "data.npz"
    assert main([str(path), str(out), "--view-only"]) == 0
    data = dict(np.load(out))
    assert list(data["names"][1]) == ["Ed", "Flo", "Gus", "Hal"]
    row = 0
    for number, record in enumerate(records):
        final = replay(record)
        encoder = Encoder(final.edition, final.players, final.options, perfect_recall=False)
        values = slice(encoder.colours, encoder.colours + encoder.values)
        texts = [text for deal in record["deals"] for text in deal["actions"]]
        for upto, text in enumerate(texts):
            game = replay(record, upto=upto)
            seat = game.current_player
            assert seat is not None
            assert (data["games"][row], data["seats"][row], data["deals"][row]) == (number, seat, game.deal_number - 1)
            np.testing.assert_array_equal(data["observations"][row], encoder.tensor(view(game, seat), seat))
            own = encoder.split(data["observations"][row])["hands"][0]  # the observer's own hand, slot by slot
            unplayed = [bool(game.unplayed_slots(seat) >> slot & 1) for slot in range(10)]
            assert not own[unplayed, values].any()  # never its own unplayed values
            legal = sorted(action_id(action) for action in game.legal_actions())
            assert list(np.flatnonzero(data["masks"][row])) == legal
            assert data["actions"][row] == action_id(parse_action(text))
            assert data["deal_points"][row] == final.results[game.deal_number - 1].scores[seat]
            assert data["totals"][row] == final.sheet.totals[seat]
            assert data["won"][row] == (seat == final.outcome().winner)
            row += 1
    assert row == len(data["actions"]) == len(data["observations"])


def test_perfect_recall_adds_the_plays_and_changes_nothing_else(export: tuple[Path, list[dict[str, Any]]]) -> None:
    path, records = export
    lines = [json.loads(line) for line in path.read_text().splitlines() if line]
    recall, alone = build(lines), build(lines, perfect_recall=False)
    final = replay(records[0])
    with_plays = Encoder(final.edition, final.players, final.options, perfect_recall=True)
    without = Encoder(final.edition, final.players, final.options, perfect_recall=False)
    for a, b in zip(recall["observations"], alone["observations"], strict=True):
        pieces, view_only = with_plays.split(a), without.split(b)
        assert all(np.array_equal(pieces[name], view_only[name]) for name in view_only)
    assert recall["observations"][:, with_plays.offsets["plays"] :].any()
    assert np.array_equal(recall["actions"], alone["actions"])


def test_bad_exports_are_one_line_and_exit_2(
    export: tuple[Path, list[dict[str, Any]]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, records = export
    broken = tmp_path / "broken.jsonl"
    broken.write_text(path.read_text() + "{not json\n")
    assert main([str(broken), str(tmp_path / "out.npz")]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    other = played(5, ["A", "B", "C", "D"]) | {"edition": "standard-deck"}
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(json.dumps(records[0]) + "\n" + json.dumps(other) + "\n")
    assert main([str(mixed), str(tmp_path / "out.npz")]) == 2
    assert "game 1" in capsys.readouterr().err
