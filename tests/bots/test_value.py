"""The learned value: its examples follow the rules, it scores a stopped playout by the rules, it is reproducible,
and a search that stops its playouts early still plays legal, view-only decisions."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from luz.bots import InvalidBotSpec, make_arena_bot
from luz.bots.strong import Position
from luz.bots.value import (
    TABLES,
    CardExamples,
    ValueConfig,
    quality,
    searched_deals,
    table_deal,
    train_value,
)
from luz.bots.value_weights import DEFAULT_STEP, shipped_steps, shipped_value
from luz.engine import Bid, Game, Phase, Play, view
from luz.engine.beliefs import Beliefs
from support import fastsim as fs
from support.reference import random_steps


def test_every_trick_start_labels_as_many_cards_as_tricks_left() -> None:
    """In a self-play deal, the cards that take a trick from a trick's start on are exactly the tricks left."""
    examples = CardExamples.of_deals("rules", 2 * len(TABLES))
    deal, left, seat = examples.groups.T
    for d in np.unique(deal):
        for tricks_left in range(1, fs.H + 1):
            here = (deal == d) & (left == tricks_left)
            assert examples.labels[here].sum() == tricks_left
            assert here.sum() == len(np.unique(seat[deal == d])) * tricks_left  # every unplayed card, each seat
    assert set(np.unique(examples.features[:, 1])) == {0.0, 1.0}


