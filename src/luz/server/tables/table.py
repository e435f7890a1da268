"""One live table: its stored state, its game, its lock and its connections, and the one writer of its changes.

Every change goes: check on a clone of the game -> store (the action is durable) -> apply in memory -> return what
to send. The writer never sends anything itself: the registry acknowledges, broadcasts and tells the other
processes, so the order "stored, then acknowledged" holds in one place.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any

from luz.engine import Action, Game, IllegalAction, LuzError, Phase, ViewsJson, parse_action
from luz.engine.game import drawn_first_player

from ..appends import ActionWriter
from ..history import results_of
from ..store import AppendedAction, SeatKind, StaleVersion, Status, Store, TableState, build_game, unrates
from ..timecontrol import Turn, after_move, deadline, now_ms, replaced, turn_of
from .model import Change, Connection, Outbox, Refused


@dataclass(eq=False)
class Table:
    """A table as this process holds it: the single writer's lock, the game replayed from the stored state, and
    the connections to tell of each change."""

    state: TableState
    game: Game | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    seats: dict[int, set[Connection]] = field(default_factory=dict)
    spectators: set[Connection] = field(default_factory=set)
    spectator_players: dict[Connection, str] = field(default_factory=dict)
    """The identity of each spectator connection that has one (at a ``show_hands`` table, a spectator whose
    identity holds a seat sees the hands as any spectator does: fanout.py)."""
    away: dict[int, asyncio.TimerHandle] = field(default_factory=dict)
    """Human seats with no connection, counting down their grace period (presence.py)."""
    taken_over: set[int] = field(default_factory=set)
    """Human seats a bot plays for while their player is away."""
    elsewhere: dict[int, float] = field(default_factory=dict)
    """When each seat was last said to be connected to another server process (event loop time)."""
    opened: dict[Any, int] = field(default_factory=dict)
    """When each connection was opened (a counter): a seat's oldest is closed when it opens one too many."""
    thinking: Future[Any] | None = None
    """This table's bot move in a bot process, if any: a table has at most one there at a time (its fair share)."""
    creator: str | None = None
    """The client that created the table (known to the process it was created on): the bots of its tables share
    the bot processes' time as one (``BotPool``); ``None``: the table is a share of its own."""
    views: ViewsJson | None = None
    """Every seat's view of the game at ``views_version`` (built on first use at each version)."""
    views_version: int = -1
    touched: float = 0.0
    """When it was last used (event loop time): a table left alone long enough leaves memory (registry.py)."""
    told: tuple[Any, ...] | None = None
    """The turn its players' "my games" streams were last told of (status, game, seat to move)."""

    @property
    def id(self) -> str:
        return self.state.id

    def names(self) -> list[str]:
        """Each seat's name as the table shows it."""
        return [s.name or (s.bot or "bot" if s.kind == SeatKind.BOT else f"seat {s.seat}") for s in self.state.seats]

    def connected(self, seat: int) -> bool:
        return bool(self.seats.get(seat))

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
            summary["rematch"] = {**offer, "ends_in_ms": max(0, offer["expires_at"] - now_ms())}
        return summary

    def to_move(self, seat: int, expected: int | None) -> bool:
        """Whether ``seat`` may move now, at version ``expected`` (``None``: whatever the version)."""
        fresh = expected is None or expected == self.state.version
        game = self.game
        return fresh and game is not None and self.state.status == Status.PLAYING and game.current_player == seat

    def reload(self, state: TableState) -> None:
        """Take ``state`` as stored, its game replayed."""
        self.state, self.game = state, build_game(state)

    def applied(self, game: Game, action: str, version: int, clock: dict[str, Any] | None) -> None:
        """Record in memory the action just stored (``game``: the clone it was applied to)."""
        self.game = game
        self.state.actions.append(action)
        self.state.version = version
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


Render = Callable[[Table], Outbox]
"""A table's messages to this process's connections as it is now (fanout.py)."""


