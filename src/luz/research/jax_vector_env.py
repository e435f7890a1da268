"""A Gymnasium ``VectorEnv`` over the JAX environment (:mod:`.jax_env`, ``luz-game[jax]``): one learning seat per
game, the other seats played in JAX, so that a step is one jitted call (the learner's action, the opponents' up to
its next turn, its tensor and mask, the finished games' tensors).

The options, their names and defaults, and the autoreset conventions are :class:`~.vector_env.LuzVectorEnv`'s
(docs/RESEARCH.md); only the deals differ, drawn from JAX's keys. Opponents: ``"random"`` (uniformly random legal
actions) only.

>>> env = LuzJaxVectorEnv(8, edition="iello-2024", players=4, seed=0)
>>> observations, info = env.reset()
>>> observations["observation"].shape, observations["action_mask"].shape
((8, 1499), (8, 32))
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv

from luz.engine import HAND_SIZE, Edition, IllegalAction, InvalidAction, InvalidOptions, TableOptions
from luz.engine.editions import get_edition

from .encoding import ACTION_COUNT
from .jax_env import LuzJax, State, on_lanes
from .vector import FloatArray, Seeds, _one_per_slot, _whole_seed, action_ids, fresh_seed
from .vector_env import ILLEGAL_ACTIONS, _autoreset_mode, set_spaces

JAX_OPPONENTS = ("random",)
"""The opponents played in JAX."""


class Seated(NamedTuple):
    """One game and its learning seat (a leading batch axis under ``vmap``)."""

    game: State
    learner: jax.Array
    """The learning seat of the game."""
    key: jax.Array
    """The key of the opponents' choices and of the learning seats drawn (apart from the deals' keys)."""


class Stepped(NamedTuple):
    """What :meth:`SeatRules.step` returns (a leading batch axis), beside the next :class:`Seated`."""

    observation: jax.Array
    mask: jax.Array
    reward: jax.Array
    done: jax.Array
    final_observation: jax.Array
    """The learner's tensor of the game that ended (zeros where none did)."""
    final_mask: jax.Array
    """Zeros: nothing is legal in a finished game."""
    final_learner: jax.Array
    """The learning seat of the game that ended."""


