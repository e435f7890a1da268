"""An example of learning at speed: REINFORCE on the batched environment, numpy only, then the arena.

A linear softmax policy over the legal action ids of the view-only tensor (``perfect_recall=False``, so that the
trained agent can play anywhere a luz bot plays, from its ``View`` alone) learns one seat of a game against
opponents played in the fast core (:class:`~luz.research.vector_env.LuzVectorEnv`). Each decision is credited
with the points of the deal it belongs to (deals are dealt afresh: a decision cannot change another deal's cards),
less a baseline per phase, and the policy follows the gradient with Adam. :func:`arena` then seats the trained
policy as a luz bot against others on the arena's duplicate deal sets and reports the arena's statistics.

>>> result = train(updates=2, games=16, seed=0)
>>> len(result.curve), result.policy.weights.shape
(2, (939, 32))
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from luz.arena.core import ArenaConfig, GameRecord, choose
from luz.arena.stats import summarise
from luz.bots import Bot, make_arena_bot
from luz.engine import DEFAULT_EDITION, HAND_SIZE, Action, Game, get_edition
from luz.engine.views import View

from .encoding import ACTION_COUNT, Encoder, action_id, action_of
from .vector import LinearPolicy
from .vector_env import LuzVectorEnv

TRAINED = "trained"
"""The trained policy's name in the arena."""


class LinearBot(Bot):
    """A luz bot playing a :class:`LinearPolicy` from its view: the most likely legal action (``greedy``) or one
    drawn from the policy."""

    name = TRAINED

    def __init__(self, policy: LinearPolicy, encoder: Encoder, greedy: bool = True) -> None:
        self.policy = policy
        self.encoder = encoder
        self.greedy = greedy

    def decide(self, view: View, rng: random.Random) -> Action:
        assert view.seat is not None
        logits = self.encoder.tensor(view, view.seat) @ self.policy.weights + self.policy.bias
        legal = sorted(action_id(action) for action in view.legal_actions)
        if self.greedy:
            return action_of(max(legal, key=lambda a: float(logits[a])))
        weights = np.exp(logits[legal] - logits[legal].max())
        return action_of(rng.choices(legal, weights=weights.tolist())[0])


@dataclass
class Training:
    """A trained policy and its learning curve: per update, the games finished and their mean points."""

    policy: LinearPolicy
    curve: list[dict[str, float]]
    edition: str
    players: int
    opponents: str
    seconds: float


