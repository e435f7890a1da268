"""The one writer of this process's tables: the only code that takes a table's lock (``tests/test_architecture.py``).

``Writer.process(table, command)`` checks a command, stores it, applies it in memory and returns an ``Outcome``
(what to send, what to arm, what to tell the other processes); it sends nothing. Every change goes: check (on a
clone of the game for a move) -> store (durable) -> apply -> render each connection's message, under the lock, so
every version is rendered in order. A write met by another process's (``StaleVersion``) catches up and tries
again, here only: three tries, then ``busy``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from luz.engine import Action, Game, IllegalAction, LuzError, Phase, Play, parse_action, played_card_json

from ..appends import ActionWriter
from ..clock import Clock
from ..domain import Status, TableState, agreed, replaced, unrated_at_end, unrates
from ..history import results_of
from ..settings import Settings
from ..store import AppendedAction, StaleVersion, Store
from ..timecontrol import Clock as StoredClock
from ..timecontrol import Turn, after_move, bank_left, paused, resumed, spend_bank, turn_of
from . import rematch
from .commands import (
    Act,
    Attach,
    ChangeSeatSettings,
    Command,
    Created,
    Detach,
    DropPremove,
    Expire,
    ExpireRematch,
    Follow,
    Join,
    Leave,
    Note,
    Outcome,
    PauseClock,
    Premove,
    Refresh,
    RematchAnswer,
    ResumeClock,
    Return,
    ShowHand,
    SpendBank,
    Start,
    StartRound,
    TakeOver,
)
from .forced import forced_seat
from .model import Change, Outbox, Refused, dumps
from .notes import check_note, notes_message
from .premoves import check_premove, chosen, premove_message
from .table import Table, next_seed

TRIES = 3
"""Writes of one command met by another process's before the table answers ``busy``."""

Render = Callable[[Table], Outbox]
"""A table's messages to this process's connections as it is now (fanout.py)."""