def random_action(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A uniformly random legal action id of ``mask`` (``int8[32]``, at least one legal)."""
    legal = mask.astype(jnp.int32)
    pick = jax.random.randint(key, (), 0, legal.sum())
    return jnp.argmax(jnp.cumsum(legal) > pick).astype(jnp.int32)


Advance = tuple[Seated, jax.Array, jax.Array, jax.Array]
"""What :meth:`SeatRules.advance` returns per game: the game, the learner's points in it since its action, whether
a deal ended, whether the game did."""
DEALS_SHARE = 8
"""At most one game in this many deals again at a step in one round of :func:`~.jax_env.on_lanes` (a deal ends at
about one agent step in 11)."""
ENDS_SHARE = 32
"""At most one game in this many gives its finished tensor in one round (a game lasts 44 agent steps or more)."""


class SeatRules:
    """One learning seat against random opponents, as pure functions on :class:`Seated` games: :meth:`start` a new
    game up to the learner's turn (one game; ``vmap`` it), :meth:`step` the learner's action then the opponents'
    up to its next turn (a batch). ``seat``: the learning seat, or None to draw it each game."""

    def __init__(self, env: LuzJax, seat: int | None) -> None:
        self.env = env
        self.seat = seat

    def _learner(self, key: jax.Array) -> jax.Array:
        if self.seat is not None:
            return jnp.asarray(self.seat, jnp.int32)
        return jax.random.randint(key, (), 0, self.env.players, jnp.int32)

    def _opponent(self, seated: Seated) -> tuple[Seated, jax.Array, jax.Array, jax.Array]:
        """The player to act, an opponent, takes a uniformly random legal action: as :meth:`.LuzJax.play`."""
        key, choice = jax.random.split(seated.key)
        game, points, over, ended = self.env.play(seated.game, random_action(choice, self.env.legal_mask(seated.game)))
        return seated._replace(game=game, key=key), points, over, ended

    def _to_learner(self, seated: Seated) -> Seated:
        """The opponents' actions until the learner is to act, none of which ends the deal (the learner bids in
        every deal, so its turn comes first)."""
        return jax.lax.while_loop(lambda s: s.game.current != s.learner, lambda s: self._opponent(s)[0], seated)

    def start(self, game: State, key: jax.Array) -> Seated:
        """``game`` (just dealt) with a learning seat drawn from ``key``, played up to its first turn."""
        key, draw = jax.random.split(key)
        return self._to_learner(Seated(game, self._learner(draw), key))

    def init(self, key: jax.Array) -> Seated:
        """A new game from ``key``, up to the learner's first turn."""
        deals, seats = jax.random.split(key)
        return self.start(self.env.init(deals), seats)

    def new_game(self, seated: Seated) -> Seated:
        """The slot's next game (from its own keys), up to the learner's first turn."""
        return self.start(self.env.init(seated.game.key), seated.key)

    def advance(self, seated: Seated, action: jax.Array) -> Advance:
        """One game: the learner's legal ``action`` (negative: none), then the opponents' until it is to act again
        or a deal ended (scored, the next not dealt)."""
        key, _ = jax.random.split(seated.key)  # as an opponent's action would
        game, points, over, ended = self.env.play(seated.game, action)
        acting = action >= 0
        seated = jax.tree.map(lambda new, old: jnp.where(acting, new, old), seated._replace(game=game, key=key), seated)
        first = (
            seated,
            jnp.where(acting, points[seated.learner], 0).astype(jnp.float32),
            over & acting,
            ended & acting,
        )

        def opponent(carry: Advance) -> Advance:
            seated, reward, _, _ = carry
            seated, points, over, ended = self._opponent(seated)
            return seated, reward + points[seated.learner].astype(jnp.float32), over, ended

        def going(carry: Advance) -> jax.Array:
            seated, _, over, _ = carry
            return ~over & (seated.game.current != seated.learner)

        return jax.lax.while_loop(going, opponent, first)

    def next_deal(self, seated: Seated, ended: jax.Array) -> Seated:
        """One game whose deal ended: its next deal, or its next game with a new learning seat where the game
        ``ended``, played up to the learner's turn (the learner bids before any deal ends again)."""
        seated = seated._replace(game=self.env.next_deal(seated.game, ended))
        return self._to_learner(jax.lax.cond(ended, self._new_learner, lambda s: s, seated))

    def step(self, seated: Seated, actions: jax.Array) -> tuple[Seated, Stepped]:
        """A batch of games (a leading axis; not under ``vmap``): each learner's legal action (negative: the slot
        left as it is), then the opponents' until it is to act again, in this game or the next one if this one
        ended. The reward is the learner's points since. Only the games that need them deal a new deal and
        compute a finished game's tensor (:func:`~.jax_env.on_lanes`)."""
        env, n = self.env, actions.shape[0]
        seated, reward, over, done = jax.vmap(self.advance)(seated, actions)
        final = seated
        seated = on_lanes(self.next_deal, over, (seated, done), seated, DEALS_SHARE)
        observation, mask = jax.vmap(self.observe)(seated)
        zeros = jnp.zeros((n, env.size), jnp.float32)
        finished = on_lanes(env.observe_finished, done, (final.game, final.learner), zeros, ENDS_SHARE)
        out = Stepped(observation, mask, reward, done, finished, jnp.zeros((n, ACTION_COUNT), jnp.int8), final.learner)
        return seated, out

    def _new_learner(self, seated: Seated) -> Seated:
        key, draw = jax.random.split(seated.key)
        return seated._replace(learner=self._learner(draw), key=key)

    def observe(self, seated: Seated) -> tuple[jax.Array, jax.Array]:
        """The learner's tensor and mask."""
        return self.env.observe(seated.game, seated.learner), self.env.legal_mask(seated.game)


_COMPILED: dict[tuple[Edition, int, TableOptions, bool, int | None], tuple[SeatRules, Any, Any, Any, Any]] = {}


