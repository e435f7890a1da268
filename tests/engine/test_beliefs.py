"""Beliefs: a seat's exact knowledge of its own unplayed values, checked against references written from the rules.

The references here never call :mod:`luz.engine.beliefs` to compute what they compare with: hidden worlds are
enumerated by brute force from the TRUE game (every ordered tuple of the cards the seat cannot see, kept when the
colours match its slots and its whole hand stays sorted as dealt), counts come from a product formula, samplers
are judged by chi-square tests whose power is shown on a deliberately biased sampler, and simulated games are
compared view by view with the real one.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st
from scipy.stats import chisquare
from typer.testing import CliRunner

from luz.cli import app
from luz.engine import Card, Game, Phase, get_edition, view
from luz.engine.beliefs import Beliefs, World, with_hints
from support.reference import COLOURS, CONFIGS, SEATS, VALUES, hidden_variant, random_steps, rebuild_game, ref_deck

LIVE = (Phase.BID, Phase.PLAY)

# No shrinking: an example is a game of up to a few hundred random actions; a failure is reported as drawn.
SETTINGS = settings(
    deadline=None,
    max_examples=30,
    phases=(HPhase.explicit, HPhase.reuse, HPhase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- references ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_the_reference_deck_is_the_engines(key: str, players: int) -> None:
    """The references below enumerate hidden worlds from this deck."""
    assert ref_deck(key, players) == list(get_edition(key).deck(players))


def unplayed(game: Game, seat: int) -> list[int]:
    return [s for s in range(10) if not game.is_played(seat, s)]


def visible_to(game: Game, seat: int) -> set[Card]:
    """Every card ``seat`` can see: the other hands whole (played or not) and its own played cards."""
    hands = game.deals[-1].hands
    seen = {card for holder, hand in enumerate(hands) if holder != seat for card in hand}
    return seen | {hands[seat][s] for s in range(10) if game.is_played(seat, s)}


def candidates_of(game: Game, seat: int) -> list[Card]:
    """The cards the seat cannot see: its own unplayed cards and the aside hold exactly these."""
    seen = visible_to(game, seat)
    return [c for c in ref_deck(game.edition.key, game.players) if c not in seen]


def is_sorted_hand(cards: list[Card]) -> bool:
    keys = [(c.colour, c.value) for c in cards]
    return all(a < b for a, b in itertools.pairwise(keys))


def enumerate_worlds(game: Game, seat: int) -> list[tuple[int, ...]]:
    """Brute force: every assignment of values to the seat's unplayed slots (in slot order) that could be true."""
    hand = list(game.deals[-1].hands[seat])
    slots = unplayed(game, seat)
    colours = [hand[s].colour for s in slots]
    worlds = []
    for cards in itertools.permutations(candidates_of(game, seat), len(slots)):
        if any(card.colour != colour for card, colour in zip(cards, colours, strict=True)):
            continue
        trial = list(hand)
        for s, card in zip(slots, cards, strict=True):
            trial[s] = card
        if is_sorted_hand(trial):
            worlds.append(tuple(card.value for card in cards))
    return worlds


def distributions(worlds: list[tuple[int, ...]], slots: list[int]) -> dict[int, dict[int, Fraction]]:
    """Each slot's exact value distribution over equally likely ``worlds``."""
    result = {}
    for i, slot in enumerate(slots):
        counts = Counter(w[i] for w in worlds)
        result[slot] = {v: Fraction(n, len(worlds)) for v, n in sorted(counts.items())}
    return result


def true_world(game: Game, seat: int) -> World:
    hand = game.deals[-1].hands[seat]
    return World({s: hand[s].value for s in unplayed(game, seat)}, tuple(game.deals[-1].aside))


