"""Training the self-play baseline (``luz train-selfplay``): PyTorch on CPU, on the batched environment.

One network (:mod:`luz.bots.selfplay`) plays every seat of every game of the 7 tables (:class:`LuzBatch`, the
view-only tensor). Two phases, both on the same games:

1. **Imitation** (a supervised start, as AlphaStar's): the fast core's heuristic plays every seat; the policy head
   learns its decisions (cross-entropy), the value head the deal's margin that followed.
2. **Self-play**: the network samples every seat's action and learns by PPO (clipped, advantage = deal margin
   minus the value head's estimate), every seat learning from its own deal margin (its points minus the others'
   mean, over the table's points scale), a zero-sum signal.

The curve measures the greedy network against the heuristic on fixed deals (:func:`evaluate`): one learner seat
per game (seat ``g % players``), heuristic opponents, each game's margin (learner's total minus the opponents'
mean) one unit, games of the same index on the 7 tables averaged into one unit of the bootstrap interval.

>>> run = train(SelfPlayConfig(games=4, rollout=48, imitation_updates=1, selfplay_updates=1, hidden=16), eval_games=2)
>>> [point["phase"] for point in run["curve"]]
['start', 'imitation', 'selfplay']
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from luz.arena.stats import interval
from luz.bots.fast.features import FEATURES, batch_features
from luz.bots.fast.rules import BIDDING, CURRENT, PHASE, PLAYING, H
from luz.bots.selfplay import INPUT, TABLES, Network, inputs

from . import vector_core as core
from .encoding import ACTION_COUNT, points_scale
from .vector import LuzBatch

EVAL_SEED = 38_000
"""The seed of the fixed deals of the curve (table ``t`` by ``EVAL_SEED + t``)."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """``games`` slots per table, ``rollout`` steps per slot per update, the phases' update counts (or
    ``minutes`` of training in all, wall-clock time, split ``imitation_share`` / rest), PPO's settings."""

    games: int = 32
    rollout: int = 96
    hidden: int = 128
    imitation_updates: int = 0
    selfplay_updates: int = 0
    minutes: float = 0.0
    imitation_share: float = 0.35
    learning_rate: float = 1e-3
    selfplay_learning_rate: float = 2e-4
    epochs: int = 3
    minibatch: int = 1024
    clip: float = 0.2
    entropy: float = 0.003
    value_weight: float = 0.5
    seed: int = 1
    evaluate_every: int = 10