class Writer:
    """The changes of the tables of this process: each made under its table's lock, stored before it is applied."""

    def __init__(self, store: Store, shared: bool, render: Render, settings: Settings, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.shared = shared
        """Whether other processes write too (then this one may be behind the database)."""
        self.render = render
        self.settings = settings
        self.appends = ActionWriter(store)
        """Stores the actions: off the event loop, in group commits (appends.py)."""
        self._opened = itertools.count()
        """The order in which connections were attached (a seat's oldest is closed when it opens one too many)."""

    async def process(self, table: Table, command: Command) -> Outcome:
        """Apply ``command`` to ``table`` under its lock: the outcome to publish (a refusal in ``refused``, after
        the states caught up with on the way). Errors of a seat's policy (``PermissionError``) are raised."""
        out = Outcome(seat=getattr(command, "seat", None))
        async with table.lock:
            if self.shared and self._may_be_behind(table, command):
                out.send += await self.catch_up(table)
            try:
                for _ in range(TRIES):
                    try:
                        await self._apply(table, command, out)
                        break
                    except StaleVersion:
                        out.send += await self.catch_up(table)
                else:
                    raise Refused("busy", "the table is busy: try again")
            except Refused as refused:
                out.refused = refused
            out.changed |= bool(out.send) and not isinstance(command, Note | Premove | DropPremove)
            out.version = table.state.version
        return out

    @staticmethod
    def _may_be_behind(table: Table, command: Command) -> bool:
        """Whether to read the database before ``command``: another process may have stored what it depends on
        (a move refused here may be the mover's after a move stored elsewhere; a rematch answer elsewhere)."""
        if isinstance(command, Act):
            return not table.to_move(command.seat, command.expected)
        return isinstance(command, RematchAnswer)

    async def _apply(self, table: Table, command: Command, out: Outcome) -> None:
        match command:
            case Act():
                await self._act(table, command, out)
            case Start():
                await self._start(table, command, out)
            case StartRound():
                await self._start_round(table, command, out)
            case Join():
                await self._join(table, command, out)
            case Leave():
                await self._leave(table, command, out)
            case RematchAnswer():
                lifetime = rematch.lifetime_ms(table.state, self.settings)
                offer = rematch.decide(table.state, command.seat, command.accept, self.clock.now_ms(), lifetime)
                await self._offer(table, offer, out)
            case ExpireRematch():
                await self._expire(table, out)
            case Expire():
                expired = await asyncio.to_thread(self.store.expire, table.id, self.clock.now_ms())
                if expired is not None:
                    self._stored(table, expired, out)
            case ShowHand():
                await self._show_hand(table, command, out)
            case TakeOver():
                if command.seat in table.taken_over or table.connected(command.seat):
                    return
                table.taken_over.add(command.seat)
                out.presence = "away" if command.announce else None
                out.send.append(self.render(table))
            case Return():
                table.taken_over.discard(command.seat)
                out.send.append(self.render(table))
                out.changed = True
            case Attach():
                self._attach(table, command, out)
            case Detach():
                self._detach(table, command, out)
            case Note():
                await self._note(table, command, out)
            case Premove():
                choice = check_premove(table, command.seat, command.slot)
                if choice is None:
                    table.premoves.pop(command.seat, None)
                else:
                    table.premoves[command.seat] = choice
                out.send.append(self._to_seat(table, command.seat, premove_message(table, command.seat)))
            case DropPremove():
                if chosen(table, command.seat) == command.slot:  # not changed meanwhile
                    del table.premoves[command.seat]
                    out.send.append(self._to_seat(table, command.seat, premove_message(table, command.seat, True)))
            case ChangeSeatSettings():
                self._seat_settings(table, command, out)
            case SpendBank() | PauseClock() | ResumeClock():
                await self._clock(table, command, out)
            case Created():
                table.creator = command.client  # this process's memory only: nothing stored, nothing sent
            case Follow():
                if command.version <= table.state.version:
                    return  # an earlier event's catch-up got this far (and sent it)
                change = command.change
                if change is not None and command.version == table.state.version + 1 and self.follow(table, change):
                    out.send.append(self.render(table))
                else:
                    out.send += await self.catch_up(table)
                out.bot_delay = 0.2
            case Refresh():  # stored by another transaction (a rename): the other processes read it again too
                caught_up = await self.catch_up(table)
                out.send += caught_up
                out.tell = bool(caught_up)

    # -- connections ---------------------------------------------------------------------------------------

    def _attach(self, table: Table, command: Attach, out: Outcome) -> None:
        """Add the connection; a seat's oldest beyond ``max_connections_per_seat`` go (``evicted``), and a seat that
        has just become connected (or was played by a bot) is shown so to the others: a presence change costs one
        message per connection of the table, never more. Nothing is stored: no version."""
        seat, connection = command.seat, command.connection
        if seat is None:
            if len(table.spectators) >= self.settings.max_spectators_per_table:
                raise Refused("full", "this table has as many spectators as it takes", "max_spectators_per_table")
            table.opened[connection] = next(self._opened)
            table.spectators.add(connection)
            if command.watcher is not None:
                table.watchers[connection] = command.watcher
            out.spectators = len(table.spectators)
            return
        table.opened[connection] = next(self._opened)
        arrived = not table.connected(seat) or seat in table.taken_over
        connections = table.seats.setdefault(seat, set())
        connections.add(connection)
        out.evicted = set(sorted(connections, key=table.opened.__getitem__)[: -self.settings.max_connections_per_seat])
        connections.difference_update(out.evicted)
        out.connected = True
        if arrived:  # its bot, if any, stops; the new connection is sent its own state next, not this change's
            table.taken_over.discard(seat)
            out.send.append([sent for sent in self.render(table) if sent[1] is not connection])
            out.changed = True

    def _detach(self, table: Table, command: Detach, out: Outcome) -> None:
        """Remove the connection; a seat left with none here is shown so (since when: ``left_at``)."""
        seat, connection = command.seat, command.connection
        table.opened.pop(connection, None)
        if seat is None:
            if connection in table.spectators:
                table.spectators.discard(connection)
                out.spectators = len(table.spectators)
            table.watchers.pop(connection, None)
            return
        connections = table.seats.get(seat, set())
        if connection not in connections:
            return  # already removed (a dropped send, an evicted or revoked connection)
        connections.discard(connection)
        if table.connected(seat):
            return
        table.left_at[seat] = self.clock.now_ms()
        out.connected = False
        out.send.append(self.render(table))

    # -- moves ---------------------------------------------------------------------------------------------

    async def _act(self, table: Table, command: Act, out: Outcome) -> None:
        seat, action, timeout = command.seat, command.action, command.timeout
        trial = self._checked(table, command)
        unrated = unrates(table.state, table.game, seat, timeout, table.bot_seats())
        over = trial.phase is Phase.GAME_OVER
        played = timeout_move(trial, seat, action) if timeout else None
        clock = after_move(table.state, seat, self.clock.now_ms(), timeout, played, command.forced)
        bots = table.bot_seats() | replaced(clock)
        results = results_of(trial, table.state, table.names(), bots) if over else None
        unrated = unrated or unrated_at_end(table.state, results)
        turn = self._turn(table, trial, clock, bots, seat, timeout)
        appended = AppendedAction(table.id, table.state.version, seat, str(action), over, results, clock, turn, unrated)
        version = await self.appends.append(appended)
        table.applied(trial, str(action), version, clock)
        out.acted, out.tell = command, True
        if unrated is not None:  # the other processes read the table again: it is no longer rated
            table.state.unrated = {"reason": unrated[0], "seat": unrated[1]}
        else:
            out.event = Change(table.state.game_no, str(action), clock)
        out.send.append(self.render(table))
        if table.premoves.pop(seat, None) is not None:  # played, or the seat's bot moved: its choice is spent
            out.send.append(self._to_seat(table, seat, premove_message(table, seat)))

    @staticmethod
    def _to_seat(table: Table, seat: int, message: dict[str, Any] | None) -> Outbox:
        """``message`` for ``seat``'s connections only (none if ``None``)."""
        if message is None:
            return []
        text = dumps(message)
        return [(seat, c, text) for c in list(table.seats.get(seat, ()))]

    @staticmethod
    def _turn(table: Table, game: Game, clock: dict[str, Any] | None, bots: set[int], seat: int, timeout: bool) -> Turn:
        """The turn's columns once ``seat``'s move is stored (its player is told only when the turn has passed to
        another seat, or to itself after a timeout)."""
        mover = game.current_player if game.phase is not Phase.GAME_OVER else None
        return turn_of(table.state.time_control, clock, mover, bots, mover != seat or timeout)

    @staticmethod
    def _checked(table: Table, command: Act) -> Game:
        """The table's game with the move applied, on a clone; :class:`Refused` if it may not be."""
        if not table.fresh(command.expected):
            raise Refused("stale", f"the table is at version {table.state.version}, not {command.expected}")
        game = table.game
        if game is None or table.state.status != Status.PLAYING:
            raise Refused("no_game", "no game is being played at this table")
        if game.current_player != command.seat:
            raise Refused("not_your_turn", f"it is not your turn: seat {game.current_player} is to play")
        trial = game.clone()
        try:
            trial.apply(command.action, command.seat)
        except LuzError as error:
            raise Refused("illegal" if isinstance(error, IllegalAction) else "malformed", str(error)) from None
        return trial

    # -- clocks between moves ------------------------------------------------------------------------------

    async def _clock(self, table: Table, command: SpendBank | PauseClock | ResumeClock, out: Outcome) -> None:
        """Store a turn-based table's clock changed between moves: a seat's time bank spent (its time ran out at
        version ``expected``), its player's vacation begun or over. Nothing when it does not apply (the table
        moved on, is not turn-based, or the seat is already so)."""
        state, game = table.state, table.game
        clock = state.clock
        if clock is None or "timeouts" not in clock or state.status != Status.PLAYING or game is None:
            return
        mover, at = game.current_player, self.clock.now_ms()  # the time after_move is given
        vacation = clock.get("vacation") or [None] * len(clock["reserves"])
        changed: StoredClock | None = None
        match command:
            case SpendBank(seat=seat, expected=expected):
                if mover == seat and table.fresh(expected) and bank_left(clock, seat) > 0:
                    changed = spend_bank(clock, seat)
            case PauseClock(seat=seat, until=until):
                if vacation[seat] != until:
                    changed = paused(clock, seat, until, mover, at)
            case ResumeClock(seat=seat):
                if vacation[seat] is not None:
                    changed = resumed(clock, seat, mover, at)
        if changed is None:
            return
        turn = turn_of(state.time_control, changed, mover, table.bot_seats(), passed=False)
        stored = await asyncio.to_thread(self.store.set_clock, table.id, state.version, changed, turn)
        table.state.clock, table.state.version = stored.clock, stored.version
        out.tell = True
        out.send.append(self.render(table))

    # -- games and seats ---------------------------------------------------------------------------------------

    async def _start(self, table: Table, command: Start, out: Outcome) -> None:
        state = table.state
        ready = state.status == Status.WAITING and all(s.joined for s in state.seats) and agreed(state)
        if not (ready or (command.next_game and state.status == Status.OVER)):
            return
        seed = command.seed
        if seed is None and state.deal_seed is not None and state.game_no == 0:
            seed = state.deal_seed  # "Play this deal": the first game on the finished game's deal
        if seed is None:
            seed = next_seed(table.game)
        await self._started(table, seed, out)

    async def _started(self, table: Table, seed: int, out: Outcome) -> None:
        """Store and apply the table's next game on ``seed``."""
        await self._started_by(table, self.store.start_game, seed, out)

    async def _started_by(
        self, table: Table, store: Callable[[str, int, int], TableState], seed: int, out: Outcome
    ) -> None:
        """Store a game's start (``store``: at the table's version, on ``seed``), then apply it."""
        state = await asyncio.to_thread(store, table.id, table.state.version, seed)
        table.reload(state)
        out.started = out.tell = True
        out.send.append(self.render(table))

    async def _start_round(self, table: Table, command: StartRound, out: Outcome) -> None:
        """Seat a tournament table's players and start its game, stored as one version (nothing if it started)."""
        if table.state.status != Status.WAITING:
            return
        await self._started_by(table, self.store.start_round, command.seed, out)

    async def _join(self, table: Table, command: Join, out: Outcome) -> None:
        token, state = await asyncio.to_thread(
            self.store.join,
            table.id,
            command.seat,
            command.name,
            command.token,
            command.player_id,
            command.max_turn_based,
            command.client,
            command.policy,
        )
        table.reload(state)
        if command.token is None:  # an open seat taken gets a new token: connections opened with the old one go
            out.revoked |= table.seats.pop(command.seat, set())
        out.token, out.tell = token, True
        out.send.append(self.render(table))

    async def _show_hand(self, table: Table, command: ShowHand, out: Outcome) -> None:
        """Store the seat's agreement to show its cards (at a ``show_hands`` table waiting for players), then start
        the game if everyone is seated and agreed."""
        state = table.state
        if not state.show_hands or state.status != Status.WAITING:
            raise Refused("no_show_hands", "this table is not waiting to show every hand to its spectators")
        if not state.seats[command.seat].shows_hand:
            self._stored(table, await asyncio.to_thread(self.store.show_hand, table.id, command.seat), out)
        await self._start(table, Start(), out)

    def _stored(self, table: Table, state: TableState, out: Outcome) -> None:
        """Take ``state``, just stored by a change of the table's settings or seats: told to everyone."""
        table.reload(state)
        out.tell = True
        out.send.append(self.render(table))

    async def _leave(self, table: Table, command: Leave, out: Outcome) -> None:
        seat = command.seat
        left_in_first_deal = unrates(table.state, table.game, seat, False, {seat}) is not None
        table.state = await asyncio.to_thread(self.store.leave, table.id, seat, left_in_first_deal)
        if table.state.status != Status.WAITING:
            table.taken_over.add(seat)
        else:  # the seat is open again: its token no longer opens it
            out.revoked |= table.seats.pop(seat, set())
        out.tell = True
        out.send.append(self.render(table))
        state = table.state  # a rematch offer stands for those still seated: it may be complete now
        offered = state.status == Status.OVER and rematch.status(state.rematch, self.clock.now_ms()) == rematch.OPEN
        if offered and rematch.humans(state) and not rematch.waiting_for(state):
            try:
                await self._offer(table, None, out)
            except StaleVersion:  # another process moved the table on: the leave stands, stored once
                out.send += await self.catch_up(table)

    # -- rematch -------------------------------------------------------------------------------------------------

    async def _offer(self, table: Table, offer: dict[str, Any] | None, out: Outcome) -> None:
        """Store the rematch ``offer``, or start the next game when it is ``None`` (everyone seated accepted)."""
        if offer is None:
            await self._started(table, next_seed(table.game), out)
            return
        table.state = await asyncio.to_thread(self.store.set_rematch, table.id, table.state.version, offer)
        out.tell = True
        out.send.append(self.render(table))

    async def _expire(self, table: Table, out: Outcome) -> None:
        """The offer stored as expired (once, whichever process stores it first), unless it is not over yet."""
        offer = table.state.rematch
        if table.state.status != Status.OVER or offer is None or offer.get("expired"):
            return
        if rematch.status(offer, self.clock.now_ms()) == rematch.OPEN or offer.get("declined") is not None:
            out.changed = True  # rang a little early (armed again), or declined meanwhile
            return
        await self._offer(table, {**offer, "expired": True}, out)

    # -- notes ---------------------------------------------------------------------------------------------------

    async def _note(self, table: Table, command: Note, out: Outcome) -> None:
        """Keep the seat's note; its connections (no one else's) get the seat's notes."""
        text, deal = check_note(table, command.seat, command.slot, command.text)
        state = table.state
        await asyncio.to_thread(self.store.set_note, state.id, state.game_no, deal, command.seat, command.slot, text)
        notes = await asyncio.to_thread(self.store.notes, state.id, state.game_no, command.seat)
        message = dumps(notes_message(table, deal, notes))
        out.send.append([(command.seat, c, message) for c in list(table.seats.get(command.seat, ()))])

    # -- play settings -------------------------------------------------------------------------------------------

    def _seat_settings(self, table: Table, command: ChangeSeatSettings, out: Outcome) -> None:
        """Take the player's settings, stored in their account (nothing of the table is stored: no version), for
        every seat they hold here; the table is looked at again (``changed``: a forced card due now is played).
        Nothing is sent unless whether a card is about to be played for the mover changed: a setting is private."""
        forced = forced_seat(table)
        for seat in table.state.seats:
            if seat.player == command.player_id:
                seat.forced_moves = command.forced_moves
        out.changed = True
        if forced_seat(table) != forced:
            out.send.append(self.render(table))

    # -- other processes -------------------------------------------------------------------------------------

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
        """Catch up with the database (another process may have written); under the table's lock.

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
                    table.game_version = table.state.version
                    outboxes.append(self.render(table))
            table.state = state
            if new:
                table.game_version = state.version
        else:
            table.reload(state)
        outboxes.append(self.render(table))
        return outboxes


def timeout_move(game: Game, seat: int, action: Action) -> dict[str, Any]:
    """What the timeout bot played for ``seat`` (``game``: with the move applied), as its player is told: the
    action and, for a card, the card (face up for everyone once played)."""
    card = played_card_json(game, seat) if isinstance(action, Play) else None
    return {"action": str(action), "card": card}
