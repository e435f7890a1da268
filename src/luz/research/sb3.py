"""Stable-Baselines3 on the batched environment: :class:`LuzVectorEnv` as an SB3 ``VecEnv`` for ``sb3-contrib``'s
``MaskablePPO`` (the ``research`` extra: torch and sb3-contrib).

The observation is the ``observation`` tensor; the legal mask is :meth:`LuzSB3VecEnv.action_masks`, where
``MaskablePPO`` looks for it. A slot whose game ended reports the ended game's last tensor as
``info["terminal_observation"]`` (from Gymnasium's ``final_obs``) and already holds the new game's first.

>>> env = make_vec_env(8, players=4, opponents="random", seed=0)
>>> env.reset().shape, env.action_masks().shape
((8, 1499), (8, 32))
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv, VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from luz.engine import InvalidOptions

from .encoding import ACTION_COUNT
from .vector_env import LuzVectorEnv

MASKS = "action_masks"
"""The method ``MaskablePPO`` calls for the legal actions."""


class LuzSB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over a :class:`LuzVectorEnv`: one slot per game of the batch, the learning seat's tensor
    as observation, its legal ids from :meth:`action_masks`.

    The batch is one environment stepped at once, so ``get_attr``/``set_attr`` reach the whole batch and
    ``env_method`` knows only ``action_masks``. A seed given by :meth:`seed` applies to the next reset, once, as
    the batch's seed (each slot draws its own stream from it).
    """

    def __init__(self, env: LuzVectorEnv) -> None:
        if env.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise InvalidOptions("SB3's VecEnv resets a game in the step that ends it: use AutoresetMode.SAME_STEP")
        self.env = env
        self._masks = np.zeros((env.num_envs, ACTION_COUNT), dtype=np.bool_)
        self._actions: npt.NDArray[Any] = np.zeros(env.num_envs, dtype=np.int64)
        observation_space = cast(spaces.Dict, env.single_observation_space)["observation"]
        super().__init__(env.num_envs, observation_space, env.single_action_space)

    def _observe(self, observations: dict[str, npt.NDArray[Any]]) -> npt.NDArray[np.float32]:
        self._masks = observations["action_mask"].astype(np.bool_)
        tensors: npt.NDArray[np.float32] = observations["observation"]
        return tensors

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learning seat's legal ids in every game, ``bool[num_envs, 32]``."""
        return self._masks

    def reset(self) -> VecEnvObs:
        """New games in every slot (seeded by :meth:`seed` if it was called since the last reset)."""
        seed = self._seeds[0]
        observations, info = self.env.reset(seed=seed, options=self._options[0] or None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{"seat": int(seat)} for seat in info["seat"]]
        return self._observe(observations)

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._actions = actions  # checked by the batch: one legal id per game

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{"seat": int(seat)} for seat in info["seat"]]
        illegal = info["final_info"].get("illegal_action") if dones.any() else None
        for slot in np.flatnonzero(dones):
            final = info["final_obs"][slot]
            infos[slot]["terminal_observation"] = final["observation"]
            infos[slot]["TimeLimit.truncated"] = bool(truncated[slot] and not terminated[slot])
            if illegal is not None and illegal[slot]:
                infos[slot]["illegal_action"] = True
        return self._observe(observations), rewards, dones, infos

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """An attribute of the batch (``action_masks``: this adapter's), once per slot asked."""
        value = getattr(self, attr_name) if attr_name == MASKS else getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the whole batch (every slot shares it)."""
        if indices is not None and sorted(self._get_indices(indices)) != list(range(self.num_envs)):
            raise ValueError("the slots of a batch share its attributes: set them for every slot")
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks`` per slot (what ``MaskablePPO`` asks); the batch has no other method per game."""
        if method_name != MASKS:
            raise AttributeError(f"a batched game has no per-slot method {method_name!r}")
        return [self._masks[slot] for slot in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper[Any, Any, Any, Any]], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


def make_vec_env(num_envs: int, **options: Any) -> VecMonitor:
    """A :class:`LuzVectorEnv` of ``num_envs`` games (``options``: its other arguments) for SB3, inside
    ``VecMonitor`` (each ended game's ``info["episode"]``: its total ``r`` and decisions ``l``)."""
    return VecMonitor(LuzSB3VecEnv(LuzVectorEnv(num_envs, **options)))
