"""``luz play``: whole games driven through the command line, bad input re-asked, records, hidden values."""

from __future__ import annotations

import io
import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from luz.bots import make_bot
from luz.cli import app
from luz.cli.play import HUMAN, ask_human, read_slot
from luz.cli.render import render_own_hand, render_table
from luz.engine import Bid, Game, IllegalAction, InvalidAction, Phase, Play, view
from luz.engine.beliefs import with_hints
from luz.engine.record import dumps, replay
from support.reference import random_steps, twin_deals

NAMES = ["Zoe", "Ada", "Ben", "Cleo"]
CANDIDATES = ["?", "abc", "11", "3+", "", *map(str, range(11))]
"""Typed in a loop, whatever the prompt: help, junk, numbers out of range, bids, every slot 1..10 and 0 (bad ones
are re-asked)."""


def keyboard(lines: int = 3000) -> str:
    return "\n".join(itertools.islice(itertools.cycle(CANDIDATES), lines)) + "\n"


def run(*args: str, input: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["play", *args], input=input)
    return result.exit_code, result.output


def test_a_whole_game_with_bad_input_mixed_in(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    code, output = run("--seed", "5", "--record", str(record), "--name", "Zoe", input=keyboard())
    assert code == 0, output
    assert "Traceback" not in output
    for message in (
        "is not a bid",
        "is not a slot",
        "a bid must be 0..10 tricks, not 11",
        "a slot must be 1..10, not 11",
        "a slot must be 1..10, not 0",
        "you must follow",
        "was already played",
        "Play: the slot number of a card of your hand (1 = low end, 10 = HIGH end)",
    ):
        assert message in output, message
    assert "0..9" not in output
    narrated = {int(n) for n in re.findall(r" plays? \S+ \(slot (\d+)\)", output)}
    assert narrated == set(range(1, 11)), "every card played is named by its slot counted from 1"
    assert output.count("Score sheet") == 4
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["names"] == NAMES
    game = replay(data)
    outcome = game.outcome()
    assert outcome is not None and outcome.to_json() == data["outcome"]
    assert outcome.explain(NAMES) in output
    assert f"Record saved to {record}" in output


def test_a_bid_over_the_cap_is_re_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.new("iello-2024", players=4, seed=1, first_player=HUMAN, bid_cap=3)
    monkeypatch.setattr("sys.stdin", io.StringIO("10\n2+\n"))
    shown = io.StringIO()
    assert ask_human(Console(file=shown, width=80), game) == Bid(2, safety=True)
    assert "only 3 bid token(s) left under the table's cap of 3: bid at most 3" in shown.getvalue()
    assert game.bids[HUMAN] == Bid(2, safety=True)


def human_to_lead() -> Game:
    """A game whose first trick the human leads, every bid made."""
    game = Game.new("iello-2024", players=4, seed=1, first_player=HUMAN)
    while game.phase is Phase.BID:
        game.apply(Bid(1))
    return game


def test_slots_are_typed_and_shown_from_1() -> None:
    """Slot N as typed and shown is the engine's slot N - 1; 0 and 11 are out of range, in one line each."""
    game = human_to_lead()
    shown = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdin", io.StringIO("0\n11\n10\n"))
        assert ask_human(Console(file=shown, width=200), game) == Play(9)
    asked = "Your card (slot 1 2 3 4 5 6 7 8 9 10; ? for help): "
    assert shown.getvalue().splitlines() == [
        asked + "a slot must be 1..10, not 0",
        asked + "a slot must be 1..10, not 11",
        asked,
    ]
    assert game.deals[-1].hands[HUMAN][9] in [card for _, _, card in game.trick.plays]
    for number in ("1", "01", "٣"):  # leading zeros and any script's digits are the same slot
        assert read_slot(number, game) == int(number) - 1
    with pytest.raises(InvalidAction, match=r"^'1+\.\.\. is not a slot: type the slot number"):
        read_slot("1" * 5000, game)
    with pytest.raises(InvalidAction, match=r"^'²' is not a slot: type the slot number \(1\.\.10\)"):
        read_slot("²", game)
    while game.current_player != HUMAN:
        game.apply(game.legal_actions()[0])
    with pytest.raises(IllegalAction, match=r"^slot 10 was already played$"):
        read_slot("10", game)
    hand = render_own_hand(view(game, HUMAN)).plain.splitlines()
    assert hand[0].split() == ["slot", *map(str, range(1, 11))]
    cards = hand[1].split()[1:]
    assert cards[-1] == "HIGH" and "?" not in cards[9], "the card shown over 10 is the one played as slot 10"


def test_defaults_and_other_tables() -> None:
    code, output = run(input=keyboard())
    assert code == 0, output
    assert "LUZ (IELLO, 2024), 4 players, seed" in output
    assert "Ada (heuristic bot), Ben (heuristic bot), Cleo (heuristic bot)" in output
    code, output = run("-e", "standard-deck", "-p", "3", "--seed", "2", "--bots", "random,heuristic", input=keyboard())
    assert code == 0, output
    assert "Ada (random bot), Ben (heuristic bot)" in output
    assert "Game over" in output


def test_end_of_input_abandons_and_saves_the_game_so_far(tmp_path: Path) -> None:
    record = tmp_path / "partial.json"
    code, output = run("--seed", "5", "--record", str(record), input="2+\nnonsense\n")
    assert code == 1
    assert "Game abandoned." in output
    assert "Traceback" not in output
    game = replay(record.read_text(encoding="utf-8"))
    assert game.outcome() is None and any(game.actions)


def test_ctrl_c_abandons_and_saves_the_game_so_far(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupt)
    record = tmp_path / "partial.json"
    code, output = run("--seed", "3", "--record", str(record), input="")
    assert code == 1
    assert "Game abandoned." in output and "Traceback" not in output
    assert replay(record.read_text(encoding="utf-8")).outcome() is None


def test_quit_abandons() -> None:
    code, output = run("--seed", "5", input="quit\n")
    assert code == 1
    assert "Game abandoned." in output


def test_bad_options_are_usage_errors() -> None:
    for args, message in (
        (["--bots", "oracle"], "unknown bot 'oracle'"),
        (["--bots", "random,random"], "give one bot for all seats or 3"),
        (["--players", "7"], "not 7"),
        (["--edition", "nope"], "unknown edition 'nope'"),
    ):
        code, output = run(*args, input="")
        assert code == 2, args
        assert message in output


def screen(renderable: object) -> str:
    console = Console(width=80, record=True, color_system="truecolor")
    with console.capture():
        console.print(renderable)
    return console.export_text(styles=True)


def test_the_screen_never_shows_your_own_hidden_values() -> None:
    """Two tables that differ only in seat 0's values look the same to seat 0, until it plays its first card."""
    for seed in range(6):
        dealt, twin = twin_deals(Game.new("iello-2024", players=4, seed=seed), seat=0)
        assert dealt.deals[-1].hands[0] != twin.deals[-1].hands[0]
        while True:
            if dealt.current_player == 0:
                hand = render_own_hand(view(dealt, 0))
                assert hand == render_own_hand(view(twin, 0))
                assert hand.plain.count("?") == 10
                assert screen(render_table(view(dealt, 0), NAMES)) == screen(render_table(view(twin, 0), NAMES))
                if dealt.phase is Phase.PLAY:
                    break
            seat = dealt.current_player
            assert seat is not None
            action = make_bot("heuristic").choose(view(dealt, seat), random.Random(seed))
            dealt.apply(action)
            twin.apply(action)


def test_hints_show_each_slots_range_and_guess_from_the_view_alone() -> None:
    """``--hints`` adds min/guess/max rows under your hand, and they are the view's exact beliefs."""
    code, output = run("--seed", "5", "--hints", input="quit\n")
    assert code == 1
    rows = {
        line.split()[0]: line.split()[1:]
        for line in output.splitlines()
        if line.split()[:1] in (["min"], ["guess"], ["max"])
    }
    assert set(rows) == {"min", "guess", "max"}
    game = Game.new("iello-2024", 4, seed=5)
    while game.current_player != HUMAN:
        game.apply(make_bot("heuristic").choose(view(game, game.current_player), random.Random("luz-play-bots:5")))
    hints = with_hints(view(game, HUMAN)).hints
    assert hints is not None
    assert rows["min"] == [str(h["possible"][0]) for h in hints["slots"]]
    assert rows["max"] == [str(h["possible"][-1]) for h in hints["slots"]]
    assert rows["guess"] == [str(h["most_likely"][-1]) for h in hints["slots"]]
    assert all(int(lo) <= int(g) <= int(hi) for lo, g, hi in zip(rows["min"], rows["guess"], rows["max"], strict=True))


def test_no_hints_by_default() -> None:
    _, output = run("--seed", "5", input="quit\n")
    assert not any(line.split()[:1] == ["guess"] for line in output.splitlines())


def deals_of(game: Game) -> list[tuple[Any, Any]]:
    """Each deal as the engine dealt it: every hand, the aside (the first player of a 3-player game's last deal
    follows the scores: the rules' last-deal rule)."""
    return [(d.hands, d.aside) for d in game.deals]


def test_play_this_deal_deals_every_deal_of_the_record_again(tmp_path: Path) -> None:
    original = Game.new("iello-2024", 3, seed=11, bid_cap=None, trick_history=True)
    random_steps(original, random.Random(3), None)
    assert original.outcome() is not None
    source, again = tmp_path / "original.json", tmp_path / "again.json"
    source.write_text(dumps(original), encoding="utf-8")
    shown = CliRunner().invoke(app, ["replay", str(source)])
    assert shown.exit_code == 0 and f"Play this deal: luz play --deal {source}" in shown.output
    code, output = run("--deal", str(source), "--record", str(again), "--bots", "random", input=keyboard())
    assert code == 0, output
    assert "Iello" in output or "IELLO" in output
    assert f"Replay this game with: luz play --deal {source}" in output
    played = replay(json.loads(again.read_text(encoding="utf-8")))
    assert played.options == original.options and played.seed == original.seed
    assert deals_of(played) == deals_of(original) and len(deals_of(original)) == 4
    firsts = [[r.first_player for r in game.results[:3]] for game in (played, original)]
    assert firsts[0] == firsts[1] and firsts[0][0] == json.loads(source.read_text(encoding="utf-8"))["first_player"]


def test_play_this_deal_refuses_in_one_line(tmp_path: Path) -> None:
    source, unseeded = tmp_path / "game.json", tmp_path / "unseeded.json"
    source.write_text(dumps(Game.new("iello-2024", 3, seed=4)), encoding="utf-8")
    unseeded.write_text(json.dumps({**json.loads(source.read_text(encoding="utf-8")), "seed": None}), encoding="utf-8")
    for args, message in (
        (["--deal", str(unseeded)], "has no seed: its deals cannot be dealt again"),
        (["--deal", str(source), "--seed", "3"], "leave out --seed"),
        (["--deal", str(source), "-p", "4", "-e", "standard-deck"], "leave out --edition, --players"),
        (["--deal", str(tmp_path / "missing.json")], "cannot read"),
    ):
        code, output = run(*args, input="")
        assert code == 2, (args, output)
        assert message in output and output.count("\n") == 1, output
