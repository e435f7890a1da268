"""Batched LUZ: many independent games of one table stepped together in compiled code (:mod:`.vector_core`).

Two interfaces, the same observations and action ids as the single-game adapters (``docs/RESEARCH.md``):

- :class:`LuzBatch`, every seat controlled by the caller (self-play): each :meth:`~LuzBatch.step` takes one action
  id per game for its seat to act and returns that next seat, its tensor, its legal mask, every seat's points
  and the done flags; a finished game restarts at once from its seeded stream.
- :class:`~luz.research.vector_env.LuzVectorEnv` (in :mod:`.vector_env`: it needs Gymnasium), a ``VectorEnv``
  with one learning seat per game against the fast core's heuristic, random players, or a :class:`LinearPolicy`.

>>> batch = LuzBatch(8, edition="iello-2024", players=4, seed=1)
>>> seats, observations, masks = batch.reset()
>>> observations.shape, masks.shape
((8, 1499), (8, 32))
>>> actions = np.array([np.flatnonzero(m)[0] for m in masks])
>>> seats, observations, masks, rewards, done = batch.step(actions)
>>> rewards.shape, bool(done.any())
((8, 4), False)
"""

from __future__ import annotations

import operator
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from luz.bots.fast.rules import CURRENT, rules_array
from luz.engine import HAND_SIZE, Card, Edition, IllegalAction, InvalidAction, InvalidOptions, TableOptions
from luz.engine.editions import get_edition

from . import vector_core as core
from .encoding import ACTION_COUNT, Encoder, points_scale
from .threads import CALIBRATION_GAMES, STEPS, use_threads

_OFFSETS = {
    "seat": core.O_SEAT,
    "phase": core.O_PHASE,
    "deal": core.O_DEAL,
    "first_player": core.O_FIRST,
    "current_player": core.O_CURRENT,
    "hands": core.O_HANDS,
    "bids": core.O_BIDS,
    "beads_left": core.O_BEADS,
    "tricks_won": core.O_WON,
    "trick": core.O_TRICK,
    "last_trick": core.O_LAST,
    "plays": core.O_PLAYS,
    "scores": core.O_SCORES,
    "totals": core.O_TOTALS,
}
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]
Seeds = int | Sequence[int | None] | npt.NDArray[np.integer[Any]]
"""A seed for a whole batch, or one per game slot (``None``: that slot keeps its streams)."""


def _whole_seed(seed: object) -> int:
    """``seed`` as a Python int >= 0 (numpy's integers too); :class:`InvalidOptions` for anything else."""
    if not isinstance(seed, bool | np.bool_):
        try:
            value = operator.index(seed)  # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            if value >= 0:
                return value
    raise InvalidOptions(f"a seed is a whole number >= 0, not {seed!r}")


def fresh_seed() -> int:
    """A seed drawn from the operating system's entropy (``numpy.random.SeedSequence().entropy``, 128 bits), as
    Gymnasium's single environments seed themselves when given none."""
    entropy: int = np.random.SeedSequence().entropy  # type: ignore[assignment]  # an int when drawn, not given
    return entropy


def _one_per_slot(seed: object) -> bool:
    """Whether ``seed`` is a list (or tuple, or array) of seeds rather than one."""
    return isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str | bytes)


def action_ids(actions: object, num_games: int) -> IntArray:
    """``actions`` as int64, one per game; :class:`InvalidAction` for anything else."""
    try:
        array = np.asarray(actions)
    except (TypeError, ValueError):
        raise InvalidAction("actions must be an array of action ids, one per game") from None
    if array.shape != (num_games,) or not np.issubdtype(array.dtype, np.integer):
        raise InvalidAction(f"actions must be {num_games} whole action ids, not {array.dtype} {array.shape}")
    return array.astype(np.int64, copy=False)


