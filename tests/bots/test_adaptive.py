"""The heuristic's variants (Python and fast core alike) and the expert bot's adaptive opponent model."""

from __future__ import annotations

import random

import numpy as np
import pytest

from luz.bots import InvalidBotSpec, make_bot, play_out
from luz.bots.adaptive import PRIOR, VARIANT_SPECS, VARIANTS, AdaptiveSearch, variant_prior
from luz.bots.heuristic import HeuristicBot
from luz.bots.strong import NOISE_BID, NOISE_PLAY, Position
from luz.engine import Bid, Game, Phase, Play, view
from luz.engine.beliefs import Beliefs
from support import fastsim as fs
from support.reference import hidden_variant, random_steps, rebuild_game

TABLES = [("iello-2024", 4), ("korokorodou-2014", 3), ("standard-deck", 4)]


def _positions(edition: str, players: int, games: int) -> list[Game]:
    """Positions of seeded games between heuristics and a random player, every decision of each."""
    positions = []
    for seed in range(games):
        game = Game.new(edition, players, seed=seed)
        bots = [make_bot("random" if seat == seed % players else "heuristic") for seat in range(players)]
        rng = random.Random(seed)
        while (seat := game.current_player) is not None:
            if game.phase in (Phase.BID, Phase.PLAY):
                positions.append(game.clone())
            game.apply(bots[seat].choose(view(game, seat), rng), seat)
    return positions


