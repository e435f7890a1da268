"""The strong bot: legal, reproducible, blind to what its seat cannot see, and it learns from the others' bids."""

from __future__ import annotations

import gc
import random

import numpy as np
import pytest

from luz.bots import BOTS, REFERENCE_BOTS, InvalidBotSpec, UnknownBot, make_arena_bot, make_bot
from luz.bots.strong import DEFAULT_ITERS, NOISE_BID, NOISE_PLAY, Position, StrongBot
from luz.engine import Card, Deal, Game, Phase, View, view
from luz.engine.beliefs import Beliefs
from support import fastsim as fs
from support.reference import CONFIGS, hidden_variant, random_steps, rebuild_game


@pytest.mark.parametrize(("edition", "players"), CONFIGS)
def test_strong_plays_whole_games_legally(edition: str, players: int) -> None:
    game, rng = Game.new(edition, players, seed=3), random.Random(3)
    bots = [make_bot("strong:iters=6" if seat % 2 == 0 else "heuristic") for seat in range(players)]
    while (seat := game.current_player) is not None:
        seen = view(game, seat)
        action = bots[seat].choose(seen, rng)
        assert action in seen.legal_actions
        game.apply(action, seat)
    assert game.phase is Phase.GAME_OVER


@pytest.mark.parametrize("name", ["strong", "expert", "expert:depth=2", "learned"])
def test_a_fixed_budget_and_seed_give_the_same_decision(name: str) -> None:
    game = Game.new("iello-2024", 4, seed=21)
    rng = random.Random(0)
    for _ in range(12):
        random_steps(game, rng, 1)
    seat = game.current_player
    assert seat is not None
    decisions = {make_arena_bot(f"{name}:iters=20").choose(view(game, seat), random.Random(5)) for _ in range(3)}
    assert len(decisions) == 1


def _reachable(root: object, limit: int = 20000) -> list[object]:
    seen, todo, found = set(), [root], []
    while todo and len(found) < limit:
        item = todo.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen.add(id(item))
        found.append(item)
        todo.extend(gc.get_referents(item))
    return found


def test_a_bot_receives_nothing_that_leads_to_the_game() -> None:
    """Everything reachable from what a bot is given (a View) holds no Game and no Deal (no hidden value)."""
    game = Game.new("iello-2024", 4, seed=2)
    random_steps(game, random.Random(2), 9)
    assert game.current_player is not None
    seen = view(game, game.current_player)
    reachable = _reachable(seen)
    assert any(isinstance(item, View) for item in reachable)
    assert not any(isinstance(item, Game | Deal) for item in reachable)
    hidden = {game.card(game.current_player, s) for s in range(10) if not game.is_played(game.current_player, s)}
    assert not hidden & {item for item in reachable if isinstance(item, Card)}


@pytest.mark.parametrize(
    "name", ["strong:iters=12", "expert:iters=12", "expert:iters=12:depth=2", "learned:iters=12", "policy"]
)
@pytest.mark.parametrize("trick_history", [False, True])
@pytest.mark.parametrize(("edition", "players"), [("iello-2024", 4), ("korokorodou-2014", 3), ("standard-deck", 4)])
def test_changing_only_what_the_seat_cannot_see_changes_nothing(
    edition: str, players: int, trick_history: bool, name: str
) -> None:
    """Mid-deal positions: the seat's unplayed values and the aside redistributed, its view the same, its action
    (same seed) the same."""
    rng = random.Random(f"{edition}{players}{trick_history}")
    checked = 0
    for seed in range(6):
        options = {"first_player": seed % players, "trick_history": trick_history}
        game = Game.new(edition, players, seed=seed, **options)
        steps = random_steps(game, rng, rng.randrange(players, 8 * players))
        seat = game.current_player
        if seat is None or game.phase is Phase.DEAL:
            continue
        deal = game.deals[-1]
        played = {s for s in range(10) if game.is_played(seat, s)}
        hands, aside = hidden_variant(deal.hands, deal.aside, seat, played, rng, must_differ=True)
        twin = rebuild_game(edition, players, seed % players, [(hands, aside)], [steps], len(steps), trick_history)
        assert twin.deals[-1].hands[seat] != deal.hands[seat]
        assert view(twin, seat) == view(game, seat)
        bot = make_arena_bot(name)
        assert bot.choose(view(twin, seat), random.Random(seed)) == bot.choose(view(game, seat), random.Random(seed))
        checked += 1
    assert checked >= 4


def _weighted_error(game: Game, seat: int, rng: np.random.Generator) -> tuple[float, float]:
    """Mean squared error of the seat's expected own values against the truth: uniform worlds, then weighted by
    the opponent model."""
    seen = view(game, seat)
    beliefs, position = Beliefs(seen), Position.from_view(seen)
    samples = beliefs.sample_values(3000, rng).astype(np.float64)
    vals = np.repeat(position.val[None], len(samples), axis=0)
    vals[:, seat, list(beliefs.slots)] = samples
    weights = np.empty(len(samples))
    p = position
    first = int(p.st[fs.FIRST])
    fs.likelihoods(vals, p.col, p.rules, seat, first, p.bids, p.safe, p.observed, NOISE_BID, NOISE_PLAY, weights)
    truth = np.array([game.card(seat, s).value for s in beliefs.slots])
    uniform = ((samples.mean(axis=0) - truth) ** 2).mean()
    weighted = (((weights / weights.sum()) @ samples - truth) ** 2).mean()
    return float(uniform), float(weighted)


