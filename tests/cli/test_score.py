"""``luz score``: the tabletop score-keeper, JSON and interactive.

Every expected number below was worked out by hand from RULES.md, never by calling the engine.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from luz.cli import app
from luz.engine import InvalidOptions, get_edition

LUZ = Path(sys.executable).with_name("luz")
runner = CliRunner()


def _deal(bids: list[int], safety: list[bool], tricks: list[int]) -> dict[str, Any]:
    return {"bids": bids, "safety": safety, "tricks": tricks}


def _run(text: str) -> Result:
    return runner.invoke(app, ["score", "-"], input=text)


def _report(document: dict[str, Any]) -> dict[str, Any]:
    """The JSON report for ``document``, checking that nothing else was printed."""
    result = _run(json.dumps(document))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


def _assert_rejected(result: Result, fragment: str) -> None:
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert result.stderr.count("\n") == 1
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr


NO, YES = False, True
ALL_MADE = _deal([1, 3, 6], [NO, NO, NO], [1, 3, 6])

# -- JSON: scoring -----------------------------------------------------------------------------------------

ISSUE_EXAMPLE = {
    "edition": "iello-2024",
    "players": 3,
    "first_player": 0,
    "deals": [_deal([2, 1, 3], [NO, YES, NO], [2, 2, 6])],
}


def test_issue_example() -> None:
    # Deal 1 is worth 10: seat 0 made 2 (+10), seat 1 made 1+safety with 2 tricks (+5), seat 2 bid 3 took 6 (-15).
    assert _report(ISSUE_EXAMPLE) == {
        "deals": [{"first_player": 0, "scores": [10, 5, -15]}],
        "totals": [10, 5, -15],
        "ranking": [0, 1, 2],
        "next_first_player": 1,
    }


def test_file_argument(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(ISSUE_EXAMPLE))
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["totals"] == [10, 5, -15]


def test_missing_first_player_and_safety_default_to_seat_0_and_no_safety() -> None:
    report = _report({"edition": "iello-2024", "players": 3, "deals": [{"bids": [2, 1, 3], "tricks": [2, 2, 6]}]})
    assert report["deals"] == [{"first_player": 0, "scores": [10, -5, -15]}]
    assert report["next_first_player"] == 1


def test_first_player_may_come_from_the_options() -> None:
    report = _report({"edition": "iello-2024", "players": 3, "options": {"first_player": 2}, "deals": [ALL_MADE]})
    assert report["deals"][0]["first_player"] == 2
    assert report["next_first_player"] == 0


def test_options_can_lift_the_bid_cap() -> None:
    # Bids 6+5+5 = 16 are over IELLO's 15 beads unless the table lifts the cap.
    document = {"edition": "iello-2024", "players": 3, "deals": [_deal([6, 5, 5], [NO, NO, NO], [6, 2, 2])]}
    _assert_rejected(_run(json.dumps(document)), "deal 1: the bids sum to 16, over the table's cap of 15")
    report = _report({**document, "options": {"bid_cap": None}})
    assert report["deals"][0]["scores"] == [10, -15, -15]


def test_iello_three_players_the_leader_opens_the_last_deal() -> None:
    report = _report(
        {
            "edition": "iello-2024",
            "players": 3,
            "first_player": 0,
            "deals": [
                _deal([2, 1, 3], [NO, YES, NO], [2, 2, 6]),  # 10, 5, -15
                _deal([0, 2, 8], [NO, NO, NO], [1, 1, 8]),  # -5, -5, 20 -> 5, 0, 5
                _deal([3, 3, 4], [NO, NO, YES], [2, 3, 5]),  # -5, 30, 15 -> 0, 30, 20: seat 1 leads
                _deal([2, 4, 4], [NO, NO, NO], [2, 4, 4]),  # 40 each
            ],
        }
    )
    assert report == {
        "deals": [
            {"first_player": 0, "scores": [10, 5, -15]},
            {"first_player": 1, "scores": [-5, -5, 20]},
            {"first_player": 2, "scores": [-5, 30, 15]},
            {"first_player": 1, "scores": [40, 40, 40]},
        ],
        "totals": [40, 70, 60],
        "ranking": [1, 2, 0],
        "winner": 1,
    }


@pytest.mark.parametrize(
    ("first_player", "deals", "expected"),
    [
        # Totals 60, 35, 60; the usual first player (1) is not among the leaders: the nearest after him, seat 2.
        (1, [ALL_MADE, _deal([1, 2, 6], [NO, NO, NO], [1, 3, 6]), ALL_MADE], 2),
        # Everybody on 60: the usual first player (0) is among the leaders and keeps his turn.
        (0, [ALL_MADE, ALL_MADE, ALL_MADE], 0),
    ],
)
def test_iello_three_players_tie_for_the_lead_before_the_last_deal(
    first_player: int, deals: list[dict[str, Any]], expected: int
) -> None:
    report = _report({"edition": "iello-2024", "players": 3, "first_player": first_player, "deals": deals})
    assert report["next_first_player"] == expected


def test_tie_decided_by_the_last_deal() -> None:
    report = _report(
        {
            "edition": "iello-2024",
            "players": 3,
            "deals": [
                ALL_MADE,  # 10, 10, 10
                _deal([1, 3, 5], [NO, NO, NO], [1, 3, 6]),  # 20, 20, -5 -> 30, 30, 5
                _deal([1, 3, 4], [YES, NO, NO], [2, 4, 4]),  # 15, -5, 30 -> 45, 25, 35
                _deal([2, 4, 2], [YES, NO, NO], [3, 4, 3]),  # 20, 40, -5 -> 65, 65, 30
            ],
        }
    )
    assert report["totals"] == [65, 65, 30]
    assert report["ranking"] == [1, 0, 2]
    assert report["winner"] == 1


SEAT_ORDER_TIE = [
    ALL_MADE,  # IELLO 10 each (standard deck 2 each)
    ALL_MADE,  # 20 each (4 each)
    _deal([2, 3, 5], [NO, NO, NO], [1, 3, 6]),  # -5, 30, -5 (-1, 6, -1): seat 1 leads and opens deal 4
    _deal([2, 4, 3], [NO, NO, NO], [2, 5, 3]),  # 40, -5, 40 (8, -1, 8)
]


@pytest.mark.parametrize(
    ("edition", "totals", "ranking"),
    [
        # Counting from the last deal's actual first bidder, seat 1: seats 1, 2, 0 -> seat 2 wins.
        ("iello-2024", [65, 55, 65], [2, 0, 1]),
        # Counting from the last deal's usual first player, seat 0 (first player 0, fourth deal) -> seat 0 wins.
        ("standard-deck", [13, 11, 13], [0, 2, 1]),
    ],
)
def test_tie_decided_by_seat_order(edition: str, totals: list[int], ranking: list[int]) -> None:
    report = _report({"edition": edition, "players": 3, "first_player": 0, "deals": SEAT_ORDER_TIE})
    assert [deal["first_player"] for deal in report["deals"]] == [0, 1, 2, 1]
    assert report["totals"] == totals
    assert report["ranking"] == ranking
    assert report["winner"] == ranking[0]


def test_korokorodou_2014_six_deals_with_three_players() -> None:
    report = _report(
        {
            "edition": "korokorodou-2014",
            "players": 3,
            "deals": [
                # 2 + AND 1 with 3 tricks: +20; 0 + AND 1 with 3 tricks: -20; 2 with 4 tricks: -20.
                _deal([2, 0, 2], [YES, YES, NO], [3, 3, 4]),
                # 2 without AND 1, 1 trick: -10; made bets are a flat 40.
                _deal([2, 4, 5], [NO, NO, NO], [1, 4, 5]),
                _deal([3, 3, 4], [NO, NO, NO], [3, 3, 4]),
                # 3 + AND 1 with 5 tricks: the token counts as a 4th, so one trick off: -10.
                _deal([3, 3, 2], [YES, NO, NO], [5, 3, 2]),
                _deal([3, 3, 4], [NO, NO, NO], [3, 3, 4]),
                _deal([1, 5, 3], [YES, NO, NO], [2, 5, 3]),
            ],
        }
    )
    assert report == {
        "deals": [
            {"first_player": 0, "scores": [20, -20, -20]},
            {"first_player": 1, "scores": [-10, 40, 40]},
            {"first_player": 2, "scores": [40, 40, 40]},
            {"first_player": 0, "scores": [-10, 40, 40]},
            {"first_player": 1, "scores": [40, 40, 40]},
            {"first_player": 2, "scores": [20, 40, 40]},
        ],
        "totals": [100, 180, 180],
        # Seats 1 and 2 tie on 180 and on 40 in the last deal; seat 2 bid first in it.
        "ranking": [2, 1, 0],
        "winner": 2,
    }


def test_standard_deck_four_players() -> None:
    report = _report(
        {
            "edition": "standard-deck",
            "players": 4,
            "first_player": 2,
            "deals": [
                # 3 + safety with 6 tricks: -3; made 2, half with safety 1; 0 with 1 trick: -1.
                _deal([3, 1, 2, 0], [YES, NO, YES, NO], [6, 1, 2, 1]),
                _deal([2, 2, 3, 3], [NO, YES, NO, YES], [2, 2, 3, 3]),
                _deal([1, 2, 3, 4], [NO, NO, NO, YES], [1, 2, 3, 4]),
                _deal([4, 3, 2, 1], [YES, NO, NO, NO], [4, 3, 2, 1]),
            ],
        }
    )
    assert report == {
        "deals": [
            {"first_player": 2, "scores": [-3, 2, 1, -1]},
            {"first_player": 3, "scores": [4, 2, 4, 2]},
            {"first_player": 0, "scores": [6, 6, 6, 3]},
            {"first_player": 1, "scores": [4, 8, 8, 8]},
        ],
        "totals": [11, 18, 19, 12],
        "ranking": [2, 1, 3, 0],
        "winner": 2,
    }


def test_iello_safety_examples() -> None:
    report = _report(
        {
            "edition": "iello-2024",
            "players": 4,
            "deals": [
                # 2 + safety, 4 tricks: -10; 3 + safety, 6 tricks: -15; 0 + safety, 0 tricks: +5; 0, 0 tricks: +10.
                _deal([2, 3, 0, 0], [YES, YES, YES, NO], [4, 6, 0, 0]),
                # Deal 2: 0 + safety with 1 trick is made: +10; exact bets +20.
                _deal([0, 3, 3, 3], [YES, NO, NO, NO], [1, 3, 3, 3]),
            ],
        }
    )
    assert [deal["scores"] for deal in report["deals"]] == [[-10, -15, 5, 10], [10, 20, 20, 20]]
    assert report["totals"] == [0, 5, 25, 30]
    assert report["ranking"] == [3, 2, 1, 0]
    assert report["next_first_player"] == 2


# -- JSON: errors ------------------------------------------------------------------------------------------


def _game(**changes: Any) -> str:
    return json.dumps({"edition": "iello-2024", "players": 3, "deals": [ALL_MADE], **changes})


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{", "malformed JSON in standard input"),
        ("", "malformed JSON in standard input"),
        ("[1, 2]", "the document must be a JSON object, not [1, 2]"),
        ('{"edition": "iello-2024", "players": 3}', "the document: missing deals"),
        (_game(seats=3), 'the document: unknown key(s) "seats"'),
        (_game(edition="iello-2025"), "unknown edition 'iello-2025'"),
        (_game(edition=2024), "edition must be a string, not 2024"),
        (_game(players=6), "iello-2024 is played by 3, 4, 5 players, not 6"),
        (_game(edition="standard-deck", players=5), "standard-deck is played by 3, 4 players, not 5"),
        (_game(players="3"), 'players must be a whole number, not "3"'),
        (_game(players=True), "players must be a whole number, not true"),
        (_game(first_player=3), "first_player must be a seat 0..2, not 3"),
        (_game(first_player=1, options={"first_player": 2}), "first_player 1 disagrees with options.first_player 2"),
        (_game(options="fast"), "options must be an object"),
        (_game(options={"bid_cap": -1}), "bid_cap must be a whole number >= 0 or null"),
        (_game(options={"speed": 2}), "unknown table option(s): speed"),
        (_game(options={"made_points": 5}), "made_points must be a list of points, one per deal, not 5"),
        (_game(options={"made_points": [10, 20]}), "made_points must list 4 whole numbers"),
        (_game(deals={"1": ALL_MADE}), "deals must be a list"),
        (_game(deals=[[1, 3, 6]]), "deal 1 must be a JSON object, not [1, 3, 6]"),
        (_game(deals=[{"bids": [1, 3, 6]}]), "deal 1: missing tricks"),
        (_game(deals=[{**ALL_MADE, "safeties": [NO, NO, NO]}]), 'deal 1: unknown key(s) "safeties"'),
        (_game(deals=[ALL_MADE, _deal([1, 3, 6], [NO] * 3, [1, 3, 5])]), "deal 2: tricks must sum to 10, not 9"),
        (_game(deals=[_deal([1, 3, 6], [NO] * 3, [1, 3, 7])]), "deal 1: tricks must sum to 10, not 11"),
        (_game(deals=[_deal([1, 3, 11], [NO] * 3, [1, 3, 6])]), "deal 1: seat 2's bid must be 0..10, not 11"),
        (_game(deals=[_deal([-1, 3, 6], [NO] * 3, [1, 3, 6])]), "deal 1: seat 0's bid must be 0..10, not -1"),
        (_game(deals=[_deal([1, 3, 6], [NO] * 3, [-1, 5, 6])]), "deal 1: seat 0's tricks must be 0..10, not -1"),
        (_game(deals=[_deal([7, 5, 4], [NO] * 3, [7, 2, 1])]), "deal 1: the bids sum to 16, over the table's cap"),
        (_game(deals=[ALL_MADE] * 5), "deal 5: the game is over: iello-2024 with 3 players has 4 deals"),
        (_game(deals=[{"bids": "136", "tricks": [1, 3, 6]}]), "deal 1: bids must list one entry per player (3)"),
        (_game(deals=[_deal([1, 3], [NO] * 3, [1, 3, 6])]), "deal 1: bids must list one entry per player (3)"),
        (_game(deals=[_deal([1, 3, 6], [1, 0, 0], [1, 3, 6])]), "deal 1: seat 0's safety must be true or false"),
        (_game(deals=[_deal([1, 3, 6], [NO] * 3, [1.5, 2.5, 6])]), "deal 1: seat 0's tricks must be 0..10, not 1.5"),
    ],
)
def test_invalid_documents_are_one_line_on_stderr_with_status_2(text: str, fragment: str) -> None:
    _assert_rejected(_run(text), fragment)


def test_unreadable_files(tmp_path: Path) -> None:
    _assert_rejected(runner.invoke(app, ["score", str(tmp_path / "nope.json")]), "cannot read")
    _assert_rejected(runner.invoke(app, ["score", str(tmp_path)]), "cannot read")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\xfa")
    _assert_rejected(runner.invoke(app, ["score", str(binary)]), "malformed JSON in")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 16) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_SEATS = st.lists(st.integers(-1, 11), min_size=2, max_size=5)
_DEALS = st.lists(
    st.fixed_dictionaries({"bids": _SEATS | _JSON, "tricks": _SEATS | _JSON}, optional={"safety": _JSON}),
    max_size=7,
)
_OPTIONS = st.dictionaries(st.sampled_from(["bid_cap", "first_player", "made_points", "trick_history"]), _JSON)
_DOCUMENTS = st.fixed_dictionaries(
    {
        "edition": st.sampled_from(["iello-2024", "korokorodou-2014", "standard-deck", "2014"]) | _JSON,
        "players": st.integers(2, 6) | _JSON,
        "deals": _DEALS | _JSON,
    },
    optional={"first_player": st.integers(-1, 5) | _JSON, "options": _OPTIONS | _JSON},
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_DOCUMENTS)
def test_any_document_gets_a_report_or_a_one_line_error(document: dict[str, Any]) -> None:
    result = _run(json.dumps(document))
    if result.exit_code == 0:
        assert set(json.loads(result.stdout)) >= {"deals", "totals", "ranking"}
    else:
        _assert_rejected(result, "")


@pytest.mark.parametrize("made_points", [5, True, "10,20"])
def test_options_reject_made_points_that_are_not_a_list(made_points: Any) -> None:
    with pytest.raises(InvalidOptions, match="made_points"):
        get_edition("iello-2024").options_from_json(3, {"made_points": made_points})


def test_null_made_points_means_the_edition_default() -> None:
    assert get_edition("iello-2024").options_from_json(3, {"made_points": None}).made_points == (10, 20, 30, 40)


# -- the installed console script --------------------------------------------------------------------------


def _luz(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LUZ), *args], input=stdin, capture_output=True, text=True, timeout=60, check=False)


def test_console_script() -> None:
    done = _luz("score", "-", stdin=json.dumps(ISSUE_EXAMPLE))
    assert done.returncode == 0
    assert done.stderr == ""
    assert json.loads(done.stdout) == {
        "deals": [{"first_player": 0, "scores": [10, 5, -15]}],
        "totals": [10, 5, -15],
        "ranking": [0, 1, 2],
        "next_first_player": 1,
    }


def test_console_script_errors_without_traceback() -> None:
    done = _luz("score", "-", stdin=_game(deals=[_deal([1, 3, 6], [NO] * 3, [1, 3, 5])]))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: deal 1: tricks must sum to 10, not 9\n"


def test_console_script_interactive_end_of_input() -> None:
    done = _luz("score", stdin="2\n3\n")
    assert done.returncode == 1
    assert "Stopped before the end of the game" in done.stderr
    assert "Traceback" not in done.stderr


# -- interactive -------------------------------------------------------------------------------------------


def _lines(*answers: object) -> str:
    return "".join(f"{answer}\n" for answer in answers)


def _interactive(text: str) -> tuple[Result, str]:
    """Run the interactive score-keeper on ``text``; also return its output with whitespace runs made one space."""
    result = runner.invoke(app, ["score"], input=text)
    return result, " ".join(result.stdout.split())


def _totals_rows(output: str) -> list[tuple[int, ...]]:
    rows = re.findall(r"Total[\s│]+(-?\d+)[\s│]+(-?\d+)[\s│]+(-?\d+)", output)
    return [tuple(map(int, row)) for row in rows]


SET_UP = _lines(
    "x", 2, 6, 3, "Ann", "ann", "Bob", "Cy", 4, 1
)  # bad edition, iello; bad and good player count; names; first Ann
MISTAKEN_DEAL = _lines(
    *("z", 8, "maybe", "n"),  # Ann: a bid that is not a number, then 8; a bad safety answer, then no
    *(11, 6, ""),  # Bob: bid out of range, then 6, no safety (the default)
    *(5, 1, "y"),  # Cy: 5 is over the cap (1 bead left), then 1 with a safety
    *(3, 3, 3),  # tricks summing to 9: asked again
    *(3, 3, 4),
    "n",  # not correct: the deal is entered again
)
DEALS = [
    _lines(1, "n", 3, "n", 6, "n", 1, 3, 6, "y"),  # deal 1, Ann Bob Cy: 10 each
    _lines(3, "n", 6, "n", 1, "n", 3, 6, 1, ""),  # deal 2, Bob Cy Ann: 20 each
    _lines(5, "n", 2, "n", 3, "n", 6, 1, 3, "y"),  # deal 3, Cy Ann Bob: Cy -5, Ann -5, Bob +30
    _lines(4, "n", 3, "n", 2, "n", 5, 3, 2, "y"),  # deal 4, Bob (the leader) Cy Ann: -5, 40, 40
]


def test_interactive_game_with_mistakes() -> None:
    result, output = _interactive(SET_UP + MISTAKEN_DEAL + "".join(DEALS))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    for message in (
        "Please enter a number from 1 to 3, or an edition name.",
        "iello-2024 is played by 3, 4, 5 players.",
        "ann is already taken",
        "Please enter a whole number from 1 to 3.",
        "Ann's bid (0-10; 15 left under the bid cap of 15)",
        "Please enter a whole number from 0 to 10.",
        "Please answer y or n.",
        "Cy's bid (0-1; 1 left under the bid cap of 15)",
        "Over the bid cap: the bids of a deal sum to at most 15; only 1 left.",
        "The tricks sum to 9, not 10: enter this deal's tricks again.",
        "Cy: bid 1 + safety, took 4: -15 points",
        "Enter this deal again.",
        "Deal 2 of 4: Bob bids first.",
        "Deal 3 of 4: Cy bids first.",
        "Deal 4 of 4: Bob bids first, as the leader on score.",
        "Game over. Cy is tied with Ann on 65 points and on points in the last deal (40); "
        "Cy wins as the tied player nearest Bob, counting from them.",
    ):
        assert message in output
    assert _totals_rows(result.stdout) == [(10, 10, 10), (30, 30, 30), (25, 60, 25), (65, 55, 65)]


def test_interactive_default_names_and_first_player() -> None:
    deal = _lines(*(3, "", 3, "", 4, ""), 3, 3, 4, "")  # 40 each in korokorodou-2014
    result, output = _interactive(_lines("korokorodou-2014", 3, "", "", "", 3) + deal * 6)
    assert result.exit_code == 0, result.output
    assert "Deal 1 of 6: P3 bids first." in output
    assert "Deal 6 of 6: P2 bids first." in output
    assert "Game over. P2 is tied with P3, P1 on 240 points" in output
    assert _totals_rows(result.stdout)[-1] == (240, 240, 240)


@pytest.mark.parametrize(
    "text",
    [
        "",
        _lines(2),
        SET_UP,
        SET_UP + _lines(1, "n", 3),
        SET_UP + DEALS[0],
    ],
)
def test_interactive_end_of_input_stops_with_status_1(text: str) -> None:
    result, _ = _interactive(text)
    assert result.exit_code == 1
    assert result.stderr.strip() == "Stopped before the end of the game; the score sheet is not kept."
    assert isinstance(result.exception, SystemExit)


def test_help_documents_the_defaults() -> None:
    result = runner.invoke(app, ["score", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    output = " ".join(result.stdout.split())
    assert 'A missing "first_player" is options.first_player, else seat 0' in output
    assert 'a missing "safety" list means no safeties' in output
