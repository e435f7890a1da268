"""A Gymnasium ``VectorEnv`` of LUZ on the batched core (:mod:`.vector`): one learning seat per game.

>>> env = LuzVectorEnv(16, edition="iello-2024", players=4, seat=None, opponents="heuristic", seed=0)
>>> observations, info = env.reset()
>>> observations["observation"].shape, info["seat"].shape
((16, 1499), (16,))
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from luz.bots.fast.rules import H
from luz.engine import Edition, InvalidOptions

from . import vector_core as core
from .encoding import ACTION_COUNT
from .vector import FloatArray, LinearPolicy, LuzBatch, Seeds


class LuzVectorEnv(VectorEnv):
    """A Gymnasium ``VectorEnv``: ``num_envs`` games, one learning seat each, the other seats played in the fast
    core by ``opponents``: ``"heuristic"`` (the fast core's heuristic, each seat deciding on its own beliefs),
    ``"random"``, or a :class:`LinearPolicy` (each opponent sampling from it on its own tensor).

    Observations are ``{"observation": float32[num_envs, size], "action_mask": int8[num_envs, 32]}`` for the
    learning seat, rewards the points it scored since its previous action. ``seat=None`` draws the learning seat
    each game (``info["seat"]``). Games reset in the step that ends them (Gymnasium's ``AutoresetMode.SAME_STEP``):
    the observation returned for such a slot is the new game's first, and ``info["final_obs"][i]`` and
    ``info["final_info"][i]`` hold the ended game's last observation (the finished game as the learning seat sees
    it, an all-zero mask) and info, masked by ``info["_final_obs"]`` and ``info["_final_info"]`` (keys present
    only on a step where a game ended, as in Gymnasium's ``SyncVectorEnv``). An illegal action raises
    :class:`IllegalAction` and changes nothing: mask the policy.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (as gymnasium's VectorEnv declares it)

    def __init__(
        self,
        num_envs: int,
        edition: Edition | str = "iello-2024",
        players: int = 4,
        seat: int | None = 0,
        opponents: str | LinearPolicy = "heuristic",
        seed: int = 0,
        perfect_recall: bool = True,
        parallel: bool | None = None,
        copy: bool = True,
        **option_overrides: Any,
    ) -> None:
        self.batch = LuzBatch(num_envs, edition, players, seed, perfect_recall, parallel, **option_overrides)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
            raise InvalidOptions(f"seat must be 0..{players - 1} or None (drawn each game), not {seat!r}")
        self.fixed_seat = seat
        self.batch._table = self.batch._table_array(draw_seat=seat is None)
        size = self.batch.encoder.size
        if isinstance(opponents, LinearPolicy):
            self._kind = core.LINEAR
            weights = np.ascontiguousarray(opponents.weights, dtype=np.float32)
            bias = np.ascontiguousarray(opponents.bias, dtype=np.float32)
            if weights.shape != (size, ACTION_COUNT) or bias.shape != (ACTION_COUNT,):
                raise InvalidOptions(f"a linear policy has weights of shape ({size}, 32) and a bias of 32")
            self._weights, self._bias = weights, bias
        elif opponents in ("heuristic", "random"):
            self._kind = core.HEURISTIC if opponents == "heuristic" else core.RANDOM
            self._weights, self._bias = np.zeros((1, ACTION_COUNT), np.float32), np.zeros(ACTION_COUNT, np.float32)
        else:
            raise InvalidOptions(f"opponents must be 'heuristic', 'random' or a LinearPolicy, not {opponents!r}")
        self.copy = copy
        self.num_envs = num_envs
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(ACTION_COUNT)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._reward = np.zeros(num_envs, dtype=np.float32)
        self._done = np.zeros(num_envs, dtype=np.bool_)
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._final = np.zeros((num_envs, size), dtype=np.float32)

    def heuristic_actions(self) -> npt.NDArray[np.int64]:
        """The fast core's heuristic's action at the learning seat of every game, decided from that seat's own
        beliefs as the heuristic opponents decide (a reference player for a learner in the same games)."""
        table = self.batch._table
        beliefs = np.zeros((H, table[core.T_LOW] + table[core.T_VALUES] + 1))
        legal = np.empty(H, dtype=np.int64)
        work = np.empty(table[core.T_SIZE], dtype=np.float32)
        mask = np.empty(ACTION_COUNT, dtype=np.int8)
        heuristic = (core.HEURISTIC, self._weights, self._bias)
        state = self.batch._state()
        decide: core.Kernel = core._opponent_action
        return np.array(
            [decide(*state, *heuristic, slot, beliefs, legal, work, mask) for slot in range(self.num_envs)],
            dtype=np.int64,
        )

    def _policy(self) -> tuple[Any, ...]:
        return (self._kind, self._weights, self._bias)

    def _result(self) -> dict[str, npt.NDArray[Any]]:
        obs, mask = self.batch._obs, self.batch._mask
        if self.copy:
            obs, mask = obs.copy(), mask.copy()
        return {"observation": obs, "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        return {"seat": self.batch._gs[:, core.LEARNER].copy(), "_seat": np.ones(self.num_envs, dtype=np.bool_)}

    def _final_info(self, seats: npt.NDArray[np.int64]) -> dict[str, Any]:
        """Gymnasium's same-step autoreset keys for the games that just ended (``seats``: their learning seats)."""
        ended = self._done.copy()
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(ended):
            final_obs[i] = {"observation": self._final[i].copy(), "action_mask": np.zeros(ACTION_COUNT, np.int8)}
        final_seats = np.where(ended, seats, 0)
        return {
            "final_obs": final_obs,
            "_final_obs": ended,
            "final_info": {"seat": final_seats, "_seat": ended.copy()},
            "_final_info": ended.copy(),
        }

    def reset(
        self, *, seed: Seeds | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """New games in every slot, up to the learning seat's first turn. Without ``seed``, each slot goes on to its
        next game; ``seed`` (one for the batch, or a list of one per slot, ``None`` keeping that slot's streams)
        starts the streams afresh, as :meth:`LuzBatch.reset` does. ``options`` is not used."""
        batch = self.batch
        batch.reset(seed)
        if self.fixed_seat is not None:
            batch._gs[:, core.LEARNER] = self.fixed_seat
        advance = core.advance_to_seat_parallel if batch.parallel else core.advance_to_seat_serial
        advance(*batch._state(), *self._policy(), batch._obs, batch._mask)
        batch._seats[:] = batch._gs[:, core.LEARNER]
        return self._result(), self._info()

    def step(
        self, actions: object
    ) -> tuple[dict[str, npt.NDArray[Any]], FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        """The learning seat's action in every game, then the opponents' until its next turn."""
        batch = self.batch
        checked = batch._check(actions)
        seats = batch._gs[:, core.LEARNER].copy()
        kernel = core.step_seat_parallel if batch.parallel else core.step_seat_serial
        kernel(
            *batch._state(), *self._policy(), checked, batch._obs, batch._mask, self._reward, self._done, self._final
        )
        batch._seats[:] = batch._gs[:, core.LEARNER]
        info = self._info()
        if self._done.any():
            info.update(self._final_info(seats))
        reward, done = (self._reward.copy(), self._done.copy()) if self.copy else (self._reward, self._done)
        truncated = self._truncated.copy() if self.copy else self._truncated
        return self._result(), reward, done, truncated, info
