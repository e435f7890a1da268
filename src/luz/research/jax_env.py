"""LUZ in JAX: whole games as pure functions on a pytree of arrays, to ``jit`` and ``vmap`` (``luz-game[jax]``).

The same rules, observation tensors and action ids as the batched environment (:mod:`luz.research.vector`) and the
engine (checked against the engine on every table by ``tests/research/test_jax_env.py``); only the deals differ,
drawn from JAX's random keys. :class:`LuzJax` holds one table's fixed data (edition, players, options, the
encoder's offsets) and four pure functions on one game; ``jax.vmap`` batches them, ``jax.jit`` compiles them:

- :meth:`~LuzJax.init` ``(key) -> State``: a new game, its first deal dealt;
- :meth:`~LuzJax.step` ``(state, action) -> (state, rewards, done)``: the player to act takes a legal action id;
  ``rewards`` are every seat's points when it ended a deal; a game that ended restarts from its key at once
  (:meth:`~LuzJax.step_batch`: the same on a batch, faster than ``vmap(step)``);
- :meth:`~LuzJax.observe` ``(state, seat) -> float32[size]``: ``seat``'s tensor, as the encoder writes it;
- :meth:`~LuzJax.legal_mask` ``(state) -> int8[32]``: the legal action ids of the player to act
  (``state.current``).

>>> import jax
>>> env = LuzJax("iello-2024", players=4)
>>> states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(0), 8))
>>> step = jax.jit(jax.vmap(lambda state: env.step(state, env.legal_mask(state).argmax())))
>>> states, rewards, done = step(states)
>>> rewards.shape, bool(done.any())
((8, 4), False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt

from luz.engine import HAND_SIZE, Card, Edition, IllegalAction, InvalidAction, InvalidOptions, TableOptions
from luz.engine.editions import get_edition

from .encoding import ACTION_COUNT, BID_IDS, Encoder, points_scale
from .vector import action_ids

H = HAND_SIZE
BIDDING, PLAYING, OVER = 0, 1, 2
"""Values of :attr:`State.phase`."""


class State(NamedTuple):
    """One game (a leading batch axis under ``vmap``). Seats are absolute; a bid of -1: not yet bid."""

    key: jax.Array
    """The game's random key: each deal and each next game are drawn from keys split off it."""
    val: jax.Array
    """``int32[P, 10]``: each seat's card values in slot order (its sorted hand)."""
    col: jax.Array
    """``int32[P, 10]``: their colours."""
    played: jax.Array
    """``bool[P, 10]``."""
    current: jax.Array
    """The seat to act."""
    led: jax.Array
    """The colour led in the trick (-1: none yet)."""
    in_trick: jax.Array
    """Cards in the trick."""
    tricks: jax.Array
    """Tricks played in the deal."""
    bid_total: jax.Array
    phase: jax.Array
    first: jax.Array
    """The deal's first player."""
    won: jax.Array
    """``int32[P]``: tricks won in the deal."""
    bids: jax.Array
    safe: jax.Array
    deal: jax.Array
    """The deal being played (0-based)."""
    game_first: jax.Array
    """The first player of the game's first deal."""
    closing: jax.Array
    """Whether ``close`` holds the previous deal's last trick (0/1)."""
    scores: jax.Array
    """``int32[D, P]``: the sheet, each finished deal's points."""
    mem: jax.Array
    """``int32[10 * P, 2]``: the deal's plays in order, as ``(seat, slot)``."""
    close: jax.Array
    """``int32[P, 3]``: the previous deal's last trick, as ``(seat, colour, value)``."""