def test_the_others_bids_tell_the_seat_about_its_own_cards() -> None:
    """After heuristic opponents bid (seeing its values), weighting worlds by the opponent model brings the seat's
    expected values closer to the truth than the uniform beliefs, on average over many deals."""
    rng = np.random.default_rng(0)
    errors = []
    heuristic = make_bot("heuristic")
    for seed in range(40):
        game = Game.new("iello-2024", 4, seed=seed, first_player=0)
        while game.phase is Phase.BID:
            game.apply(heuristic.choose(view(game, game.current_player or 0), random.Random(seed)))
        errors.append(_weighted_error(game, 3, rng))
    uniform, weighted = np.mean(errors, axis=0)
    assert weighted < 0.95 * uniform  # measured: 2.26 against 2.53


def test_the_registries() -> None:
    assert "strong" in BOTS and "oracle" not in BOTS and "openspiel-ismcts" not in BOTS
    assert set(REFERENCE_BOTS) == {
        *("learned", "policy", "selfplay", "oracle", "pimc", "counter", "openspiel-ismcts", "openspiel-ismcts-h")
    }
    assert "pimc" not in BOTS and "counter" not in BOTS  # outside-style players: offered to no one
    assert make_bot("strong").iters == DEFAULT_ITERS
    assert make_bot("Strong:Seconds=0.25").seconds == 0.25
    assert make_arena_bot("oracle").sees_own_cards
    with pytest.raises(UnknownBot, match="random, heuristic, strong"):
        make_bot("oracle")
    for spec in ("strong:iters=0", "strong:iters=2.5", "strong:iters", "strong:iters=1:iters=2", "strong:x=1"):
        with pytest.raises(InvalidBotSpec):
            make_bot(spec)
    with pytest.raises(InvalidBotSpec, match="takes no parameter"):
        make_bot("heuristic:iters=3")
    with pytest.raises(InvalidBotSpec):
        StrongBot(seconds=-1)


def test_a_time_budget_is_kept() -> None:
    game = Game.new("iello-2024", 4, seed=4)
    seat = game.current_player
    assert seat is not None
    bot = make_bot("strong:seconds=0.05")
    bot.choose(view(game, seat), random.Random(0))  # compiled, warm
    assert bot.choose(view(game, seat), random.Random(1)) in game.legal_actions()


def test_the_oracle_uses_its_own_cards() -> None:
    """Given the truth, the oracle bids what its known world's playouts say; it plays whole games legally."""
    game, rng = Game.new("iello-2024", 4, seed=6), random.Random(6)
    oracle = make_arena_bot("oracle")
    with pytest.raises(ValueError, match="not its turn"):
        oracle.choose_seeing(view(game, (game.current_player + 1) % 4), game.deals[-1].hands[0], rng)
    while (seat := game.current_player) is not None:
        seen = view(game, seat)
        action = (
            oracle.choose_seeing(seen, game.deals[-1].hands[seat], rng)
            if seat == 0
            else make_bot("heuristic").choose(seen, rng)
        )
        assert action in seen.legal_actions
        game.apply(action, seat)


@pytest.mark.parametrize("trick_history", [False, True])
def test_the_others_plays_are_seen_with_the_table_as_it_was(trick_history: bool) -> None:
    """Each observed play of another seat carries the trick so far, the tricks won and the played slots just before
    it, as the engine had them; with the trick history every play of the deal, else the last trick's and this one's."""
    rng = random.Random(9)
    game = Game.new("iello-2024", 4, seed=9, trick_history=trick_history)
    while game.phase is Phase.BID:
        game.apply(rng.choice(list(game.legal_actions())))
    before = {}
    for _ in range(4 * 5 + 2):
        seat = game.current_player
        assert seat is not None
        action = rng.choice(list(game.legal_actions()))
        mask = [[game.is_played(s, slot) for slot in range(10)] for s in range(4)]
        trick = [(s, slot) for s, slot, _ in game.trick.plays]
        before[seat, action.slot] = (game.trick.leader, trick, list(game.tricks_won), mask)
        game.apply(action)
    seat = game.current_player
    assert seat is not None
    position = Position.from_view(view(game, seat))
    rows = position.observed
    expected = {key for key in before if key[0] != seat}
    if not trick_history:  # the current trick (2 plays) and none of the last one (a new trick is under way)
        expected = {key for key in expected if (key[0], key[1]) in {(s, t) for s, t, _ in game.trick.plays}}
    assert {(int(r[0]), int(r[1])) for r in rows} == expected
    for row in rows:
        leader, trick, won, mask = before[int(row[0]), int(row[1])]
        count = int(row[3])
        assert (int(row[2]), count) == (leader, len(trick))
        assert [tuple(pair) for pair in row[4 : 4 + 2 * count].reshape(count, 2).tolist()] == trick
        assert row[12:16].tolist() == won
        assert (row[16:].reshape(4, 10) > 0).tolist() == mask
