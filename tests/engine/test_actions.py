"""Actions: malformed input is InvalidAction, well-formed but forbidden input is IllegalAction, and a refused
action never changes the game."""

from __future__ import annotations

from typing import Any

import pytest

from luz.engine import (
    Bid,
    Game,
    IllegalAction,
    InvalidAction,
    LuzError,
    Phase,
    Play,
    action_from_json,
    action_to_json,
    check_action,
    get_edition,
    parse_action,
)
from support.reference import snapshot

MALFORMED: list[Any] = [
    Bid("2"),  # type: ignore[arg-type]
    Bid(2.0),  # type: ignore[arg-type]
    Bid(True),  # bool is not a number of tricks
    Bid(False),
    Bid(-1),
    Bid(11),
    Bid(None),  # type: ignore[arg-type]
    Bid(2, safety=1),  # type: ignore[arg-type]
    Bid(2, safety="yes"),  # type: ignore[arg-type]
    Bid(2, safety=None),  # type: ignore[arg-type]
    Play(10),
    Play(-1),
    Play(True),
    Play(False),
    Play("3"),  # type: ignore[arg-type]
    Play(3.0),  # type: ignore[arg-type]
    Play(None),  # type: ignore[arg-type]
    None,
    "bid:2",
    "play:3",
    3,
    {"type": "bid", "tricks": 2},
    (2, False),
    object(),
]


def ident(value: Any) -> str:
    """A test id that is the same in every xdist worker (no memory addresses)."""
    return "object()" if type(value) is object else repr(value)


def refuse(game: Game, error: type[LuzError], action: Any, seat: int | None = None) -> None:
    before = snapshot(game)
    with pytest.raises(error):
        game.apply(action, seat=seat)
    assert snapshot(game) == before


def bidding_game() -> Game:
    return Game.new("iello-2024", 4, seed=21, first_player=1)


def playing_game(key: str = "iello-2024", players: int = 4, seed: int = 21) -> Game:
    game = Game.new(key, players, seed=seed, first_player=1)
    for _ in range(players):
        game.apply(Bid(1))
    assert game.phase is Phase.PLAY
    return game


def finished_game() -> Game:
    game = Game.new("standard-deck", 3, seed=4)
    while game.phase is not Phase.GAME_OVER:
        game.apply(game.legal_actions()[-1])
    return game


# -- malformed ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", MALFORMED, ids=ident)
def test_check_action_rejects_malformed(action: Any) -> None:
    with pytest.raises(InvalidAction):
        check_action(action)


@pytest.mark.parametrize("action", MALFORMED, ids=ident)
@pytest.mark.parametrize("when", ["bidding", "playing", "over"])
def test_apply_rejects_malformed_unchanged(action: Any, when: str) -> None:
    game = {"bidding": bidding_game, "playing": playing_game, "over": finished_game}[when]()
    refuse(game, InvalidAction, action)
    # Malformed is malformed whoever sends it.
    refuse(game, InvalidAction, action, seat=0)


def test_well_formed_actions_pass_check() -> None:
    for tricks in range(11):
        for safety in (False, True):
            assert check_action(Bid(tricks, safety)) == Bid(tricks, safety)
    for slot in range(10):
        assert check_action(Play(slot)) == Play(slot)


BAD_TEXT: list[Any] = [
    "",
    " ",
    "bid",
    "bid:",
    "bid:+",
    "bid:x",
    "bid:-1",
    "bid:11",
    "bid:2++",
    "bid:+2",
    "bid:2.0",
    "bid 2",
    "play",
    "play:",
    "play:10",
    "play:-1",
    "play:1+",
    "play:one",
    "pass",
    "bid:²",  # a digit to str.isdigit, but not a number int() reads
    "play:²",
    None,
    3,
    Bid(2),
    b"bid:2",
]


@pytest.mark.parametrize("text", BAD_TEXT, ids=ident)
def test_parse_action_rejects(text: Any) -> None:
    with pytest.raises(InvalidAction):
        parse_action(text)


BAD_JSON: list[Any] = [
    None,
    [],
    "bid:2",
    3,
    {},
    {"type": "bid"},
    {"type": "bid", "tricks": "2"},
    {"type": "bid", "tricks": True},
    {"type": "bid", "tricks": 2.0},
    {"type": "bid", "tricks": 11},
    {"type": "bid", "tricks": -1},
    {"type": "bid", "tricks": 2, "safety": "yes"},
    {"type": "bid", "tricks": 2, "safety": 1},
    {"type": "bid", "tricks": 2, "safety": None},
    {"type": "bid", "tricks": 2, "slot": 3},
    {"type": "play"},
    {"type": "play", "slot": 10},
    {"type": "play", "slot": -1},
    {"type": "play", "slot": True},
    {"type": "play", "slot": "3"},
    {"type": "play", "slot": 3, "tricks": 1},
    {"type": "pass"},
    {"type": None},
    {"tricks": 2},
]


@pytest.mark.parametrize("data", BAD_JSON, ids=ident)
def test_action_from_json_rejects(data: Any) -> None:
    with pytest.raises(InvalidAction):
        action_from_json(data)


ALL_ACTIONS = [Bid(t, s) for t in range(11) for s in (False, True)] + [Play(s) for s in range(10)]


@pytest.mark.parametrize("action", ALL_ACTIONS, ids=str)
def test_text_and_json_round_trip(action: Bid | Play) -> None:
    assert parse_action(str(action)) == action
    assert action_from_json(action_to_json(action)) == action