class Writer:
    """The changes of the tables of this process: each made under its table's lock, stored before it is applied.
    Returns what to send; sends nothing."""

    def __init__(self, store: Store, shared: bool, render: Render, arm: Callable[[Table], None]) -> None:
        self.store = store
        self.shared = shared
        """Whether other processes write too (then this one may be behind the database)."""
        self.render = render
        self.arm = arm
        """Arms the deadline of a table's turn (clocks.py), after a catch-up."""
        self.appends = ActionWriter(store)
        """Stores the actions: off the event loop, in group commits (appends.py)."""

    async def act(
        self, table: Table, seat: int, action: Action, expected: int | None, timeout: bool, caught_up: list[Outbox]
    ) -> tuple[int, Change | None]:
        """Apply ``seat``'s action: checked, stored, applied; the table's new version and the change to tell the
        other processes (``None``: they read the table again). :class:`Refused` if the table refuses it.
        ``caught_up`` gets the states written by another process met on the way (to send before this one's, refused
        or not). ``timeout``: the timeout bot's move."""
        async with table.lock:
            if self.shared and not table.to_move(seat, expected):
                # Another process may have stored moves this one has not heard of yet: read before refusing.
                caught_up += await self.catch_up(table)
            for _ in range(3):
                trial = self._checked(table, seat, action, expected)
                unrated = unrates(table.state, table.game, seat, timeout, table.bot_seats())
                over = trial.phase is Phase.GAME_OVER
                clock = after_move(table.state, seat, timeout)
                bots = table.bot_seats() | replaced(clock)
                results = results_of(trial, table.state, table.names(), bots) if over else None
                turn = self._turn(table, trial, clock, bots, seat, timeout)
                appended = AppendedAction(
                    table.id, table.state.version, seat, str(action), over, results, clock, turn, unrated
                )
                try:
                    version = await self.appends.append(appended)
                except StaleVersion:
                    caught_up += await self.catch_up(table)
                    continue
                table.applied(trial, str(action), version, clock)
                if unrated is not None:  # the other processes read the table again: it is no longer rated
                    table.state.unrated = {"reason": unrated[0], "seat": unrated[1]}
                    return version, None
                return version, Change(table.state.game_no, str(action), clock)
            raise Refused("busy", "the table is busy: try again")

    @staticmethod
    def _turn(table: Table, game: Game, clock: dict[str, Any] | None, bots: set[int], seat: int, timeout: bool) -> Turn:
        """The turn's columns once ``seat``'s move is stored (its player is told only when the turn has passed to
        another seat, or to itself after a timeout)."""
        mover = game.current_player if game.phase is not Phase.GAME_OVER else None
        return turn_of(table.state.time_control, clock, mover, bots, mover != seat or timeout)

    @staticmethod
    def _checked(table: Table, seat: int, action: Action, expected: int | None) -> Game:
        """The table's game with ``action`` applied, on a clone; :class:`Refused` if it may not be."""
        if expected is not None and expected != table.state.version:
            raise Refused("stale", f"the table is at version {table.state.version}, not {expected}")
        game = table.game
        if game is None or table.state.status != Status.PLAYING:
            raise Refused("no_game", "no game is being played at this table")
        if game.current_player != seat:
            raise Refused("not_your_turn", f"it is not your turn: seat {game.current_player} is to play")
        trial = game.clone()
        try:
            trial.apply(action, seat)
        except LuzError as error:
            raise Refused("illegal" if isinstance(error, IllegalAction) else "malformed", str(error)) from None
        return trial

    def follow(self, table: Table, change: Change) -> bool:
        """Apply the action another process stored as the table's next version, as ``act`` does after storing;
        ``False`` (nothing changed) if it does not follow from this process's state: read the database then."""
        game = table.game
        if game is None or table.state.status != Status.PLAYING or change.game_no != table.state.game_no:
            return False
        trial = game.clone()
        try:
            trial.apply(parse_action(change.action))
        except LuzError:
            return False
        table.applied(trial, change.action, table.state.version + 1, change.clock)
        return True

    async def catch_up(self, table: Table) -> list[Outbox]:
        """Catch up with the database (another process may have written); call under the table's lock.

        Returns what to send this process's connections, computed on the way: one outbox per version when
        the gap is only actions of the current game (so that no connection misses a move, e.g. the last card
        of a trick), else one for the state reached.
        """
        state = await asyncio.to_thread(self.store.load, table.id)
        assert state is not None
        if state.version == table.state.version:
            return []
        old, outboxes = table.state, []
        known = len(old.actions)
        if table.game is not None and state.game_no == old.game_no and state.actions[:known] == old.actions:
            new = state.actions[known:]
            stepwise = state.version - old.version == len(new) and state.seats == old.seats
            for number, text in enumerate(new, 1):
                table.game.apply(parse_action(text))
                if stepwise and number < len(new):
                    table.state = replace(old, version=old.version + number, actions=state.actions[: known + number])
                    outboxes.append(self.render(table))
            table.state = state
        else:
            table.reload(state)
        outboxes.append(self.render(table))
        self.arm(table)  # the deadline of the turn reached (its event, when it comes, is then old)
        return outboxes

    async def start(self, table: Table, seed: int | None) -> list[Outbox] | None:
        """Start the table's next game (on ``seed``, else a random one): ``None`` when started, else the states
        caught up with (another process started it first)."""
        async with table.lock:
            if seed is None:
                seed = next_seed(table.game)
            try:
                state = await asyncio.to_thread(self.store.start_game, table.id, table.state.version, seed)
            except StaleVersion:
                return await self.catch_up(table)
            table.reload(state)
        return None
