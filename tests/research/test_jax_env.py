"""The JAX environment against the engine on every table, under the numba environment's own equality check."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed (pip install 'luz-game[jax]')")

import research.test_vector as numba_env_tests  # noqa: E402  (its checker, after the skip; its tests stay there)
from luz.engine import IllegalAction, InvalidAction, get_edition  # noqa: E402
from luz.research.jax_env import JaxBatch, LuzJax, State, compiled, on_lanes  # noqa: E402
from support.reference import CONFIGS  # noqa: E402

check_against_engine = numba_env_tests.check_against_engine
"""Steps a batch with random legal actions and compares every game with an engine mirror: the seat to act, its
tensor and mask, every seat's tensor now and then, the points, the done flags."""
GAMES = 2
STEPS = 240
"""Enough for a whole game of every table (220 decisions with 5 players) and a reset."""


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_tensors_masks_seats_and_points_equal_the_engines(key: str, players: int) -> None:
    batch = JaxBatch(GAMES, key, players, seed=players)
    assert check_against_engine(batch, steps=STEPS, seed=1) >= GAMES  # whole games, then a new one in each slot


def test_table_options_and_the_view_alone() -> None:
    """A bid cap where the edition has none, made points and a first player set, no perfect recall."""
    options = {"bid_cap": 9, "first_player": 2, "made_points": [3, 1, 4, 1]}
    batch = JaxBatch(GAMES, "standard-deck", 3, seed=5, perfect_recall=False, **options)  # type: ignore[arg-type]
    assert check_against_engine(batch, steps=STEPS, seed=2) >= GAMES
    assert {batch.first_player(g) for g in range(GAMES)} == {2}


def plain(leaf: Any) -> np.ndarray:
    """A state's leaf as numpy (a key array as its data)."""
    if jax.numpy.issubdtype(leaf.dtype, jax.dtypes.prng_key):
        leaf = jax.random.key_data(leaf)
    return np.asarray(leaf)


def test_step_batch_equals_vmap_of_step() -> None:
    """``step_batch`` deals only in the games whose deal ended (here every game's at once, one game a round): its
    states, points and done flags are ``vmap(step)``'s, through a whole game and into the next."""
    edition = get_edition("iello-2024")
    env, init, step_batch, _ = compiled(LuzJax, edition, 4, edition.options(4), True)
    step, legal = jax.jit(jax.vmap(env.step)), jax.jit(jax.vmap(env.legal_mask))
    states = batched = init(jax.random.split(jax.random.key(7), GAMES))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(STEPS):
        actions = jax.numpy.asarray([rng.choice(np.flatnonzero(m)) for m in np.asarray(legal(states))])
        states, rewards, done = step(states, actions)
        batched, batch_rewards, batch_done = step_batch(batched, actions)
        for a, b in zip(jax.tree.leaves(states), jax.tree.leaves(batched), strict=True):
            np.testing.assert_array_equal(plain(a), plain(b))
        np.testing.assert_array_equal(np.asarray(rewards), np.asarray(batch_rewards))
        np.testing.assert_array_equal(np.asarray(done), np.asarray(batch_done))
        ended += int(np.asarray(done).sum())
    assert ended == GAMES


def test_on_lanes_gives_vmaps_results_in_the_chosen_lanes_and_the_default_elsewhere() -> None:
    values, keys = jax.numpy.arange(10), jax.random.split(jax.random.key(0), 10)

    def lane(value: Any, key: Any) -> tuple[Any, Any]:
        return value * 3 + 1, jax.random.split(key)[0]

    chosen_lanes = jax.jit(lambda mask: on_lanes(lane, mask, (values, keys), (values, keys), share=4))
    new_values, new_keys = jax.vmap(lane)(values, keys)
    for chosen in ([], [4], [0, 1, 2, 9], list(range(10))):  # rounds of 3 lanes: 0, 1, 2 and 4 rounds
        mask = np.isin(np.arange(10), chosen)
        got_values, got_keys = chosen_lanes(jax.numpy.asarray(mask))
        np.testing.assert_array_equal(np.asarray(got_values), np.where(mask, new_values, values))
        np.testing.assert_array_equal(plain(got_keys), np.where(mask[:, None], plain(new_keys), plain(keys)))


class WrongTrump(LuzJax):
    """A wrong trick winner: the colour after the trump is taken for it."""

    def trick_winner(self, state: State, start: Any) -> Any:
        self.trump = (self.edition.trump + 1) % self.colours
        return super().trick_winner(state, start)