class Model(nn.Module):
    """The torch twin of :class:`luz.bots.selfplay.Network` (two hidden ReLU layers)."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(INPUT, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.policy = nn.Linear(hidden, ACTION_COUNT)
        self.value = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        logits = self.policy(h).masked_fill(~mask, -1e9)
        return logits, self.value(h)[:, 0]

    def network(self) -> Network:
        """The weights as numpy arrays, as shipped (float16, read back as float32)."""

        def dense(layer: nn.Linear) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
            weights = layer.weight.detach().numpy().T.astype(np.float16).astype(np.float32)
            return weights, layer.bias.detach().numpy().astype(np.float16).astype(np.float32)

        hidden = tuple(dense(layer) for layer in self.body if isinstance(layer, nn.Linear))
        return Network(hidden, dense(self.policy), dense(self.value))


def save(network: Network, path: Path) -> None:
    """Write ``network`` as a compressed float16 ``.npz`` (:func:`luz.bots.selfplay.load` reads it)."""
    arrays: dict[str, Any] = {name: array.astype(np.float16) for name, array in network.arrays().items()}
    np.savez_compressed(path, **arrays)


def heuristic_actions(batch: LuzBatch) -> npt.NDArray[np.int64]:
    """The fast core's heuristic's action for the seat to act in every game (from that seat's own beliefs)."""
    table = batch._table
    beliefs = np.zeros((H, table[core.T_LOW] + table[core.T_VALUES] + 1))
    legal = np.empty(H, dtype=np.int64)
    work = np.empty(table[core.T_SIZE], dtype=np.float32)
    mask = np.empty(ACTION_COUNT, dtype=np.int8)
    none = (np.zeros((1, ACTION_COUNT), dtype=np.float32), np.zeros(ACTION_COUNT, dtype=np.float32))
    state = batch._state()
    decide: core.Kernel = core._opponent_action
    return np.array(
        [decide(*state, core.HEURISTIC, *none, slot, beliefs, legal, work, mask) for slot in range(batch.num_games)],
        dtype=np.int64,
    )


def features(batch: LuzBatch) -> npt.NDArray[np.float64]:
    """The belief features ``[games, FEATURES]`` of the seat to act in every game (from its own information)."""
    out = np.zeros((batch.num_games, FEATURES), dtype=np.float64)
    batch_features(batch._val, batch._col, batch._played, batch._st, batch._trick, batch._won, batch._bids,
                   batch._rules, batch._scale, out)  # fmt: skip
    return out


def _margins(points: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each seat's points minus the other seats' mean (``points[..., seats]``)."""
    players = points.shape[-1]
    margins: npt.NDArray[np.float64] = points - (points.sum(axis=-1, keepdims=True) - points) / (players - 1)
    return margins


class _Slots:
    """One table's games in training, with the decisions whose deal has not ended yet."""

    def __init__(self, table: int, games: int, seed: int) -> None:
        edition, players = TABLES[table]
        self.table = table
        self.batch = LuzBatch(games, edition, players, seed=seed, perfect_recall=False)
        self.scale = float(points_scale(self.batch.edition, self.batch.options))
        self.seats, observations, masks = self.batch.reset()
        self.observations, self.masks = observations.copy(), masks.copy()


def _rollout(
    slots: _Slots, model: Model, steps: int, imitate: bool, rng: np.random.Generator
) -> dict[str, npt.NDArray[Any]]:
    """``steps`` decisions per game; the decisions of deals that ended, each with its seat's deal margin."""
    batch, n = slots.batch, slots.batch.num_games
    xs = np.zeros((steps, n, INPUT), dtype=np.float32)
    masks = np.zeros((steps, n, ACTION_COUNT), dtype=np.bool_)
    actions = np.zeros((steps, n), dtype=np.int64)
    logps = np.zeros((steps, n), dtype=np.float32)
    seats = np.zeros((steps, n), dtype=np.int64)
    returns = np.full((steps, n), np.nan, dtype=np.float32)
    start = np.zeros(n, dtype=np.int64)
    for t in range(steps):
        xs[t] = inputs(slots.observations, slots.table, features(batch))
        masks[t] = slots.masks.astype(np.bool_)
        seats[t] = batch._st[:, CURRENT]
        with torch.no_grad():
            logits, _ = model(torch.from_numpy(xs[t]), torch.from_numpy(masks[t]))
            probs = torch.softmax(logits, dim=1).numpy().astype(np.float64)
        if imitate:
            chosen = heuristic_actions(batch)
        else:
            cumulative = probs.cumsum(axis=1)
            chosen = (cumulative < rng.random((n, 1)) * cumulative[:, -1:]).sum(axis=1)
            chosen = np.where(masks[t, np.arange(n), chosen], chosen, probs.argmax(axis=1))
        actions[t] = chosen
        logps[t] = np.log(np.maximum(probs[np.arange(n), chosen], 1e-12))
        playing = batch._st[:, PHASE] == PLAYING
        _, observations, new_masks, rewards, done = batch.step(chosen)
        ended = np.flatnonzero(playing & ((batch._st[:, PHASE] == BIDDING) | done))
        margin = _margins(rewards.astype(np.float64)) / slots.scale
        for g in ended:
            rows = np.arange(start[g], t + 1)
            returns[rows, g] = margin[g, seats[rows, g]]
            start[g] = t + 1
        slots.observations, slots.masks = observations.copy(), new_masks.copy()
    keep = ~np.isnan(returns)
    return {"x": xs[keep], "mask": masks[keep], "action": actions[keep], "logp": logps[keep], "return": returns[keep]}


def _update(model: Model, optimiser: torch.optim.Optimizer, data: dict[str, npt.NDArray[Any]], imitate: bool,
            config: SelfPlayConfig, rng: np.random.Generator) -> float:  # fmt: skip
    """One phase's update on ``data``; the mean loss of its first pass (before it learns from them)."""
    x, mask = torch.from_numpy(data["x"]), torch.from_numpy(data["mask"])
    action, ret = torch.from_numpy(data["action"]), torch.from_numpy(data["return"])
    old = torch.from_numpy(data["logp"])
    first: list[float] = []
    for epoch in range(1 if imitate else config.epochs):
        order = rng.permutation(len(action))
        for begin in range(0, len(order), config.minibatch):
            index = torch.from_numpy(order[begin : begin + config.minibatch])
            logits, value = model(x[index], mask[index])
            logp_all = torch.log_softmax(logits, dim=1)
            logp = logp_all.gather(1, action[index, None])[:, 0]
            value_loss = ((value - ret[index]) ** 2).mean()
            if imitate:
                loss = -logp.mean() + config.value_weight * value_loss
            else:
                advantage = ret[index] - value.detach()
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-6)
                ratio = torch.exp(logp - old[index])
                clipped = torch.clamp(ratio, 1 - config.clip, 1 + config.clip)
                entropy = -(torch.softmax(logits, dim=1) * logp_all).sum(dim=1).mean()
                policy_loss = -torch.min(ratio * advantage, clipped * advantage).mean()
                loss = policy_loss + config.value_weight * value_loss - config.entropy * entropy
            if epoch == 0:
                first.append(float(loss.detach()))
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
    return float(np.mean(first))


def evaluate(network: Network, games: int, seed: int = EVAL_SEED) -> dict[str, Any]:
    """The greedy network against the heuristic on ``games`` fixed games per table: the mean margin (points) and
    its 95% interval, per table too."""
    per_table = np.zeros((len(TABLES), games))
    for t, (edition, players) in enumerate(TABLES):
        batch = LuzBatch(games, edition, players, seed=seed + t, perfect_recall=False)
        mine = np.arange(games) % players
        seats, observations, masks = batch.reset()
        totals = np.zeros((games, players))
        playing = np.ones(games, dtype=np.bool_)
        while playing.any():
            logits, _ = network.forward(inputs(observations, t, features(batch)))
            learned = np.where(masks.astype(np.bool_), logits, -np.inf).argmax(axis=1)
            chosen = np.where(seats == mine, learned, heuristic_actions(batch))
            seats, observations, masks, rewards, done = batch.step(chosen)
            totals += np.where(playing[:, None], rewards, 0.0)
            playing &= ~done
        per_table[t] = _margins(totals)[np.arange(games), mine]
    result: dict[str, Any] = dict(interval(per_table.mean(axis=0), seed))
    result["tables"] = {
        f"{e}/{p}": round(float(m), 2) for (e, p), m in zip(TABLES, per_table.mean(axis=1), strict=True)
    }
    return result


def train(
    config: SelfPlayConfig,
    eval_games: int = 64,
    out: Path | None = None,
    report: Callable[[dict[str, Any]], None] = lambda line: None,
) -> dict[str, Any]:
    """Train from the seed: imitation, then self-play (by update counts, or by ``config.minutes`` in all). The
    curve (decisions, CPU seconds, margin against the heuristic) is measured at the start, at the end of each
    phase and every ``evaluate_every`` updates; ``out`` gets the network (float16 ``.npz``) and ``out`` with
    ``.json`` the run, rewritten at each point of the curve."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(config.seed)
    model = Model(config.hidden)
    tables = [_Slots(t, config.games, config.seed * 1000 + t) for t in range(len(TABLES))]
    run: dict[str, Any] = {"config": asdict(config), "curve": []}
    decisions, cpu_start = 0, time.process_time()

    def point(phase: str, update: int, loss: float | None) -> None:
        network = model.network()
        line = {"phase": phase, "update": update, "decisions": decisions,
                "cpu_seconds": round(time.process_time() - cpu_start, 1), "loss": loss,
                "against_heuristic": evaluate(network, eval_games)}  # fmt: skip
        run["curve"].append(line)
        report(line)
        if out is not None:
            save(network, out)
            out.with_suffix(".json").write_text(json.dumps(run, indent=1) + "\n")

    point("start", 0, None)
    deadline = time.monotonic() + 60 * config.minutes
    imitation_end = time.monotonic() + 60 * config.minutes * config.imitation_share
    for imitate in (True, False):
        optimiser = torch.optim.Adam(
            model.parameters(), lr=config.learning_rate if imitate else config.selfplay_learning_rate
        )
        updates = config.imitation_updates if imitate else config.selfplay_updates
        end = imitation_end if imitate else deadline
        phase, update, loss = ("imitation" if imitate else "selfplay"), 0, 0.0
        while update < updates or (config.minutes and time.monotonic() < end):
            parts = [_rollout(slots, model, config.rollout, imitate, rng) for slots in tables]
            data = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
            decisions += config.rollout * config.games * len(tables)
            loss = _update(model, optimiser, data, imitate, config, rng)
            update += 1
            report({"phase": phase, "update": update, "loss": round(loss, 4), "decisions": decisions})
            if update % config.evaluate_every == 0:
                point(phase, update, loss)
        if not run["curve"] or run["curve"][-1]["update"] != update or run["curve"][-1]["phase"] != phase:
            point(phase, update, loss)
    return run
