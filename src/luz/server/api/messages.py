"""The live protocol's client messages (docs/PROTOCOL.md) and their handlers: one small function per message type,
found in ``HANDLERS``. Each checks the message and delegates to the table's collaborators; the reply it returns
(an ack, a pong, an error) goes to the sender only."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import WebSocket
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from luz.engine import LuzError, action_from_json

from ..domain import Status
from ..ratelimit import TokenBucket
from ..tables import Refused, Registry, Table
from ..tables.chat import Chat
from ..tables.commands import Act, Note, Premove, RematchAnswer, ShowHand
from ..tables.model import dumps
from ..tables.notes import own_notes
from ..tables.premoves import premove_message


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
    websocket: WebSocket
    bucket: TokenBucket
    max_bytes: int

    async def send_state(self) -> None:
        """The table and this connection's view, then (a seat's) own notes and premove: on connecting and on
        ``sync``."""
        await self.websocket.send_text(dumps(self.tables.fanout.message_to(self.table, self.seat, self.websocket)))
        if self.seat is not None:
            notes = await own_notes(self.tables.store, self.table, self.seat)
            if notes is not None:
                await self.websocket.send_text(json.dumps(notes))
            premove = premove_message(self.table, self.seat)
            if premove is not None:
                await self.websocket.send_text(json.dumps(premove))


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
    await session.chat.send_history(session.table, session.websocket)
    return None


async def chat(session: Session, message: ClientMessage) -> Reply:
    await session.chat.say(session.table, session.websocket, message.text, message.preset)
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