class SafetyIgnored(LuzJax):
    """A wrong score: bids with a safety scored as bids without one."""

    def deal_points(self, state: State) -> Any:
        return super().deal_points(state._replace(safe=state.safe * 0))


@pytest.mark.parametrize("rules", [WrongTrump, SafetyIgnored])
def test_the_check_catches_a_wrong_rule(rules: type[LuzJax]) -> None:
    batch = JaxBatch(GAMES, "iello-2024", 4, seed=4, rules=rules)
    with pytest.raises(AssertionError):
        check_against_engine(batch, steps=STEPS, seed=1)


def test_a_seed_reproduces_its_games_and_another_seed_deals_others() -> None:
    traces = []
    for seed in (3, 3, 4):
        batch = JaxBatch(GAMES, "iello-2024", 4, seed=seed)  # a table and batch size compiled already
        _, observations, masks = batch.reset()
        trace = [observations.copy()]
        for turn in range(60):
            actions = np.array([np.flatnonzero(m)[turn % m.sum()] for m in masks])
            _, observations, masks, rewards, _ = batch.step(actions)
            trace += [observations.copy(), rewards.copy()]
        traces.append(trace)
    for a, b in zip(traces[0], traces[1], strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(traces[0][0][0], traces[0][0][1])  # the games of a batch differ
    assert not np.array_equal(traces[0][0], traces[2][0])


def test_bad_actions_are_refused_and_change_nothing() -> None:
    batch = JaxBatch(GAMES, "iello-2024", 4, seed=0)  # a batch size compiled already
    _, observations, masks = batch.reset()
    before = observations.copy()
    legal = np.array([np.flatnonzero(m)[0] for m in masks])
    for bad, error in (
        (np.array([legal[0], 22]), IllegalAction),  # a play while bidding
        (np.array([40, legal[1]]), IllegalAction),
        (legal[:1], InvalidAction),
        (np.array([0.0, 0.0]), InvalidAction),
    ):
        with pytest.raises(error):
            batch.step(bad)
    np.testing.assert_array_equal(batch.observe(np.asarray(batch.state.current)), before)
    with pytest.raises(InvalidAction):
        batch.observe(np.array([0, 4]))


def test_deals_are_uniform() -> None:
    """Each card is in each hand, or set aside, as often as chance says (a chi-square test over 2,000 deals)."""
    stats = pytest.importorskip("scipy.stats")
    env, init, _, _ = compiled(LuzJax, get_edition("iello-2024"), 4, get_edition("iello-2024").options(4), True)
    states = init(jax.random.split(jax.random.key(8), 2000))
    cards = np.asarray(states.col) * env.values + np.asarray(states.val) - env.low  # [deals, seat, slot]
    size = env.colours * env.values
    counts = np.zeros((size, 5))
    for seat in range(4):
        counts[:, seat] = np.bincount(cards[:, seat].ravel(), minlength=size)
    counts[:, 4] = 2000 - counts[:, :4].sum(axis=1)  # set aside
    assert counts[:, 4].sum() == 2000 * 10  # 10 cards aside in each deal, each card dealt once
    chi2 = ((counts - 400) ** 2 / 400).sum()
    assert stats.chi2.sf(chi2, size * 4) > 1e-4


def test_a_seats_own_unplayed_values_change_nothing_it_observes() -> None:
    """Non-interference on the JAX path: other values in a seat's unplayed slots, and its tensor stays the same,
    while the other seats, who see those values, observe the change."""
    batch = JaxBatch(GAMES, "iello-2024", 4, seed=6)  # a table and batch size compiled already
    _, _, masks = batch.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):  # into the play: some cards played
        _, _, masks, _, _ = batch.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    for seat in range(4):
        seats = np.full(GAMES, seat)
        seen = batch.observe(seats).copy()
        others = batch.observe((seats + 1) % 4).copy()
        state = batch.state
        unplayed = ~np.asarray(state.played)[:, seat]
        values = np.asarray(state.val).copy()
        low = batch.env.low
        values[:, seat] = np.where(unplayed, low + (values[:, seat] - low + 1) % 10, values[:, seat])  # 1..10
        batch.state = state._replace(val=jax.numpy.asarray(values))
        np.testing.assert_array_equal(batch.observe(seats), seen)
        assert not np.array_equal(batch.observe((seats + 1) % 4), others)
        batch.state = state
