"""One live table: its stored state, its game, its lock and its connections.

A table is changed only by its writer (``writer.py``), under the table's lock: its connections too (``Attach``,
``Detach``); the grace periods are presence's own (``presence.py``).
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import Any

from luz.engine import Game, Phase, ViewsJson
from luz.engine.game import drawn_first_player

from ..clock import SYSTEM_CLOCK, Clock
from ..domain import SeatKind, Status, TableState, build_game, replaced
from ..timecontrol import deadline
from .model import Chosen, Connection, Watcher


@dataclass(eq=False)
class Table:
    """A table as this process holds it: the single writer's lock, the game replayed from the stored state, and
    the connections to tell of each change."""

    state: TableState
    game: Game | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    seats: dict[int, set[Connection]] = field(default_factory=dict)
    spectators: set[Connection] = field(default_factory=set)
    watchers: dict[Connection, Watcher] = field(default_factory=dict)
    """What ties each spectator connection to people (at a ``show_hands`` table, a spectator tied to a seat sees
    the hands as any spectator does: fanout.py)."""
    taken_over: set[int] = field(default_factory=set)
    """Human seats a bot plays for while their player is away."""
    left_at: dict[int, int] = field(default_factory=dict)
    """When each seat's last connection here closed (epoch ms): a turn-based table shows "last seen 2 h ago"."""
    opened: dict[Any, int] = field(default_factory=dict)
    """When each connection was opened (a counter): a seat's oldest is closed when it opens one too many."""
    creator: str | None = None
    """The client that created the table (known to the process it was created on): the bots of its tables share
    the bot processes' time as one (``BotPool``); ``None``: the table is a share of its own."""
    views: ViewsJson | None = None
    """Every seat's view of the game at ``views_version`` (built on first use at each version)."""
    views_version: int = -1
    told: tuple[Any, ...] | None = None
    """The turn its players' "my games" streams were last told of (status, game, seat to move)."""
    premoves: dict[int, Chosen] = field(default_factory=dict)
    """Each seat's premove (premoves.py): in this process's memory only, changed by the writer."""
    game_version: int = 0
    """The version at which its game last changed (a move, a new game): a move made at any version since is not
    stale, whatever else changed (a name, a seat's presence, a rematch's answer)."""
    clock: Clock = SYSTEM_CLOCK
    """The server's clock (the registry's: a ``FakeClock`` in tests), not the game's stored one (``state.clock``)."""

    def __post_init__(self) -> None:
        self.game_version = self.state.version

    @property
    def id(self) -> str:
        return self.state.id

    def names(self) -> list[str]:
        """Each seat's name as the table shows it."""
        return [s.name or (s.bot or "bot" if s.kind == SeatKind.BOT else f"seat {s.seat}") for s in self.state.seats]

    def views_now(self) -> ViewsJson | None:
        """Every seat's view of the game as it is now (built once per version: the version changes with every
        change of the game); ``None`` without a game."""
        if self.game is None:
            return None
        if self.views is None or self.views_version != self.state.version:
            self.views, self.views_version = ViewsJson(self.game, self.views), self.state.version
        return self.views

    def connected(self, seat: int) -> bool:
        return bool(self.seats.get(seat))

    def away_ms(self, seat: int) -> int | None:
        """How long ago ``seat``'s player left this table (``None``: here, or not seen leaving by this process)."""
        left = self.left_at.get(seat)
        return None if left is None or self.connected(seat) else max(0, self.clock.now_ms() - left)

    def bot_seats(self) -> set[int]:
        """The seats a bot plays: bot seats, human seats taken over, and the turn-based seats passed to a bot."""
        return {s.seat for s in self.state.seats if s.kind == SeatKind.BOT} | self.taken_over | self.replaced()

    def replaced(self) -> set[int]:
        """Seats of a turn-based game a bot plays for the rest of it (their time ran out too often in a row)."""
        return replaced(self.state.clock)

    def summary(self) -> dict[str, Any]:
        """The table's stored summary with the seat to move and its deadline (epoch ms), if it is timed, and the
        time left to its rematch offer."""
        summary = self.state.summary()
        mover = self.game.current_player if self.game is not None and self.state.status == Status.PLAYING else None
        summary["to_move"], summary["deadline"] = mover, deadline(self.state, mover)
        offer = summary["rematch"]
        if offer is not None:  # a client counts its rematch offer down from when it is told (whatever its clock)
            summary["rematch"] = {**offer, "ends_in_ms": max(0, offer["expires_at"] - self.clock.now_ms())}
        return summary

    def to_move(self, seat: int, expected: int | None) -> bool:
        """Whether ``seat`` may move now, at version ``expected`` (``None``: whatever the version)."""
        fresh = self.fresh(expected)
        game = self.game
        return fresh and game is not None and self.state.status == Status.PLAYING and game.current_player == seat

    def fresh(self, expected: int | None) -> bool:
        """Whether a move made at version ``expected`` (``None``: whatever the version) saw the game as it is."""
        return expected is None or self.game_version <= expected <= self.state.version

    def reload(self, state: TableState) -> None:
        """Take ``state`` as stored, its game replayed (the game's version kept if its game and moves are)."""
        same = state.game_no == self.state.game_no and state.actions == self.state.actions and self.game is not None
        self.state, self.game = state, build_game(state)
        if not same:
            self.game_version = state.version

    def applied(self, game: Game, action: str, version: int, clock: dict[str, Any] | None) -> None:
        """Record in memory the action just stored (``game``: the clone it was applied to)."""
        self.game = game
        self.state.actions.append(action)
        self.state.version = self.game_version = version
        self.state.clock = clock
        if game.phase is Phase.GAME_OVER:
            self.state.status = Status.OVER


def next_seed(last: Game | None) -> int:
    """A random seed for a table's next game whose first player sits one seat to the left of the last game's:
    the seats rotated by one (the first game's is drawn; a table whose options fix the first player keeps it).
    The seed alone decides the first player, so the game's record still replays from seed and actions."""
    while True:
        seed = secrets.randbits(62)
        if last is None or last.options.first_player is not None:
            return seed
        if drawn_first_player(seed, last.players) == (last.sheet.first_player + 1) % last.players:
            return seed