class LuzJax:
    """One table's rules as pure JAX functions on a :class:`State` (one game; ``vmap`` them for a batch).

    Actions given to :meth:`step` must be legal (:meth:`legal_mask`): compiled code checks nothing, and an illegal
    action gives a state the rules never reach. :class:`JaxBatch` checks them, as :class:`~.vector.LuzBatch` does.
    """

    def __init__(
        self,
        edition: Edition | str = "iello-2024",
        players: int = 4,
        perfect_recall: bool = True,
        options: TableOptions | None = None,
        **option_overrides: Any,
    ) -> None:
        self.edition = get_edition(edition)
        options = self.edition.table_options(players, options, **option_overrides)
        self.players = players
        self.options = options
        self.encoder = Encoder(self.edition, players, options, perfect_recall)
        self.size = self.encoder.size
        self.deals = self.edition.deals(players)
        self.low = self.encoder.low
        self.values = self.encoder.values
        self.colours = self.encoder.colours
        self.trump = self.edition.trump
        self.scale = float(points_scale(self.edition, options))
        self._made = np.array(options.made_points, dtype=np.int32)

    # -- dealing -------------------------------------------------------------------------------------------

    def _dealt(self, state: State, first: jax.Array) -> State:
        """``state`` with its next deal dealt from a key split off its own, ``first`` opening it."""
        key, shuffle = jax.random.split(state.key)
        p, size = self.players, self.colours * self.values
        cards = jnp.arange(size, dtype=jnp.int32)
        swaps = jax.random.randint(shuffle, (size,), 0, cards + 1)  # swaps[i]: uniform in 0..i

        def swap(t: int | jax.Array, deck: jax.Array) -> jax.Array:
            """Fisher and Yates's shuffle, from the top: on CPU, XLA sorts (``jax.random.permutation``) cost
            twice as much as the whole rest of a step."""
            i = size - 1 - t
            j = swaps[i]
            return deck.at[i].set(deck[j]).at[j].set(deck[i])

        deck = jax.lax.fori_loop(0, size - 1, swap, cards)
        hands = jnp.sort(deck[: p * H].reshape(p, H), axis=1)
        return state._replace(
            key=key, val=self.low + hands % self.values, col=hands // self.values, **self._opening(first)
        )

    def _opening(self, first: jax.Array) -> dict[str, jax.Array]:
        """The fields of a deal before its first bid, ``first`` to bid: nothing played, bid or won."""
        zeros = jnp.zeros(self.players, jnp.int32)
        return {
            "played": jnp.zeros((self.players, H), jnp.bool_),
            "current": first,
            "led": jnp.int32(-1),
            "in_trick": jnp.int32(0),
            "tricks": jnp.int32(0),
            "bid_total": jnp.int32(0),
            "phase": jnp.int32(BIDDING),
            "first": first,
            "won": zeros,
            "bids": zeros - 1,
            "safe": zeros,
        }

    def init(self, key: jax.Array) -> State:
        """A new game drawn from ``key`` (a ``jax.random.key``): its first player (unless the options fix it), its
        first deal."""
        key, draw = jax.random.split(key)
        p, fixed = self.players, self.options.first_player
        first = jnp.int32(fixed) if fixed is not None else jax.random.randint(draw, (), 0, p, jnp.int32)
        blank = State(
            key=key,
            val=jnp.zeros((p, H), jnp.int32),
            col=jnp.zeros((p, H), jnp.int32),
            **self._opening(first),
            deal=jnp.int32(0),
            game_first=first,
            closing=jnp.int32(0),
            scores=jnp.zeros((self.deals, p), jnp.int32),
            mem=jnp.zeros((H * p, 2), jnp.int32),
            close=jnp.zeros((p, 3), jnp.int32),
        )
        return self._dealt(blank, first)

    # -- the rules -----------------------------------------------------------------------------------------

    def max_bid(self, state: State) -> jax.Array:
        """The highest legal bid now: 10, or what the table's cap leaves."""
        cap = self.options.bid_cap
        return jnp.int32(H) if cap is None else jnp.minimum(H, cap - state.bid_total)

    def legal_slots(self, state: State) -> jax.Array:
        """``bool[10]``: the slots the player to act may play (follow the led colour if able)."""
        colours = state.col[state.current]
        unplayed = ~state.played[state.current]
        follows = colours == state.led
        must_follow = (state.led >= 0) & (unplayed & follows).any()
        return unplayed & (follows | ~must_follow)

    def legal_mask(self, state: State) -> jax.Array:
        """``int8[32]``: 1 for each action id the player to act may take."""
        bids = (jnp.arange(BID_IDS) < 2 * self.max_bid(state) + 2) & (state.phase == BIDDING)
        plays = self.legal_slots(state) & (state.phase == PLAYING)
        return jnp.concatenate([bids, plays]).astype(jnp.int8)

    def trick_winner(self, state: State, start: jax.Array) -> jax.Array:
        """The seat winning the complete trick whose plays start at ``mem[start]``: the highest trump, else the
        highest card of the led colour."""
        plays = jax.lax.dynamic_slice(state.mem, (start, jnp.int32(0)), (self.players, 2))
        seats, slots = plays[:, 0], plays[:, 1]
        colours, values = state.col[seats, slots], state.val[seats, slots]
        strength = jnp.where(colours == self.trump, 100 + values, jnp.where(colours == colours[0], values, -1))
        return seats[jnp.argmax(strength)]

    def deal_points(self, state: State) -> jax.Array:
        """``int32[P]``: each seat's points for the deal just played (the edition's scoring, ``Edition.score``)."""
        safety = state.safe == 1
        made = (state.won == state.bids) | (safety & (state.won == state.bids + 1))
        points = jnp.asarray(self._made)[jnp.minimum(state.deal, self.deals - 1)]
        difference = jnp.abs(state.won - state.bids)
        if self.edition.safety_softens_miss:
            difference = jnp.where(safety, jnp.minimum(difference, jnp.abs(state.won - state.bids - 1)), difference)
        return jnp.where(made, jnp.where(safety, points // 2, points), -self.edition.miss_penalty * difference)

    def first_player(self, state: State) -> jax.Array:
        """The first player of deal ``state.deal``: plain rotation, except that with 3 players, where the edition
        says so, the best total opens the last deal (ties: the first of them from the usual seat)."""
        p = self.players
        usual = (state.game_first + state.deal) % p
        if not (p == 3 and self.edition.leader_opens_last_deal_with_3):
            return usual
        order = (usual + jnp.arange(p, dtype=jnp.int32)) % p
        leader = order[jnp.argmax(state.scores.sum(axis=0)[order])]
        return jnp.where(state.deal == self.deals - 1, leader, usual)

    def _act(self, state: State, action: jax.Array) -> State:
        """The bid or the play ``action`` of the player to act, without branches (under ``vmap`` a ``lax.cond``
        computes both anyway): the rows it changes are picked by comparing indices, not by scattering."""
        p, seat = self.players, state.current
        bidding, playing = action < BID_IDS, action >= BID_IDS
        following = (seat + 1) % p
        mine = jnp.arange(p) == seat
        bid, slot = action // 2, action - BID_IDS
        card = mine[:, None] & (jnp.arange(H) == slot) & playing
        start, at = state.tricks * p, state.tricks * p + state.in_trick
        mem = jnp.where(((jnp.arange(H * p) == at) & playing)[:, None], jnp.stack([seat, slot]), state.mem)
        in_trick = state.in_trick + playing
        complete = in_trick == p
        winner = self.trick_winner(state._replace(mem=mem), start)
        tricks = state.tricks + complete
        led = jnp.where(playing & (state.in_trick == 0), jnp.where(card, state.col, 0).sum(), state.led)
        phase = jnp.where(
            bidding,
            jnp.where(following == state.first, PLAYING, BIDDING),
            jnp.where(complete & (tricks == H), OVER, PLAYING),
        )
        return state._replace(
            bids=jnp.where(mine & bidding, bid, state.bids),
            safe=jnp.where(mine & bidding, action % 2, state.safe),
            bid_total=state.bid_total + jnp.where(bidding, bid, 0),
            mem=mem,
            played=state.played | card,
            won=state.won + ((jnp.arange(p) == winner) & complete),
            tricks=tricks,
            current=jnp.where(complete, winner, following),
            in_trick=jnp.where(complete, 0, in_trick),
            led=jnp.where(complete, -1, led),
            phase=phase.astype(jnp.int32),
        )

    def next_deal(self, state: State, done: jax.Array) -> State:
        """Deal the next deal, keeping the last trick for the tensors, or, when the game is ``done``, the first
        deal of a new game drawn from the state's key."""
        key, draw = jax.random.split(state.key)
        last = state.mem[(H - 1) * self.players :]
        seats, slots = last[:, 0], last[:, 1]
        close = jnp.stack([seats, state.col[seats, slots], state.val[seats, slots]], axis=1)
        fixed = self.options.first_player
        drawn = jnp.int32(fixed) if fixed is not None else jax.random.randint(draw, (), 0, self.players, jnp.int32)
        state = state._replace(
            key=key,
            close=jnp.where(done, 0, close),
            closing=jnp.where(done, 0, 1).astype(jnp.int32),
            game_first=jnp.where(done, drawn, state.game_first),
            deal=jnp.where(done, 0, state.deal),
            scores=jnp.where(done, 0, state.scores),
        )
        return self._dealt(state, self.first_player(state))

    def play(self, state: State, action: jax.Array) -> tuple[State, jax.Array, jax.Array, jax.Array]:
        """The player to act takes the legal action id ``action``, the deal it ended (if any) scored but the next
        not dealt: the state, every seat's points (``int32[P]``), whether it ended a deal and the game. A game
        that ended stays as it is (its tensors: :meth:`observe_finished`) until :meth:`restart`."""
        action = jnp.asarray(action, jnp.int32)
        state = self._act(state, action)
        over = state.phase == OVER
        points = jnp.where(over, self.deal_points(state), 0)
        deal = state.deal + over
        row = (jnp.arange(self.deals) == jnp.minimum(state.deal, self.deals - 1)) & over
        state = state._replace(scores=jnp.where(row[:, None], points, state.scores), deal=deal)
        return state, points, over, over & (deal == self.deals)

    def restart(self, state: State, over: jax.Array, done: jax.Array) -> State:
        """After :meth:`play`: the next deal when a deal ended (``over``), a new game when the game did."""
        following: State = jax.lax.cond(over, self.next_deal, lambda s, _: s, state, done)
        return following

    def step(self, state: State, action: jax.Array) -> tuple[State, jax.Array, jax.Array]:
        """The player to act takes the legal action id ``action``. Returns the next state, every seat's points
        (``float32[P]``, non-zero when the action ended a deal) and whether it ended the game, in which case the
        state is a new game drawn from the old one's key."""
        state, points, over, done = self.play(state, action)
        return self.restart(state, over, done), points.astype(jnp.float32), done

    def step_batch(self, states: State, actions: jax.Array) -> tuple[State, jax.Array, jax.Array]:
        """:meth:`step` in a batch of games (a leading axis; call it as it is, not under ``vmap``): the same results
        as ``vmap(step)``, but only the games whose deal ended deal again (under ``vmap``, the ``lax.cond`` of
        :meth:`restart` deals a deal in every game at every step, then throws most away)."""
        states, points, over, done = jax.vmap(self.play)(states, actions)
        states = on_lanes(self.next_deal, over, (states, done), states, share=16)
        return states, points.astype(jnp.float32), done

    # -- the observation -----------------------------------------------------------------------------------

    def observe(self, state: State, seat: jax.Array | int) -> jax.Array:
        """``float32[size]``: ``seat``'s tensor of the live game, as :class:`~.encoding.Encoder` writes it from the
        engine's view (seats counted from ``seat``, the deal's plays as perfect recall's memory)."""
        p, o, size = self.players, self.encoder.offsets, self.size
        seat = jnp.asarray(seat, jnp.int32)
        seats = jnp.arange(p, dtype=jnp.int32)

        def rel(holder: jax.Array) -> jax.Array:
            return (holder - seat) % p

        def where(valid: jax.Array, index: jax.Array) -> jax.Array:
            """``index`` where ``valid``, else out of bounds (the scatter drops it)."""
            return jnp.where(valid, index, size).ravel()

        card_width = self.colours + self.values
        slot_width = card_width + 1
        ones = [
            jnp.stack(
                [
                    o["seat"] + seat,
                    o["phase"] + jnp.where(state.phase == BIDDING, 1, 2),
                    o["deal"] + state.deal,
                    o["first_player"] + rel(state.first),
                    o["current_player"] + rel(state.current),
                ]
            )
        ]
        at = o["hands"] + (rel(seats)[:, None] * H + jnp.arange(H)) * slot_width
        shown = state.played | (seats != seat)[:, None]
        ones += [
            (at + state.col).ravel(),
            where(shown, at + self.colours - self.low + state.val),
            where(state.played, at + card_width),
        ]
        at = o["bids"] + rel(seats) * (H + 3)
        placed = state.bids >= 0
        ones += [where(placed, at), where(placed, at + 1 + state.bids), where(placed & (state.safe == 1), at + H + 2)]
        ones.append(o["tricks_won"] + rel(seats) * (H + 1) + state.won)
        if self.options.bid_cap is not None:
            ones.append(jnp.stack([o["beads_left"] + jnp.clip(self.options.bid_cap - state.bid_total, 0, H)]))
        place = jnp.arange(p)
        place_width = p + card_width

        def cards(piece: str, valid: jax.Array, holders: jax.Array, colours: jax.Array, values: jax.Array) -> None:
            at = o[piece] + place * place_width
            ones.extend(
                [
                    where(valid, at + rel(holders)),
                    where(valid, at + p + colours),
                    where(valid, at + p + self.colours + values - self.low),
                ]
            )

        def from_memory(first: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
            plays = jax.lax.dynamic_slice(state.mem, (jnp.clip(first, 0, (H - 1) * p), jnp.int32(0)), (p, 2))
            holders, slots = plays[:, 0], plays[:, 1]
            return holders, state.col[holders, slots], state.val[holders, slots]

        cards("trick", place < state.in_trick, *from_memory(state.tricks * p))
        previous = from_memory((state.tricks - 1) * p)
        closing = state.tricks == 0
        last = [jnp.where(closing, state.close[:, k], previous[k]) for k in range(3)]
        cards("last_trick", (state.in_trick == 0) & ((state.tricks > 0) | (state.closing == 1)), *last)
        if self.encoder.perfect_recall:
            k = jnp.arange(H * p)
            holders, slots = state.mem[:, 0], state.mem[:, 1]
            at = o["plays"] + (rel(holders) * H + slots) * (H + p)
            played = k < state.tricks * p + state.in_trick
            ones += [where(played, at + k // p), where(played, at + H + k % p)]
        out = jnp.zeros(size, jnp.float32).at[jnp.concatenate(ones)].set(1.0, mode="drop")
        deal_rows = jnp.arange(self.deals)[:, None]
        at = o["scores"] + deal_rows * p + rel(seats)[None, :]
        scores = state.scores.astype(jnp.float32)
        totals = scores.sum(axis=0)
        # true divisions, rounded as the encoder's: XLA turns a division by a broadcast number (a constant, or one
        # scale per game under vmap) into a product by its inverse, one unit in the last place off; so each divisor
        # is an array shaped as its dividend (batched with it), hidden behind a barrier
        scale, whole = _barrier((scores * 0 + self.scale, totals * 0 + self.scale * self.deals))
        out = out.at[where(deal_rows < state.deal, at)].set((scores / scale).ravel(), mode="drop")
        totals = totals / whole
        return out.at[o["totals"] + rel(seats)].set(totals)

    def observe_finished(self, state: State, seat: jax.Array | int) -> jax.Array:
        """``seat``'s tensor of a game that :meth:`play` just ended, as the encoder writes a finished game's view
        (``vector_core.encode_finished``): the phase game over, the last deal's number, nobody to act, no
        remembered plays, the whole sheet."""
        o, p, deals = self.encoder.offsets, self.players, self.deals
        last = self.observe(state._replace(deal=jnp.int32(deals - 1)), seat)
        sheet = self.observe(state._replace(deal=jnp.int32(deals)), seat)  # every row; its deal field unused
        rows = slice(o["scores"], o["scores"] + deals * p)
        out = last.at[rows].set(sheet[rows]).at[o["totals"] : o["totals"] + p].set(sheet[o["totals"] : o["totals"] + p])
        out = out.at[o["phase"] : o["phase"] + 4].set(jnp.array([0.0, 0.0, 0.0, 1.0], jnp.float32))
        out = out.at[o["current_player"] : o["current_player"] + p].set(0.0)
        if self.encoder.perfect_recall:
            out = out.at[o["plays"] : o["plays"] + p * H * (H + p)].set(0.0)
        return out

    def observe_and_mask(self, state: State, seat: jax.Array) -> tuple[jax.Array, jax.Array]:
        return self.observe(state, seat), self.legal_mask(state)


def on_lanes(fn: Callable[..., Any], chosen: jax.Array, operands: tuple[Any, ...], default: Any, share: int) -> Any:
    """``vmap(fn)(*operands)`` in the lanes ``chosen`` (``bool[N]``), ``default``'s lanes elsewhere, computed in the
    chosen lanes only: gathered ``ceil(N / share)`` at a time, in as many rounds as needed (none when none is
    chosen). Under ``vmap``, ``lax.cond(chosen, fn, ...)`` would compute ``fn`` in every lane."""
    n = chosen.shape[0]
    capacity = -(-n // share)
    order = jnp.nonzero(chosen, size=-(-n // capacity) * capacity, fill_value=n)[0]  # the chosen lanes, then n
    batched = jax.vmap(fn)

    def chunk(round_: jax.Array, out: Any) -> Any:
        rows = jax.lax.dynamic_slice(order, (round_ * capacity,), (capacity,))
        results = batched(*jax.tree.map(lambda x: x[jnp.minimum(rows, n - 1)], operands))
        return jax.tree.map(lambda new, old: _put(old, rows, new), results, out)

    return jax.lax.fori_loop(0, (chosen.sum() + capacity - 1) // capacity, chunk, default)


def _put(array: jax.Array, rows: jax.Array, values: jax.Array) -> jax.Array:
    """``array`` with ``values`` in its ``rows``, those out of bounds dropped (JAX's key arrays too)."""
    if jnp.issubdtype(array.dtype, jax.dtypes.prng_key):
        data = jax.random.key_data(array).at[rows].set(jax.random.key_data(values), mode="drop")
        keys: jax.Array = jax.random.wrap_key_data(data, impl=jax.random.key_impl(array))
        return keys
    return array.at[rows].set(values, mode="drop")


Compiled = tuple[LuzJax, Any, Any, Any]
_COMPILED: dict[tuple[type[LuzJax], Edition, int, TableOptions, bool], Compiled] = {}


def compiled(
    rules: type[LuzJax], edition: Edition, players: int, options: TableOptions, perfect_recall: bool
) -> Compiled:
    """A table's ``rules`` (:class:`LuzJax` or a subclass) and its batched, jitted ``init``, ``step_batch`` and
    ``observe_and_mask``, made once per table and process (each compiles once per batch size)."""
    key = (rules, edition, players, options, perfect_recall)
    if key not in _COMPILED:
        env = rules(edition, players, perfect_recall, options)
        _COMPILED[key] = (
            env,
            jax.jit(jax.vmap(env.init)),
            jax.jit(env.step_batch),
            jax.jit(jax.vmap(env.observe_and_mask)),
        )
    return _COMPILED[key]


_barrier: Callable[[tuple[jax.Array, jax.Array]], tuple[jax.Array, jax.Array]] = jax.lax.optimization_barrier
"""``jax.lax.optimization_barrier`` (untyped), on the pair it is given here."""
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]


class JaxBatch:
    """``num_games`` games of one table in JAX behind :class:`~.vector.LuzBatch`'s interface (numpy in and out,
    actions checked), for code written against it and for the equality checks. Game ``i`` draws from
    ``jax.random.split(jax.random.key(seed), num_games)[i]``. ``rules``: a subclass of :class:`LuzJax` with a rule
    changed (a variant, or a wrong rule that the equality checks must catch)."""

    def __init__(
        self,
        num_games: int,
        edition: Edition | str = "iello-2024",
        players: int = 4,
        seed: int = 0,
        perfect_recall: bool = True,
        options: TableOptions | None = None,
        rules: type[LuzJax] = LuzJax,
        **option_overrides: Any,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise InvalidOptions(f"num_games must be a whole number >= 1, not {num_games!r}")
        chosen = get_edition(edition)
        options = chosen.table_options(players, options, **option_overrides)
        self.env, self._init, self._step, self._observe = compiled(rules, chosen, players, options, perfect_recall)
        self.edition, self.players, self.options, self.encoder = chosen, players, options, self.env.encoder
        self.num_games = num_games
        self.state: State = self._init(jax.random.split(jax.random.key(seed), num_games))
        self._mask = np.zeros((num_games, ACTION_COUNT), np.int8)
        self._fresh = True

    def reset(self, seed: int | None = None) -> tuple[IntArray, FloatArray, npt.NDArray[np.int8]]:
        """A new game in every slot: the seats to act, their tensors and masks. Without ``seed``, the first call
        plays the games of the batch's seed, later ones each slot's next game (never a replay)."""
        if seed is not None:
            self.state = self._init(jax.random.split(jax.random.key(seed), self.num_games))
        elif not self._fresh:
            self.state = self._init(self.state.key)
        self._fresh = False
        seats = np.asarray(self.state.current, np.int64)
        return seats, self.observe(seats), self._mask

    def step(
        self, actions: object
    ) -> tuple[IntArray, FloatArray, npt.NDArray[np.int8], FloatArray, npt.NDArray[np.bool_]]:
        """One legal action id per game for its seat to act (:class:`IllegalAction` naming the first bad game,
        before any game changes); as :meth:`.LuzBatch.step`."""
        array = action_ids(actions, self.num_games)
        inside = (array >= 0) & (array < ACTION_COUNT)
        legal = inside & (self._mask[np.arange(self.num_games), np.clip(array, 0, ACTION_COUNT - 1)] == 1)
        if not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise IllegalAction(f"game {bad}: action {int(array[bad])} is not legal now")
        self._fresh = False
        self.state, rewards, done = self._step(self.state, jnp.asarray(array, jnp.int32))
        seats = np.asarray(self.state.current, np.int64)
        return seats, self.observe(seats), self._mask, np.asarray(rewards), np.asarray(done)

    def observe(self, seats: object) -> FloatArray:
        """Each game's tensor for ``seats[i]`` (any seat); also refreshes the masks."""
        chosen = np.asarray(seats, dtype=np.int64)
        if chosen.shape != (self.num_games,) or ((chosen < 0) | (chosen >= self.players)).any():
            raise InvalidAction(f"seats must be {self.num_games} seats 0..{self.players - 1}")
        obs, mask = self._observe(self.state, jnp.asarray(chosen, jnp.int32))
        self._mask = np.array(mask)
        return np.asarray(obs)

    def hands(self, game: int) -> tuple[tuple[Card, ...], ...]:
        """The current deal's hands of game ``game`` (for checks: never give them to an agent)."""
        colours, values = np.asarray(self.state.col[game]), np.asarray(self.state.val[game])
        return tuple(
            tuple(Card(int(c), int(v)) for c, v in zip(colours[seat], values[seat], strict=True))
            for seat in range(self.players)
        )

    def first_player(self, game: int) -> int:
        """The first player of game ``game`` (of its first deal)."""
        return int(self.state.game_first[game])
