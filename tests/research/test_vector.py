"""The batched environment against the engine and the encoder: the same tensors, masks, seats and points."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from luz.engine import Game, IllegalAction, InvalidAction, InvalidOptions, Phase, get_edition, view
from luz.research import vector_core as core
from luz.research.encoding import Table
from luz.research.vector import LuzBatch
from support.reference import CONFIGS, hidden_variant

GAMES = 4


def mirror(batch: LuzBatch, game: int) -> Table:
    """An engine table holding game ``game`` of the batch, dealt its current deal (at the start of a game)."""
    engine = Game(batch.edition, batch.players, replace(batch.options, first_player=batch.first_player(game)))
    deal_into(engine, batch, game)
    return Table(engine)


def deal_into(engine: Game, batch: LuzBatch, game: int) -> None:
    hands = batch.hands(game)
    dealt = {card for hand in hands for card in hand}
    engine.deal(hands, [card for card in batch.edition.deck(batch.players) if card not in dealt])


def check_against_engine(batch: LuzBatch, steps: int, seed: int, every_seat_each: int = 7) -> int:
    """Step ``batch`` with random legal actions, checking every game against an engine mirror; the games ended."""
    rng = np.random.default_rng(seed)
    seats, observations, masks = batch.reset()
    tables = [mirror(batch, g) for g in range(batch.num_games)]
    ended = 0
    for step in range(steps):
        for g, table in enumerate(tables):
            seat = table.game.current_player
            assert seats[g] == seat
            expected = batch.encoder.tensor(view(table.game, seat), seat, table.memory())
            np.testing.assert_array_equal(observations[g], expected)
            np.testing.assert_array_equal(masks[g], table.action_mask(seat))
        if step % every_seat_each == 0:
            for seat in range(batch.players):
                everyone = batch.observe(np.full(batch.num_games, seat))
                for g, table in enumerate(tables):
                    expected = batch.encoder.tensor(view(table.game, seat), seat, table.memory())
                    np.testing.assert_array_equal(everyone[g], expected)
            batch.observe(seats)  # the buffers hold the seats to act again
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        seats, observations, masks, rewards, done = batch.step(actions)
        for g, table in enumerate(tables):
            points = table.apply_id(int(actions[g]))
            expected_points = np.zeros(batch.players) if points is None else np.array(points)
            np.testing.assert_array_equal(rewards[g], expected_points)
            assert bool(done[g]) == (table.game.phase is Phase.GAME_OVER)
            if done[g]:
                ended += 1
                tables[g] = mirror(batch, g)
            elif table.game.phase is Phase.DEAL:
                deal_into(table.game, batch, g)
    return ended


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_tensors_masks_and_points_equal_the_engines(key: str, players: int) -> None:
    batch = LuzBatch(GAMES, key, players, seed=players)
    ended = check_against_engine(batch, steps=600, seed=1)
    assert ended >= GAMES  # every slot went through whole games and a reset


@pytest.mark.parametrize(
    ("key", "players", "overrides"),
    [
        ("iello-2024", 4, {"bid_cap": 12, "made_points": [3, 1, 4, 1]}),
        ("iello-2024", 3, {"bid_cap": None, "first_player": 2}),
        ("korokorodou-2014", 4, {"bid_cap": 11, "trick_history": True}),
        ("standard-deck", 3, {"bid_cap": 9}),
    ],
)
def test_table_options_and_the_view_alone(key: str, players: int, overrides: dict[str, object]) -> None:
    for recall in (True, False):
        batch = LuzBatch(GAMES, key, players, seed=7, perfect_recall=recall, **overrides)  # type: ignore[arg-type]
        assert check_against_engine(batch, steps=250, seed=2, every_seat_each=50) >= 1


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_a_finished_games_tensor_is_the_encoders(key: str, players: int) -> None:
    """The tensor of a game just ended (the final observation of ``LuzVectorEnv``), for every seat."""
    batch = LuzBatch(1, key, players, seed=players)
    rng = np.random.default_rng(0)
    _, _, masks = batch.reset()
    table = mirror(batch, 0)
    while True:
        action = int(rng.choice(np.flatnonzero(masks[0])))
        table.apply_id(action)
        if table.game.phase is Phase.GAME_OVER:
            break
        _, _, masks, _, _ = batch.step(np.array([action]))
        if table.game.phase is Phase.DEAL:
            deal_into(table.game, batch, 0)
    *state, scale = batch._state()
    assert core._apply(*state, 0, action, np.zeros(players, np.float32)) == 1  # the game ends, stays in its slot
    out = np.zeros(batch.encoder.size, np.float32)
    for seat in range(players):
        core.encode_finished(
            batch._val, batch._col, batch._played, batch._st, batch._bids, batch._safe, batch._won, batch._rules,
            batch._gs, batch._scores, batch._mem, batch._close, batch._table, scale, 0, seat, out,
        )  # fmt: skip
        np.testing.assert_array_equal(out, batch.encoder.tensor(view(table.game, seat), seat, table.memory()))


def test_parallel_and_serial_kernels_agree_and_a_seed_reproduces_a_run() -> None:
    runs = []
    for parallel in (False, True, False):
        batch = LuzBatch(32, "iello-2024", 5, seed=11, parallel=parallel)
        rng = np.random.default_rng(3)
        _, observations, masks = batch.reset()
        trace = [observations.copy()]
        for _ in range(400):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            _, observations, masks, rewards, done = batch.step(actions)
            trace += [observations.copy(), rewards.copy(), done.copy()]
        runs.append(trace)
    for other in runs[1:]:
        for a, b in zip(runs[0], other, strict=True):
            np.testing.assert_array_equal(a, b)
    other_seed = LuzBatch(32, "iello-2024", 5, seed=12)
    assert not np.array_equal(other_seed.reset()[1], runs[0][0])


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_a_seats_own_hidden_values_change_nothing_it_observes(key: str, players: int) -> None:
    """Non-interference on the batched path: redeal what a seat cannot see (its own unplayed values, the aside)
    and its tensor and the masks stay the same, as the game goes on until it plays a card."""
    rng = random.Random(players)
    actions_rng = np.random.default_rng(0)
    edition = get_edition(key)
    changed = 0
    for trial in range(6):
        batch = LuzBatch(1, key, players, seed=trial)
        twin = LuzBatch(1, key, players, seed=trial)
        _, _, masks = batch.reset()
        twin.reset()
        for _ in range(int(actions_rng.integers(0, 10 * players + players))):
            action = np.array([actions_rng.choice(np.flatnonzero(masks[0]))])
            _, _, masks, _, _ = batch.step(action)
            twin.step(action)
        seat = int(rng.randrange(players))
        hands = batch.hands(0)
        dealt = {card for hand in hands for card in hand}
        aside = [card for card in edition.deck(players) if card not in dealt]
        played = {s for s in range(10) if batch._played[0, seat, s]}
        new_hands, _ = hidden_variant(hands, aside, seat, played, rng, must_differ=True)
        changed += list(new_hands[seat]) != list(hands[seat])
        twin._val[0, seat] = [card.value for card in new_hands[seat]]
        for _ in range(3 * players):
            seen = batch.observe(np.array([seat])).copy()
            np.testing.assert_array_equal(twin.observe(np.array([seat])), seen)
            np.testing.assert_array_equal(twin._mask, batch._mask)
            action = np.array([actions_rng.choice(np.flatnonzero(batch._mask[0]))])
            if batch._st[0, 1] == seat and action[0] >= 22:
                break  # its own play shows its value: the worlds may differ from here on
            batch.step(action)
            twin.step(action)
    assert changed >= 3  # the twins really held other cards


def test_bad_actions_are_refused_and_change_nothing() -> None:
    batch = LuzBatch(3, "iello-2024", 4, seed=0)
    _, observations, masks = batch.reset()
    before = observations.copy()
    legal = np.array([np.flatnonzero(m)[0] for m in masks])
    for bad, error in (
        (np.array([legal[0], legal[1], 22]), IllegalAction),  # a play while bidding
        (np.array([legal[0], 40, legal[2]]), IllegalAction),
        (legal[:2], InvalidAction),
        (np.array([0.0, 0.0, 0.0]), InvalidAction),
        ("bid", InvalidAction),
    ):
        with pytest.raises(error):
            batch.step(bad)
    np.testing.assert_array_equal(batch.observe(batch._st[:, 1]), before)
    for seats in (np.array([0, 1, 4]), np.array([0, 1]), "abc"):
        with pytest.raises(InvalidAction):
            batch.observe(seats)
    with pytest.raises(InvalidOptions):
        LuzBatch(0)
    with pytest.raises(InvalidOptions):
        LuzBatch(2, "iello-2024", 4, options=get_edition("iello-2024").options(4), bid_cap=3)
