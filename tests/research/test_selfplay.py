"""The self-play baseline: a tiny training run learns, the bot's input is the batched env's tensor and hides the
seat's own values, and the shipped network plays legal moves on the 7 tables."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the research extra)")

from typer.testing import CliRunner

from luz.bots import REFERENCE_BOTS, make_bot, play_out
from luz.bots.fast.features import FEATURES
from luz.bots.selfplay import INPUT, TABLES, TENSOR, SelfPlayBot, inputs, load, shipped
from luz.cli import app
from luz.engine import Game, Phase, get_edition, view
from luz.research.encoding import Encoder, Table
from luz.research.selfplay import SelfPlayConfig, evaluate, features, heuristic_actions, train
from luz.research.vector import LuzBatch
from support.reference import SEATS
from support.research import twin_tables

TINY = SelfPlayConfig(games=4, rollout=48, imitation_updates=4, selfplay_updates=2, hidden=16, evaluate_every=100)


def test_a_tiny_run_imitates_then_plays_itself_and_saves_a_network_the_bot_loads(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = []
    out = tmp_path / "tiny.npz"
    run = train(TINY, eval_games=1, out=out, report=lines.append)
    imitation = [line["loss"] for line in lines if line["phase"] == "imitation" and "against_heuristic" not in line]
    assert len(imitation) == 4 and imitation[-1] < imitation[0]  # the imitation loss falls
    assert [point["phase"] for point in run["curve"]] == ["start", "imitation", "selfplay"]
    assert run["curve"][-1]["decisions"] == 6 * 4 * 48 * len(TABLES)
    for point in run["curve"]:
        low, high = point["against_heuristic"]["ci95"]
        assert low <= point["against_heuristic"]["mean"] <= high
        assert set(point["against_heuristic"]["tables"]) == {f"{e}/{p}" for e, p in TABLES}
    assert json.loads(out.with_suffix(".json").read_text())["curve"] == run["curve"]
    network = load(out)
    assert evaluate(network, 1) == run["curve"][-1]["against_heuristic"]  # the saved weights are the ones measured
    game = Game.new("standard-deck", 3, seed=2)
    play_out(game, [SelfPlayBot(network)] * 3, random.Random(0))
    assert game.phase is Phase.GAME_OVER


def test_the_same_seed_gives_the_same_network(tmp_path: Path) -> None:
    config = replace(TINY, imitation_updates=1, selfplay_updates=1)
    for name in ("a", "b"):
        train(config, eval_games=1, out=tmp_path / f"{name}.npz")
    a, b = load(tmp_path / "a.npz").arrays(), load(tmp_path / "b.npz").arrays()
    assert all(np.array_equal(a[key], b[key]) for key in a)


@pytest.mark.parametrize(("key", "players"), TABLES)
def test_the_shipped_network_plays_legal_moves_to_the_end(key: str, players: int) -> None:
    game = Game.new(key, players, seed=players)
    play_out(game, [make_bot("selfplay", REFERENCE_BOTS)] * players, random.Random(0))  # an illegal move raises
    assert game.phase is Phase.GAME_OVER


@pytest.mark.parametrize(("key", "players"), TABLES)
def test_the_bots_input_is_the_batched_envs_tensor_and_features(key: str, players: int) -> None:
    """What the bot decides from at a table is what the network was trained on (the view-only tensor and the
    belief features the fast core computes in the batch), through whole games."""
    batch = LuzBatch(1, key, players, seed=3, perfect_recall=False)
    seats, observations, masks = batch.reset()
    engine = Game(batch.edition, players, replace(batch.options, first_player=batch.first_player(0)))
    _deal(engine, batch)
    table, bot, rng = Table(engine), SelfPlayBot(), np.random.default_rng(0)
    done, bidding, playing = np.array([False]), 0, 0
    while not done[0]:
        seat = int(seats[0])
        expected = inputs(observations, TABLES.index((key, players)), features(batch))
        np.testing.assert_allclose(bot.input(view(table.game, seat)), expected, rtol=1e-6, atol=1e-7)
        bids_part, plays_part = expected[0, -22:], expected[0, -32:-22]
        bidding += table.game.phase is Phase.BID and bool(bids_part.any())
        playing += table.game.phase is Phase.PLAY and bool(plays_part.any())
        action = int(rng.choice(np.flatnonzero(masks[0])))
        table.apply_id(action)
        seats, observations, masks, _, done = batch.step(np.array([action]))
        if table.game.phase is Phase.DEAL:
            _deal(table.game, batch)
    assert bidding and playing  # the features were not all zeros


def _deal(engine: Game, batch: LuzBatch) -> None:
    """Deal ``engine`` the cards of the batch's game 0's current deal."""
    hands = batch.hands(0)
    dealt = {card for hand in hands for card in hand}
    engine.deal(hands, [card for card in batch.edition.deck(batch.players) if card not in dealt])


@pytest.mark.parametrize(("key", "players", "seat"), [s for s in SEATS if (s[0], s[1]) in TABLES])
def test_the_bots_input_does_not_change_with_the_seats_own_unplayed_values(key: str, players: int, seat: int) -> None:
    rng = random.Random(f"selfplay{key}{players}{seat}")
    bot, changed = SelfPlayBot(), 0
    for _ in range(6):
        table, twin, differs = twin_tables(key, players, seat, rng)
        mine = bot.input(view(table.game, seat))
        np.testing.assert_array_equal(mine, bot.input(view(twin.game, seat)))
        if differs:  # the check can fail: the next seat's input shows those values
            neighbour = (seat + 1) % players
            assert not np.array_equal(bot.input(view(table.game, neighbour)), bot.input(view(twin.game, neighbour)))
        changed += differs
    assert changed > 0


def test_the_input_fits_every_table() -> None:
    sizes = []
    for key, players in TABLES:
        edition = get_edition(key)
        sizes.append(Encoder(edition, players, edition.options(players), perfect_recall=False).size)
    assert max(sizes) == TENSOR
    assert shipped().hidden[0][0].shape[0] == INPUT == TENSOR + len(TABLES) + FEATURES


def test_the_command_trains_and_writes_the_weights(tmp_path: Path) -> None:
    out = tmp_path / "cli.npz"
    args = ["train-selfplay", "--out", str(out), "--minutes", "0", "--imitation-updates", "1", "--selfplay-updates",
            "1", "--games", "2", "--hidden", "8", "--eval-games", "1"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert out.exists() and f"weights: {out}" in result.output
    assert load(out).hidden[0][0].shape[1] == 8


@pytest.mark.parametrize(("key", "players"), TABLES)
def test_the_bid_features_are_the_expected_scores_the_heuristic_bids_by(key: str, players: int) -> None:
    """At every bid of a batch, the heuristic's bid is the legal bid of the highest expected-score feature."""
    batch = LuzBatch(16, key, players, seed=5, perfect_recall=False)
    masks = batch.reset()[2]
    checked = 0
    for _ in range(3 * players):
        found, chosen = features(batch)[:, -22:], heuristic_actions(batch)
        for game in range(16):
            if chosen[game] < 22:  # a bid
                legal = masks[game, :22].astype(bool)
                assert found[game, ~legal].tolist() == [0.0] * int((~legal).sum())
                assert chosen[game] == int(np.argmax(np.where(legal, found[game], -np.inf)))
                checked += 1
        masks = batch.step(chosen)[2]
    assert checked >= 16 * players