def test_text_and_json_forms() -> None:
    assert str(Bid(0)) == "bid:0"
    assert str(Bid(3, safety=True)) == "bid:3+"
    assert str(Play(7)) == "play:7"
    assert parse_action(" BID:2+ ") == Bid(2, True)
    assert parse_action("Play:9") == Play(9)
    assert action_to_json(Bid(2, True)) == {"type": "bid", "tricks": 2, "safety": True}
    assert action_to_json(Play(0)) == {"type": "play", "slot": 0}
    assert action_from_json({"type": "bid", "tricks": 4}) == Bid(4, False)


# -- illegal ------------------------------------------------------------------------------------------------------


def test_not_your_turn() -> None:
    game = bidding_game()
    assert game.current_player == 1
    for seat in (0, 2, 3):
        refuse(game, IllegalAction, Bid(1), seat=seat)
    game.apply(Bid(1), seat=1)
    game = playing_game()
    assert game.current_player == 1
    slot = game.legal_actions()[0]
    for seat in (0, 2, 3):
        refuse(game, IllegalAction, slot, seat=seat)
    game.apply(slot, seat=1)
    assert game.current_player == 2


@pytest.mark.parametrize("seat", [True, 1.0, "1", 7, -1, 4])
def test_apply_refuses_a_seat_that_is_not_a_seat(seat: Any) -> None:
    """``seat`` names who acts: only the current player's seat number is accepted (not True, not 1.0)."""
    game = bidding_game()
    assert game.current_player == 1
    before = snapshot(game)
    with pytest.raises((InvalidAction, IllegalAction)):
        game.apply(Bid(1), seat=seat)
    assert snapshot(game) == before


def test_play_during_bidding() -> None:
    game = bidding_game()
    for slot in (0, 5, 9):
        refuse(game, IllegalAction, Play(slot))
    game.apply(Bid(0))
    refuse(game, IllegalAction, Play(0))


def test_bid_during_play() -> None:
    game = playing_game()
    refuse(game, IllegalAction, Bid(0))
    refuse(game, IllegalAction, Bid(1, safety=True))
    game.apply(game.legal_actions()[0])
    refuse(game, IllegalAction, Bid(0))


def test_already_played_slot() -> None:
    game = playing_game()
    for _ in range(3 * game.players):  # three tricks
        game.apply(game.legal_actions()[0])
    leader = game.current_player
    assert leader is not None and not game.trick.plays
    played = [s for s in range(10) if game.is_played(leader, s)]
    assert len(played) == 3
    for s in played:
        assert Play(s) not in game.legal_actions()
        refuse(game, IllegalAction, Play(s))


def test_must_follow() -> None:
    # Find a moment where the current player holds the led colour and also other colours.
    game = playing_game("korokorodou-2014", 3, seed=2)
    for _ in range(200):
        if game.phase is not Phase.PLAY:
            break
        legal = {a.slot for a in game.legal_actions()}
        seat = game.current_player
        unplayed = {s for s in range(10) if not game.is_played(seat, s)}
        if game.trick.plays and legal != unplayed:
            led = game.trick.plays[0][2].colour
            hand = game.deals[-1].hands[seat]
            assert all(hand[s].colour == led for s in legal)
            for s in sorted(unplayed - legal):
                assert hand[s].colour != led
                refuse(game, IllegalAction, Play(s))
            return
        game.apply(min(game.legal_actions(), key=lambda a: -a.slot))
    pytest.fail("no must-follow moment found")


def test_over_the_cap() -> None:
    game = bidding_game()
    game.apply(Bid(10))
    game.apply(Bid(5, safety=True))
    refuse(game, IllegalAction, Bid(1))
    refuse(game, IllegalAction, Bid(10, safety=True))
    game.apply(Bid(0, safety=True))
    refuse(game, IllegalAction, Bid(1))


def test_after_game_over() -> None:
    game = finished_game()
    assert game.phase is Phase.GAME_OVER and game.current_player is None
    assert tuple(game.legal_actions()) == ()
    for action in (Bid(0), Bid(2, safety=True), Play(0), Play(9)):
        refuse(game, IllegalAction, action)
        refuse(game, IllegalAction, action, seat=0)


def test_waiting_for_a_deal() -> None:
    edition = get_edition("korokorodou-2014")
    game = Game(edition, 4, edition.options(4, first_player=0))
    assert game.phase is Phase.DEAL and game.current_player is None
    assert tuple(game.legal_actions()) == ()
    for action in (Bid(0), Play(0)):
        refuse(game, IllegalAction, action)
    seeded = Game.new("korokorodou-2014", 4, seed=1)
    with pytest.raises(IllegalAction):
        seeded.deal(seeded.deals[0].hands, seeded.deals[0].aside)


def test_legal_actions_are_accepted_and_others_refused() -> None:
    """At every step of a game, every legal action is accepted (on a clone) and every other one refused."""
    game = Game.new("iello-2024", 5, seed=13)
    everything = [Bid(t, s) for t in range(11) for s in (False, True)] + [Play(s) for s in range(10)]
    steps = 0
    while game.phase is not Phase.GAME_OVER and steps < 80:
        legal = list(game.legal_actions())
        for action in everything:
            if action in legal:
                trial = game.clone()
                trial.apply(action)
            elif steps % 10 == 0:
                refuse(game, IllegalAction, action)
            else:
                trial = game.clone()
                with pytest.raises(IllegalAction):
                    trial.apply(action)
        game.apply(legal[steps % len(legal)])
        steps += 1
