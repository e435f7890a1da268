"""The command line on hostile files and arguments: one clear line on stderr and exit status 2, never a
traceback (run as the real ``luz`` program: usage errors are handled by its entry point)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from luz.engine import Game, InvalidAction, InvalidCard, get_edition, parse_action
from luz.engine.record import dumps

LUZ = Path(sys.executable).with_name("luz")
HUGE = "9" * 5000
"""Digits beyond Python's 4,300-digit limit for reading an integer."""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LUZ), *args], capture_output=True, text=True, timeout=60)


def assert_one_line(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and "╭" not in result.stderr
    assert len(result.stderr) < 600, result.stderr[:600]


@pytest.fixture(scope="module")
def record() -> dict[str, object]:
    game = Game.new("iello-2024", 3, seed=5)
    for _ in range(4):
        game.apply(game.legal_actions()[0])
    data: dict[str, object] = json.loads(dumps(game))
    return data


def hostile_records(record: dict[str, object]) -> dict[str, str]:
    deep = "[" * 200_000 + "]" * 200_000
    huge_anywhere = json.dumps(record)[:-1] + f', "note": {HUGE}}}'
    card = json.loads(json.dumps(record))
    card["deals"][0]["hands"][0][0] = "R" + HUGE  # type: ignore[index]
    action = json.loads(json.dumps(record))
    action["deals"][0]["actions"][0] = "bid:" + HUGE  # type: ignore[index]
    points = json.loads(json.dumps(record))
    points["options"]["made_points"] = [10**4000] * 4  # type: ignore[index]
    return {
        "deep": deep,
        "huge integer": huge_anywhere,
        "card": json.dumps(card),
        "action": json.dumps(action),
        "made_points": json.dumps(points),
    }


@pytest.mark.parametrize("kind", ["deep", "huge integer", "card", "action", "made_points"])
@pytest.mark.parametrize("command", [["replay"], ["replay", "--json"], ["view", "--seat", "0"], ["review", "--json"]])
def test_hostile_records(tmp_path: Path, record: dict[str, object], kind: str, command: list[str]) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(hostile_records(record)[kind])
    assert_one_line(run(*command[:1], str(path), *command[1:]))


def test_score_with_huge_made_points(tmp_path: Path) -> None:
    path = tmp_path / "score.json"
    document = {"edition": "iello-2024", "players": 3, "deals": [], "options": {"made_points": [10**4000] * 4}}
    path.write_text(json.dumps(document))
    assert_one_line(run("score", str(path)))


@pytest.mark.parametrize(
    "args",
    [
        ["view", "x.json", "--seat", "x"],
        ["view", "x.json", "--seat", "0", "--after", "-1"],
        ["replay"],
        ["nope"],
        ["review", "x.json", "--worlds", "1"],
        ["review", "x.json", "--seat", "x"],
        ["review"],
    ],
)
def test_usage_errors_are_one_line(args: list[str]) -> None:
    result = run(*args)
    assert_one_line(result)
    assert result.stdout == ""


def test_the_engine_parsers_raise_their_own_errors() -> None:
    edition = get_edition("iello-2024")
    for text in ["R" + HUGE, "G" + "1" * 100, "Y" * 10_000]:
        with pytest.raises(InvalidCard) as error:
            edition.parse_card(text, 3)
        assert len(str(error.value)) < 120
    for text in ["bid:" + HUGE, "play:" + HUGE, "bid:" + "1" * 20 + "+"]:
        with pytest.raises(InvalidAction) as error:
            parse_action(text)
        assert len(str(error.value)) < 160
