"""What the research adapters share: action ids, a seat's tensor and text built from its View, and a Table.

Action ids are the same in OpenSpiel, PettingZoo and Gymnasium (``ACTION_COUNT`` = 32):

- ``0..21``: bids, ``id = 2 * tricks + safety`` (``bid:0``, ``bid:0+``, ``bid:1``, ... ``bid:10+``);
- ``22..31``: plays, ``id = 22 + slot``: a position in the seat's sorted hand, never a card, since a player
  cannot name its own values.

Tensors and text are computed from :func:`luz.engine.view` only, plus the order in which the current deal's
cards were played (public: everyone saw each play), which a player with perfect recall remembers although the
table rules let nobody consult finished tricks.

>>> from luz.engine import Bid, Game
>>> action_id(Bid(2, safety=True)), action_of(23)
(5, Play(slot=1))
>>> table = Table(Game.new("iello-2024", players=4, seed=1))
>>> encoder = Encoder(table.game.edition, 4, table.game.options, perfect_recall=True)
>>> encoder.tensor(view(table.game, 0), 0, table.memory()).shape
(1499,)
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from luz.engine import HAND_SIZE, MAX_BID, Action, Card, Edition, Game, InvalidAction, Play, TableOptions, Trick, view
from luz.engine.actions import ALL_BIDS, PLAYS
from luz.engine.beliefs import Beliefs
from luz.engine.views import View

BID_IDS = len(ALL_BIDS)
"""Ids 0..21 are bids."""
ACTION_COUNT = BID_IDS + HAND_SIZE
"""Every action id is below this (32)."""
_ACTIONS: tuple[Action, ...] = (*ALL_BIDS, *PLAYS)
_IDS: dict[Action, int] = {action: i for i, action in enumerate(_ACTIONS)}
_PHASES = ("deal", "bid", "play", "game_over")


def action_id(action: Action) -> int:
    """The id of an engine action."""
    try:
        return _IDS[action]
    except (KeyError, TypeError):
        raise InvalidAction(f"not an action: {action!r}") from None


def action_of(action_id: object) -> Action:
    """The engine action an id stands for; :class:`InvalidAction` for anything but a whole number 0..31."""
    if isinstance(action_id, bool):
        raise InvalidAction(f"an action id is a whole number 0..{ACTION_COUNT - 1}, not {action_id!r}")
    try:
        index = operator.index(action_id)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidAction(f"an action id is a whole number 0..{ACTION_COUNT - 1}, not {action_id!r}") from None
    if not 0 <= index < ACTION_COUNT:
        raise InvalidAction(f"an action id is 0..{ACTION_COUNT - 1}, not {index}")
    return _ACTIONS[index]


class Memory(NamedTuple):
    """The public order of the current deal's plays: ``plays[i]`` is ``(seat, slot)`` of the i-th card played
    from trick ``first_trick`` on (earlier tricks are forgotten by a table rebuilt from a view)."""

    first_trick: int
    plays: tuple[tuple[int, int], ...]


class Table:
    """An engine game and the order of the current deal's plays: the state the three adapters drive."""

    __slots__ = ("first_trick", "game", "plays")

    def __init__(self, game: Game, plays: Sequence[tuple[int, int]] = (), first_trick: int = 0) -> None:
        self.game = game
        self.plays = list(plays)
        self.first_trick = first_trick

    @classmethod
    def from_view(cls, seen: View, rng: random.Random) -> Table:
        """A table at the position ``seen`` shows, its hidden part drawn uniformly from what the seat believes.

        Its game has no history before this position; the plays it remembers are the tricks the view shows.
        """
        beliefs = Beliefs(seen)
        game = beliefs.to_game(beliefs.sample(rng))
        if seen.trick_history is not None:
            known = list(seen.trick_history)
        else:
            known = [seen.last_trick] if seen.last_trick is not None else []
        if seen.trick is not None and seen.trick.plays:
            known.append(seen.trick)
        plays = [(seat, slot) for trick in known for seat, slot, _ in trick.plays]
        complete = [t for t in known if len(t.plays) == seen.players]
        return cls(game, plays, sum(seen.tricks_won) - len(complete))

    def clone(self) -> Table:
        return Table(self.game.clone(), self.plays, self.first_trick)

    def memory(self) -> Memory:
        return Memory(self.first_trick, tuple(self.plays))

    def legal_ids(self) -> list[int]:
        """The current player's legal action ids, ascending (none when no player is to act)."""
        ids = _IDS
        return sorted([ids[action] for action in self.game.legal_actions()])

    def action_mask(self, seat: int) -> npt.NDArray[np.int8]:
        """1 for each action id ``seat`` may take now (all 0 when it is not its turn)."""
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        if self.game.current_player == seat:
            mask[self.legal_ids()] = 1
        return mask

    def apply_id(self, action: object) -> tuple[int, ...] | None:
        """Apply action id ``action`` for the current player; the points of each seat if it ended a deal.

        Malformed or illegal actions raise the engine's errors and change nothing.
        """
        move = action_of(action)
        game = self.game
        seat = game.current_player
        deals = len(game.results)
        game.apply(move, seat)
        if type(move) is Play:
            self.plays.append((seat, move.slot))  # type: ignore[arg-type]
        if len(game.results) == deals:
            return None
        self.plays = []
        self.first_trick = 0
        return game.results[-1].scores

    def observation(self, encoder: Encoder, seat: int) -> dict[str, npt.NDArray[np.float32] | npt.NDArray[np.int8]]:
        """``{"observation": tensor, "action_mask": mask}`` for ``seat`` (PettingZoo's and Gymnasium's form)."""
        return {
            "observation": encoder.tensor(view(self.game, seat), seat, self.memory()),
            "action_mask": self.action_mask(seat),
        }


