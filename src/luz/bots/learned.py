"""The learned play policy, trained by expert iteration (``luz train``), and the two bots that use it.

The policy is a linear score over features of playing each legal card (:func:`luz.bots.fast.policy.play_features`,
all from the seat's own beliefs); it plays the best-scored card. Its weights, one row per training step, ship in
the package as :data:`WEIGHTS_FILE` (a few hundred bytes); ``step=0`` is the heuristic's own play (the start of
training).

- ``policy``: bids as the heuristic, plays the learned policy's card, no search (well under a millisecond).
- ``learned``: the strong bot's search with the learned policy as the playout policy of every simulated player.
"""

from __future__ import annotations

import random
from functools import cache
from importlib.resources import files

import numpy as np

from luz.engine import Action, Bid, Phase, Play, View

from .base import Bot, InvalidBotSpec
from .fast.beliefs import own_beliefs
from .fast.heuristic import policy_bid
from .fast.policy import FEATURES, NO_POLICY, choose_play_policy, play_features
from .fast.rules import HIGH, H
from .strong import OVERSAMPLE, Position, StrongBot

WEIGHTS_FILE = "learned_policy.npz"
"""The shipped weights (``luz.bots`` package data): ``steps[k - 1]`` is the policy after training step ``k``."""


@cache
def shipped_steps() -> np.ndarray:
    """The shipped policy's weights by training step, ``float64[steps, FEATURES]``."""
    with files("luz.bots").joinpath(WEIGHTS_FILE).open("rb") as handle:
        steps: np.ndarray = np.asarray(np.load(handle)["steps"], dtype=np.float64)
    if steps.ndim != 2 or steps.shape[1] != FEATURES:
        raise ValueError(f"{WEIGHTS_FILE} holds weights of shape {steps.shape}, not (steps, {FEATURES})")
    return steps


def policy_of_step(step: int | None) -> np.ndarray:
    """The shipped policy after training step ``step`` (``None``: the last; 0: :data:`NO_POLICY`, the heuristic)."""
    steps = shipped_steps()
    if step is None:
        return np.ascontiguousarray(steps[-1])
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= len(steps):
        raise InvalidBotSpec(f"step must be a whole number in 0..{len(steps)}, not {step!r}")
    return NO_POLICY if step == 0 else np.ascontiguousarray(steps[step - 1])


class PolicyInputs:
    """A seat's view in the fast core with its own beliefs: what the policy decides from."""

    def __init__(self, seen: View) -> None:
        self.position = p = Position.from_view(seen)
        self.gt = np.zeros((H, int(p.rules[HIGH]) + 2), dtype=np.float64)
        own_beliefs(p.val, p.col, p.played, p.seat, p.rules, self.gt)
        self.legal = np.array([a.slot for a in seen.legal_actions if isinstance(a, Play)], dtype=np.int64)

    def features(self) -> np.ndarray:
        """``float64[legal cards, FEATURES]``: the features of playing each legal card, in ``legal`` order."""
        p, out = self.position, np.empty((len(self.legal), FEATURES), dtype=np.float64)
        state = (p.val, p.col, p.played, p.st, p.trick, p.won, p.bids, p.seat, self.gt, p.rules)
        play_features(*state, self.legal, len(self.legal), out)
        return out

    def bid(self) -> Bid:
        p = self.position
        choice = int(policy_bid(p.val, p.col, p.played, p.st, p.seat, self.gt, p.rules))
        return Bid(choice // 2, bool(choice % 2))

    def play(self, policy: np.ndarray) -> Play:
        p = self.position
        state = (p.val, p.col, p.played, p.st, p.trick, p.won, p.bids, p.seat, self.gt, p.rules)
        return Play(int(choose_play_policy(*state, self.legal, len(self.legal), policy)))


class PolicyBot(Bot):
    """The learned policy alone: the heuristic's bid, the policy's card (``step``: the training step's weights)."""

    name = "policy"

    def __init__(self, step: int | None = None, weights: np.ndarray | None = None) -> None:
        self.policy = policy_of_step(step) if weights is None else weights

    def decide(self, view: View, rng: random.Random) -> Action:
        inputs = PolicyInputs(view)
        return inputs.bid() if view.phase is Phase.BID else inputs.play(self.policy)


class LearnedBot(StrongBot):
    """The strong bot's search with the learned policy playing every simulated player's cards."""

    name = "learned"

    def __init__(
        self,
        iters: int | None = None,
        seconds: float | None = None,
        oversample: int = OVERSAMPLE,
        spite: float = 1.0,
        step: int | None = None,
        weights: np.ndarray | None = None,
    ) -> None:
        super().__init__(iters, seconds, oversample, spite)
        self.policy = policy_of_step(step) if weights is None else weights