def _compiled(
    edition: Edition, players: int, options: TableOptions, recall: bool, seat: int | None
) -> tuple[SeatRules, Any, Any, Any, Any]:
    """A table's :class:`SeatRules` and its batched, jitted ``init``, ``new_game``, ``step`` and ``observe``, made
    once per table, seat and process."""
    key = (edition, players, options, recall, seat)
    if key not in _COMPILED:
        rules = SeatRules(LuzJax(edition, players, recall, options), seat)

        def reset(seated: Seated, mask: jax.Array) -> Seated:
            chosen: Seated = on_lanes(rules.new_game, mask, (seated,), seated, DEALS_SHARE)
            return chosen

        _COMPILED[key] = (
            rules,
            jax.jit(jax.vmap(rules.init)),
            jax.jit(reset),
            jax.jit(rules.step),
            jax.jit(jax.vmap(rules.observe)),
        )
    return _COMPILED[key]


def _lanes(mask: jax.Array, like: jax.Array) -> jax.Array:
    """``mask`` (``bool[N]``) shaped to select rows of ``like`` (``[N, ...]``)."""
    return mask.reshape(mask.shape + (1,) * (like.ndim - 1))


def slot_keys(seeds: list[int]) -> jax.Array:
    """One JAX key per slot, slot ``i`` from ``numpy.random.SeedSequence(seeds[i])`` (any whole number)."""
    words = np.array([np.random.SeedSequence(seed).generate_state(2, np.uint32) for seed in seeds], np.uint32)
    return _keys(words)


def spawned_keys(seed: int, num_games: int) -> jax.Array:
    """The slots' keys of a whole-batch ``seed``: slot ``i`` from ``SeedSequence(seed).spawn(num_games)[i]`` (so a
    slot's games do not depend on the batch size), as :class:`~.vector.LuzBatch` keys its streams."""
    children = np.random.SeedSequence(seed).spawn(num_games)
    words = np.array([child.generate_state(2, np.uint32) for child in children], np.uint32)
    return _keys(words)


def _keys(words: npt.NDArray[np.uint32]) -> jax.Array:
    """JAX keys (threefry) from ``uint32[N, 2]``."""
    keys: jax.Array = jax.random.wrap_key_data(jnp.asarray(words), impl="threefry2x32")
    return keys


