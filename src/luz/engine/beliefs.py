"""Exact beliefs of one seat over what it cannot see: the values of its own unplayed cards, and so the aside.

Built from a seat's :class:`~luz.engine.views.View` only (never from a game): everything else is visible, so
the hidden part of the deal is the set of values of each colour that the seat sees nowhere. Its unplayed cards
of a colour take some of those values in slot order, and each card it has played splits them further: the
unplayed cards between two revealed neighbours (a *segment*) take values strictly between them. Segments are
independent, so under a uniform prior over consistent deals each segment's values are a uniformly random subset
of its pool, and the aside is what is left.

>>> from luz.engine import Game, view
>>> game = Game.new("iello-2024", players=3, seed=4)
>>> beliefs = Beliefs(view(game, 0))
>>> beliefs.world_count() > 0, sum(beliefs.probabilities(0).values())
(True, Fraction(1, 1))

A player aid shows a seat these beliefs as *hints*: :func:`with_hints` adds them to a seat's view,
:func:`json_with_hints` to the server's JSON of it (:class:`~luz.engine.views.ViewsJson`).

>>> with_hints(view(game, 0)).hints == beliefs.to_json()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from math import comb, prod
from typing import Any

import numpy as np
import numpy.typing as npt

from .cards import Card
from .game import Deal, Game, Phase, Trick
from .scoring import ScoreSheet
from .views import View, ViewsJson, view


@dataclass(frozen=True, slots=True)
class Segment:
    """Unplayed slots of one colour between two revealed neighbours, and the values they can take."""

    colour: int
    slots: tuple[int, ...]
    pool: tuple[int, ...]
    """Unseen values of the colour strictly between the neighbours, ascending."""

    def world_count(self) -> int:
        return comb(len(self.pool), len(self.slots))


@dataclass(frozen=True, slots=True)
class World:
    """One complete hidden world: a value for each unplayed slot of the seat, and the aside."""

    values: dict[int, int]
    """Slot -> value for every unplayed slot of the seat."""
    aside: tuple[Card, ...]


@cache
def _rank_weights(size: int, count: int, rank: int) -> tuple[int, ...]:
    """Ways for the ``rank``-th lowest (0-based) of ``count`` values drawn from ``size`` ordered ones to be each one."""
    return tuple(comb(j, rank) * comb(size - 1 - j, count - 1 - rank) for j in range(size))


class Beliefs:
    """What one seat knows of its hidden cards, exactly."""

    def __init__(self, view: View) -> None:
        if not isinstance(view, View):
            raise TypeError(f"beliefs are built from a seat's View (luz.engine.view(game, seat)), not {type(view)}")
        if view.seat is None:
            raise ValueError("a spectator holds no cards: beliefs need a seat's view")
        self.view = view
        self.seat = view.seat
        edition = view.edition
        low, high = edition.values[view.players]
        seen = {(s.colour, s.value) for hand in view.hands for s in hand if s.value is not None}
        self.unseen: tuple[tuple[int, ...], ...] = tuple(
            tuple(v for v in range(low, high + 1) if (c, v) not in seen) for c in range(len(edition.colours))
        )
        """For each colour, the values the seat sees nowhere: its own unplayed cards and the aside hold them."""
        self.segments = tuple(self._segments(low - 1, high + 1))
        self.slots: tuple[int, ...] = tuple(sorted(s for seg in self.segments for s in seg.slots))
        """The seat's unplayed slots, ascending."""
        self._segment_of = {slot: (seg, i) for seg in self.segments for i, slot in enumerate(seg.slots)}
        known = [seg for seg in self.segments if len(seg.pool) == len(seg.slots)]
        self._known_values = {slot: v for seg in known for slot, v in zip(seg.slots, seg.pool, strict=True)}
        self._random_segments = [(seg.slots, seg.pool) for seg in self.segments if seg not in known]
        self._colour_of = {slot: seg.colour for slot, (seg, _) in self._segment_of.items()}
        self._unseen_cards = [((c, v), Card(c, v)) for c, pool in enumerate(self.unseen) for v in pool]

    def _segments(self, below: int, above: int) -> Iterable[Segment]:
        hand = self.view.hands[self.seat] if self.view.hands else ()
        by_colour: dict[int, list[tuple[int, int | None]]] = {}
        for s in hand:
            by_colour.setdefault(s.colour, []).append((s.slot, s.value if s.played else None))
        for colour, cards in by_colour.items():
            lower, slots = below, []
            for slot, value in [*cards, (-1, above)]:
                if value is None:
                    slots.append(slot)
                    continue
                if slots:
                    pool = tuple(v for v in self.unseen[colour] if lower < v < value)
                    yield Segment(colour, tuple(slots), pool)
                lower, slots = value, []

    # -- exact knowledge -----------------------------------------------------------------------------------

    def world_count(self) -> int:
        """The number of hidden worlds consistent with the view (each equally likely under a uniform prior)."""
        return prod(seg.world_count() for seg in self.segments)

    def probabilities(self, slot: int) -> dict[int, Fraction]:
        """Each possible value of unplayed ``slot`` with its exact probability."""
        segment, rank = self._locate(slot)
        weights = _rank_weights(len(segment.pool), len(segment.slots), rank)
        total = segment.world_count()
        return {v: Fraction(w, total) for v, w in zip(segment.pool, weights, strict=True) if w}

    def table(self) -> dict[int, dict[int, float]]:
        """Every unplayed slot's value probabilities, as floats (fast)."""
        result: dict[int, dict[int, float]] = {}
        for segment in self.segments:
            size, count, total = len(segment.pool), len(segment.slots), segment.world_count()
            for rank, slot in enumerate(segment.slots):
                weights = _rank_weights(size, count, rank)
                result[slot] = {v: w / total for v, w in zip(segment.pool, weights, strict=True) if w}
        return result

    def exact_table(self) -> dict[int, dict[int, Fraction]]:
        """Every unplayed slot's value probabilities, as exact fractions."""
        return {slot: self.probabilities(slot) for slot in self.slots}

    def possible(self, slot: int) -> tuple[int, ...]:
        """The values unplayed ``slot`` can have."""
        return tuple(self.probabilities(slot))

    def most_likely(self, slot: int) -> tuple[int, ...]:
        """The value(s) of highest probability for unplayed ``slot``."""
        probabilities = self.probabilities(slot)
        best = max(probabilities.values())
        return tuple(v for v, p in probabilities.items() if p == best)

    def probability(self, world: World) -> Fraction:
        """The probability of ``world`` under the uniform prior: 1/count if consistent with the view, else 0."""
        return Fraction(1, self.world_count()) if self.is_consistent(world) else Fraction(0)

    def is_consistent(self, world: World) -> bool:
        """Whether ``world`` could be the truth, given everything the seat sees."""
        if set(world.values) != set(self.slots):
            return False
        for segment in self.segments:
            values = [world.values[s] for s in segment.slots]
            if values != sorted(set(values)) or not set(values) <= set(segment.pool):
                return False
        aside = sorted((c, v) for c, pool in enumerate(self.unseen) for v in pool)
        own = {(self._colour_of[s], v) for s, v in world.values.items()}
        return sorted((c.colour, c.value) for c in world.aside) == [cv for cv in aside if cv not in own]

    def _locate(self, slot: int) -> tuple[Segment, int]:
        try:
            return self._segment_of[slot]
        except KeyError:
            raise ValueError(f"slot {slot!r} is not an unplayed slot of seat {self.seat}") from None

    # -- sampling ----------------------------------------------------------------------------------------

    def sample(self, rng: random.Random) -> World:
        """One hidden world, drawn exactly uniformly from the consistent ones."""
        values = dict(self._known_values)
        uniform = rng.random
        for slots, pool in self._random_segments:
            # Selection sampling (Knuth's algorithm S): each subset of the pool equally likely, already in order.
            need, left, picked = len(slots), len(pool), []
            for value in pool:
                if uniform() * left < need:
                    picked.append(value)
                    need -= 1
                left -= 1
            values.update(zip(slots, picked, strict=True))
        return self.world(values)

    def sample_values(self, count: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """``count`` worlds drawn exactly uniformly, as an array: row = world, column = :attr:`slots` order."""
        out = np.empty((count, len(self.slots)), dtype=np.int64)
        column = {slot: i for i, slot in enumerate(self.slots)}
        for segment in self.segments:
            size, picks = len(segment.pool), len(segment.slots)
            pool = np.asarray(segment.pool, dtype=np.int64)
            if picks == size:
                chosen = np.broadcast_to(np.arange(size), (count, size))
            else:
                keys = rng.random((count, size))
                chosen = np.sort(np.argpartition(keys, picks - 1, axis=1)[:, :picks], axis=1)
            out[:, [column[s] for s in segment.slots]] = pool[chosen]
        return out

    def world(self, values: dict[int, int] | Sequence[int]) -> World:
        """The world where the unplayed slots have ``values`` (a dict by slot, or a row in :attr:`slots` order)."""
        if not isinstance(values, dict):
            values = dict(zip(self.slots, (int(v) for v in values), strict=True))
        colour = self._colour_of
        own = {(colour[s], v) for s, v in values.items()}
        return World(values, tuple(card for key, card in self._unseen_cards if key not in own))

    def to_game(self, world: World) -> Game:
        """A full engine state where the hidden part is ``world``: the position the seat sees, for simulation."""
        view = self.view
        if view.phase not in (Phase.BID, Phase.PLAY):
            raise ValueError(f"no deal is being played (phase {view.phase.value})")
        if not self.is_consistent(world):
            raise ValueError("the world is not consistent with the seat's view")
        hands = tuple(
            tuple(Card(s.colour, world.values[s.slot] if s.value is None else s.value) for s in hand)
            for hand in view.hands
        )
        first = view.results[0].first_player if view.results else view.first_player
        sheet = ScoreSheet(view.edition, view.players, view.options, first, view.results)
        assert view.trick is not None
        return Game.from_position(
            sheet,
            Deal(hands, world.aside),
            played=[[s.slot for s in hand if s.played] for hand in view.hands],
            bids=view.bids,
            tricks_won=view.tricks_won,
            trick=view.trick,
            completed=self._known_tricks(),
            closing_trick=view.closing_trick,
        )

    def _known_tricks(self) -> tuple[Trick, ...]:
        """The deal's completed tricks the seat knows: all with the trick history option, else the last one."""
        if self.view.trick_history is not None:
            return self.view.trick_history
        return () if self.view.last_trick is None else (self.view.last_trick,)

    # -- weighted inference ------------------------------------------------------------------------------

    @staticmethod
    def weigh(worlds: Sequence[World], likelihood: Callable[[World], float]) -> list[float]:
        """Importance weights (summing to 1) of uniformly sampled ``worlds`` under ``likelihood``.

        ``likelihood(world)`` is how probable what the seat observed (e.g. the opponents' bids, made seeing its
        values) would be in that world; it need not be normalised.
        """
        raw = [float(likelihood(w)) for w in worlds]
        if not all(math.isfinite(r) and r >= 0 for r in raw):
            raise ValueError("a likelihood must be a finite number >= 0")
        total = sum(raw)
        if total <= 0:
            raise ValueError("every world has likelihood 0: the observations are impossible in all of them")
        return [r / total for r in raw]

    def resample(
        self, worlds: Sequence[World], likelihood: Callable[[World], float], count: int, rng: random.Random
    ) -> list[World]:
        """``count`` worlds drawn from ``worlds`` in proportion to their likelihood (the posterior, approximately)."""
        return rng.choices(list(worlds), weights=self.weigh(worlds, likelihood), k=count)

    def to_json(self) -> dict[str, Any]:
        """Hint data for a player: each unplayed slot's possible values, probabilities and most likely values."""
        return {
            "worlds": self.world_count(),
            "slots": [
                {
                    "slot": slot,
                    "possible": list(probs),
                    "probabilities": [round(p, 4) for p in probs.values()],
                    "most_likely": list(self.most_likely(slot)),
                }
                for slot, probs in sorted(self.table().items())
            ],
        }


def with_hints(seen: View) -> View:
    """``seen`` with its hints (:meth:`Beliefs.to_json`), for a seat's view while a deal is live; any other view (a
    spectator's, between deals, once the game is over) as it is, without hints."""
    if seen.seat is None or seen.phase not in (Phase.BID, Phase.PLAY):
        return seen
    return replace(seen, hints=Beliefs(seen).to_json())


def json_with_hints(views: ViewsJson, seat: int | None) -> dict[str, Any]:
    """``views.of(seat)`` with the seat's hints: equal to ``with_hints(view(game, seat)).to_json()``, built once
    for each seat of ``views`` (kept in its :attr:`~luz.engine.views.ViewsJson.derived`). Read it, never change it."""
    data = views.of(seat)
    if seat is None or views.game.phase not in (Phase.BID, Phase.PLAY):
        return data
    key = ("hints", seat)
    hinted: dict[str, Any] | None = views.derived.get(key)
    if hinted is None:
        hinted = dict(data)
        hinted["hints"] = with_hints(view(views.game, seat)).hints
        views.derived[key] = hinted
    return hinted
