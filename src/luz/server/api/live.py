"""Live play over WebSocket (docs/PROTOCOL.md): a seat (with its token) or a spectator (without) connects to a
table, receives its view after every change, and sends messages, each handled by one small function of its type
(``HANDLERS``) that builds a command for the table's door; the reply it returns (an ack, a pong, an error) goes to
the sender only."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from luz.engine import LuzError, action_from_json

from ..domain import SecondSeat, Status
from ..identity import COOKIE, HEADER, Identity
from ..logs import on_table
from ..ratelimit import TokenBucket
from ..tables import Refused, Registry, Table
from ..tables.chat import Chat
from ..tables.commands import Act, Attach, Detach, Note, Premove, RematchAnswer, ShowHand
from ..tables.fanout import replay_message
from ..tables.model import Watcher, dumps
from ..tables.notes import own_notes
from ..tables.premoves import premove_message
from .deps import (
    client_of,
    guards_of,
    identities_of,
    metrics_of,
    round_in_play,
    services_of,
    settings_of,
    tables_of,
)
from .identities import from_this_site

log = logging.getLogger("luz.server")

router = APIRouter()

FRAMES = "luz.frames"
"""The key, in a WebSocket's ASGI scope, of the server's own ``send`` (put there by :class:`Frames`)."""


class Frames:
    """ASGI middleware, outside every other: keeps the server's ``send`` in a WebSocket's scope, so that its frames
    skip the layers above it (:class:`Socket`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope[FRAMES] = send
        await self.app(scope, receive, send)


class Socket:
    """A client's WebSocket as the tables see it (a ``Connection``). Once it is accepted, each frame is one ASGI
    message handed straight to the server's ``send``: the middleware and Starlette's wrappers add nothing to a
    frame (the request id is a header of the handshake: ``logs.RequestIds``). The server's ``send`` still keeps the
    protocol: a text frame, flow control, an error once the client is gone. Closing goes through Starlette."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self._send: Send = websocket.scope.get(FRAMES) or websocket.send

    async def send_text(self, data: str) -> None:
        await self._send({"type": "websocket.send", "text": data})

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        await self.websocket.close(code, reason)


@router.websocket("/ws/tables/{table_id}")
async def play(websocket: WebSocket, table_id: str, token: str | None = None, me: bool = False) -> None:
    """Live play: a seat (with its token, or ``me=1``: the seat the connection's identity holds) or a spectator
    (without) receives its view after every change."""
    # Refusals before the handshake (HTTP 403) and before any database read: the cheapest answers, to another
    # site's page and to a flood of connections (from one address, or on one seat from many).
    if not from_this_site(websocket, settings_of(websocket).public_url):
        await websocket.close(code=4403)
        return
    client, guards, metrics = client_of(websocket), guards_of(websocket), metrics_of(websocket)
    over = await guards.connection_refused_by(client, seat_key(websocket, table_id, token, me))
    if over is None and not guards.client_connections.take(client):
        over = "max_connections_per_client"
    if over is not None:
        metrics.refused(over)
        await websocket.close(code=4429)
        return
    on_table(table_id)
    metrics.connection_opened()
    try:
        await connected(websocket, table_id, token, me)
    except (WebSocketDisconnect, RuntimeError, OSError) as gone:  # the client left while being written to
        log.info("connection to table ended: %s", type(gone).__name__)
    except Exception as failure:  # one connection's trouble: a line in the log, never a traceback
        log.warning("connection to table failed: %s", type(failure).__name__)
    finally:
        metrics.connection_closed()
        guards.client_connections.give_back(client)


async def playing_the_round(websocket: WebSocket, table_id: str, player_id: str) -> bool:
    """Whether ``player_id`` plays the tournament round that ``table_id`` belongs to, while it is being played (every
    table of it has the same cards: its players never watch another)."""
    found = await round_in_play(websocket, table_id)
    tournaments = services_of(websocket).tournaments
    return found is not None and await asyncio.to_thread(tournaments.plays_round, found[0], found[1], player_id)


def seat_key(websocket: WebSocket, table_id: str, token: str | None, me: bool) -> str | None:
    """What the seat asked for is counted under, before it is looked up: a hash of the table and the token (or, for
    ``me=1``, the identity's header or cookie); ``None`` for a spectator."""
    secret = token or ((websocket.headers.get(HEADER) or websocket.cookies.get(COOKIE)) if me else None)
    if not secret:
        return None
    return hashlib.sha256(f"{table_id}\0{secret}".encode()).hexdigest()[:32]


async def connected(websocket: WebSocket, table_id: str, token: str | None, me: bool = False) -> None:
    """The connection's life: checked, attached, sent its state, then its messages handled until it closes."""
    tables = tables_of(websocket)
    table = await tables.get(table_id)
    if token is None and me and table is not None:
        seat = await own_seat(websocket, table_id)
        if seat is None:  # no identity, one from another site, or none that holds a seat here
            await websocket.accept()
            await websocket.close(code=4401)
            return
    else:
        seat = await asyncio.to_thread(tables.store.seat_of, table_id, token) if token and table else None
    if table is None or (token and seat is None):
        await websocket.accept()  # the close code reaches a client only once the handshake is done
        await websocket.close(code=4404 if table is None else 4401)
        return
    held = await second_seat(websocket, table_id, seat)
    if held is not None:  # one seat per identity: this identity holds another seat of the table
        await websocket.accept()
        await websocket.send_text(json.dumps(error(None, "second_seat", str(SecondSeat(held)))))
        await websocket.close(code=4409)
        return
    await websocket.accept()
    watcher = None if seat is not None else (await identities_of(websocket).current(websocket))[0]
    if watcher is not None and await playing_the_round(websocket, table_id, watcher.player_id):
        await websocket.close(code=4403, reason="a player of this tournament round may not watch its tables")
        return
    ties = await watcher_of(websocket, watcher) if seat is None else None
    socket = Socket(websocket)
    services = services_of(websocket)
    await services.connections.wait()  # a wave of connections spread over turns of the loop
    try:  # the others see the seat connected (its bot, if any, stops); its oldest connection beyond the limit closed
        await tables.submit(table, Attach(seat, socket, ties))
    except Refused as refused:
        if refused.limit is not None:
            metrics_of(websocket).refused(refused.limit)
        await websocket.close(code=4429, reason=str(refused))
        return
    settings, chat = services.settings, services.chat
    bucket = TokenBucket(settings.messages_per_second, services.clock)
    session = Session(tables, chat, table, seat, socket, bucket, settings.max_message_bytes)
    try:
        await session.send_state()
        await chat.joined(table, seat, socket, watcher, client_of(websocket))
        replay = replay_message(table) if seat is None else None
        if replay:
            await socket.send_text(dumps(replay))
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            reply = await handle(session, frame.get("text") or "")  # a binary frame is no message: malformed
            if reply is not None:
                await socket.send_text(dumps(reply))
    finally:
        try:
            await services.connections.wait()
        finally:  # detached even if cancelled while paced
            await tables.submit(table, Detach(seat, socket))


async def watcher_of(websocket: WebSocket, identity: Identity | None) -> Watcher:
    """What ties a spectator's connection to people: its ``identity``, its client (the keyed hash a seat keeps) and
    the accounts its device cookie names (``Watcher``)."""
    identities = identities_of(websocket)
    usernames = list(identities.devices_of(websocket))
    accounts = await asyncio.to_thread(identities.players.account_ids, usernames) if usernames else []
    player = identity.player_id if identity is not None else None
    return Watcher(player, identities.address_hash(websocket), frozenset(accounts))


async def own_seat(websocket: WebSocket, table_id: str) -> int | None:
    """The seat the connection's identity holds at the table (its token stays on the server; the connection's
    ``Origin`` was checked before the handshake: ``from_this_site``)."""
    identity, _ = await identities_of(websocket).current(websocket)
    if identity is None:
        return None
    return await asyncio.to_thread(tables_of(websocket).store.player_seat, table_id, identity.player_id)


async def second_seat(websocket: WebSocket, table_id: str, seat: int | None) -> int | None:
    """The other seat of this table that the connection's identity holds, when it asks for a seat."""
    if seat is None:
        return None
    identity, _ = await identities_of(websocket).current(websocket)
    if identity is None:
        return None
    held = await asyncio.to_thread(tables_of(websocket).store.player_seat, table_id, identity.player_id)
    return held if held is not None and held != seat else None


# -- the client's messages ----------------------------------------------------------------------------------


class ClientMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["action", "sync", "next_game", "rematch", "ping", "note", "chat", "show_hand", "premove"]
    id: str | int | None = Field(None, description="Echoed in the reply.")
    slot: Any = Field(None, description="A note's or premove's card: a slot of your hand (a premove's null: none).")
    text: Any = Field(None, description="A note's text (empty: remove the note), or a chat message's.")
    preset: Any = Field(None, description="A quick chat message: good_luck, good_game, well_played or thanks.")
    action: dict[str, Any] | None = None
    accept: Any = Field(None, description="A rematch's answer: true offers or accepts it, false declines it.")
    version: int | None = Field(None, description="The version the client acts on; refused if the table moved on.")


Reply = dict[str, Any] | None


@dataclass
class Session:
    """One connection to a table: what its messages act on."""

    tables: Registry
    chat: Chat
    table: Table
    seat: int | None
    """``None``: a spectator."""
    socket: Socket
    bucket: TokenBucket
    max_bytes: int

    async def send_state(self) -> None:
        """The table and this connection's view, then (a seat's) own notes and premove: on connecting and on
        ``sync``."""
        await self.socket.send_text(dumps(self.tables.fanout.message_to(self.table, self.seat, self.socket)))
        if self.seat is not None:
            notes = await own_notes(self.tables.store, self.table, self.seat)
            if notes is not None:
                await self.socket.send_text(json.dumps(notes))
            premove = premove_message(self.table, self.seat)
            if premove is not None:
                await self.socket.send_text(json.dumps(premove))


async def handle(session: Session, raw: str) -> Reply:
    """The reply to one frame's text: checked for size, rate and form, then handled by its type's handler."""
    limit, metrics = session.max_bytes, session.tables.metrics
    if len(raw) > limit or len(raw.encode()) > limit:
        metrics.refused("max_message_bytes")
        return error(None, "too_large", f"messages are limited to {limit} bytes")
    if not session.bucket.take():
        metrics.refused("messages_per_second")
        return error(None, "rate_limited", "too many messages: slow down")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return error(None, "malformed", "not a message: see docs/PROTOCOL.md")
    try:
        message = ClientMessage.model_validate(data)
    except (ValueError, ValidationError):
        return error(readable_id(data), "malformed", "not a message: see docs/PROTOCOL.md")
    handler, seated = HANDLERS[message.type]
    if seated and session.seat is None:
        return error(message.id, "spectator", "spectators cannot act")
    try:
        return await handler(session, message)
    except Refused as refused:
        if refused.limit is not None:
            metrics.refused(refused.limit)
        return error(message.id, refused.code, str(refused))


async def ping(session: Session, message: ClientMessage) -> Reply:
    return {"type": "pong", "id": message.id}


async def sync(session: Session, message: ClientMessage) -> Reply:
    await session.send_state()
    await session.chat.send_history(session.table, session.socket)
    return None


async def chat(session: Session, message: ClientMessage) -> Reply:
    await session.chat.say(session.table, session.socket, message.text, message.preset)
    return ack(session, message)


async def note(session: Session, message: ClientMessage) -> Reply:
    assert session.seat is not None  # HANDLERS: a seat's message
    await session.tables.submit(session.table, Note(session.seat, message.slot, message.text))
    return ack(session, message)


async def premove(session: Session, message: ClientMessage) -> Reply:
    """The seat's next card, chosen before its turn (``slot`` ``null``: cancelled); its connections are told."""
    assert session.seat is not None  # HANDLERS: a seat's message
    await session.tables.submit(session.table, Premove(session.seat, message.slot))
    return ack(session, message)


async def next_game(session: Session, message: ClientMessage) -> Reply:
    """The next game: at once at a table of one human, else a rematch offered (or accepted) as ``rematch``."""
    assert session.seat is not None  # HANDLERS: a seat's message
    if session.table.state.status != Status.OVER:
        raise Refused("no_game", "the next game starts once this one is over")
    await session.tables.submit(session.table, RematchAnswer(session.seat, True))
    return ack(session, message)


async def rematch(session: Session, message: ClientMessage) -> Reply:
    assert session.seat is not None  # HANDLERS: a seat's message
    if not isinstance(message.accept, bool):
        raise Refused("malformed", "a rematch message needs 'accept': true (offer or accept) or false (decline)")
    await session.tables.submit(session.table, RematchAnswer(session.seat, message.accept))
    return ack(session, message)


async def show_hand(session: Session, message: ClientMessage) -> Reply:
    """The seat agrees that anyone watching this ``show_hands`` table sees its cards."""
    assert session.seat is not None  # HANDLERS: a seat's message
    await session.tables.submit(session.table, ShowHand(session.seat))
    return ack(session, message)


async def action(session: Session, message: ClientMessage) -> Reply:
    """Act; the time until the ack (sent at once) is the metrics' ``luz_ack_seconds``."""
    assert session.seat is not None  # HANDLERS: a seat's message
    received = time.perf_counter()
    if message.action is None:
        raise Refused("malformed", "an action message needs 'action'")
    try:
        move = action_from_json(message.action)
    except LuzError as problem:
        raise Refused("malformed", str(problem)) from None
    done = await session.tables.submit(session.table, Act(session.seat, move, message.version))
    session.tables.metrics.acknowledged(time.perf_counter() - received)
    return {"type": "ack", "id": message.id, "version": done.version}


Handler = Callable[[Session, ClientMessage], Awaitable[Reply]]
HANDLERS: dict[str, tuple[Handler, bool]] = {
    "ping": (ping, False),
    "sync": (sync, False),
    "chat": (chat, False),
    "note": (note, True),
    "premove": (premove, True),
    "next_game": (next_game, True),
    "rematch": (rematch, True),
    "show_hand": (show_hand, True),
    "action": (action, True),
}
"""Each message type's handler, and whether only a seat may send it (a spectator is refused)."""


def ack(session: Session, message: ClientMessage) -> dict[str, Any]:
    return {"type": "ack", "id": message.id, "version": session.table.state.version}


def readable_id(data: Any) -> str | int | None:
    """The ``id`` of a message that is otherwise not valid, if it is one (echoed with the error)."""
    found = data.get("id") if isinstance(data, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


def error(message_id: str | int | None, code: str, text: str) -> dict[str, Any]:
    return {"type": "error", "id": message_id, "code": code, "message": text}
