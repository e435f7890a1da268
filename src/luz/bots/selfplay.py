"""The self-play baseline (``selfplay``): a small network over a seat's view tensor, played in numpy.

Its input is the batched environment's view-only tensor (:class:`luz.research.encoding.Encoder` with
``perfect_recall=False``, built from the seat's :class:`~luz.engine.View` alone), zero-padded to the largest of
the 7 tables' sizes, a one-hot of the table, then the seat's belief features (:mod:`luz.bots.fast.features`: each
card's chance to take a trick and expected value, each card's chance to win the trick now, each bid's expected
score, all from what the seat sees). Two dense ReLU layers feed a policy head (one logit per
action id, the bot plays the best legal one) and a value head (the seat's expected margin for the deal: its points
minus the others' mean, over :func:`~luz.research.encoding.points_scale`). The weights ship as
:data:`WEIGHTS_FILE`, trained by ``luz train-selfplay`` (:mod:`luz.research.selfplay`, PyTorch); playing needs
numpy only.
"""

from __future__ import annotations

import random
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from luz.engine import Action, TableOptions, View
from luz.engine.editions import get_edition
from luz.research.encoding import ACTION_COUNT, Encoder, action_id, action_of, points_scale

from .base import Bot, InvalidBotSpec
from .fast.features import FEATURES, position_features
from .fast.rules import HIGH, H
from .strong import Position

TABLES: tuple[tuple[str, int], ...] = (
    ("iello-2024", 3),
    ("iello-2024", 4),
    ("iello-2024", 5),
    ("korokorodou-2014", 3),
    ("korokorodou-2014", 4),
    ("standard-deck", 3),
    ("standard-deck", 4),
)
"""The tables the network plays, in the order of its one-hot."""
TENSOR = 1299
"""The largest view-only tensor of the 7 tables (iello-2024 with 5 players)."""
INPUT = TENSOR + len(TABLES) + FEATURES
WEIGHTS_FILE = "selfplay.npz"
"""The shipped weights (``luz.bots`` package data)."""
FloatArray = npt.NDArray[np.float32]


class Network(NamedTuple):
    """Dense layers ``(weights [in, out], bias [out])``: the hidden ReLU layers, then the policy and value heads."""

    hidden: tuple[tuple[FloatArray, FloatArray], ...]
    policy: tuple[FloatArray, FloatArray]
    value: tuple[FloatArray, FloatArray]

    def forward(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Logits ``[batch, 32]`` and values ``[batch]`` of inputs ``[batch, INPUT]``."""
        h = x
        for weights, bias in self.hidden:
            h = np.maximum(h @ weights + bias, 0.0)
        logits = h @ self.policy[0] + self.policy[1]
        value = h @ self.value[0] + self.value[1]
        return logits.astype(np.float32), value[:, 0].astype(np.float32)

    def arrays(self) -> dict[str, FloatArray]:
        """The arrays to save (:func:`load` reads them back)."""
        out: dict[str, FloatArray] = {}
        for k, (weights, bias) in enumerate(self.hidden):
            out[f"hidden{k}_w"], out[f"hidden{k}_b"] = weights, bias
        out["policy_w"], out["policy_b"] = self.policy
        out["value_w"], out["value_b"] = self.value
        return out


def load(path: Path | str | None = None) -> Network:
    """The network saved at ``path`` (None: the shipped weights), as float32."""
    if path is None:
        with files("luz.bots").joinpath(WEIGHTS_FILE).open("rb") as handle:
            return _network(dict(np.load(handle)))
    with np.load(path) as data:
        return _network(dict(data))


def _network(data: dict[str, np.ndarray]) -> Network:
    def layer(name: str) -> tuple[FloatArray, FloatArray]:
        return data[f"{name}_w"].astype(np.float32), data[f"{name}_b"].astype(np.float32)

    depth = sum(1 for key in data if key.startswith("hidden") and key.endswith("_w"))
    network = Network(tuple(layer(f"hidden{k}") for k in range(depth)), layer("policy"), layer("value"))
    if network.hidden[0][0].shape[0] != INPUT or network.policy[0].shape[1] != ACTION_COUNT:
        raise ValueError(f"weights for inputs {network.hidden[0][0].shape[0]}, not {INPUT}")
    return network


@cache
def shipped() -> Network:
    """The shipped network."""
    return load()


def table_index(edition: str, players: int) -> int:
    """The table's place in :data:`TABLES`; :class:`InvalidBotSpec` for a table the network does not play."""
    key = (get_edition(edition).key, players)
    if key not in TABLES:
        raise InvalidBotSpec(f"the self-play network does not play {key[0]} with {players} players")
    return TABLES.index(key)


def inputs(tensors: FloatArray, table: int, features: npt.NDArray[np.float64]) -> FloatArray:
    """The network's inputs ``[batch, INPUT]`` from one table's view-only tensors ``[batch, size]`` and the
    belief features ``[batch, FEATURES]`` of the same positions."""
    out = np.zeros((len(tensors), INPUT), dtype=np.float32)
    out[:, : tensors.shape[1]] = tensors
    out[:, TENSOR + table] = 1.0
    out[:, TENSOR + len(TABLES) :] = features
    return out


def view_features(view: View) -> npt.NDArray[np.float64]:
    """The belief features ``[FEATURES]`` of ``view``'s seat (zeros outside a deal's bidding and play)."""
    out = np.zeros(FEATURES, dtype=np.float64)
    if view.seat is None or view.current_player != view.seat:
        return out
    try:
        at = Position.from_view(view)
    except ValueError:  # not during a deal
        return out
    scale = float(points_scale(view.edition, view.options))
    gt = np.zeros((H, at.rules[HIGH] + 2), dtype=np.float64)
    position_features(at.val, at.col, at.played, at.st, at.trick, at.won, at.bids, at.rules, at.seat, scale, gt, out)
    return out


@cache
def _encoder(edition: str, players: int, options: TableOptions) -> Encoder:
    return Encoder(get_edition(edition), players, options, perfect_recall=False)


class SelfPlayBot(Bot):
    """The self-play network's most likely legal action, from the seat's view tensor alone (no search)."""

    name = "selfplay"

    def __init__(self, network: Network | None = None) -> None:
        self.network = shipped() if network is None else network

    def input(self, view: View) -> FloatArray:
        """The network's input for ``view`` (its seat's): everything in it comes from the view."""
        if view.seat is None:
            raise InvalidBotSpec("the self-play bot plays a seat, not a spectator's view")
        encoder = _encoder(view.edition.key, view.players, view.options)
        tensor = encoder.tensor(view, view.seat)
        return inputs(tensor[None, :], table_index(view.edition.key, view.players), view_features(view)[None, :])

    def decide(self, view: View, rng: random.Random) -> Action:
        logits, _ = self.network.forward(self.input(view))
        legal = [action_id(action) for action in view.legal_actions]
        return action_of(max(legal, key=lambda a: float(logits[0, a])))