@pytest.mark.parametrize(("edition", "players"), TABLES)
def test_the_variants_in_the_fast_core_choose_as_the_bots_do(edition: str, players: int) -> None:
    checked = 0
    for game in _positions(edition, players, 2):
        seat = game.current_player
        assert seat is not None
        seen = view(game, seat)
        p = Position.from_view(seen)
        val = np.array([[c.value for c in hand] for hand in game.deals[-1].hands], dtype=np.int64)
        gt = np.zeros((fs.H, int(p.rules[fs.HIGH]) + 2))
        fs.own_beliefs(val, p.col, p.played, seat, p.rules, gt)
        for spec, kind in zip(VARIANT_SPECS[:6], VARIANTS[:6], strict=True):
            expected = make_bot(spec).choose(seen, random.Random(0))
            if game.phase is Phase.BID:
                chances = np.zeros(fs.H)
                fs.trick_chances(val, p.col, p.played, seat, gt, p.rules, chances)
                values = np.empty((fs.H + 1, 2))
                top = fs.max_bid(p.st, p.rules)
                fs.bid_values(chances, p.played, seat, top, p.rules, values)
                choice = fs.variant_bid(values, top, kind)
                assert Bid(choice // 2, bool(choice % 2)) == expected, (spec, seen.bids)
            else:
                legal = np.empty(fs.H, dtype=np.int64)
                count = fs.legal_plays(p.col, p.played, seat, p.st[fs.LED], legal)
                args = (val, p.col, p.played, p.st, p.trick, p.won, p.bids, seat, gt, p.rules, legal, count)
                assert Play(int(fs.choose_play_variant(*args, kind[fs.GREEDY] > 0))) == expected, spec
            checked += 1
    assert checked > 300


def test_the_variants_differ_from_the_heuristic_as_named() -> None:
    shifted = safeties = 0
    for game in _positions("iello-2024", 4, 3):
        seat = game.current_player
        assert seat is not None
        seen = view(game, seat)
        if game.phase is not Phase.BID:
            continue
        plain = HeuristicBot().choose(seen, random.Random(0))
        top = max(a.tricks for a in seen.legal_actions if isinstance(a, Bid))
        over = HeuristicBot(bias=1).choose(seen, random.Random(0))
        assert isinstance(plain, Bid) and isinstance(over, Bid)
        assert over == Bid(min(plain.tricks + 1, top), plain.safety)
        shifted += over != plain
        never, always = (
            HeuristicBot(safety=-1).choose(seen, random.Random(0)),
            HeuristicBot(safety=1).choose(seen, random.Random(0)),
        )
        assert isinstance(never, Bid) and isinstance(always, Bid)
        assert not never.safety and always.safety
        safeties += never != always
    assert shifted > 5 and safeties > 5


def test_a_noisy_heuristic_is_sometimes_random_and_otherwise_the_heuristic() -> None:
    game = Game.new("iello-2024", 4, seed=4)
    random_steps(game, random.Random(4), 6)
    seat = game.current_player
    assert seat is not None
    seen = view(game, seat)
    plain = HeuristicBot().choose(seen, random.Random(0))
    choices = [HeuristicBot(noise=0.5).choose(seen, random.Random(i)) for i in range(60)]
    assert all(c in seen.legal_actions for c in choices)
    assert 10 < sum(c != plain for c in choices) < 55
    assert all(HeuristicBot(noise=0).choose(seen, random.Random(i)) == plain for i in range(5))


@pytest.mark.parametrize(
    "spec", ["heuristic:bias=5", "heuristic:safety=2", "heuristic:greedy=0.5", "heuristic:noise=2", "expert:iters=0"]
)
def test_bad_variant_parameters_are_refused(spec: str) -> None:
    with pytest.raises(InvalidBotSpec):
        make_bot(spec)


def test_the_plain_variant_weighs_worlds_as_the_strong_bot_does() -> None:
    """For the heuristic variant, the product over the others of the per-seat likelihoods is the strong bot's."""
    game = Game.new("iello-2024", 4, seed=9)
    random_steps(game, random.Random(9), 14)
    seat = game.current_player
    assert seat is not None
    seen = view(game, seat)
    p, beliefs = Position.from_view(seen), Beliefs(seen)
    vals = np.repeat(p.val[None], 50, axis=0)
    vals[:, seat, list(beliefs.slots)] = beliefs.sample_values(50, np.random.default_rng(0))
    first = int(p.st[fs.FIRST])
    strong = np.empty(50)
    fs.likelihoods(vals, p.col, p.rules, seat, first, p.bids, p.safe, p.observed, NOISE_BID, NOISE_PLAY, strong)
    by_variant = np.empty((50, 4, len(VARIANTS)))
    args = (vals, p.col, p.rules, seat, first, p.bids, p.safe, p.observed, VARIANTS, NOISE_BID, NOISE_PLAY)
    fs.likelihoods_by_variant(*args, by_variant)
    assert np.allclose(by_variant[:, :, 0].prod(axis=1), strong)
    assert np.all(by_variant[:, seat] == 1.0)
    assert not np.allclose(by_variant[:, :, 1], by_variant[:, :, 0])  # an over-bidder's bids are likely elsewhere


def test_the_prior_learns_an_over_bidder_from_the_deals_scored() -> None:
    game = Game.new("iello-2024", 4, seed=5)
    bots = [make_bot(s) for s in ("heuristic", "heuristic:bias=2", "heuristic:safety=-1", "random")]
    play_out(game, bots, random.Random(5))
    seen = view(game, 0)
    prior = variant_prior(seen)
    assert np.allclose(prior.sum(axis=1), 1.0)
    assert prior[1, 1] > PRIOR[1] and prior[1].argmax() == 1  # it takes fewer tricks than it bids
    assert prior[2, 3] > PRIOR[3]  # never the safety
    assert prior[3].argmax() == len(VARIANTS) - 1  # random
    fresh = variant_prior(view(Game.new("iello-2024", 4, seed=5), 0))
    assert np.allclose(fresh, PRIOR / PRIOR.sum())


def test_each_world_gets_a_variant_for_each_other_seat() -> None:
    game = Game.new("korokorodou-2014", 3, seed=2)
    random_steps(game, random.Random(2), 5)
    seat = game.current_player
    assert seat is not None
    seen = view(game, seat)
    search = AdaptiveSearch(Position.from_view(seen), Beliefs(seen), variant_prior(seen), np.random.default_rng(1))
    worlds, kinds = search.worlds_and_variants(40)
    assert worlds.shape == (40, 3, fs.H) and kinds.shape == (40, 3, 4)
    assert np.all(kinds[:, seat] == VARIANTS[0])
    assert all(any((row == v).all() for v in VARIANTS) for row in kinds.reshape(-1, 4))


@pytest.mark.parametrize("trick_history", [False, True])
def test_a_later_deal_depends_on_nothing_the_seat_cannot_see(trick_history: bool) -> None:
    """In a later deal (the prior learnt from the earlier ones), redistributing the seat's unplayed values and the
    aside changes neither its view nor the expert's action."""
    checked = 0
    for seed in range(4):
        rng = random.Random(seed)
        game = Game.new("iello-2024", 4, seed=seed, first_player=0, trick_history=trick_history)
        cards, actions = [], []
        while len(cards) < 3:
            number = game.deal_number
            cards.append((game.deals[-1].hands, game.deals[-1].aside))
            done = []
            limit = rng.randrange(4, 30) if len(cards) == 3 else 10**6
            while game.deal_number == number and game.current_player is not None and len(done) < limit:
                done.append(rng.choice(list(game.legal_actions())))
                game.apply(done[-1])
            actions.append(done)
        steps = actions[-1]
        seat = game.current_player
        if seat is None or game.phase not in (Phase.BID, Phase.PLAY):
            continue
        deal = game.deals[-1]
        played = {s for s in range(10) if game.is_played(seat, s)}
        hands, aside = hidden_variant(deal.hands, deal.aside, seat, played, rng, must_differ=True)
        twin = rebuild_game("iello-2024", 4, 0, [*cards[:-1], (hands, aside)], actions, len(steps), trick_history)
        assert view(twin, seat) == view(game, seat) and view(game, seat).results
        bot = make_bot("expert:iters=12")
        assert bot.choose(view(twin, seat), random.Random(seed)) == bot.choose(view(game, seat), random.Random(seed))
        checked += 1
    assert checked >= 3


def test_variant_playouts_with_every_seat_the_heuristic_are_the_strong_bots_playouts() -> None:
    game = Game.new("standard-deck", 4, seed=6)
    random_steps(game, random.Random(6), 7)
    seat = game.current_player
    assert seat is not None
    seen = view(game, seat)
    p, beliefs = Position.from_view(seen), Beliefs(seen)
    vals = np.repeat(p.val[None], 12, axis=0)
    vals[:, seat, list(beliefs.slots)] = beliefs.sample_values(12, np.random.default_rng(3))
    firsts = np.array([a.slot for a in seen.legal_actions if isinstance(a, Play)], dtype=np.int64)
    state = (p.col, p.played, p.st, p.trick, p.won, p.bids, p.safe, p.rules)
    expected = np.zeros((len(firsts), 12, 4), dtype=np.int64), np.zeros((len(firsts), 12, 4), dtype=np.int64)
    fs.rollouts(vals, *state, seat, False, firsts, fs.NO_POLICY, fs.H, fs.NO_VALUE, *expected)
    got = np.zeros_like(expected[0]), np.zeros_like(expected[1])
    kinds = np.repeat(VARIANTS[:1][None], 12 * 4, axis=0).reshape(12, 4, 4)
    fs.rollouts_variants(vals, kinds, *state, seat, False, firsts, 7, fs.H, fs.NO_VALUE, *got)
    assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])
    kinds[:, (seat + 1) % 4] = VARIANTS[-1]  # a random player: other results, the same for the same seed
    again = [np.zeros_like(expected[0]) for _ in range(4)]
    fs.rollouts_variants(vals, kinds, *state, seat, False, firsts, 7, fs.H, fs.NO_VALUE, again[0], again[1])
    fs.rollouts_variants(vals, kinds, *state, seat, False, firsts, 7, fs.H, fs.NO_VALUE, again[2], again[3])
    assert np.array_equal(again[0], again[2]) and not np.array_equal(again[0], expected[0])