class LuzJaxVectorEnv(VectorEnv):
    """A Gymnasium ``VectorEnv`` of ``num_envs`` games in JAX, one learning seat each, random opponents in JAX.

    The arguments, observations, rewards, infos (``seat``; ``final_obs``/``final_info`` under ``SAME_STEP``;
    ``illegal_action``), ``reset_mask`` partial resets, seeds (one for the batch or one per slot; without one, a
    fresh seed from the system's entropy, recorded in :attr:`seed` and ``np_random_seed``) and both autoreset modes
    follow :class:`~.vector_env.LuzVectorEnv`. Each step is one jitted call on JAX's default device; arrays come
    back as fresh numpy arrays (``copy`` is accepted for the same signature: nothing is shared either way).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (as gymnasium's VectorEnv declares it)

    def __init__(
        self,
        num_envs: int,
        edition: Edition | str = "iello-2024",
        players: int = 4,
        seat: int | None = 0,
        opponents: str = "random",
        seed: int | None = None,
        perfect_recall: bool = True,
        copy: bool = True,
        illegal_actions: str = "terminate",
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        options: TableOptions | None = None,
        **option_overrides: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise InvalidOptions(f"num_envs must be a whole number >= 1, not {num_envs!r}")
        chosen = get_edition(edition)
        table = chosen.table_options(players, options, **option_overrides)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
            raise InvalidOptions(f"seat must be 0..{players - 1} or None (drawn each game), not {seat!r}")
        if opponents not in JAX_OPPONENTS:
            raise InvalidOptions(f"the JAX env's opponents are 'random' only, not {opponents!r}")
        if illegal_actions not in ILLEGAL_ACTIONS:
            raise InvalidOptions(f"illegal_actions must be 'terminate' or 'raise', not {illegal_actions!r}")
        if _one_per_slot(seed):
            raise InvalidOptions("give the env one seed here (reset(seed=[...]) takes one per slot)")
        mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.rules, self._init, self._reset, self._step, self._observe = _compiled(
            chosen, players, table, perfect_recall, seat
        )
        self.edition, self.players, self.options = chosen, players, table
        self.encoder = self.rules.env.encoder
        self.fixed_seat, self.illegal_actions, self.copy, self.num_envs = seat, illegal_actions, copy, num_envs
        self.illegal_reward = float(-chosen.miss_penalty * HAND_SIZE * chosen.deals(players))
        self.seed: int = fresh_seed() if seed is None else _whole_seed(seed)
        """The env's seed: the one given, or the one drawn from the system's entropy (or the last whole-env seed
        given to :meth:`reset` since)."""
        self._np_random_seed = self.seed
        size = self.encoder.size
        set_spaces(self, size, num_envs)
        self.state: Seated = self._init(spawned_keys(self.seed, num_envs))
        self._fresh = True
        self._obs = np.zeros((num_envs, size), np.float32)
        """The learners' tensors, as JAX gave them (read-only, not copied) or as NEXT_STEP set them; the envs'
        results are copies."""
        self._mask = np.zeros((num_envs, ACTION_COUNT), np.int8)
        self._skip = np.zeros(num_envs, np.bool_)
        """NEXT_STEP: the slots whose game ended at the previous step (their next step starts the new game)."""
        self._waiting: tuple[FloatArray, npt.NDArray[np.int8], npt.NDArray[np.int64]] | None = None

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """Gymnasium's autoreset mode of this environment (``metadata["autoreset_mode"]``)."""
        mode: AutoresetMode = self.metadata["autoreset_mode"]
        return mode

    def _learners(self) -> npt.NDArray[np.int64]:
        return np.asarray(self.state.learner, np.int64)

    def _refresh(self) -> None:
        obs, mask = self._observe(self.state)
        self._obs, self._mask = np.asarray(obs), np.asarray(mask)

    def _result(self) -> dict[str, npt.NDArray[Any]]:
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def _rekey(self, seed: Seeds, mask: npt.NDArray[np.bool_] | None) -> None:
        """New streams in the slots: from one seed (slot ``i`` by the ``i``-th spawned ``SeedSequence``) or one per
        slot (``None``: unchanged); only the masked slots with a mask."""
        n = self.num_envs
        if _one_per_slot(seed):
            seeds = list(seed)  # type: ignore[arg-type]
            if len(seeds) != n:
                raise InvalidOptions(f"give one seed per game slot ({n}), not {len(seeds)}")
            keep = np.array([s is None for s in seeds])
            keys = slot_keys([0 if s is None else _whole_seed(s) for s in seeds])
            self._np_random_seed = -1 if mask is None else self._np_random_seed
        else:
            whole = _whole_seed(seed)
            keep, keys = np.zeros(n, np.bool_), spawned_keys(whole, n)
            if mask is None:
                self.seed = self._np_random_seed = whole
        if mask is not None:
            keep |= ~mask
        fresh, kept = self._init(keys), jnp.asarray(keep)
        self.state = jax.tree.map(lambda new, old: jnp.where(_lanes(kept, new), old, new), fresh, self.state)

    def reset(
        self, *, seed: Seeds | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """New games up to the learner's first turn, in every slot or in those of ``options["reset_mask"]``. Without
        ``seed``, the first reset plays the env's seed's games and later ones each slot's next game; ``seed`` (one,
        or one per slot with ``None`` keeping a slot's stream) starts the streams afresh."""
        mask = _reset_mask((options or {}).get("reset_mask"), self.num_envs)
        if seed is not None:
            self._rekey(seed, mask)
        elif not self._fresh:
            chosen = np.ones(self.num_envs, np.bool_) if mask is None else mask
            self.state = self._reset(self.state, jnp.asarray(chosen))
        self._fresh = False
        self._skip[np.ones(self.num_envs, np.bool_) if mask is None else mask] = False
        self._refresh()
        given = np.ones(self.num_envs, np.bool_) if mask is None else mask.copy()
        return self._result(), {"seat": self._learners(), "_seat": given}

    def step(
        self, actions: object
    ) -> tuple[dict[str, npt.NDArray[Any]], FloatArray, npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        """The learner's action in every game, then the opponents' until its next turn (under NEXT_STEP, a slot
        whose game ended at the previous step starts its new game instead, its action ignored)."""
        n = self.num_envs
        array = action_ids(actions, n)
        inside = (array >= 0) & (array < ACTION_COUNT)
        legal = inside & (self._mask[np.arange(n), np.clip(array, 0, ACTION_COUNT - 1)] == 1)
        illegal = ~legal & ~self._skip
        malformed = illegal & ~inside
        if malformed.any():
            first = int(np.flatnonzero(malformed)[0])
            raise InvalidAction(f"game {first}: action {int(array[first])} is not an action id (0..31)")
        if illegal.any() and self.illegal_actions == "raise":
            first = int(np.flatnonzero(illegal)[0])
            raise IllegalAction(f"game {first}: action {int(array[first])} is not legal for its learning seat now")
        self._fresh = False
        before = (self._obs, self._mask, self._learners())
        playing = np.where(self._skip | illegal, -1, array)
        self.state, out = self._step(self.state, jnp.asarray(playing, jnp.int32))
        reward, done = np.array(out.reward), np.array(out.done)
        final_obs, final_mask = np.asarray(out.final_observation), np.asarray(out.final_mask)  # rows copied out
        final_seat = np.asarray(out.final_learner, np.int64).copy()
        if illegal.any():
            final_obs, final_mask = final_obs.copy(), final_mask.copy()
            reward[illegal], done[illegal] = self.illegal_reward, True
            final_obs[illegal], final_mask[illegal], final_seat[illegal] = before[0][illegal], 0, before[2][illegal]
            self.state = self._reset(self.state, jnp.asarray(illegal))
            self._refresh()
        else:  # the learners' tensors and masks came with the step
            self._obs, self._mask = np.asarray(out.observation), np.asarray(out.mask)
        learners = self._learners()
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            info: dict[str, Any] = {"seat": learners, "_seat": np.ones(n, np.bool_)}
            if done.any():
                info |= self._final_info(done, illegal, final_obs, final_mask, final_seat)
        else:
            info = {"seat": np.where(done, final_seat, learners), "_seat": np.ones(n, np.bool_)}
            if done.any():
                self._obs, self._mask = (
                    np.where(done[:, None], final_obs, self._obs),
                    np.where(done[:, None], final_mask, self._mask),
                )
                if illegal.any():
                    info |= {"illegal_action": illegal.copy(), "_illegal_action": illegal.copy()}
            self._skip[:] = done
        truncated = np.zeros(n, np.bool_)
        return self._result(), reward, done, truncated, info

    def _final_info(
        self,
        done: npt.NDArray[np.bool_],
        illegal: npt.NDArray[np.bool_],
        final_obs: FloatArray,
        final_mask: npt.NDArray[np.int8],
        seats: npt.NDArray[np.int64],
    ) -> dict[str, Any]:
        """Gymnasium's same-step autoreset keys for the games that just ended."""
        finals = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done):
            finals[i] = {"observation": final_obs[i].copy(), "action_mask": final_mask[i].copy()}
        ended: dict[str, Any] = {"seat": np.where(done, seats, 0), "_seat": done.copy()}
        if illegal.any():
            ended |= {"illegal_action": illegal.copy(), "_illegal_action": illegal.copy()}
        return {"final_obs": finals, "_final_obs": done.copy(), "final_info": ended, "_final_info": done.copy()}


def _reset_mask(mask: object, n: int) -> npt.NDArray[np.bool_] | None:
    """``options["reset_mask"]`` checked as :meth:`.LuzBatch.reset_mask` checks it."""
    if mask is None:
        return None
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (n,):
        raise InvalidOptions(f"reset_mask must be a numpy bool array of shape ({n},)")
    if not mask.any():
        raise InvalidOptions("reset_mask must have at least one true slot")
    return mask