def late_position(key: str, players: int, seed: int, seat: int) -> Game:
    """A seeded game where ``seat`` has 2-4 unplayed cards (in the first or second deal, possibly mid-trick)."""
    rng = random.Random(f"late:{key}:{players}:{seed}:{seat}")
    game = Game.new(key, players, seed=seed, trick_history=bool(seed % 2))
    if seed % 3 == 2:  # play a whole deal first
        while not game.results:
            random_steps(game, rng, 1)
    target = rng.randint(2, 4)
    while len(unplayed(game, seat)) > target:
        random_steps(game, rng, 1)
    for _ in range(rng.randrange(players)):
        if game.current_player == seat:
            break
        random_steps(game, rng, 1)
    assert game.phase is Phase.PLAY and 2 <= len(unplayed(game, seat)) <= 4
    return game


# -- 1. exactness against brute force ----------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players", "seat"), SEATS)
def test_exact_beliefs_match_brute_force_late_in_a_deal(key: str, players: int, seat: int) -> None:
    for seed in (1, 2, 3):
        game = late_position(key, players, seed, seat)
        slots = unplayed(game, seat)
        worlds = enumerate_worlds(game, seat)
        truth = tuple(game.card(seat, s).value for s in slots)
        assert truth in worlds  # the reference itself is sound
        beliefs = Beliefs(view(game, seat))
        where = f"{key}/{players}p seed {seed} seat {seat}"

        assert beliefs.slots == tuple(slots), where
        candidates = candidates_of(game, seat)
        assert beliefs.unseen == tuple(
            tuple(c.value for c in candidates if c.colour == colour) for colour in range(COLOURS[key])
        ), where
        assert beliefs.world_count() == len(worlds), where
        expected = distributions(worlds, slots)
        for slot in slots:
            assert beliefs.probabilities(slot) == expected[slot], f"{where} slot {slot}"
            assert beliefs.possible(slot) == tuple(expected[slot]), f"{where} slot {slot}"
            best = max(expected[slot].values())
            assert beliefs.most_likely(slot) == tuple(v for v, p in expected[slot].items() if p == best), where
        assert beliefs.exact_table() == expected, where
        table = beliefs.table()
        assert set(table) == set(slots)
        for slot in slots:
            assert table[slot].keys() == expected[slot].keys(), where
            for value, p in expected[slot].items():
                assert table[slot][value] == pytest.approx(float(p), abs=1e-12), where

        # Every enumerated world is consistent, with exactly the remaining cards aside.
        for values in worlds:
            world = beliefs.world(list(values))
            assert world.values == dict(zip(slots, values, strict=True))
            own = {Card(game.card(seat, s).colour, v) for s, v in zip(slots, values, strict=True)}
            assert sorted(world.aside) == sorted(set(candidates) - own), where
            assert beliefs.is_consistent(world), where
            assert beliefs.probability(world) == Fraction(1, len(worlds))

        # The hint data shown to the player says the same.
        hints = with_hints(view(game, seat)).hints
        assert hints is not None
        assert hints["worlds"] == len(worlds)
        assert [h["slot"] for h in hints["slots"]] == slots
        for h in hints["slots"]:
            dist = expected[h["slot"]]
            assert h["possible"] == list(dist)
            assert h["probabilities"] == pytest.approx([float(p) for p in dist.values()], abs=5.1e-5)
            assert h["most_likely"] == list(beliefs.most_likely(h["slot"]))


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_world_count_during_bidding_is_the_product_formula(key: str, players: int) -> None:
    low, high = VALUES[key, players]
    for seed in range(3):
        rng = random.Random(seed)
        game = Game.new(key, players, seed=100 + seed)
        random_steps(game, rng, rng.randrange(players))
        assert game.phase is Phase.BID
        for seat in range(players):
            beliefs = Beliefs(view(game, seat))
            hands = game.deals[-1].hands
            own = Counter(c.colour for c in hands[seat])
            others = Counter(c.colour for holder, hand in enumerate(hands) if holder != seat for c in hand)
            unseen_count = {c: (high - low + 1) - others[c] for c in range(COLOURS[key])}
            expected = math.prod(math.comb(unseen_count[c], own[c]) for c in range(COLOURS[key]))
            assert beliefs.world_count() == expected
            assert beliefs.slots == tuple(range(10))
            # Per colour, the own cards are a sorted uniform subset of the colour's unseen values.
            seen = {c for holder, hand in enumerate(hands) if holder != seat for c in hand}
            for colour in range(COLOURS[key]):
                slots = [s for s in range(10) if hands[seat][s].colour == colour]
                pool = [v for v in range(low, high + 1) if Card(colour, v) not in seen]
                combos = list(itertools.combinations(pool, len(slots)))
                for rank, slot in enumerate(slots):
                    counts = Counter(combo[rank] for combo in combos)
                    dist = {v: Fraction(n, len(combos)) for v, n in sorted(counts.items())}
                    assert beliefs.probabilities(slot) == dist
            for slot in range(10):
                assert sum(beliefs.probabilities(slot).values()) == 1
                assert math.isclose(sum(beliefs.table()[slot].values()), 1.0)


