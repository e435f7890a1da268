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
from luz.engine import HAND_SIZE, Edition, IllegalAction, InvalidAction, InvalidOptions

from . import vector_core as core
from .encoding import ACTION_COUNT
from .vector import FloatArray, LinearPolicy, LuzBatch, Seeds

ILLEGAL_ACTIONS = ("terminate", "raise")
"""What an action the rules forbid does, in :class:`LuzVectorEnv` as in :class:`luz.research.gym.LuzEnv`: end
that game with the worst total as reward and ``illegal_action`` in its info, or raise and change nothing."""
AUTORESET_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)


def _autoreset_mode(mode: object) -> AutoresetMode:
    """``mode`` as an :class:`AutoresetMode` of :data:`AUTORESET_MODES` (its value, ``"NextStep"``, or its name,
    ``"next_step"``, accepted); :class:`InvalidOptions` otherwise."""
    for each in AUTORESET_MODES:
        if mode is each or mode in (each.value, each.name, each.name.lower()):
            return each
    raise InvalidOptions(f"autoreset_mode must be AutoresetMode.SAME_STEP or NEXT_STEP, not {mode!r}")


class LuzVectorEnv(VectorEnv):
    """A Gymnasium ``VectorEnv``: ``num_envs`` games, one learning seat each, the other seats played in the fast
    core by ``opponents``: ``"random"`` (uniformly random legal actions, the default), ``"heuristic"`` (the fast
    core's heuristic, each seat deciding on its own beliefs), or a :class:`LinearPolicy` (each opponent sampling
    from it on its own tensor).

    Observations are ``{"observation": float32[num_envs, size], "action_mask": int8[num_envs, 32]}`` for the
    learning seat, rewards the points it scored since its previous action. ``seat=None`` draws the learning seat
    each game (``info["seat"]``). Without ``seed``, one is drawn from the system's entropy (``self.batch.seed``,
    ``np_random_seed``). ``autoreset_mode``: Gymnasium's ``SAME_STEP`` (the default: the observation returned for a
    slot whose game just ended is the new game's first, the ended game's last observation and info in
    ``info["final_obs"][i]`` and ``info["final_info"]``, masked by ``info["_final_obs"]``/``info["_final_info"]``,
    keys present only on a step where a game ended, as in Gymnasium's ``SyncVectorEnv``) or ``NEXT_STEP`` (the
    ended game's last observation is returned, and the slot's next step, its action ignored, starts the new game).
    ``illegal_actions`` as :class:`~luz.research.gym.LuzEnv`'s: ``"terminate"`` ends that slot's game with the
    worst total as reward and ``illegal_action`` in its info; ``"raise"`` raises :class:`IllegalAction` and changes
    nothing. ``reset(options={"reset_mask": m})`` starts new games in the slots where ``m`` is true only.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (as gymnasium's VectorEnv declares it)

    def __init__(
        self,
        num_envs: int,
        edition: Edition | str = "iello-2024",
        players: int = 4,
        seat: int | None = 0,
        opponents: str | LinearPolicy = "random",
        seed: int | None = None,
        perfect_recall: bool = True,
        parallel: bool | str = "auto",
        copy: bool = True,
        illegal_actions: str = "terminate",
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        **option_overrides: Any,
    ) -> None:
        self.batch = LuzBatch(num_envs, edition, players, seed, perfect_recall, parallel, **option_overrides)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
            raise InvalidOptions(f"seat must be 0..{players - 1} or None (drawn each game), not {seat!r}")
        if illegal_actions not in ILLEGAL_ACTIONS:
            raise InvalidOptions(f"illegal_actions must be 'terminate' or 'raise', not {illegal_actions!r}")
        mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.fixed_seat = seat
        self.illegal_actions = illegal_actions
        batch = self.batch
        self.illegal_reward = float(-batch.edition.miss_penalty * HAND_SIZE * batch.edition.deals(players))
        self._np_random_seed = batch.seed
        batch._table = batch._table_array(draw_seat=seat is None)
        size = batch.encoder.size
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
        set_spaces(self, size, num_envs)
        self._reward = np.zeros(num_envs, dtype=np.float32)
        self._done = np.zeros(num_envs, dtype=np.bool_)
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._final = np.zeros((num_envs, size), dtype=np.float32)
        self._final_mask = np.zeros((num_envs, ACTION_COUNT), dtype=np.int8)
        self._illegal = np.zeros(num_envs, dtype=np.bool_)
        self._skip = np.zeros(num_envs, dtype=np.bool_)
        """NEXT_STEP: the slots whose game ended at the previous step (their next step starts the new game)."""
        self._next_obs = np.zeros((num_envs, size), dtype=np.float32) if mode is AutoresetMode.NEXT_STEP else None
        self._next_mask = np.zeros((num_envs, ACTION_COUNT), dtype=np.int8)

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """Gymnasium's autoreset mode of this environment (``metadata["autoreset_mode"]``)."""
        mode: AutoresetMode = self.metadata["autoreset_mode"]
        return mode

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

    def _advance(self, slots: npt.NDArray[np.int64]) -> None:
        """Let the opponents play in ``slots`` up to their learning seat's turn; write its tensor and mask."""
        batch = self.batch
        advance = core.advance_to_seat_parallel if batch.parallel else core.advance_to_seat_serial
        advance(*batch._state(), *self._policy(), slots, batch._obs, batch._mask)

    def _result(self) -> dict[str, npt.NDArray[Any]]:
        obs, mask = self.batch._obs, self.batch._mask
        if self.copy:
            obs, mask = obs.copy(), mask.copy()
        return {"observation": obs, "action_mask": mask}

    def _info(self, seats: npt.NDArray[np.int64], given: npt.NDArray[np.bool_] | None = None) -> dict[str, Any]:
        present = np.ones(self.num_envs, dtype=np.bool_) if given is None else given.copy()
        return {"seat": seats.copy(), "_seat": present}

    def _ended_info(self, seats: npt.NDArray[np.int64]) -> dict[str, Any]:
        """The info of the step that ended the games in ``self._done`` (``seats``: their learning seats), as
        Gymnasium lays out one env's info in a batch; ``illegal_action`` where an illegal action ended one."""
        ended = self._done
        info = {"seat": np.where(ended, seats, 0), "_seat": ended.copy()}
        if self._illegal.any():
            info |= {"illegal_action": self._illegal.copy(), "_illegal_action": self._illegal.copy()}
        return info

    def _final_info(self, seats: npt.NDArray[np.int64]) -> dict[str, Any]:
        """Gymnasium's same-step autoreset keys for the games that just ended (``seats``: their learning seats)."""
        ended = self._done.copy()
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(ended):
            final_obs[i] = {"observation": self._final[i].copy(), "action_mask": self._final_mask[i].copy()}
        return {
            "final_obs": final_obs,
            "_final_obs": ended,
            "final_info": self._ended_info(seats),
            "_final_info": ended.copy(),
        }

    def reset(
        self, *, seed: Seeds | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """New games, up to the learning seat's first turn: in every slot, or in the slots where
        ``options["reset_mask"]`` (a numpy ``bool[num_envs]``, as Gymnasium's) is true, the others left as they
        are. Without ``seed``, each slot goes on to its next game; ``seed`` (one for the batch, or a list of one
        per slot, ``None`` keeping that slot's streams) starts the streams afresh, as :meth:`LuzBatch.reset` does
        (with a mask, only the masked slots'). Other options are not used."""
        batch = self.batch
        mask = batch.reset_mask((options or {}).get("reset_mask"))
        slots = batch._new_games(seed, mask)
        if seed is not None and mask is None:
            self._np_random_seed = batch.seed if not isinstance(seed, list | tuple | np.ndarray) else -1
        if self.fixed_seat is not None:
            batch._gs[slots, core.LEARNER] = self.fixed_seat
        self._advance(slots)
        self._skip[slots] = False
        batch._seats[:] = batch._gs[:, core.LEARNER]
        return self._result(), self._info(batch._seats, mask)

    def _illegal_slots(self, actions: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Mark in ``self._illegal`` the slots (not skipped) whose action the rules forbid; raise for them under
        ``illegal_actions="raise"``, and for ids outside 0..31 under either (malformed, as in :class:`LuzEnv`)."""
        batch = self.batch
        core.illegal_slots(batch._col, batch._played, batch._st, batch._rules, actions, self._skip, self._illegal)
        if not self._illegal.any():
            return self._illegal
        bad = np.flatnonzero(self._illegal)
        malformed = bad[(actions[bad] < 0) | (actions[bad] >= ACTION_COUNT)]
        if len(malformed):
            first = int(malformed[0])
            raise InvalidAction(f"game {first}: action {int(actions[first])} is not an action id (0..31)")
        if self.illegal_actions == "raise":
            first = int(bad[0])
            raise IllegalAction(f"game {first}: action {int(actions[first])} is not legal for its learning seat now")
        return self._illegal

    def step(
        self, actions: object
    ) -> tuple[dict[str, npt.NDArray[Any]], FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        """The learning seat's action in every game, then the opponents' until its next turn (under NEXT_STEP, a
        slot whose game ended at the previous step starts its new game instead, its action ignored)."""
        batch = self.batch
        checked = batch._ids(actions)
        illegal = self._illegal_slots(checked)
        skipped = self._skip.any()
        bad = illegal.any()
        if skipped or bad:
            checked = np.where(self._skip | illegal, -1, checked)
        if bad:
            self._final[illegal] = batch._obs[illegal]
            self._final_mask[illegal] = batch._mask[illegal]
        seats = batch._gs[:, core.LEARNER].copy()
        kernel = core.step_seat_parallel if batch.parallel else core.step_seat_serial
        kernel(
            *batch._state(), *self._policy(), checked, batch._obs, batch._mask, self._reward, self._done, self._final
        )
        if bad:
            self._reward[illegal] = self.illegal_reward
            self._done[illegal] = True
            slots = batch._new_games(None, illegal)
            if self.fixed_seat is not None:
                batch._gs[slots, core.LEARNER] = self.fixed_seat
            self._advance(slots)
        batch._seats[:] = batch._gs[:, core.LEARNER]
        if self._next_obs is None:
            info = self._info(batch._seats)
            if self._done.any():
                info.update(self._final_info(seats))
        else:
            info = self._next_step(seats)
        if bad:
            self._final_mask[illegal] = 0
        reward, done = (self._reward.copy(), self._done.copy()) if self.copy else (self._reward, self._done)
        truncated = self._truncated.copy() if self.copy else self._truncated
        return self._result(), reward, done, truncated, info

    def _next_step(self, seats: npt.NDArray[np.int64]) -> dict[str, Any]:
        """NEXT_STEP: return the ended games' last observations, keeping their new games' first for the next
        step; give back the ones kept at the previous step. The step's info."""
        assert self._next_obs is not None
        batch, ended, waiting = self.batch, self._done, self._skip
        if waiting.any():
            batch._obs[waiting] = self._next_obs[waiting]
            batch._mask[waiting] = self._next_mask[waiting]
        info = self._info(np.where(ended, seats, batch._seats))
        if ended.any():
            self._next_obs[ended] = batch._obs[ended]
            self._next_mask[ended] = batch._mask[ended]
            batch._obs[ended] = self._final[ended]
            batch._mask[ended] = self._final_mask[ended]
            if self._illegal.any():
                info |= {"illegal_action": self._illegal.copy(), "_illegal_action": self._illegal.copy()}
        self._skip[:] = ended
        return info


def set_spaces(env: VectorEnv[Any, Any, Any], size: int, num_envs: int) -> None:
    """Give ``env`` its spaces: a view tensor of ``size`` and its legal actions' mask, an action id, for one game
    and for ``num_envs`` (the numba and the JAX VectorEnvs alike)."""
    env.single_observation_space = spaces.Dict(
        {
            "observation": spaces.Box(-1.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
        }
    )
    env.single_action_space = spaces.Discrete(ACTION_COUNT)
    env.observation_space = batch_space(env.single_observation_space, num_envs)
    env.action_space = batch_space(env.single_action_space, num_envs)
