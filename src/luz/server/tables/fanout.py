"""Fan-out: what each connection of a table is sent after a change, built once per version, and the sending.

A seat's connections get the table and that seat's own view; spectators get the spectator's view (and the whole
record once the game is over), or at a ``show_hands`` table (unlisted, unrated) every hand face up, unless the
server can tie the spectator to a seat there (its identity, its client's address or IPv6 network, an account its
device cookie names: ``Watcher``): then it gets the spectator's view, as without the option. A send that takes too
long drops its connection, which can reconnect and resync.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Generator
from typing import Any

import orjson

from luz.engine import Phase
from luz.engine.beliefs import json_with_hints
from luz.engine.record import to_record
from luz.engine.views import face_up_view

from .forced import forced_seat
from .model import Connection, Outbox, dumps
from .table import Table

OPTIONS = orjson.OPT_NON_STR_KEYS
"""orjson's options, as ``model.dumps``'s."""

SEND_SECONDS = 5.0
"""Seconds a message may take to go out to a connection before the connection is dropped (it can reconnect)."""

Public = Callable[[Table], dict[str, Any] | None]
"""Something public about a table, as a message part (its clock) or a message of its own (a timeout's notice)."""
Dropped = Callable[[Table, int | None, Connection], object]
"""Told of a connection dropped for a failed or late send (the registry posts its ``Detach``)."""


class Fanout:
    """Builds and sends the tables' messages to this process's connections."""

    def __init__(self, clock: Public, notice: Public, dropped: Dropped) -> None:
        self.clock = clock
        self.notice = notice
        self.dropped = dropped

    def message(
        self, table: Table, seat: int | None, summary: dict[str, Any] | None = None, face_up: bool = False
    ) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) is sent after each change: the table and its own view (``face_up``:
        a spectator's who sees every hand, see :func:`sees_hands`)."""
        return {
            "type": "state",
            "version": table.state.version,
            "seat": seat,
            "table": summary or self.summary(table),
            "view": face_up_json(table) if face_up and seat is None else view_json(table, seat),
        }

    def message_to(self, table: Table, seat: int | None, connection: Connection) -> dict[str, Any]:
        """What ``connection`` (of ``seat``, ``None``: a spectator) is sent: on connecting and on ``sync``."""
        return self.message(table, seat, face_up=seat is None and sees_hands(table, connection))

    def summary(self, table: Table) -> dict[str, Any]:
        """The table as every connection is told it: settings, seats (connected, since when not: ``away_ms``,
        played by a bot), clock."""
        summary = table.summary()
        forced = forced_seat(table)
        for entry in summary["seats"]:
            entry["connected"] = table.connected(entry["seat"])
            entry["away_ms"] = table.away_ms(entry["seat"])
            entry["bot_playing"] = entry["seat"] in table.taken_over
            entry["forced"] = entry["seat"] == forced
        summary["clock"] = self.clock(table)
        return summary

    def outbox(self, table: Table) -> Outbox:
        """Every connection of this process with its own message about the table as it is now (each view and
        the table computed once; the parts the seats share encoded once: :class:`Encoder`)."""
        out: Outbox = []
        summary = self.summary(table)
        encoder = Encoder(table.state.version, summary)
        for seat, connections in table.seats.items():
            if connections:
                text = encoder.state(seat, view_json(table, seat)) or dumps(self.message(table, seat, summary))
                out += [(seat, c, text) for c in list(connections)]
        if table.spectators:
            replay = replay_message(table)
            after = [dumps(replay)] if replay is not None else []
            texts: dict[bool, list[str]] = {}
            for c in list(table.spectators):
                face_up = sees_hands(table, c)
                if face_up not in texts:
                    spliced = None if face_up else encoder.state(None, view_json(table, None))
                    texts[face_up] = [spliced or dumps(self.message(table, None, summary, face_up)), *after]
                out += [(None, c, text) for text in texts[face_up]]
        notice = self.notice(table)  # a move the timeout bot played: told once, after its state
        if notice is not None:
            text = dumps(notice)
            out += [(seat, c, text) for seat, connections in table.seats.items() for c in list(connections)]
            out += [(None, c, text) for c in list(table.spectators)]
        return out

    async def deliver(self, table: Table, *outboxes: Outbox) -> None:
        """Send outboxes, in order on each connection (the sends start in order, before any await). Each send is
        stepped here at once: one the socket takes at once (the usual case) costs no task; one that has to wait goes
        on in a task (:class:`Stepped`), and if it is not done within ``SEND_SECONDS`` its connection is dropped
        (one timer for them all: a task and a timer per send were a tenth of the fan-out's CPU)."""
        waiting: list[asyncio.Future[None]] = []
        for out in outboxes:
            for seat, connection, text in out:
                send = self._send(table, seat, connection, text)
                try:
                    step = send.send(None)
                except StopIteration:
                    continue
                waiting.append(asyncio.ensure_future(Stepped(send, step)))
        if waiting:
            _, late = await asyncio.wait(waiting, timeout=SEND_SECONDS)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)  # each dropped (detached) on its cancellation

    async def broadcast(self, table: Table) -> None:
        """Send every connection of this process its own message about the table."""
        await self.deliver(table, self.outbox(table))

    async def _send(self, table: Table, seat: int | None, connection: Connection, text: str) -> None:
        try:
            await connection.send_text(text)
        except (Exception, asyncio.CancelledError):  # a dead or stuck connection is dropped; it can reconnect, resync
            self.dropped(table, seat, connection)