def test_a_deal_played_by_the_search_is_labelled_as_the_engine_played_it() -> None:
    """The search's actions, replayed in the fast core: at the first trick's start each seat's cards that take a
    trick later are the tricks the engine counted for it, and every trick start labels the tricks left."""
    scripts = searched_deals("script", len(TABLES), 0, shipped_value(), 4, 1)
    examples = CardExamples.of_deals("script", len(TABLES), scripts=scripts)
    deal, left, seat = examples.groups.T
    for i, script in enumerate(scripts):
        game = table_deal("script", i)
        for action in script:
            mover = game.current_player
            assert mover is not None
            code = int(action)
            game.apply(Bid(code // 2, bool(code % 2)) if game.phase is Phase.BID else Play(code), mover)
        taken = [int(examples.labels[(deal == i) & (left == fs.H) & (seat == s)].sum()) for s in range(game.players)]
        assert game.deal_number == 2 and taken == list(game.results[0].tricks)
        for tricks_left in range(1, fs.H + 1):
            assert examples.labels[(deal == i) & (left == tricks_left)].sum() == tricks_left
    assert all(
        np.array_equal(a, b)
        for a, b in zip(scripts, searched_deals("script", len(TABLES), 0, shipped_value(), 4, 2), strict=True)
    )


def test_the_shipped_value_predicts_held_out_deals_better_than_the_even_chance() -> None:
    held_out = CardExamples.of_deals("test-held-out", 3 * len(TABLES))
    learned, even = quality(held_out, shipped_value()), quality(held_out, None)
    assert learned["log_loss"] < even["log_loss"] - 0.1
    assert learned["tricks_error"] < 0.8 * even["tricks_error"]


def test_training_is_reproducible_for_a_seed() -> None:
    config = ValueConfig(steps=2, deals=14, held_out=14, seed=3)
    (first, log), (again, _) = train_value(config), train_value(config)
    assert np.array_equal(first, again) and first.shape == (2, fs.VALUE_FEATURES) and len(log) == 2
    assert log[1]["deals"] == 28 and log[1]["log_loss"] < log[1]["even_log_loss"]
    other, _ = train_value(ValueConfig(steps=2, deals=14, held_out=14, seed=4))
    assert not np.array_equal(first, other)


def test_training_by_the_search_is_reproducible_and_fits_the_search_deals() -> None:
    config = ValueConfig(steps=1, deals=7, held_out=7, seed=3, search_steps=1, search_deals=7, iters=4)
    (first, log), (again, _) = train_value(config), train_value(config)
    assert np.array_equal(first, again) and first.shape == (2, fs.VALUE_FEATURES)
    assert [line["played_by"] for line in log] == ["heuristic", "search"] and log[1]["deals"] == 7
    heuristic_only, _ = train_value(ValueConfig(steps=1, deals=7, held_out=7, seed=3))
    assert np.array_equal(first[0], heuristic_only[0]) and not np.array_equal(first[1], first[0])


def test_a_bot_takes_any_shipped_step_of_the_value() -> None:
    steps = shipped_steps()
    assert np.array_equal(make_arena_bot("expert").value, steps[DEFAULT_STEP - 1])
    assert np.array_equal(make_arena_bot("expert:value=1").value, steps[0])
    assert np.array_equal(make_arena_bot(f"strong:depth=3:value={len(steps)}").value, steps[-1])
    for bad in ("expert:value=0", f"expert:value={len(steps) + 1}", "strong:value=1", "expert:depth=10:value=1.5"):
        with pytest.raises(InvalidBotSpec, match="value"):
            make_arena_bot(bad)


def playout_state(edition: str, players: int, seed: int) -> tuple[Position, np.ndarray, np.ndarray]:
    """A mid-play position of the seat to act, worlds drawn from its beliefs, and its legal first cards."""
    game = Game.new(edition, players, seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.PLAY or len(game.legal_actions()) < 2:
        random_steps(game, rng, 1)
    seat = game.current_player
    assert seat is not None
    seen = view(game, seat)
    p, beliefs = Position.from_view(seen), Beliefs(seen)
    vals = np.repeat(p.val[None], 8, axis=0)
    vals[:, seat, list(beliefs.slots)] = beliefs.sample_values(8, np.random.default_rng(seed))
    firsts = np.array([a.slot for a in seen.legal_actions if isinstance(a, Play)], dtype=np.int64)
    return p, vals, firsts


@pytest.mark.parametrize(("edition", "players"), TABLES)
def test_a_stopped_playout_scores_the_expected_points_of_the_rest(edition: str, players: int) -> None:
    p, vals, firsts = playout_state(edition, players, 11)
    state = (p.col, p.played, p.st, p.trick, p.won, p.bids, p.safe, p.rules)
    shape = (len(firsts), len(vals), players)

    def playouts(stop: int, value: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        scores, tricks = np.zeros(shape), np.zeros(shape, dtype=np.int64)
        value = shipped_value() if value is None else value
        fs.rollouts(vals, *state, p.seat, False, firsts, fs.NO_POLICY, stop, value, scores, tricks)
        return scores, tricks

    whole, whole_tricks = playouts(fs.H)
    assert whole_tricks.sum(axis=2).min() == fs.H and np.array_equal(whole, np.rint(whole))
    stop = int(p.st[fs.TRICKS]) + 1
    stopped, stopped_tricks = playouts(stop)
    assert np.array_equal(stopped_tricks.sum(axis=2), np.full(shape[:2], stop))  # the tricks taken so far only
    made, penalty = p.rules[fs.MADE], p.rules[fs.PENALTY]
    assert stopped.max() <= made and stopped.min() >= -penalty * fs.H
    assert not np.array_equal(stopped, np.rint(stopped))  # an expectation, not one outcome
    assert np.corrcoef(stopped.ravel(), whole.ravel())[0, 1] > 0.3  # it values the rest as playing it does
    unvalued, _ = playouts(fs.H, fs.NO_VALUE)  # to the end of the deal, the value is never asked
    assert np.array_equal(unvalued, whole)


def test_the_depth_is_checked_and_the_search_stops_only_the_plays() -> None:
    for bad in ("0", "11", "1.5"):
        with pytest.raises(InvalidBotSpec, match="depth"):
            make_arena_bot(f"expert:depth={bad}")
    bot = make_arena_bot("strong:depth=2")
    game = Game.new("iello-2024", 4, seed=4)
    seat = game.current_player
    assert seat is not None
    bidding = bot.search(view(game, seat), random.Random(0))
    assert bidding.stop() == fs.H  # a bid is valued by its tricks: played to the end
    game.apply(bot.choose(view(game, seat), random.Random(0)), seat)
    while game.phase is not Phase.PLAY:
        seat = game.current_player
        assert seat is not None
        game.apply(bot.choose(view(game, seat), random.Random(0)), seat)
    seat = game.current_player
    assert seat is not None
    assert bot.search(view(game, seat), random.Random(0)).stop() == 2


def test_luz_train_value_writes_weights_the_bots_can_load(tmp_path: object) -> None:
    entry = "from luz.cli import main; main()"
    out = f"{tmp_path}/v.npz"
    command = [sys.executable, "-c", entry, "train-value", "--out", out, "--steps", "1", "--deals", "7"]
    result = subprocess.run([*command, "--held-out", "7"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    with np.load(out) as saved:
        assert saved["steps"].shape == (1, fs.VALUE_FEATURES) and "train-value" in str(saved["options"])
    bad = subprocess.run([*command, "--held-out", "0"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_the_shipped_value_is_the_output_of_its_recorded_command() -> None:
    """The first step of the command recorded in the shipped file gives its first step's weights again."""
    from importlib.resources import files

    with files("luz.bots").joinpath("learned_value.npz").open("rb") as handle, np.load(handle) as saved:
        options, steps, log = json.loads(str(saved["options"])), saved["steps"], json.loads(str(saved["log"]))
    assert options["command"] == "luz train-value" and np.array_equal(steps[DEFAULT_STEP - 1], shipped_value())
    played_by = ["heuristic"] * options["steps"] + ["search"] * options.get("search_steps", 0)
    assert [line["played_by"] for line in log] == played_by and len(steps) == len(played_by)
    config = ValueConfig(1, options["deals"], options["held_out"], options["l2"], options["seed"])
    first, _ = train_value(config)
    assert np.allclose(first[0], steps[0], atol=1e-6)


def test_the_expert_scores_the_rest_with_the_value_by_default_and_depth_10_plays_to_the_end() -> None:
    from luz.bots.adaptive import DEFAULT_DEPTH

    game = Game.new("korokorodou-2014", 3, seed=8)
    rng = random.Random(8)
    while game.phase is not Phase.PLAY or len(game.legal_actions()) < 2:
        random_steps(game, rng, 1)
    seat = game.current_player
    assert seat is not None
    seen = view(game, seat)
    default, whole = make_arena_bot("expert"), make_arena_bot("expert:depth=10")
    assert default.search(seen, random.Random(0)).stop() == min(sum(seen.tricks_won) + DEFAULT_DEPTH, fs.H)
    assert whole.search(seen, random.Random(0)).stop() == fs.H
