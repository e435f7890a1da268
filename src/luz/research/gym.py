"""LUZ as a Gymnasium single-agent environment: one seat learns, the other seats are luz bots.

Observations and actions are those of ``luz_v0`` (:mod:`luz.research.pettingzoo`): ``{"observation",
"action_mask"}`` and an action id 0..31. A step plays the agent's action, then the bots (each deciding from its
own view) until the agent's next turn or the end of the game; the reward is the points the agent's seat scored
meanwhile, so an episode's rewards add up to its final total. An action id outside 0..31 raises
:class:`~luz.engine.InvalidAction`. A legal-looking id that the rules forbid now ends the episode with the
game's worst possible total as reward and ``info["illegal_action"]`` (``illegal_actions="terminate"``, so that
unmasked learners and Gymnasium's checker can run), or raises and changes nothing (``illegal_actions="raise"``).

>>> env = LuzEnv(edition="iello-2024", players=3, opponents="heuristic")
>>> observation, info = env.reset(seed=3)
>>> observation["action_mask"].shape, info["seat"]
((32,), 0)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from luz.bots import Bot, make_bot
from luz.engine import DEFAULT_EDITION, HAND_SIZE, Game, IllegalAction, Phase, get_edition, to_record, view

from .encoding import ACTION_COUNT, Encoder, Table, action_id, action_of

ENV_ID = "luz/Luz-v0"
"""The single-seat environment alone (``gymnasium.make``; ``make_vec`` wraps copies of it)."""
VECTOR_ENV_ID = "luz/Luz-v1"
"""Version 1: :class:`LuzEnv` for ``gymnasium.make``, the batched :class:`~luz.research.vector_env.LuzVectorEnv`
(independent streams per game, ``final_obs``) for ``gymnasium.make_vec``; random opponents unless told."""
ALIAS_ID = "Luz-v1"
"""Version 1 without the namespace."""
JAX_VECTOR_ENV_ID = "luz/LuzJax-v1"
"""Version 1's batched env in JAX (``luz-game[jax]``), for ``gymnasium.make_vec`` only:
:class:`~luz.research.jax_vector_env.LuzJaxVectorEnv`, random opponents played in JAX."""


class LuzEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat of a LUZ game against bots; ``options`` are table options (``bid_cap=None``...)."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (an instance variable of gymnasium.Env)

    def __init__(
        self,
        edition: str = DEFAULT_EDITION,
        players: int = 4,
        seat: int | None = 0,
        opponents: str | Sequence[str | Bot] = "random",
        perfect_recall: bool = True,
        illegal_actions: str = "terminate",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if illegal_actions not in ("terminate", "raise"):
            raise ValueError(f"illegal_actions must be 'terminate' or 'raise', not {illegal_actions!r}")
        self.edition = get_edition(edition)
        self.players = players
        self.options = self.edition.options(players, **options)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
            raise ValueError(f"seat must be 0..{players - 1} or None (a random seat each game), not {seat!r}")
        self.fixed_seat = seat
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise ValueError(f"give one opponent for each of the other {players - 1} seats, not {len(names)}")
        self.opponents = [make_bot(b) if isinstance(b, str) else b for b in names]
        self.encoder = Encoder(self.edition, players, self.options, perfect_recall)
        self.illegal_actions = illegal_actions
        self.illegal_reward = float(-self.edition.miss_penalty * HAND_SIZE * self.edition.deals(players))
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (self.encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self.table: Table | None = None
        self.seat = 0 if seat is None else seat
        self._bots: dict[int, Bot] = {}
        self._rng = random.Random()
        self._over = True

    @property
    def game(self) -> Game:
        """The engine game being played (after :meth:`reset`)."""
        if self.table is None:
            raise RuntimeError("call reset() first")
        return self.table.game

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game (``seed`` fixes the deals, the seats and the bots' choices); plays the bots up to the
        agent's first turn. ``options`` is not used."""
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = int(rng.integers(self.players)) if self.fixed_seat is None else self.fixed_seat
        others = [s for s in range(self.players) if s != self.seat]
        self._bots = dict(zip(others, self.opponents, strict=True))
        self._rng = random.Random(int(rng.integers(2**63 - 1)))
        game = Game.new(self.edition, self.players, seed=int(rng.integers(2**63 - 1)), options=self.options)
        self.table = Table(game)
        self._over = False
        self._play_bots()
        return self._observe(), {"seat": self.seat}

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.table is None or self._over:
            raise RuntimeError("the episode is over: call reset()")
        action_of(action)  # malformed ids raise here, whatever the policy for illegal ones
        info: dict[str, Any] = {"seat": self.seat}
        try:
            scores = self.table.apply_id(action)
        except IllegalAction:
            if self.illegal_actions == "raise":
                raise
            self._over = True
            return self._observe(), self.illegal_reward, True, False, {**info, "illegal_action": True}
        reward = 0.0 if scores is None else float(scores[self.seat])
        reward += self._play_bots()
        self._over = self.table.game.phase is Phase.GAME_OVER
        return self._observe(), reward, self._over, False, info

    def _play_bots(self) -> float:
        """Let the bots act until the agent's turn or the end; the points the agent's seat scored meanwhile."""
        table = self.table
        assert table is not None
        game = table.game
        points = 0.0
        while game.current_player is not None and game.current_player != self.seat:
            seat = game.current_player
            move = self._bots[seat].choose(view(game, seat), self._rng)
            scores = table.apply_id(action_id(move))
            if scores is not None:
                points += scores[self.seat]
        return points

    def _observe(self) -> dict[str, np.ndarray]:
        assert self.table is not None
        return self.table.observation(self.encoder, self.seat)

    def record(self) -> dict[str, Any]:
        """The game so far as a luz record (docs/RECORD.md)."""
        return to_record(self.game)

    def render(self) -> str | None:
        if self.render_mode is None or self.table is None:
            return None
        return self.encoder.text(view(self.game, self.seat), self.seat, self.table.memory())


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="luz.research.gym:LuzEnv")
for _id in (VECTOR_ENV_ID, ALIAS_ID):
    if _id not in gymnasium.registry:
        gymnasium.register(
            id=_id,
            entry_point="luz.research.gym:LuzEnv",
            vector_entry_point="luz.research.vector_env:LuzVectorEnv",
            kwargs={"opponents": "random"},
        )
if JAX_VECTOR_ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=JAX_VECTOR_ENV_ID,
        vector_entry_point="luz.research.jax_vector_env:LuzJaxVectorEnv",
        kwargs={"opponents": "random"},
    )