def test_probabilities_refuse_a_slot_that_is_not_unplayed() -> None:
    game = late_position("iello-2024", 4, 1, 0)
    beliefs = Beliefs(view(game, 0))
    played = next(s for s in range(10) if game.is_played(0, s))
    for slot in (played, 10, -1):
        with pytest.raises(ValueError):
            beliefs.probabilities(slot)


# -- 2. the samplers are uniform ----------------------------------------------------------------------------------


def greedy_sample(worlds: list[tuple[int, ...]], rng: random.Random) -> tuple[int, ...]:
    """A plausible but WRONG sampler: each slot in turn takes a value uniformly among those still possible."""
    left = worlds
    for i in range(len(worlds[0])):
        value = rng.choice(sorted({w[i] for w in left}))
        left = [w for w in left if w[i] == value]
    return left[0]


def greedy_distribution(worlds: list[tuple[int, ...]], i: int = 0) -> dict[tuple[int, ...], Fraction]:
    if i == len(worlds[0]):
        return {worlds[0]: Fraction(1)}
    values = sorted({w[i] for w in worlds})
    result: dict[tuple[int, ...], Fraction] = {}
    for value in values:
        for world, p in greedy_distribution([w for w in worlds if w[i] == value], i + 1).items():
            result[world] = p / len(values)
    return result


@cache
def small_position() -> tuple[Game, int, tuple[tuple[int, ...], ...]]:
    """A position with 10-60 hidden worlds on which the greedy sampler is clearly biased."""
    for seed in range(500):
        key, players = CONFIGS[seed % len(CONFIGS)]
        game = late_position(key, players, seed, seed % players)
        seat = seed % players
        worlds = enumerate_worlds(game, seat)
        if 10 <= len(worlds) <= 60:
            greedy = greedy_distribution(worlds).values()
            if max(greedy) >= 2 * min(greedy):
                return game, seat, tuple(worlds)
    raise AssertionError("no small position found")


def chi_square_p(samples: list[tuple[int, ...]], worlds: tuple[tuple[int, ...], ...]) -> float:
    counts = Counter(samples)
    assert set(counts) <= set(worlds), "a sample that is not a consistent world"
    observed = [counts[w] for w in worlds]
    return float(chisquare(observed).pvalue)


N_UNIFORM = 12_000


def test_sample_is_uniform_over_the_worlds() -> None:
    game, seat, worlds = small_position()
    beliefs = Beliefs(view(game, seat))
    assert beliefs.world_count() == len(worlds)
    rng = random.Random(20240)
    samples = []
    for _ in range(N_UNIFORM):
        world = beliefs.sample(rng)
        samples.append(tuple(world.values[s] for s in beliefs.slots))
    assert chi_square_p(samples, worlds) > 0.001


def test_sample_values_is_uniform_over_the_worlds() -> None:
    game, seat, worlds = small_position()
    beliefs = Beliefs(view(game, seat))
    rows = beliefs.sample_values(N_UNIFORM, np.random.default_rng(20240))
    assert rows.shape == (N_UNIFORM, len(beliefs.slots))
    assert chi_square_p([tuple(int(v) for v in row) for row in rows], worlds) > 0.001