class LuzBatch:
    """``num_games`` independent games of one table, every seat controlled by the caller.

    Arrays returned by :meth:`reset`, :meth:`step` and :meth:`observe` are buffers that the next call overwrites:
    copy what you keep. ``seed`` (a whole number >= 0) fixes every deal and first player of every game: game ``g``
    of slot ``i`` draws from a stream of its own, split off slot ``i``'s stream, itself keyed by
    ``numpy.random.SeedSequence(seed).spawn(num_games)[i]``, so a slot's games depend neither on the other slots,
    nor on the batch size, nor on how earlier games were played. Without a seed, one is drawn from the system's
    entropy (:func:`fresh_seed`); :attr:`seed` records it. ``parallel=True`` steps the games on numba's threads,
    ``False`` on one; ``"auto"`` (the default) uses the threads only where they pay (:mod:`.threads`).
    """

    def __init__(
        self,
        num_games: int,
        edition: Edition | str = "iello-2024",
        players: int = 4,
        seed: int | None = None,
        perfect_recall: bool = True,
        parallel: bool | str = "auto",
        options: TableOptions | None = None,
        **option_overrides: Any,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise InvalidOptions(f"num_games must be a whole number >= 1, not {num_games!r}")
        self.edition = get_edition(edition)
        options = self.edition.table_options(players, options, **option_overrides)
        self.num_games = num_games
        self.players = players
        self.options = options
        self.encoder = Encoder(self.edition, players, options, perfect_recall)
        self.parallel = use_threads(parallel, num_games, measure_batch)
        """Whether the games step on numba's threads (``parallel``, or its ``"auto"`` decision)."""
        self._table = self._table_array(draw_seat=False)
        self._scale = float(points_scale(self.edition, options))
        n, p, deals = num_games, players, self.edition.deals(players)
        self._val = np.zeros((n, p, HAND_SIZE), dtype=np.int64)
        self._col = np.zeros((n, p, HAND_SIZE), dtype=np.int64)
        self._played = np.zeros((n, p, HAND_SIZE), dtype=np.bool_)
        self._st = np.zeros((n, 8), dtype=np.int64)
        self._trick = np.zeros((n, p, 2), dtype=np.int64)
        self._won = np.zeros((n, p), dtype=np.int64)
        self._bids = np.zeros((n, p), dtype=np.int64)
        self._safe = np.zeros((n, p), dtype=np.int64)
        self._rules = np.zeros((n, 9), dtype=np.int64)
        self._gs = np.zeros((n, 4), dtype=np.int64)
        self._scores = np.zeros((n, deals, p), dtype=np.int64)
        self._mem = np.zeros((n, HAND_SIZE * p, 2), dtype=np.int64)
        self._close = np.zeros((n, p, 3), dtype=np.int64)
        self._rng = np.zeros((n, core.RNG_WIDTH), dtype=np.uint64)
        self._seats = np.zeros(n, dtype=np.int64)
        self._obs = np.zeros((n, self.encoder.size), dtype=np.float32)
        self._mask = np.zeros((n, ACTION_COUNT), dtype=np.int8)
        self._reward = np.zeros((n, p), dtype=np.float32)
        self._done = np.zeros(n, dtype=np.bool_)
        self._rules[:] = rules_array(self.edition, players, options, 1)  # made points: set at each deal
        if _one_per_slot(seed):
            raise InvalidOptions("give the batch one seed here (reset(seed=[...]) takes one per slot)")
        self.seed: int = fresh_seed() if seed is None else _whole_seed(seed)
        """The batch's seed: the one given, or the one drawn from the system's entropy (the last whole-batch seed
        given to :meth:`reset` since)."""
        self._seed(self.seed)

    def _table_array(self, draw_seat: bool) -> IntArray:
        table = np.zeros(core.TABLE_SIZE, dtype=np.int64)
        low, high = self.edition.values[self.players]
        table[core.T_PLAYERS] = self.players
        table[core.T_COLOURS] = len(self.edition.colours)
        table[core.T_LOW] = low
        table[core.T_VALUES] = high - low + 1
        table[core.T_DEALS] = self.edition.deals(self.players)
        table[core.T_LEADER_OPENS] = self.edition.leader_opens_last_deal_with_3
        table[core.T_RECALL] = self.encoder.perfect_recall
        table[core.T_SIZE] = self.encoder.size
        for name, index in _OFFSETS.items():
            table[index] = self.encoder.offsets.get(name, -1)
        table[core.T_MADE : core.T_MADE + len(self.options.made_points)] = self.options.made_points
        first = self.options.first_player
        table[core.T_FIXED_FIRST] = -1 if first is None else first
        table[core.T_DRAW_SEAT] = draw_seat
        return table

    def _state(self) -> tuple[Any, ...]:
        return (
            self._val, self._col, self._played, self._st, self._trick, self._won, self._bids, self._safe,
            self._rules, self._gs, self._scores, self._mem, self._close, self._rng, self._table, self._scale,
        )  # fmt: skip

    def _seed(self, seed: Seeds, only: npt.NDArray[np.bool_] | None = None) -> None:
        """Key the slots' streams: all from one seed (slot ``i`` by the ``i``-th spawned ``SeedSequence``), or
        slot ``i`` by ``SeedSequence(seed[i])`` (``None``: unchanged); ``only``: the slots to key (all by default).
        Checks everything before changing anything."""
        if _one_per_slot(seed):
            seeds = list(seed)  # type: ignore[arg-type]
            if len(seeds) != self.num_games:
                raise InvalidOptions(f"give one seed per game slot ({self.num_games}), not {len(seeds)}")
            chosen = [(slot, np.random.SeedSequence(_whole_seed(s))) for slot, s in enumerate(seeds) if s is not None]
        else:
            whole = _whole_seed(seed)
            chosen = list(enumerate(np.random.SeedSequence(whole).spawn(self.num_games)))
            if only is None:
                self.seed = whole
        if only is not None:
            chosen = [(slot, sequence) for slot, sequence in chosen if only[slot]]
        slots = np.array([slot for slot, _ in chosen], dtype=np.int64)
        keys = np.array([sequence.generate_state(2, np.uint64) for _, sequence in chosen], dtype=np.uint64)
        core.seed_streams(self._rng, slots, keys.reshape(len(chosen), 2))

    def reset(
        self, seed: Seeds | None = None, mask: object = None
    ) -> tuple[IntArray, FloatArray, npt.NDArray[np.int8]]:
        """Start a new game in every slot, or in the slots where ``mask`` (``bool[num_games]``) is true; the seats
        to act, their tensors and masks. Without ``seed``, each slot goes on to its next game (never a replay);
        ``seed``, one for the batch or one per slot (``None``: that slot goes on), starts the streams afresh, so that
        the same seed gives the same games (with a mask, only the masked slots' streams)."""
        self._new_games(seed, self.reset_mask(mask))
        self._seats[:] = self._st[:, CURRENT]
        return self._seats, self.observe(self._seats), self._mask

    def reset_mask(self, mask: object) -> npt.NDArray[np.bool_] | None:
        """``mask`` checked as Gymnasium checks ``options["reset_mask"]`` (a numpy ``bool[num_games]`` with at
        least one true), or None when it is None; :class:`InvalidOptions` otherwise."""
        if mask is None:
            return None
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (self.num_games,):
            raise InvalidOptions(f"reset_mask must be a numpy bool array of shape ({self.num_games},)")
        if not mask.any():
            raise InvalidOptions("reset_mask must have at least one true slot")
        return mask

    def _new_games(self, seed: Seeds | None, mask: npt.NDArray[np.bool_] | None) -> IntArray:
        """Key the streams if ``seed`` is given and start a new game in the masked slots (all without a mask);
        the slots reset."""
        if seed is not None:
            self._seed(seed, mask)
        slots = np.arange(self.num_games) if mask is None else np.flatnonzero(mask)
        core.reset_slots(
            self._val, self._col, self._played, self._st, self._trick, self._won, self._bids, self._safe,
            self._rules, self._gs, self._scores, self._rng, self._table, slots,
        )  # fmt: skip
        return slots

    def _ids(self, actions: object) -> IntArray:
        return action_ids(actions, self.num_games)

    def _check(self, actions: object) -> IntArray:
        """``actions`` as int64, one per game, each legal; :class:`InvalidAction` or :class:`IllegalAction` (naming
        the first bad game) otherwise, before any game changes."""
        array = self._ids(actions)
        bad = core.first_illegal(self._col, self._played, self._st, self._rules, array)
        if bad >= 0:
            raise IllegalAction(f"game {bad}: action {int(array[bad])} is not legal for seat {self._seats[bad]} now")
        return array

    def step(
        self, actions: object
    ) -> tuple[IntArray, FloatArray, npt.NDArray[np.int8], FloatArray, npt.NDArray[np.bool_]]:
        """Play one action id per game for its seat to act. Returns the next seat to act in each game, its tensor,
        its legal mask, the points each seat scored by this action (``[games, players]``: when it ended a deal)
        and whether it ended the game (the slot then holds a new game, whose first seat is returned)."""
        checked = self._check(actions)
        kernel = core.step_parallel if self.parallel else core.step_serial
        kernel(*self._state(), checked, self._seats, self._obs, self._mask, self._reward, self._done)
        return self._seats, self._obs, self._mask, self._reward, self._done

    def observe(self, seats: object) -> FloatArray:
        """Each game's tensor for ``seats[i]`` (any seat, not only the one to act); also refreshes the masks."""
        try:
            chosen = np.asarray(seats, dtype=np.int64)
        except (TypeError, ValueError):
            raise InvalidAction("seats must be an array of seats, one per game") from None
        if chosen.shape != (self.num_games,) or ((chosen < 0) | (chosen >= self.players)).any():
            raise InvalidAction(f"seats must be {self.num_games} seats 0..{self.players - 1}")
        core.observe(
            self._val, self._col, self._played, self._st, self._bids, self._safe, self._won, self._rules, self._gs,
            self._scores, self._mem, self._close, self._table, self._scale, chosen, self._obs, self._mask,
        )  # fmt: skip
        return self._obs

    def hands(self, game: int) -> tuple[tuple[Card, ...], ...]:
        """The current deal's hands of game ``game`` (for checks and analysis: never give them to an agent)."""
        return tuple(
            tuple(Card(int(c), int(v)) for c, v in zip(self._col[game, seat], self._val[game, seat], strict=True))
            for seat in range(self.players)
        )

    def first_player(self, game: int) -> int:
        """The first player of game ``game`` (of its first deal)."""
        return int(self._gs[game, core.GAME_FIRST])


class LinearPolicy(NamedTuple):
    """A linear softmax policy over legal action ids: ``softmax(tensor @ weights + bias)`` on the mask."""

    weights: FloatArray
    """``float32[tensor size, 32]``."""
    bias: FloatArray
    """``float32[32]``."""


def measure_batch(parallel: bool) -> float:
    """Seconds for :data:`~.threads.STEPS` steps of :data:`~.threads.CALIBRATION_GAMES` games of the default table
    (first legal actions), on numba's threads or one thread (compiled before the clock starts): the calibration of
    ``parallel="auto"``."""
    batch = LuzBatch(CALIBRATION_GAMES, seed=0, parallel=parallel)
    _, _, masks = batch.reset()
    _, _, masks, _, _ = batch.step(masks.argmax(axis=1))  # compiled, warm
    start = time.perf_counter()
    for _ in range(STEPS):
        _, _, masks, _, _ = batch.step(np.asarray(masks.argmax(axis=1)))
    return time.perf_counter() - start
