"""The bot levels are selectable by name in ``luz play``; the oracle is not offered to people."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from typer.testing import CliRunner

from luz.cli import app
from luz.engine.record import replay


def test_a_person_plays_against_strong_bots(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    keys = "\n".join(itertools.islice(itertools.cycle(["1", *map(str, range(11))]), 3000)) + "\n"
    args = ["play", "--seed", "3", "--players", "3", "--bots", "strong:iters=4,heuristic", "--record", str(record)]
    result = CliRunner().invoke(app, args, input=keys)
    assert result.exit_code == 0, result.output
    assert "(strong bot)" in result.output and "(heuristic bot)" in result.output
    assert replay(json.loads(record.read_text(encoding="utf-8"))).outcome() is not None


def test_the_oracle_is_not_offered_to_people() -> None:
    result = CliRunner().invoke(app, ["play", "--seed", "3", "--bots", "oracle"], input="quit\n")
    assert result.exit_code == 2 and "unknown bot 'oracle'" in result.output