def test_chi_square_rejects_a_biased_sampler() -> None:
    """The uniformity tests have power: a sampler that is slightly wrong fails them."""
    _, _, worlds = small_position()
    rng = random.Random(20240)
    assert chi_square_p([greedy_sample(list(worlds), rng) for _ in range(N_UNIFORM)], worlds) < 0.001
    # A milder bias too: one world drawn 30% more often than it should be.
    biased = [*worlds, worlds[0]] if len(worlds) < 30 else [*worlds, *worlds[: len(worlds) // 3]]
    assert chi_square_p([rng.choice(biased) for _ in range(N_UNIFORM)], worlds) < 0.001


def test_samplers_reproduce_every_slot_marginal_of_a_large_position() -> None:
    """On a bidding position (all ten values unknown), each slot's sampled marginal matches the exact one."""
    game = Game.new("iello-2024", 4, seed=5)
    beliefs = Beliefs(view(game, 1))
    assert beliefs.world_count() > 1000
    n = 20_000
    rows = beliefs.sample_values(n, np.random.default_rng(7))
    rng = random.Random(7)
    singles = [beliefs.sample(rng) for _ in range(n)]
    for column, slot in enumerate(beliefs.slots):
        exact = beliefs.probabilities(slot)
        if len(exact) == 1:
            assert set(rows[:, column]) == set(exact)
            continue
        for observed in (Counter(int(v) for v in rows[:, column]), Counter(w.values[slot] for w in singles)):
            assert set(observed) <= set(exact)
            p = chisquare([observed[v] for v in exact], [float(q) * n for q in exact.values()]).pvalue
            assert p > 1e-4, f"slot {slot}"


def test_samplers_are_reproducible_from_their_seed() -> None:
    game, seat, _ = small_position()
    beliefs = Beliefs(view(game, seat))
    assert [beliefs.sample(random.Random(3)) for _ in range(5)] == [beliefs.sample(random.Random(3)) for _ in range(5)]
    a = beliefs.sample_values(50, np.random.default_rng(3))
    b = beliefs.sample_values(50, np.random.default_rng(3))
    assert (a == b).all()
    assert beliefs.sample_values(0, np.random.default_rng(3)).shape == (0, len(beliefs.slots))


# -- 3. properties: every sampled world is consistent -------------------------------------------------------------


def random_position(data: Any, history: bool | None = None) -> tuple[Game, int, random.Random]:
    """A seeded game of any table stopped at a random point of its first two deals, and a seat."""
    key, players = data.draw(st.sampled_from(CONFIGS), label="table")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    if history is None:
        history = data.draw(st.booleans(), label="trick_history")
    steps = data.draw(st.integers(0, 22 * players - 1), label="steps")
    seat = data.draw(st.integers(0, players - 1), label="seat")
    rng = random.Random(seed)
    game = Game.new(key, players, seed=seed, trick_history=history)
    random_steps(game, rng, steps)
    assert game.phase in LIVE
    return game, seat, rng


def check_world_by_reference(game: Game, seat: int, world: World) -> None:
    """The world could be the truth: checked from the game and the rules, not from the beliefs."""
    key, players = game.edition.key, game.players
    low, high = VALUES[key, players]
    hand = game.deals[-1].hands[seat]
    slots = unplayed(game, seat)
    assert sorted(world.values) == slots  # a value for every unplayed slot, none for the revealed ones
    seen = visible_to(game, seat)
    trial = list(hand)
    for s in slots:
        value = world.values[s]
        assert isinstance(value, int)
        assert low <= value <= high
        card = Card(hand[s].colour, value)
        assert card not in seen  # no value used by a card the seat can see
        trial[s] = card
    assert all(trial[s] == hand[s] for s in range(10) if s not in slots)  # revealed values unchanged
    assert is_sorted_hand(trial)
    remaining = set(ref_deck(key, players)) - seen - {trial[s] for s in slots}
    assert sorted(world.aside) == sorted(remaining)
    assert len(world.aside) == len(remaining)


@SETTINGS
@given(data=st.data())
def test_sampled_worlds_are_consistent(data: Any) -> None:
    game, seat, rng = random_position(data)
    beliefs = Beliefs(view(game, seat))
    count = beliefs.world_count()
    worlds = [beliefs.sample(rng) for _ in range(15)]
    rows = beliefs.sample_values(15, np.random.default_rng(rng.randrange(2**32)))
    assert rows.shape == (15, len(beliefs.slots))
    worlds += [beliefs.world(row) for row in rows]
    worlds += [beliefs.world({s: int(v) for s, v in zip(beliefs.slots, row, strict=True)}) for row in rows[:3]]
    for world in worlds:
        check_world_by_reference(game, seat, world)
        assert beliefs.is_consistent(world)
        assert beliefs.probability(world) == Fraction(1, count)

    truth = true_world(game, seat)
    check_world_by_reference(game, seat, truth)
    assert beliefs.is_consistent(truth)
    assert count >= 1
    assert beliefs.probability(truth) == Fraction(1, count) > 0
    assert beliefs.world(truth.values) == World(truth.values, tuple(sorted(truth.aside)))
    for slot, value in truth.values.items():
        assert value in beliefs.possible(slot)
        assert beliefs.probabilities(slot)[value] > 0


@SETTINGS
@given(data=st.data())
def test_inconsistent_worlds_are_recognised(data: Any) -> None:
    game, seat, _ = random_position(data)
    beliefs = Beliefs(view(game, seat))
    truth = true_world(game, seat)
    hand = game.deals[-1].hands[seat]
    slots = list(truth.values)
    bad: list[World] = []
    if slots:
        bad.append(World({s: v for s, v in truth.values.items() if s != slots[0]}, truth.aside))  # a slot missing
        bad.append(World(truth.values, truth.aside[1:]))  # a card missing from the aside
        bad.append(World(truth.values, (*truth.aside, hand[slots[0]])))  # an own card also aside
        # A value the seat can see elsewhere, of the right colour.
        seen = sorted(c for c in visible_to(game, seat) if c.colour == hand[slots[0]].colour)
        if seen:
            bad.append(World({**truth.values, slots[0]: seen[0].value}, truth.aside))
        # Two unplayed cards of one colour out of order.
        for a, b in itertools.pairwise(slots):
            if hand[a].colour == hand[b].colour:
                swapped = {**truth.values, a: truth.values[b], b: truth.values[a]}
                bad.append(World(swapped, truth.aside))
                break
        # A value of the right colour taken from the aside, without giving the old one back.
        aside_same = [c for c in truth.aside if c.colour == hand[slots[-1]].colour]
        if aside_same:
            bad.append(World({**truth.values, slots[-1]: aside_same[0].value}, truth.aside))
    bad.append(World({**truth.values, 10: 1}, truth.aside))  # a slot that does not exist
    for world in bad:
        assert not beliefs.is_consistent(world), world
        assert beliefs.probability(world) == 0
        with pytest.raises(ValueError):
            beliefs.to_game(world)


# -- 4. to_game: the same position, for every seat, until the end of the deal ------------------------------------


def views_json(game: Game, hints: bool = False) -> list[dict[str, Any]]:
    seen = [view(game, s) for s in range(game.players)]
    return [(with_hints(v) if hints else v).to_json() for v in seen] + [view(game, None).to_json()]


def check_to_game_follows_the_real_game(game: Game, seat: int, rng: random.Random) -> None:
    beliefs = Beliefs(view(game, seat))
    position = beliefs.to_game(true_world(game, seat))
    assert not position.history_complete
    assert position.deals[-1].hands == game.deals[-1].hands
    assert sorted(position.deals[-1].aside) == sorted(game.deals[-1].aside)
    assert views_json(position) == views_json(game)
    assert views_json(position, hints=True) == views_json(game, hints=True)
    scored = len(game.results)
    while True:
        assert list(position.legal_actions()) == list(game.legal_actions())
        action = rng.choice(list(game.legal_actions()))
        game.apply(action)
        position.apply(action)
        if len(game.results) > scored:  # the deal is over: the position game waits for a deal it does not know
            assert position.results == game.results
            assert position.sheet.totals == game.sheet.totals
            if game.phase is Phase.GAME_OVER:
                assert position.phase is Phase.GAME_OVER
                assert views_json(position) == views_json(game)
            else:
                assert position.phase is Phase.DEAL
            return
        assert views_json(position) == views_json(game), f"after {action}"


@pytest.mark.parametrize("history", [True, False], ids=["trick_history", "rules_as_written"])
@SETTINGS
@given(data=st.data())
def test_to_game_of_the_true_world_is_the_same_position(history: bool, data: Any) -> None:
    game, seat, rng = random_position(data, history=history)
    check_to_game_follows_the_real_game(game, seat, rng)


@pytest.mark.parametrize("history", [True, False], ids=["trick_history", "rules_as_written"])
def test_to_game_in_the_last_deal_until_the_game_is_over(history: bool) -> None:
    for key, players in CONFIGS:
        rng = random.Random(key)
        game = Game.new(key, players, seed=players, trick_history=history)
        while len(game.results) < game.deal_count - 1:
            random_steps(game, rng, 1)
        random_steps(game, rng, rng.randrange(11 * players))
        check_to_game_follows_the_real_game(game, rng.randrange(players), rng)


@pytest.mark.parametrize("history", [True, False], ids=["trick_history", "rules_as_written"])
@SETTINGS
@given(data=st.data())
def test_a_sampled_world_looks_the_same_to_the_seat(history: bool, data: Any) -> None:
    game, seat, rng = random_position(data, history=history)
    beliefs = Beliefs(view(game, seat))
    for world in [beliefs.sample(rng), beliefs.world(beliefs.sample_values(1, np.random.default_rng(1))[0])]:
        position = beliefs.to_game(world)
        assert view(position, seat).to_json() == view(game, seat).to_json()
        assert with_hints(view(position, seat)).to_json() == with_hints(view(game, seat)).to_json()
        hand = position.deals[-1].hands[seat]
        assert {s: hand[s].value for s in beliefs.slots} == world.values
        assert sorted(position.deals[-1].aside) == sorted(world.aside)


def test_to_game_shows_the_last_trick_between_tricks() -> None:
    """Rules as written (no trick history): between two tricks every seat is shown the trick just completed."""
    game = Game.new("iello-2024", 3, seed=3)
    rng = random.Random(1)
    while not (game.phase is Phase.PLAY and not game.trick.plays and game.completed_tricks):
        random_steps(game, rng, 1)
    assert view(game, 0).last_trick is not None
    position = Beliefs(view(game, 0)).to_game(true_world(game, 0))
    assert view(position, 0).last_trick == view(game, 0).last_trick


def test_to_game_refuses_when_no_deal_is_live() -> None:
    game = Game.new("standard-deck", 3, seed=9)
    rng = random.Random(9)
    while game.phase is not Phase.GAME_OVER:
        random_steps(game, rng, 1)
    beliefs = Beliefs(view(game, 1))
    with pytest.raises(ValueError):
        beliefs.to_game(beliefs.world({}))


# -- 5. weighted inference ----------------------------------------------------------------------------------------


def test_weigh_is_proportional_to_the_likelihood() -> None:
    game, seat, worlds = small_position()
    beliefs = Beliefs(view(game, seat))
    slot = beliefs.slots[0]
    threshold = sorted(beliefs.possible(slot))[len(beliefs.possible(slot)) // 2]

    def likelihood(world: World) -> float:
        return 1.0 if world.values[slot] >= threshold else 0.2

    sample = [beliefs.sample(random.Random(i)) for i in range(40)]
    weights = Beliefs.weigh(sample, likelihood)
    assert len(weights) == len(sample)
    assert math.isclose(sum(weights), 1.0)
    total = sum(likelihood(w) for w in sample)
    for w, weight in zip(sample, weights, strict=True):
        assert weight == pytest.approx(likelihood(w) / total, rel=1e-12)
    # Weighing every world gives the exact posterior.
    every = [beliefs.world(list(w)) for w in worlds]
    weights = Beliefs.weigh(every, likelihood)
    column = beliefs.slots.index(slot)
    exact = exact_posterior(worlds, column, lambda v: 1.0 if v >= threshold else 0.2)
    for value, p in exact.items():
        got = sum(weight for w, weight in zip(every, weights, strict=True) if w.values[slot] == value)
        assert got == pytest.approx(float(p), abs=1e-12)


def exact_posterior(
    worlds: tuple[tuple[int, ...], ...], column: int, likelihood: Callable[[int], float]
) -> dict[int, Fraction]:
    mass: dict[int, Fraction] = {}
    for w in worlds:
        mass[w[column]] = mass.get(w[column], Fraction(0)) + Fraction(likelihood(w[column])).limit_denominator(1000)
    total = sum(mass.values())
    return {v: m / total for v, m in sorted(mass.items())}


def test_resample_reproduces_the_exact_posterior() -> None:
    game, seat, worlds = small_position()
    beliefs = Beliefs(view(game, seat))
    # The slot with the most possible values.
    slot = max(beliefs.slots, key=lambda s: (len(beliefs.possible(s)), -s))
    possible = beliefs.possible(slot)
    assert len(possible) >= 2
    threshold = possible[len(possible) // 2]
    column = beliefs.slots.index(slot)

    def likelihood(world: World) -> float:
        return 1.0 if world.values[slot] >= threshold else 0.2

    prior = {v: Fraction(sum(1 for w in worlds if w[column] == v), len(worlds)) for v in possible}
    posterior = exact_posterior(worlds, column, lambda v: 1.0 if v >= threshold else 0.2)
    rng = random.Random(777)
    m, n = 60_000, 20_000
    uniform = [beliefs.sample(rng) for _ in range(m)]
    drawn = beliefs.resample(uniform, likelihood, n, rng)
    assert len(drawn) == n
    assert all(beliefs.is_consistent(w) for w in drawn[:200])
    counts = Counter(w.values[slot] for w in drawn)
    assert set(counts) <= set(possible)

    def bound(p: float) -> float:
        # Multinomial resampling of n, on top of self-normalised importance sampling of m with weights <= 5x.
        return 5 * math.sqrt(p * (1 - p) * (1 / n + 5 / m))

    for value, p in posterior.items():
        assert abs(counts[value] / n - float(p)) <= bound(float(p)), f"value {value}"
    # Power: the prior is far outside the bound, so ignoring the likelihood would fail.
    assert any(abs(float(prior[v]) - float(p)) > 2 * bound(float(p)) for v, p in posterior.items())


def test_weigh_and_resample_refuse_impossible_likelihoods() -> None:
    game, seat, _ = small_position()
    beliefs = Beliefs(view(game, seat))
    sample = [beliefs.sample(random.Random(i)) for i in range(10)]
    rng = random.Random(0)
    for bad in (lambda w: -0.5, lambda w: 0.0, lambda w: -1.0 if w is sample[3] else 1.0):
        with pytest.raises(ValueError):
            Beliefs.weigh(sample, bad)
        with pytest.raises(ValueError):
            beliefs.resample(sample, bad, 5, rng)
    with pytest.raises(ValueError):
        Beliefs.weigh([], lambda w: 1.0)


@pytest.mark.parametrize("bad", [math.nan, math.inf], ids=["nan", "inf"])
def test_weigh_refuses_a_likelihood_that_is_not_a_finite_number(bad: float) -> None:
    """Weights are documented to sum to 1: a NaN or infinite likelihood must not yield NaN weights silently."""
    game, seat, _ = small_position()
    beliefs = Beliefs(view(game, seat))
    sample = [beliefs.sample(random.Random(i)) for i in range(4)]
    try:
        weights = Beliefs.weigh(sample, lambda w: bad if w is sample[0] else 1.0)
    except ValueError:
        return
    assert all(math.isfinite(w) for w in weights) and math.isclose(sum(weights), 1.0), weights


# -- 6. hidden information ----------------------------------------------------------------------------------------


def test_beliefs_need_a_seat_view() -> None:
    game = Game.new("korokorodou-2014", 4, seed=2)
    with pytest.raises(TypeError):
        Beliefs(game)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Beliefs(view(game, 0).to_json())  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Beliefs(view(game, None))


def hidden_variant_game(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game (explicit hands, same actions) where the seat's unplayed values and the aside are
    redistributed among themselves, differently wherever they can be: each slot keeps its colour and the hand stays
    sorted around its played cards."""
    deal = game.deals[-1]
    played = {s for s in range(10) if game.is_played(seat, s)}
    hands, aside = hidden_variant(deal.hands, deal.aside, seat, played, rng, must_differ=True)
    assert is_sorted_hand(hands[seat])
    assert sorted([c for h in hands for c in h] + aside) == ref_deck(game.edition.key, game.players)
    deals = [(old.hands, old.aside) for old in game.deals[:-1]] + [(hands, aside)]
    first, history = game.sheet.first_player, game.options.trick_history
    return rebuild_game(game.edition.key, game.players, first, deals, game.actions, len(game.actions[-1]), history)


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_hints_do_not_depend_on_what_the_seat_cannot_see(key: str, players: int) -> None:
    changed = 0
    for point in range(4):
        rng = random.Random(f"hidden:{key}:{players}:{point}")
        game = Game.new(key, players, seed=point)
        if point >= 2:  # in the second deal
            while not game.results:
                random_steps(game, rng, 1)
        random_steps(game, rng, rng.randrange(players) if point % 2 == 0 else rng.randrange(players, 9 * players))
        assert game.phase in LIVE
        for seat in range(players):
            alt = hidden_variant_game(game, seat, rng)
            mine, theirs = with_hints(view(game, seat)).to_json(), with_hints(view(alt, seat)).to_json()
            assert mine["hints"] is not None
            assert theirs["hints"] == mine["hints"]
            # The whole view too, but for the options: the variant names its first player, the seeded game drew it.
            del mine["options"], theirs["options"]
            assert theirs == mine
            if alt.deals[-1] != game.deals[-1]:
                changed += 1
                # The variant really differs: a neighbour, who sees the seat's cards, can tell them apart.
                other = (seat + 1) % players
                assert view(alt, other).to_json() != view(game, other).to_json()
    assert changed >= players  # the check is not vacuous


def test_hints_only_when_asked_and_only_for_a_seat() -> None:
    game = Game.new("iello-2024", 5, seed=4)
    random_steps(game, random.Random(4), 12)
    assert view(game, 2).hints is None
    assert view(game, 2).to_json()["hints"] is None
    assert with_hints(view(game, None)).hints is None
    assert with_hints(view(game, None)).to_json()["hints"] is None
    hints = with_hints(view(game, 2)).to_json()["hints"]
    assert hints == Beliefs(view(game, 2)).to_json()
    assert json.loads(json.dumps(hints)) == hints
    waiting = Game("iello-2024", 3, get_edition("iello-2024").options(3, first_player=0))
    assert waiting.phase is Phase.DEAL
    assert with_hints(view(waiting, 0)).hints is None


# -- 7. the benchmark ---------------------------------------------------------------------------------------------


def test_bench_beliefs_cli_json() -> None:
    result = CliRunner().invoke(app, ["bench", "beliefs", "--seconds", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["benchmark"] == "beliefs"
    assert report["positions"] > 0
    figures = [k for k in report if k.endswith("_per_s") or k.startswith("ratio_")]
    assert len(figures) >= 5
    for name in figures:
        assert isinstance(report[name], int | float) and report[name] > 0, name
