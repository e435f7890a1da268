"""The tournament's pure rules: duplicate scores, standings and pairing (docs/TOURNAMENTS.md), small cases by hand."""

from __future__ import annotations

import pytest

from luz.server.tournament import Entry, duplicate_scores, meetings, pair, seats_held, standings


def test_a_duplicate_score_is_points_against_the_mean_of_the_same_seat() -> None:
    """Two tables of 3 on the same cards. Seat 0 made 30 and 10 (mean 20): +10 and -10. Seat 1 made 5 and 5:
    0 each. Seat 2 made 12 (a bot) and 0 (mean 6): the player at table 1 scores -6, the bot is not scored."""
    entries = [
        Entry(0, 0, "ana", 30),
        Entry(0, 1, "bo", 5),
        Entry(0, 2, None, 12),
        Entry(1, 0, "cy", 10),
        Entry(1, 1, "di", 5),
        Entry(1, 2, "ed", 0),
    ]
    assert duplicate_scores(entries) == {"ana": 10.0, "bo": 0.0, "cy": -10.0, "di": 0.0, "ed": -6.0}


def test_standings_add_rounds_and_break_ties_by_points_then_best_round_then_draw() -> None:
    """Round 1 as above; round 2 (by hand): seat 0 ana 20, di 20 (mean 20: 0, 0); seat 1 bo 40, ed 0 (mean 20:
    +20, -20); seat 2 cy 8, bot 8 (mean 8: 0). Totals: ana 10 (50 points), bo 20, cy -10, di 0, ed -26."""
    round1 = [Entry(0, 0, "ana", 30), Entry(0, 1, "bo", 5), Entry(0, 2, None, 12)]
    round1 += [Entry(1, 0, "cy", 10), Entry(1, 1, "di", 5), Entry(1, 2, "ed", 0)]
    round2 = [Entry(0, 0, "ana", 20), Entry(0, 1, "bo", 40), Entry(0, 2, "cy", 8)]
    round2 += [Entry(1, 0, "di", 20), Entry(1, 1, "ed", 0), Entry(1, 2, None, 8)]
    table = standings(["ed", "di", "cy", "bo", "ana"], [round1, round2])
    assert [(s.player, s.score, s.points) for s in table] == [
        ("bo", 20.0, 45),
        ("ana", 10.0, 50),
        ("di", 0.0, 25),
        ("cy", -10.0, 18),
        ("ed", -26.0, 0),
    ]
    assert table[0].rounds == [0.0, 20.0] and table[0].best == 20.0
    tied = standings(["x", "y", "z"], [[Entry(0, 0, "x", 5), Entry(1, 0, "y", 5), Entry(2, 0, "z", 8)]])
    assert [s.player for s in tied] == ["z", "x", "y"]  # z made more; x and y tie on everything: the draw's order


def test_thirteen_players_at_four_make_three_full_tables_and_one_of_bots() -> None:
    players = [f"p{n:02}" for n in range(13)]
    tables = pair(players, 4)
    assert [t[:4] for t in tables[:3]] == [players[0:4], players[4:8], players[8:12]]
    assert tables[3] == ["p12", None, None, None]


def test_pairing_avoids_repeat_opponents_within_the_window() -> None:
    """After a round of tables {a b c} {d e f} and the standings a d b e c f: a's table takes d (never met), then
    b, c, e and f have each met one of a and d: b, the highest. Any two triples of these six hold two players who
    met (pigeonhole), so 2 repeats is the least possible."""
    order = ["a", "d", "b", "e", "c", "f"]
    first = [Entry(0, s, p, 0) for s, p in enumerate("abc")] + [Entry(1, s, p, 0) for s, p in enumerate("def")]
    met = meetings([first])
    tables = pair(order, 3, met)
    assert tables == [["a", "d", "b"], ["e", "c", "f"]]
    repeats = sum(met[frozenset((x, y))] for t in tables for x in t for y in t if x and y and x < y)
    assert repeats == 2
    assert pair(order, 3) == [["a", "d", "b"], ["e", "c", "f"]]  # without history: the standings in order


def test_seats_rotate_to_whoever_held_them_least() -> None:
    """a, b, c held seats 0, 1, 2: seat 0 goes to b (never held it, above c), seat 1 to a, seat 2 to c."""
    first = [Entry(0, s, p, 0) for s, p in enumerate("abc")]
    assert pair(["a", "b", "c"], 3, held=seats_held([first])) == [["b", "a", "c"]]
    assert pair(["a", "b", "c"], 3) == [["a", "b", "c"]]


def test_a_table_of_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        pair(["a"], 1)