def train(
    edition: str = DEFAULT_EDITION,
    players: int = 4,
    opponents: str = "random",
    games: int = 256,
    updates: int = 40,
    learning_rate: float = 0.01,
    seed: int = 0,
) -> Training:
    """Train a linear policy from zero weights: each update plays ``games`` games side by side for one game's
    worth of the learner's decisions, then takes one policy-gradient step. Numpy's BLAS runs on one thread here:
    its matrices are small, and its threads would fight the simulator's for the cores."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _train(edition, players, opponents, games, updates, learning_rate, seed)


def _train(
    edition: str, players: int, opponents: str, games: int, updates: int, learning_rate: float, seed: int
) -> Training:
    started = time.perf_counter()
    env = LuzVectorEnv(games, edition, players, seat=None, opponents=opponents, seed=seed, perfect_recall=False)
    encoder = env.batch.encoder
    size = encoder.size
    deal_at, deals = encoder.offsets["deal"], encoder.deals
    bid_phase = encoder.offsets["phase"] + 1
    horizon = (1 + HAND_SIZE) * deals  # the learner's decisions in one game: a bid and ten plays a deal
    weights = np.zeros((size, ACTION_COUNT), np.float32)
    bias = np.zeros(ACTION_COUNT, np.float32)
    adam = _Adam([weights, bias], learning_rate)
    rng = np.random.default_rng(seed)
    observations, _ = env.reset()
    running = np.zeros(games)
    curve: list[dict[str, float]] = []
    finished = 0
    for update in range(updates):
        xs = np.empty((horizon, games, size), np.float32)
        masks = np.empty((horizon, games, ACTION_COUNT), np.bool_)
        actions = np.empty((horizon, games), np.int64)
        rewards = np.empty((horizon, games))
        ended = np.empty((horizon, games), np.bool_)
        totals: list[float] = []
        for t in range(horizon):
            x, mask = observations["observation"], observations["action_mask"].astype(np.bool_)
            xs[t], masks[t] = x, mask
            logits = np.where(mask, x @ weights + bias, -np.inf)
            actions[t] = (logits + rng.gumbel(size=logits.shape)).argmax(axis=1)
            deal = x[:, deal_at : deal_at + deals].argmax(axis=1)
            observations, reward, done, _, _ = env.step(actions[t])
            rewards[t] = reward
            next_deal = observations["observation"][:, deal_at : deal_at + deals].argmax(axis=1)
            ended[t] = done | (next_deal != deal)
            running += reward
            totals += running[done].tolist()
            running[done] = 0.0
        returns, valid = _deal_returns(rewards, ended)
        x, mask, action, value = xs[valid], masks[valid], actions[valid], returns[valid]
        bidding = x[:, bid_phase] == 1.0
        advantage = np.empty_like(value)
        for phase in (bidding, ~bidding):
            if phase.any():
                advantage[phase] = value[phase] - value[phase].mean()
        advantage /= advantage.std() + 1e-8
        logits = np.where(mask, x @ weights + bias, -np.inf)
        probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        probabilities[np.arange(len(action)), action] -= 1.0  # now p - onehot: the gradient of -log p(action)
        delta = (probabilities * advantage[:, None]).astype(np.float32)
        adam.step([x.T @ delta / len(action), delta.mean(axis=0)])
        finished += len(totals)
        curve.append(
            {
                "update": update + 1,
                "games_finished": finished,
                "mean_points": float(np.mean(totals)) if totals else float("nan"),
            }
        )
    policy = LinearPolicy(weights.copy(), bias.copy())
    return Training(policy, curve, edition, players, opponents, time.perf_counter() - started)


def _deal_returns(
    rewards: npt.NDArray[np.float64], ended: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Each step's points of the deal it belongs to, and whether that deal ended within the rollout."""
    returns = np.zeros_like(rewards)
    valid = np.zeros(rewards.shape, np.bool_)
    points = np.zeros(rewards.shape[1])
    seen = np.zeros(rewards.shape[1], np.bool_)
    for t in range(len(rewards) - 1, -1, -1):
        points = np.where(ended[t], rewards[t], points + rewards[t])
        seen |= ended[t]
        returns[t], valid[t] = points, seen
    return returns, valid


class _Adam:
    """Adam on a list of arrays, in place."""

    def __init__(self, params: list[npt.NDArray[np.float32]], rate: float) -> None:
        self.params, self.rate, self.t = params, rate, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, gradients: list[npt.NDArray[Any]]) -> None:
        """Descend ``gradients`` (of a loss) one step."""
        self.t += 1
        for p, g, m, v in zip(self.params, gradients, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= self.rate * (m / (1 - 0.9**self.t)) / (np.sqrt(v / (1 - 0.999**self.t)) + 1e-8)


def arena(training: Training, opponent: str = "random", deal_sets: int = 50, seed: int = 0) -> dict[str, Any]:
    """The arena's summary of the trained policy (as a greedy :class:`LinearBot`, one seat) against ``opponent``
    at every other seat, on duplicate deal sets with every rotation (``luz arena``'s games and statistics)."""
    players = training.players
    config = ArenaConfig((TRAINED, *[opponent] * (players - 1)), training.edition, players, deal_sets, seed)
    edition = get_edition(config.edition)
    encoder = Encoder(edition, players, edition.options(players), perfect_recall=False)
    records = []
    for deal_set, rotation in config.tasks():
        seats = tuple(config.bots[(seat - rotation) % players] for seat in range(players))
        bots = [LinearBot(training.policy, encoder) if spec == TRAINED else make_arena_bot(spec) for spec in seats]
        rngs = [random.Random(f"luz-arena:{seed}:{deal_set}:{rotation}:{seat}") for seat in range(players)]
        game = Game.new(config.edition, players, seed=config.game_seed(deal_set))
        while (seat := game.current_player) is not None:
            game.apply(choose(bots[seat], game, seat, rngs[seat]), seat)
        outcome = game.outcome()
        assert outcome is not None
        deals = tuple(result.to_json() for result in game.results)
        timing = tuple(() for _ in range(players))
        records.append(GameRecord(deal_set, rotation, seats, outcome.totals, outcome.ranking, deals, timing))
    return summarise(config, records)
