"""The batched environment's random streams: one independent stream per game slot, and per game of a slot."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from luz.engine import InvalidOptions
from luz.research import vector_core as core
from luz.research.vector import LuzBatch
from luz.research.vector_env import LuzVectorEnv

SLOTS = 4096
DRAWS = 16


def next_draws(batch: LuzBatch, count: int) -> np.ndarray:
    """The next ``count`` 64-bit outputs of every slot's stream (drawn from a copy: the batch is unchanged)."""
    rng = batch._rng.copy()
    return np.array([[core._next(rng, i) for _ in range(count)] for i in range(batch.num_games)], dtype=np.uint64)


@pytest.fixture(scope="module")
def draws() -> np.ndarray:
    batch = LuzBatch(SLOTS, "iello-2024", 4, seed=0)
    batch.reset()
    return next_draws(batch, DRAWS)


def test_no_slot_replays_its_neighbours_stream(draws: np.ndarray) -> None:
    """The overlap that a shared stream shows: slot i+1's draws are slot i's, one draw later (or earlier)."""
    shifted = int((draws[1:, 0] == draws[:-1, 1]).sum())
    assert shifted == 0, f"slot i+1's first draw is slot i's second in {shifted} of {SLOTS - 1} slots"
    shared = sum(len(set(draws[i]) & set(draws[i + 1])) for i in range(SLOTS - 1))
    assert shared == 0  # 64-bit outputs: a chance coincidence has odds of about 1e-13


@pytest.mark.parametrize("lag", [-2, -1, 0, 1, 2])
def test_neighbouring_slots_draws_are_uncorrelated(draws: np.ndarray, lag: int) -> None:
    """Draw k of slot i against draw k + lag of slot i + 1: no correlation, and a 4 x 4 table of their values
    modulo 4 (a first player's draw) that a chi-square test finds independent."""
    low, high = max(0, -lag), DRAWS - max(0, lag)
    mine = draws[:-1, low:high].ravel()
    neighbours = draws[1:, low + lag : high + lag].ravel()
    uniform = (mine >> np.uint64(11)).astype(np.float64), (neighbours >> np.uint64(11)).astype(np.float64)
    correlation = np.corrcoef(*uniform)[0, 1]
    assert abs(correlation) < 0.05  # about 8 standard deviations for 57,000 pairs; a shifted stream gives 1
    table = np.zeros((4, 4))
    np.add.at(table, ((mine % np.uint64(4)).astype(np.int64), (neighbours % np.uint64(4)).astype(np.int64)), 1)
    assert chi2_contingency(table).pvalue > 1e-6


def test_every_value_of_a_draw_is_as_frequent_in_every_slot(draws: np.ndarray) -> None:
    """Each slot's own stream is uniform: the draws modulo 6 across slots and draw indices fit a uniform law."""
    counts = np.bincount((draws % np.uint64(6)).astype(np.int64).ravel(), minlength=6)
    expected = draws.size / 6
    assert (((counts - expected) ** 2) / expected).sum() < 30  # chi-square, 5 degrees of freedom: p < 2e-5


def deals(batch: LuzBatch) -> list[tuple[object, ...]]:
    return [(batch.first_player(g), batch.hands(g)) for g in range(batch.num_games)]


def test_a_slots_games_do_not_depend_on_the_batch_size() -> None:
    small, large = LuzBatch(4, "standard-deck", 3, seed=5), LuzBatch(64, "standard-deck", 3, seed=5)
    for _ in range(3):  # three games in each slot, started by reset() without a seed
        small.reset()
        large.reset()
        assert deals(small) == deals(large)[:4]


def test_a_games_deals_depend_on_the_seed_slot_and_game_number_only() -> None:
    """Opponents that draw random actions consume their slot's stream as the learner's play leads them: the next
    game is dealt the same all the same."""
    firsts = []
    for policy in (1, 2):
        env = LuzVectorEnv(8, "iello-2024", 4, seat=None, opponents="random", seed=3)
        rng = np.random.default_rng(policy)
        observations, _ = env.reset()
        first = np.zeros_like(observations["observation"])
        started = np.zeros(env.num_envs, dtype=bool)
        while not started.all():
            masks = observations["action_mask"]
            actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
            observations, _, terminated, _, _ = env.step(actions)
            new = terminated & ~started
            first[new] = observations["observation"][new]
            started |= terminated
        firsts.append(first)
    np.testing.assert_array_equal(firsts[0], firsts[1])


def test_reset_without_a_seed_gives_new_games_and_a_seed_replays_them() -> None:
    batch = LuzBatch(16, "iello-2024", 4, seed=9)
    batch.reset()
    seen = deals(batch)
    batch.reset()
    assert deals(batch) != seen
    assert all(a != b for a, b in zip(deals(batch), seen, strict=True))
    batch.reset(seed=9)
    assert deals(batch) == seen
    again = LuzBatch(16, "iello-2024", 4, seed=1)
    again.reset(seed=9)
    assert deals(again) == seen


def test_a_list_of_seeds_gives_one_seed_per_slot() -> None:
    batch = LuzBatch(3, "iello-2024", 4, seed=0)
    batch.reset(seed=[7, 7, 8])
    first = deals(batch)
    assert first[0] == first[1] != first[2]
    single = LuzBatch(1, "iello-2024", 4)
    single.reset(seed=[8])
    assert deals(single)[0] == first[2]
    batch.reset(seed=[None, 7, None])  # None: that slot goes on to a new game
    second = deals(batch)
    assert second[1] == first[1] and second[0] != first[0] and second[2] != first[2]


@pytest.mark.parametrize(
    ("seed", "error"),
    [
        (-1, InvalidOptions),
        (1.0, InvalidOptions),
        (True, InvalidOptions),
        ("1", InvalidOptions),
        ([1, 2], InvalidOptions),  # two seeds for three slots
        ([1, 2, -3], InvalidOptions),
        ([1, 2, 2.5], InvalidOptions),
        ([1, False, 2], InvalidOptions),
        (np.array([1.0, 2.0, 3.0]), InvalidOptions),
    ],
)
def test_bad_seeds_are_refused_with_a_clear_error(seed: object, error: type[Exception]) -> None:
    batch = LuzBatch(3, "iello-2024", 4)
    batch.reset()
    before = deals(batch)
    with pytest.raises(error, match="seed"):
        batch.reset(seed=seed)  # type: ignore[arg-type]
    assert deals(batch) == before
    if not isinstance(seed, list | tuple | np.ndarray):
        with pytest.raises(error, match="seed"):
            LuzBatch(3, "iello-2024", 4, seed=seed)  # type: ignore[arg-type]
    env = LuzVectorEnv(3, "iello-2024", 4)
    with pytest.raises(error, match="seed"):
        env.reset(seed=seed)  # type: ignore[arg-type]


def test_numpy_integers_and_large_seeds_are_accepted() -> None:
    a, b = LuzBatch(2, seed=np.int64(12)), LuzBatch(2, seed=12)
    a.reset()
    b.reset()
    assert deals(a) == deals(b)
    LuzBatch(2, seed=2**100).reset()
    a.reset(seed=np.arange(5, 7))
    b.reset(seed=(5, 6))
    assert deals(a) == deals(b)
