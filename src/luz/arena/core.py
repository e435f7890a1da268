"""Arena games: duplicate deal sets, every rotation of the bots over the seats, on any backend with the same results.

Deal set ``d`` is the game seeded from ``(seed, d)``: the same cards in every rotation, so the luck of the deal
cancels when the bots' scores are compared. Rotation ``r`` seats bot ``i`` at seat ``(i + r) % players``. Rotations
keep the order of the bots around the table (who sits right after whom); with ``seatings``, every distinct order
is played too, each in every rotation (game ``r`` of a deal set: order ``r // players``, rotation
``r % players``). Each
seat's bot gets its own generator seeded from ``(seed, d, r, seat)``, so a game's result depends on nothing but
its key and the bots, whichever process or machine plays it and in whatever order.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from luz.bots import make_arena_bot
from luz.engine import DEFAULT_EDITION, Action, Card, DealResultJson, Game, LuzError, View, get_edition, view


class ArenaError(LuzError):
    """An arena that cannot be run as asked (bots, players, backend)."""


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play: bot specs by starting seat, the table, how many duplicate deal sets, and the seed."""

    bots: tuple[str, ...]
    edition: str = DEFAULT_EDITION
    players: int = 4
    deal_sets: int = 10
    seed: int = 0
    seatings: bool = False
    """Play every distinct order of the bots around the table, not only the order given."""

    def check(self) -> None:
        """Refuse a configuration that cannot be played, saying why, before any game starts."""
        edition = get_edition(self.edition)
        edition.check_players(self.players)
        if len(self.bots) != self.players:
            raise ArenaError(f"give one bot per seat: {self.players} players, {len(self.bots)} bots")
        if self.deal_sets < 1:
            raise ArenaError(f"play at least one deal set, not {self.deal_sets}")
        for spec in self.bots:
            make_arena_bot(spec)

    def labels(self) -> tuple[str, ...]:
        """The distinct bot specs, in order of first appearance: the arena's competitors."""
        return tuple(dict.fromkeys(self.bots))

    def game_seed(self, deal_set: int) -> int:
        """The seed of deal set ``deal_set``'s game (its cards and its first player)."""
        digest = hashlib.sha256(f"luz-arena:{self.seed}:{deal_set}".encode()).digest()
        return int.from_bytes(digest[:6], "big")

    def orders(self) -> list[tuple[str, ...]]:
        """The orders of the bots around the table that are played: the one given, or with ``seatings`` every
        distinct one (the first bot first; orders that are rotations of an earlier one left out)."""
        if not self.seatings:
            return [self.bots]
        found: dict[tuple[str, ...], tuple[str, ...]] = {}
        for rest in itertools.permutations(self.bots[1:]):
            order = (self.bots[0], *rest)
            found.setdefault(min(order[i:] + order[:i] for i in range(len(order))), order)
        return list(found.values())

    def games_per_set(self) -> int:
        """Games in each deal set: every rotation of every order played."""
        return len(self.orders()) * self.players

    def tasks(self) -> list[tuple[int, int]]:
        """Every game to play, as ``(deal set, rotation)``, in report order."""
        return [(d, r) for d in range(self.deal_sets) for r in range(self.games_per_set())]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One arena game: who sat where, every deal's bids and tricks, the result, and the bots' thinking times."""

    deal_set: int
    rotation: int
    seats: tuple[str, ...]
    """The bot spec at each seat."""
    totals: tuple[int, ...]
    ranking: tuple[int, ...]
    deals: tuple[DealResultJson, ...]
    """Each deal's ``bids``, ``safety``, ``tricks``, ``scores`` by seat (the engine's DealResult as JSON)."""
    seconds: tuple[tuple[float, ...], ...] = field(compare=False)
    """Each seat's decision times: the only part that is not reproducible."""

    @property
    def winner(self) -> int:
        return self.ranking[0]

    def to_json(self, with_times: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "deal_set": self.deal_set,
            "rotation": self.rotation,
            "seats": list(self.seats),
            "totals": list(self.totals),
            "ranking": list(self.ranking),
            "deals": list(self.deals),
        }
        if with_times:
            data["seconds"] = [list(t) for t in self.seconds]
        return data


class ViewBot(Protocol):
    """A bot that decides from its seat's view alone (every :class:`~luz.bots.Bot`)."""

    def choose(self, view: View, rng: random.Random) -> Action: ...


@runtime_checkable
class SeeingBot(Protocol):
    """A reference bot that the arena hands its own cards beside its view (the oracle): it has the
    ``sees_own_cards`` marker."""

    sees_own_cards: bool

    def choose_seeing(self, view: View, own: Sequence[Card], rng: random.Random) -> Action: ...


ArenaBot = ViewBot | SeeingBot
"""What :func:`luz.bots.make_arena_bot` makes."""


def choose(bot: ArenaBot, game: Game, seat: int, rng: random.Random) -> Action:
    """``bot``'s action at ``seat``: from the seat's view alone, or with its own cards for a bot that sees them."""
    seen = view(game, seat)
    if isinstance(bot, SeeingBot):
        return bot.choose_seeing(seen, game.deals[-1].hands[seat], rng)
    return bot.choose(seen, rng)


def play_game(config: ArenaConfig, deal_set: int, rotation: int) -> GameRecord:
    """Play game ``(deal_set, rotation)`` of the arena: a pure function of its arguments, timings aside."""
    players = config.players
    order = config.orders()[rotation // players]
    seats = tuple(order[(seat - rotation) % players] for seat in range(players))
    bots: list[ArenaBot] = [make_arena_bot(spec) for spec in seats]
    rngs = [random.Random(f"luz-arena:{config.seed}:{deal_set}:{rotation}:{seat}") for seat in range(players)]
    seconds: list[list[float]] = [[] for _ in range(players)]
    game = Game.new(config.edition, players, seed=config.game_seed(deal_set))
    while (seat := game.current_player) is not None:
        start = time.perf_counter()
        action = choose(bots[seat], game, seat, rngs[seat])
        seconds[seat].append(round(time.perf_counter() - start, 6))
        game.apply(action, seat)
    outcome = game.outcome()
    assert outcome is not None
    return GameRecord(
        deal_set,
        rotation,
        seats,
        outcome.totals,
        outcome.ranking,
        tuple(result.to_json() for result in game.results),
        tuple(map(tuple, seconds)),
    )


def play_task(config: ArenaConfig, task: tuple[int, int]) -> GameRecord:
    return play_game(config, *task)


class Schedule:
    """The games to play, handed out in report order; once ``minutes`` have passed, no new deal set starts."""

    def __init__(self, tasks: Sequence[tuple[int, int]], minutes: float | None) -> None:
        self._tasks = iter(tasks)
        self._deadline = None if minutes is None else time.monotonic() + 60 * minutes
        self.stopped = False
        """Whether the time limit cut the arena short."""

    def next(self) -> tuple[int, int] | None:
        """The next game to start, or ``None``: all started, or out of time (the first deal set always starts)."""
        task = None if self.stopped else next(self._tasks, None)
        if task is not None and task[0] > 0 and self._deadline is not None and time.monotonic() > self._deadline:
            self.stopped = True
            return None
        return task
