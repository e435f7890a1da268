"""The adapters' shared encoding (numpy only, no framework needed): action ids, tensors and text from views."""

from __future__ import annotations

import random

import numpy as np
import pytest

from luz.engine import Bid, Game, IllegalAction, InvalidAction, Phase, Play, view
from luz.research.encoding import ACTION_COUNT, BID_IDS, Encoder, Memory, Table, action_id, action_of, points_scale
from support.reference import CONFIGS, SEATS, VALUES
from support.research import twin_tables


def test_action_ids_bids_then_positions() -> None:
    assert (BID_IDS, ACTION_COUNT) == (22, 32)
    for tricks in range(11):
        for safety in (False, True):
            assert action_id(Bid(tricks, safety)) == 2 * tricks + safety
            assert action_of(2 * tricks + safety) == Bid(tricks, safety)
    for slot in range(10):
        assert action_id(Play(slot)) == 22 + slot and action_of(np.int32(22 + slot)) == Play(slot)


@pytest.mark.parametrize("bad", [-1, 32, True, 2.0, "3", None, Play(10)])
def test_bad_action_ids_are_refused(bad: object) -> None:
    with pytest.raises(InvalidAction):
        action_id(bad) if isinstance(bad, Play) else action_of(bad)  # type: ignore[arg-type]


def encoders(key: str, players: int) -> tuple[Encoder, Encoder]:
    game = Game.new(key, players, seed=0)
    return tuple(Encoder(game.edition, players, game.options, recall) for recall in (True, False))  # type: ignore[return-value]


@pytest.mark.parametrize(("key", "players", "seat"), SEATS)
def test_a_seats_own_hidden_values_change_neither_tensor_nor_text(key: str, players: int, seat: int) -> None:
    rng = random.Random(f"{key}{players}{seat}")
    changed = 0
    for _ in range(8):
        table, twin, differs = twin_tables(key, players, seat, rng)
        for encoder in encoders(key, players):
            seen, memory = view(table.game, seat), table.memory()
            other, other_memory = view(twin.game, seat), twin.memory()
            assert np.array_equal(encoder.tensor(seen, seat, memory), encoder.tensor(other, seat, other_memory))
            assert encoder.text(seen, seat, memory) == encoder.text(other, seat, other_memory)
            neighbour = (seat + 1) % players
            if differs:  # the check can fail: the next seat sees those values
                assert not np.array_equal(
                    encoder.tensor(view(table.game, neighbour), neighbour),
                    encoder.tensor(view(twin.game, neighbour), neighbour),
                )
        changed += differs
    assert changed > 0


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_tensor_pieces_say_what_the_view_says(key: str, players: int) -> None:
    rng = random.Random(key)
    table = Table(Game.new(key, players, seed=players))
    while table.game.phase is not Phase.GAME_OVER and rng.random() > 0.01:
        table.apply_id(rng.choice(table.legal_ids()))
    recall, plain = encoders(key, players)
    assert plain.size < recall.size and "plays" not in dict(plain.pieces)
    seat = rng.randrange(players)
    seen = view(table.game, seat)
    pieces = recall.split(recall.tensor(seen, seat, table.memory()))
    low, _ = VALUES[key, players]
    assert pieces["seat"].tolist() == [float(s == seat) for s in range(players)]
    for holder, hand in enumerate(seen.hands):
        row = pieces["hands"][(holder - seat) % players]
        colours = len(table.game.edition.colours)
        for s in hand:
            assert row[s.slot, s.colour] == 1 and row[s.slot, :colours].sum() == 1
            values = row[s.slot, colours:-1]
            assert values.sum() == (s.value is not None) and (s.value is None or values[s.value - low] == 1)
            assert row[s.slot, -1] == s.played
    scale = points_scale(table.game.edition, table.game.options)
    for d, result in enumerate(seen.results):
        for holder, points in enumerate(result.scores):
            assert pieces["scores"][d, (holder - seat) % players] == pytest.approx(points / scale)
    assert np.all(np.abs(recall.tensor(seen, seat, table.memory())) <= 1)


def test_plays_are_remembered_by_trick_and_place() -> None:
    table = Table(Game.new("iello-2024", 3, seed=2))
    rng = random.Random(2)
    while len(table.plays) < 7:
        table.apply_id(rng.choice(table.legal_ids()))
    recall, _ = encoders("iello-2024", 3)
    pieces = recall.split(recall.tensor(view(table.game, 0), 0, table.memory()))
    for i, (holder, slot) in enumerate(table.plays):
        entry = pieces["plays"][holder % 3, slot]  # seat 0 observes: seats are not rotated
        assert entry[i // 3] == 1 and entry[10 + i % 3] == 1 and entry.sum() == 2
    assert pieces["plays"].sum() == 2 * 7
    text = recall.text(view(table.game, 0), 0, table.memory())
    assert "plays from trick 1: " + " ".join(f"{h}.{s}" for h, s in table.plays[:3]) in text


def test_a_deal_ending_returns_the_points_and_forgets_the_plays() -> None:
    table = Table(Game.new("standard-deck", 4, seed=3))
    rng = random.Random(3)
    scores = None
    while scores is None:
        scores = table.apply_id(rng.choice(table.legal_ids()))
    assert scores == table.game.results[0].scores and table.memory() == Memory(0, ())


def test_the_table_refuses_bad_actions_and_changes_nothing() -> None:
    table = Table(Game.new("iello-2024", 4, seed=4))
    before = (list(table.game.actions[-1]), table.memory())
    with pytest.raises(IllegalAction):
        table.apply_id(25)
    with pytest.raises(InvalidAction):
        table.apply_id(99)
    assert (list(table.game.actions[-1]), table.memory()) == before
    mask = table.action_mask(table.game.current_player)
    assert mask.tolist() == [1] * 22 + [0] * 10
    assert table.action_mask((table.game.current_player + 1) % 4).sum() == 0


@pytest.mark.parametrize("trick_history", [False, True])
def test_a_table_from_a_view_remembers_what_the_view_shows(trick_history: bool) -> None:
    rng = random.Random(6)
    table = Table(Game.new("korokorodou-2014", 4, seed=6, trick_history=trick_history))
    for _ in range(4 + 4 * 3 + 2):
        table.apply_id(rng.choice(table.legal_ids()))
    seat = table.game.current_player
    seen = view(table.game, seat)
    rebuilt = Table.from_view(seen, rng)
    assert view(rebuilt.game, seat) == seen
    if trick_history:
        assert rebuilt.memory() == table.memory()
    else:  # the trick being played only (the last complete one is no longer shown)
        assert rebuilt.memory() == Memory(3, tuple(table.plays[-2:]))


def test_no_action_once_the_game_is_over() -> None:
    table = Table(Game.new("iello-2024", 3, seed=5))
    rng = random.Random(5)
    while table.game.phase is not Phase.GAME_OVER:
        table.apply_id(rng.choice(table.legal_ids()))
    assert table.legal_ids() == [] and table.action_mask(0).sum() == 0
    with pytest.raises(IllegalAction, match="the game is over"):
        table.apply_id(0)