class Stepped:
    """A coroutine already stepped once, whose step gave ``step`` (what it waits for), finished as its task would:
    each step handed to the task that awaits this, each answer (or error, such as a cancellation) sent back in."""

    def __init__(self, coroutine: Coroutine[Any, Any, None], step: Any) -> None:
        self.coroutine = coroutine
        self.step = step

    def __await__(self) -> Generator[Any, Any, None]:
        coroutine, step = self.coroutine, self.step
        while True:
            try:
                answer = yield step
            except BaseException as error:  # thrown in by the task (a cancellation)
                try:
                    step = coroutine.throw(error)
                except StopIteration:
                    return
            else:
                try:
                    step = coroutine.send(answer)
                except StopIteration:
                    return


class Encoder:
    """The state messages of one version as JSON text: the table's summary, which every message shares, encoded
    once (an ``orjson.Fragment``), and each message one ``orjson`` call. The text is byte for byte ``dumps`` of
    the message.

    The views are encoded whole in that call: splicing in each value of the views encoded once (they share them)
    took three times as long, orjson writing a 4 KB view faster than Python can look its parts up
    (docs/BENCHMARKS.md, issue 34)."""

    def __init__(self, version: int, summary: dict[str, Any]) -> None:
        self._version = version
        try:
            self._table: orjson.Fragment | None = orjson.Fragment(orjson.dumps(summary, option=OPTIONS))
        except TypeError:  # what orjson does not write (an integer beyond 64 bits): the whole message by dumps
            self._table = None

    def state(self, seat: int | None, view: dict[str, Any] | None) -> str | None:
        """The state message of ``seat`` with ``view``; ``None`` if a part is not orjson's to write."""
        if self._table is None:
            return None
        message = {"type": "state", "version": self._version, "seat": seat, "table": self._table, "view": view}
        try:
            return orjson.dumps(message, option=OPTIONS).decode()
        except TypeError:
            return None


def view_json(table: Table, seat: int | None) -> dict[str, Any] | None:
    """``seat``'s view of the table's game as JSON data, from parts built once per version for every seat (the
    version changes with every change of the game: an action, a new game, a catch-up)."""
    views = table.views_now()
    if views is None:
        return None
    return json_with_hints(views, seat) if table.state.hints else views.of(seat)


FACE_UP = "face_up"
"""The key of the spectators' face-up view in ``ViewsJson.derived`` (built once per version)."""


def sees_hands(table: Table, spectator: Connection) -> bool:
    """Whether ``spectator`` (a connection without a seat) sees every hand face up: only at a ``show_hands``
    table, never a listed or rated one, never when the server can tie it to a seat there (its identity holds the
    seat, the seat was taken from its client, its device cookie names the seat's account) nor when it cannot tell
    who it is (no ``Watcher``)."""
    state = table.state
    watcher = table.watchers.get(spectator)
    if not state.show_hands or state.public or state.rated or watcher is None:
        return False
    players = {watcher.player, *watcher.accounts} - {None}
    return all(
        seat.player not in players and (seat.client is None or seat.client != watcher.client) for seat in state.seats
    )


def face_up_json(table: Table) -> dict[str, Any] | None:
    """The spectator's view with every hand (and so the aside: the rest of the deck) face up, built once per
    version."""
    if view_json(table, None) is None or table.views is None:
        return None
    derived = table.views.derived
    if FACE_UP not in derived:
        derived[FACE_UP] = face_up_view(table.views.game).to_json()
    data: dict[str, Any] = derived[FACE_UP]
    return data


def replay_message(table: Table) -> dict[str, Any] | None:
    """The finished game's full record (every hand), for spectators once it is over."""
    game = table.game
    if game is None or game.phase is not Phase.GAME_OVER:
        return None
    return {"type": "replay", "version": table.state.version, "record": to_record(game, table.names())}