def points_scale(edition: Edition, options: TableOptions) -> int:
    """The most points one seat can win or lose in one deal: the unit that scales scores in tensors."""
    return max(max(options.made_points, default=0), edition.miss_penalty * HAND_SIZE, 1)


class Encoder:
    """A seat's view (and remembered plays) as a fixed-size float vector and as text, for one kind of table.

    Seats in tensors are counted from the observer: index 0 is the observer, 1 the next seat to its left, and so
    on. ``perfect_recall`` adds, for each card played in a remembered trick, that trick's index and the card's
    place in it. Pieces, in order (``pieces`` gives their shapes):

    ``seat`` the observer's absolute seat; ``phase`` deal/bid/play/game over; ``deal`` the deal number;
    ``first_player``, ``current_player``; ``hands`` per seat and slot: colour, value (when visible), played;
    ``bids`` per seat: placed, tricks, safety; ``beads_left`` bid tokens left under a cap (capped at 10);
    ``tricks_won``; ``trick`` and ``last_trick`` per place in the trick: seat and card (the last trick is the
    one just completed, or the previous deal's last until this deal's first card); ``plays`` (perfect recall
    only); ``scores`` per finished deal and ``totals``, divided by :func:`points_scale` (and the deal count).
    """

    def __init__(self, edition: Edition, players: int, options: TableOptions, perfect_recall: bool) -> None:
        edition.check_players(players)
        self.edition = edition
        self.players = players
        self.perfect_recall = perfect_recall
        self.low, high = edition.values[players]
        self.colours = len(edition.colours)
        self.values = high - self.low + 1
        self.deals = edition.deals(players)
        self.scale = float(points_scale(edition, options))
        card = self.colours + self.values
        p = players
        shapes: list[tuple[str, tuple[int, ...]]] = [
            ("seat", (p,)),
            ("phase", (len(_PHASES),)),
            ("deal", (self.deals,)),
            ("first_player", (p,)),
            ("current_player", (p,)),
            ("hands", (p, HAND_SIZE, card + 1)),
            ("bids", (p, MAX_BID + 3)),
            ("beads_left", (HAND_SIZE + 1,)),
            ("tricks_won", (p, HAND_SIZE + 1)),
            ("trick", (p, p + card)),
            ("last_trick", (p, p + card)),
        ]
        if perfect_recall:
            shapes.append(("plays", (p, HAND_SIZE, HAND_SIZE + p)))
        shapes += [("scores", (self.deals, p)), ("totals", (p,))]
        self.pieces = tuple(shapes)
        self._names = [
            [f"{colour.letter}?", *(edition.card_name(Card(c, v)) if v >= self.low else "" for v in range(1, high + 1))]
            for c, colour in enumerate(edition.colours)
        ]
        """Text of each card by colour and value, index 0 for an unknown value."""
        self.offsets: dict[str, int] = {}
        offset = 0
        for name, shape in shapes:
            self.offsets[name] = offset
            offset += int(np.prod(shape))
        self.size = offset

    def split(self, tensor: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """Named, shaped views into a flat tensor of this encoder (OpenSpiel observers expose them)."""
        return {
            name: tensor[self.offsets[name] : self.offsets[name] + int(np.prod(shape))].reshape(shape)
            for name, shape in self.pieces
        }

    def tensor(self, seen: View | None, seat: int, memory: Memory | None = None) -> npt.NDArray[np.float32]:
        out = np.zeros(self.size, dtype=np.float32)
        self.encode(seen, seat, memory, out)
        return out

    def encode(self, seen: View | None, seat: int, memory: Memory | None, out: npt.NDArray[np.float32]) -> None:
        """Write into ``out`` what ``seen`` shows, seats counted from ``seat`` (``seen`` is None before the
        game exists: only the seat is known)."""
        out.fill(0.0)
        o = self.offsets
        p = self.players
        ones = [o["seat"] + seat]
        if seen is None:
            out[ones] = 1.0
            return

        rotated = [(holder - seat) % p for holder in range(p)]
        rel = rotated.__getitem__
        card_width = self.colours + self.values
        ones.append(o["phase"] + _PHASES.index(seen.phase.value))
        if seen.deal_number:
            ones.append(o["deal"] + seen.deal_number - 1)
        ones.append(o["first_player"] + rel(seen.first_player))
        if seen.current_player is not None:
            ones.append(o["current_player"] + rel(seen.current_player))
        slot_width = card_width + 1
        value_at = self.colours - self.low
        add = ones.append
        for holder, hand in enumerate(seen.hands):
            at = o["hands"] + rel(holder) * HAND_SIZE * slot_width
            for s in hand:  # slots in order
                add(at + s.colour)
                if s.value is not None:
                    add(at + value_at + s.value)
                if s.played:
                    add(at + card_width)
                at += slot_width
        for holder, bid in enumerate(seen.bids):
            if bid is not None:
                at = o["bids"] + rel(holder) * (MAX_BID + 3)
                ones += [at, at + 1 + bid.tricks] + ([at + MAX_BID + 2] if bid.safety else [])
        if seen.beads_left is not None:
            ones.append(o["beads_left"] + max(0, min(seen.beads_left, HAND_SIZE)))
        for holder, won in enumerate(seen.tricks_won):
            ones.append(o["tricks_won"] + rel(holder) * (HAND_SIZE + 1) + won)
        shown_last = seen.last_trick or seen.closing_trick
        for name, trick in (("trick", seen.trick), ("last_trick", shown_last)):
            for place, (holder, _, card) in enumerate(trick.plays if trick is not None else ()):
                at = o[name] + place * (p + card_width)
                ones += [at + rel(holder), at + p + card.colour, at + p + self.colours + card.value - self.low]
        if self.perfect_recall and memory is not None:
            width = HAND_SIZE + p
            for i, (holder, slot) in enumerate(memory.plays):
                at = o["plays"] + (rel(holder) * HAND_SIZE + slot) * width
                ones += [at + memory.first_trick + i // p, at + HAND_SIZE + i % p]
        out[ones] = 1.0
        for d, result in enumerate(seen.results):
            for holder, points in enumerate(result.scores):
                out[o["scores"] + d * p + rel(holder)] = points / self.scale
        for holder, total in enumerate(seen.totals):
            out[o["totals"] + rel(holder)] = total / (self.scale * self.deals)

    def text(self, seen: View | None, seat: int, memory: Memory | None = None) -> str:
        """The same information as text (seats by their absolute number), one line per part."""
        if seen is None:
            return f"seat {seat}; first player not drawn yet"
        name = self.edition.card_name
        names = self._names
        current = "-" if seen.current_player is None else seen.current_player
        lines = [
            f"seat {seat}; {self.edition.key} {self.players}p; deal {seen.deal_number}/{seen.deal_count}; "
            f"{seen.phase.value}; first {seen.first_player}; to act {current}; beads left {seen.beads_left}"
        ]
        for holder, hand in enumerate(seen.hands):
            cards = [names[s.colour][s.value or 0] + ("*" if s.played else "") for s in hand]
            lines.append(f"hand {holder}: {' '.join(cards)}")
        if seen.hands:
            bids = ["-" if b is None else f"{b.tricks}{'+' if b.safety else ''}" for b in seen.bids]
            lines.append(f"bids: {' '.join(bids)}; tricks: {' '.join(map(str, seen.tricks_won))}")
        for label, trick in (("trick", seen.trick), ("last trick", seen.last_trick), ("closing", seen.closing_trick)):
            if trick is not None and trick.plays:
                lines.append(f"{label}: {_trick_text(trick, name)}")
        if self.perfect_recall and memory is not None and memory.plays:
            tricks = [memory.plays[i : i + self.players] for i in range(0, len(memory.plays), self.players)]
            played = " | ".join(" ".join(f"{h}.{s}" for h, s in trick) for trick in tricks)
            lines.append(f"plays from trick {memory.first_trick + 1}: {played}")
        for number, result in enumerate(seen.results, 1):
            lines.append(f"deal {number} points: {' '.join(map(str, result.scores))}")
        if seen.outcome is not None:
            lines.append(f"winner {seen.outcome.winner}; ranking {' '.join(map(str, seen.outcome.ranking))}")
        return "\n".join(lines)


def _trick_text(trick: Trick, name: Callable[[Card], str]) -> str:
    plays = " ".join(f"{seat}:{name(card)}" for seat, _, card in trick.plays)
    return plays + ("" if trick.winner is None else f" > {trick.winner}")
