"""LUZ in OpenSpiel: the framework's own conformance test and ISMCTS, hidden information, the resampler, replays."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'luz-game[research]')")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from scipy.stats import chisquare  # noqa: E402

from luz.engine import Game, InvalidOptions, Phase, UnknownEdition, UnsupportedPlayerCount, replay, view  # noqa: E402
from luz.engine.beliefs import Beliefs  # noqa: E402
from luz.research.encoding import ACTION_COUNT, action_id, action_of  # noqa: E402
from luz.research.openspiel import (  # noqa: E402
    LuzState,
    game_for,
    ismcts_action,
    make_ismcts_bot,
    record_from_history,
    state_from_view,
)
from support.reference import CONFIGS, DEALS, SEATS, ref_deck  # noqa: E402
from support.research import LIVE, engine_game, live_cut_points, random_history, state_after, twin_history  # noqa: E402


def load(key: str, players: int, **params: Any) -> Any:
    return pyspiel.load_game("luz", {"edition": key, "players": players, **params})


# -- conformance ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_random_sim_test(key: str, players: int) -> None:
    """OpenSpiel's own conformance test: clone, serialisation, legal action masks, rewards adding up to returns..."""
    pyspiel.random_sim_test(load(key, players), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "params",
    [
        {"first_player": 1},
        {"trick_history": True},
        {"bid_cap": -2},
        {"bid_cap": 3},
        {"made_points": "1/2/3/4"},
    ],
)
def test_random_sim_test_with_table_options(params: dict[str, Any]) -> None:
    pyspiel.random_sim_test(load("iello-2024", 4, **params), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_game_metadata(key: str, players: int) -> None:
    game = load(key, players)
    game_type = game.get_type()
    assert game.num_players() == players
    assert game.num_distinct_actions() == ACTION_COUNT == 32
    assert game.max_chance_outcomes() == len(ref_deck(key, players))
    assert game.max_game_length() == DEALS[key, players] * players * 11
    assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game_type.provides_information_state_tensor and game_type.provides_observation_tensor
    history = random_history(game, random.Random(key))
    state = state_after(game, history)
    assert state.is_terminal()
    player_actions = sum(1 for item in state.full_history() if item.player >= 0)
    assert len(history) - player_actions == 1 + DEALS[key, players] * 10 * players == game.max_chance_nodes_in_history()
    assert player_actions <= game.max_game_length()
    assert game.min_utility() <= min(state.returns()) and max(state.returns()) <= game.max_utility()


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"edition": "chess"}, UnknownEdition, "unknown edition 'chess'"),
        ({"edition": "standard-deck", "players": 5}, UnsupportedPlayerCount, "played by 3, 4 players, not 5"),
        ({"bid_cap": -5}, InvalidOptions, r"-1 \(the edition's\), -2 \(no cap\) or a cap >= 0, not -5"),
        ({"made_points": "10/x"}, InvalidOptions, "made_points must be 'default' or numbers"),
        ({"made_points": "10/20"}, InvalidOptions, "4 whole numbers"),
        ({"first_player": 7}, InvalidOptions, "first_player must be a seat 0..3"),
        ({"first_player": -3}, InvalidOptions, r"-1 \(drawn by chance\) or a seat"),
        ({"colour": "blue"}, pyspiel.SpielError, "Unknown parameter 'colour'"),
    ],
)
def test_bad_parameters_are_refused_clearly(params: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        pyspiel.load_game("luz", params)


def test_chance_deals_every_card_once_uniformly() -> None:
    game = load("standard-deck", 4, first_player=2)
    state = game.new_initial_state()
    rng = random.Random(1)
    seen = []
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == sorted(set(range(52)) - set(seen))
        assert all(p == pytest.approx(1 / len(outcomes)) for _, p in outcomes)
        seen.append(rng.choice(outcomes)[0])
        state.apply_action(seen[-1])
    assert len(seen) == 40
    dealt = engine_game(state).deals[-1]
    deck = ref_deck("standard-deck", 4)
    for seat in range(4):
        assert list(dealt.hands[seat]) == sorted(deck[i] for i in seen[10 * seat : 10 * seat + 10])
    assert sorted(dealt.aside) == sorted(set(deck) - {deck[i] for i in seen})
    with pytest.raises(Exception, match=r"cannot be drawn|not legal"):
        game.new_initial_state().apply_action(99)


def test_first_player_is_drawn_by_chance() -> None:
    state = load("iello-2024", 5).new_initial_state()
    assert state.is_chance_node() and [a for a, _ in state.chance_outcomes()] == [0, 1, 2, 3, 4]
    state.apply_action(3)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 3 == engine_game(state).first_player


def test_actions_are_positions_and_bids() -> None:
    state = state_after(load("iello-2024", 3), random_history(load("iello-2024", 3), random.Random(2), 31))
    assert state.legal_actions() == list(range(22))
    assert [state.action_to_string(a) for a in (0, 1, 5, 21)] == ["bid:0", "bid:0+", "bid:2+", "bid:10+"]
    for action in range(ACTION_COUNT):
        assert action_id(action_of(action)) == action
    assert state.action_to_string(22) == "play:0" and state.action_to_string(31) == "play:9"


def test_bid_cap_limits_the_bids() -> None:
    game = load("iello-2024", 3, bid_cap=3, first_player=0)
    state = state_after(game, random_history(game, random.Random(0), 30))
    state.apply_action(action_id(action_of(6)))  # bid:3
    assert state.legal_actions() == [0, 1]


def test_illegal_actions_are_refused_and_change_nothing() -> None:
    game = load("korokorodou-2014", 4)
    state = state_after(game, random_history(game, random.Random(3), 41))
    before, history = str(state), state.history()
    for bad in (25, 31):  # a play while bidding
        with pytest.raises(Exception, match="bid first"):
            state.apply_action(bad)
    assert str(state) == before and state.history() == history


# -- hidden information ---------------------------------------------------------------------------------------------


def seat_sees(state: Any, seat: int) -> tuple[Any, ...]:
    return (
        state.information_state_string(seat),
        state.information_state_tensor(seat),
        state.observation_string(seat),
        state.observation_tensor(seat),
    )


@pytest.mark.parametrize(("key", "players", "seat"), SEATS)
def test_a_seats_own_hidden_values_change_nothing_it_receives(key: str, players: int, seat: int) -> None:
    """Deals that differ only in the seat's unplayed values (and the aside): the same strings and tensors for it;
    the next seat, which sees those values, does notice."""
    game = load(key, players, trick_history=seat % 2 == 1)
    rng = random.Random(f"{key}{players}{seat}")
    changed = noticed = 0
    for _ in range(2):
        history = random_history(game, rng)
        for cut in live_cut_points(game, history, rng, 4):
            base = state_after(game, history[:cut])
            if engine_game(base).phase not in LIVE:
                continue
            twin, differs = twin_history(game, history[:cut], seat, rng)
            other = state_after(game, twin)
            assert seat_sees(other, seat) == seat_sees(base, seat)
            neighbour = (seat + 1) % players
            if differs:
                changed += 1
                noticed += seat_sees(other, neighbour)[0] != seat_sees(base, neighbour)[0]
                assert other.information_state_tensor(neighbour) != base.information_state_tensor(neighbour)
    assert changed > 0 and noticed == changed


def test_the_public_observer_shows_no_unplayed_value() -> None:
    from open_spiel.python.observation import make_observation

    game = load("iello-2024", 4)
    public = make_observation(
        game, pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    rng = random.Random(5)
    history = random_history(game, rng)
    for cut in live_cut_points(game, history, rng, 6):
        state = state_after(game, history[:cut])
        engine = engine_game(state)
        text = public.string_from(state, 0)
        unplayed = {
            engine.edition.card_name(engine.card(h, s))
            for h in range(4)
            for s in range(10)
            if not engine.is_played(h, s)
        }
        assert not set(text.replace(":", " ").split()) & unplayed
        for seat in range(4):
            twin, _ = twin_history(game, history[:cut], seat, rng)
            public.set_from(state_after(game, twin), 0)
            twin_tensor = public.tensor.copy()
            public.set_from(state, 0)
            assert np.array_equal(twin_tensor, public.tensor)


def test_information_state_remembers_the_order_of_plays_observation_does_not() -> None:
    game = load("iello-2024", 3, first_player=0)
    rng = random.Random(8)
    history = random_history(game, rng, 31 + 3 + 9)  # deal, bids, three tricks
    state = state_after(game, history)
    assert "plays from trick 1" in state.information_state_string(0)
    assert "plays" not in state.observation_string(0)
    assert len(state.information_state_tensor(0)) > len(state.observation_tensor(0))


# -- serialisation, clone ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_serialise_and_deserialise(key: str, players: int) -> None:
    game = load(key, players)
    rng = random.Random(9)
    history = random_history(game, rng)
    for cut in (0, 1, 17, len(history) // 2, len(history)):
        state = state_after(game, history[:cut])
        text = pyspiel.serialize_game_and_state(game, state)
        _, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(state2) == str(state) and state2.history() == state.history()
        assert [seat_sees(state2, s) for s in range(players)] == [seat_sees(state, s) for s in range(players)]
        if not state.is_terminal():  # both go on the same way
            action = state.legal_actions()[-1] if not state.is_chance_node() else state.chance_outcomes()[-1][0]
            state.apply_action(action)
            state2.apply_action(action)
            assert str(state2) == str(state)


def test_a_clone_is_independent() -> None:
    game = load("standard-deck", 3)
    state = state_after(game, random_history(game, random.Random(4), 60))
    copy = state.clone()
    before = str(state)
    copy.apply_action(copy.legal_actions()[0])
    assert str(state) == before and str(copy) != before


# -- the resampler --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_resampled_states_are_consistent_with_the_seat_and_have_a_history(key: str, players: int) -> None:
    game = load(key, players)
    rng = random.Random(12)
    history = random_history(game, rng)
    changed = 0
    for cut in live_cut_points(game, history, rng, 5):
        state = state_after(game, history[:cut])
        seat = state.current_player()
        for _ in range(3):
            sample = state.resample_from_infostate(seat, rng.random)
            assert seat_sees(sample, seat) == seat_sees(state, seat)
            assert len(sample.history()) == len(state.history())
            # The history alone rebuilds the sampled state, and the game goes on from it.
            rebuilt = state_after(game, sample.history())
            assert str(rebuilt) == str(sample)
            assert sample.legal_actions() == state.legal_actions()
            changed += str(sample) != str(state)
            # Only the seat's own unplayed values and the aside can differ.
            ours, theirs = engine_game(state), engine_game(sample)
            for other in range(players):
                if other != seat:
                    assert theirs.deals[-1].hands[other] == ours.deals[-1].hands[other]
            assert theirs.actions == ours.actions and theirs.results == ours.results
    assert changed > 0


def few_worlds_position(game: Any, rng: random.Random) -> tuple[Any, int, int]:
    """A state, its player and that player's world count, with between 10 and 300 hidden worlds."""
    while True:
        history = random_history(game, rng)
        for cut in range(len(history)):
            state = state_after(game, history[:cut])
            seat = state.current_player()
            if seat >= 0:
                worlds = Beliefs(view(engine_game(state), seat)).world_count()
                if 10 <= worlds <= 300:
                    return state, seat, worlds


def test_resampling_is_uniform_over_the_worlds_the_seat_cannot_tell_apart() -> None:
    """Every world the seat cannot rule out comes up (their number is the brute-force-checked world count of
    the beliefs), equally often."""
    game = load("iello-2024", 3, first_player=0)
    rng = random.Random(21)
    state, seat, worlds = few_worlds_position(game, rng)
    samples = (state.resample_from_infostate(seat, rng.random) for _ in range(30 * worlds))
    counts = Counter(engine_game(sample).deals[-1].hands[seat] for sample in samples)
    assert len(counts) == worlds
    assert chisquare(list(counts.values())).pvalue > 0.001


def test_resampling_from_a_chance_node_redraws_the_hidden_cards() -> None:
    game = load("iello-2024", 3, first_player=0)
    state = state_after(game, random_history(game, random.Random(2), 12))
    assert state.is_chance_node()
    sample = state.resample_from_infostate(0, random.Random(3).random)
    assert len(sample.history()) == 12 and sample.history() != state.history()
    assert sample.information_state_string(0) == state.information_state_string(0)


# -- search -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_ismcts_plays_whole_games(key: str, players: int) -> None:
    """OpenSpiel's ISMCTSBot at one seat (resampling through the state), random players elsewhere."""
    game = load(key, players)
    seat = sum(map(ord, key)) % players
    bot = make_ismcts_bot(game, simulations=3, seed=1)
    rng = random.Random(7)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        elif state.current_player() == seat:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            searched += 1
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert searched >= DEALS[key, players] * 11


def test_stock_ismcts_with_its_own_resampling_call_and_whole_game_rollouts() -> None:
    """The ISMCTSBot as OpenSpiel ships it: state.resample_from_infostate with its sampler, random rollouts."""
    game = load("standard-deck", 3)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 2, random_state=np.random.RandomState(0)
    )
    rng = random.Random(3)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(bot.step(state))
    assert len(state.returns()) == 3


@pytest.mark.parametrize("dealt", [False, True])
def test_openspiels_evaluate_bots_plays_a_game_with_the_ismcts_bot(dealt: bool) -> None:
    """``pyspiel.evaluate_bots`` from the start (it restarts the bots) and from a dealt state (``restart_at``)."""
    game = load("standard-deck", 3)
    state = game.new_initial_state()
    rng = random.Random(4)
    while dealt and state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    bots = [make_ismcts_bot(game, simulations=3, seed=2)]
    bots += [pyspiel.make_uniform_random_bot(seat, seat) for seat in (1, 2)]
    returns = pyspiel.evaluate_bots(state, bots, 5)
    assert len(returns) == 3 and game.min_utility() <= min(returns) <= max(returns) <= game.max_utility()
    assert returns != [0.0, 0.0, 0.0]  # whole deals were scored


@pytest.mark.parametrize("seed", range(3))
def test_ismcts_out_of_time_at_once_still_decides(seed: int) -> None:
    """OpenSpiel's first simulation only expands the root: a search must run two before its time can stop it."""
    game = Game.new("iello-2024", players=4, seed=seed)
    seen = view(game, game.current_player)
    assert ismcts_action(seen, simulations=10**6, seconds=1e-9, seed=2) in game.legal_actions()


def test_ismcts_action_from_a_view() -> None:
    game = Game.new("iello-2024", players=4, seed=5)
    rng = random.Random(5)
    for _ in range(9):
        game.apply(rng.choice(game.legal_actions()))
    seat = game.current_player
    seen = view(game, seat)
    first = ismcts_action(seen, simulations=30, seed=2)
    assert first in game.legal_actions()
    assert ismcts_action(seen, simulations=30, seed=2) == first  # a seed fixes the search
    assert ismcts_action(seen, simulations=10**6, seconds=0.2, seed=2) in game.legal_actions()
    with pytest.raises(ValueError, match="whose turn"):
        ismcts_action(view(game, (seat + 1) % 4))


def test_a_state_from_a_view_is_what_the_seat_sees() -> None:
    game = Game.new("korokorodou-2014", players=3, seed=6, trick_history=False)
    rng = random.Random(6)
    for _ in range(3 + 3 * 4 + 1):
        game.apply(rng.choice(game.legal_actions()))
    seat = game.current_player
    state = state_from_view(view(game, seat), rng)
    assert isinstance(state, LuzState)
    assert view(engine_game(state), seat) == view(game, seat)
    resampled = state.resample_from_infostate(seat, rng.random)
    assert resampled.information_state_string(seat) == state.information_state_string(seat)
    assert "plays from trick 5" in state.information_state_string(seat)  # only the last trick and this one
    with pytest.raises(ValueError, match="no history"):
        pyspiel.serialize_game_and_state(state.get_game(), state)
    assert game_for(view(game, seat)).num_players() == 3
    # Played on to the next deal's dealing, it still resamples what nobody has seen.
    while not state.is_chance_node():
        state.apply_action(rng.choice(state.legal_actions()))
    for _ in range(7):
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    redrawn = state.resample_from_infostate(seat, rng.random)
    assert redrawn.information_state_string(seat) == state.information_state_string(seat)
    assert len(redrawn.table.game.deals) == len(state.table.game.deals)
    assert redrawn.chance_outcomes() != state.chance_outcomes()  # other cards drawn (almost surely)


# -- replays ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_a_game_played_in_openspiel_replays_the_same_in_the_engine(key: str, players: int) -> None:
    game = load(key, players)
    history = random_history(game, random.Random(key + "replay"))
    state = state_after(game, history)
    record = json.loads(json.dumps(record_from_history(game, history)))
    replayed = replay(record)
    assert replayed.phase is Phase.GAME_OVER
    outcome = replayed.outcome()
    assert outcome is not None
    assert list(outcome.totals) == state.returns()
    assert outcome.to_json() == engine_game(state).outcome().to_json()
