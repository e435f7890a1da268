"""Table chat: the seated players' channel and the spectators' own, stored with the table and shown in the replay.

- A seat writes in the ``players`` channel, a spectator in the ``spectators`` channel. Seat connections never
  receive the spectators' channel (nor does a spectator connection of someone who holds a seat at the table);
  spectators read both. Once a game is over, ``GET /api/tables/{id}/chat?game=N`` gives both channels of that
  game, for its replay.
- Plain text: at most :data:`CHAT_LENGTH` printable characters, or a quick message (:data:`PRESETS`), which each
  reader sees in their own language. The server writes nothing in the chat itself: no message of its own, and no
  error that echoes a text, so nothing in it can tell a seat its hidden cards.
- Each person (an identity; a seat taken without one counts as its own person) sends at most
  :data:`CHAT_RATE`, and each client address at most ``Settings.chat_per_address`` (its guests are many people
  to the first limit), counted with the ``limits`` library (in Redis when the server has one, so every process
  counts together).
- A message is stored, then sent to this process's connections of the table and, through the broker (the table's
  own Redis channel: broker.py), to the other processes' that hold the table; a connection gets the recent
  messages it may read when it connects and on ``sync``. Muting a speaker is each reader's own choice, kept by
  their browser (docs/PROTOCOL.md).
- A player someone blocked (friends.py) is never sent to them: each connection knows whose words its identity
  blocked (read as it connects, renewed on this process when that identity blocks or unblocks someone).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from ..clock import SYSTEM_CLOCK, Clock
from ..db import ChatRow, PlayerRow, now
from ..domain import Status
from ..friends import Friends
from ..ratelimit import SharedRateLimit
from .broker import Broker
from .fanout import Fanout
from .model import Connection, Refused, dumps
from .table import Table

log = logging.getLogger("luz.server")

CHAT_LENGTH = 280
"""The longest message, in characters."""
CHAT_RATE = "5/10 seconds"
"""Messages one person may send, over a moving window."""
HISTORY = 100
"""The newest messages a connection is sent when it connects."""
PRESETS = {"good_luck": "good luck", "good_game": "good game", "well_played": "well played", "thanks": "thanks"}
"""Quick messages: their key and English text."""
PLAYERS, SPECTATORS = "players", "spectators"


@dataclass(frozen=True)
class Speaker:
    """Who a connection speaks as: a seat, or a spectator (an identity, or none: then it only reads)."""

    seat: int | None
    player: str | None
    name: str | None
    reader: str | None = None
    """The identity reading through this connection (a seat's player, a spectator's identity), if any."""
    blocked: frozenset[str] = frozenset()
    """The identities whose words ``reader`` blocked: never sent to it."""
    address: str | None = None
    """The client the connection comes from (``ratelimit.client_key``): its limit per address."""

    def seated(self, table: Table) -> bool:
        """Whether this is a seat, or a spectator connection of someone who holds a seat at the table now."""
        return self.seat is not None or (
            self.player is not None and any(s.player == self.player for s in table.state.seats)
        )

    def channels(self, table: Table) -> tuple[str, ...]:
        """The channels this connection reads now: a seated person never reads the spectators'."""
        return (PLAYERS,) if self.seated(table) else (PLAYERS, SPECTATORS)


class ChatStore:
    """The chat rows of the database (each call one short transaction)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, message: dict[str, Any]) -> dict[str, Any]:
        """Store ``message`` (its table, game, channel, seat, player, name, text, preset); it comes back with its
        ``id`` and time."""
        created = now()
        columns = {k: message[k] for k in ("game_no", "channel", "seat", "name", "text", "preset")}
        with self.engine.begin() as connection:
            if message["seat"] is None and message["player"] is not None:  # a spectator: under its name of now
                current = connection.scalar(select(PlayerRow.name).where(PlayerRow.id == message["player"]))
                if current is not None:
                    message = {**message, "name": current}
                    columns["name"] = current
            number = connection.execute(
                insert(ChatRow)
                .values(table_id=message["table"], player_id=message["player"], created_at=created, **columns)
                .returning(ChatRow.id)
            ).scalar_one()
        return {**message, "id": number, "at": utc_text(created)}

    def messages(
        self, table_id: str, channels: tuple[str, ...], game_no: int | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The table's messages in ``channels``, oldest first (of game ``game_no`` only, the newest ``limit``)."""
        query = select(ChatRow).where(ChatRow.table_id == table_id, ChatRow.channel.in_(channels))
        if game_no is not None:
            query = query.where(ChatRow.game_no == game_no)
        query = query.order_by(ChatRow.id.desc())
        if limit is not None:
            query = query.limit(limit)
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [as_message(row) for row in reversed(rows)]


def utc_text(moment: datetime) -> str:
    """``moment`` in UTC, ISO 8601 with its offset: the same text live and read back (SQLite keeps no zone)."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat()


def as_message(row: Any) -> dict[str, Any]:
    """A stored row as the wire shows it (docs/PROTOCOL.md)."""
    at = utc_text(row.created_at) if row.created_at is not None else None
    return {
        "id": row.id,
        "table": row.table_id,
        "game_no": row.game_no,
        "channel": row.channel,
        "seat": row.seat,
        "player": row.player_id,
        "name": row.name,
        "text": row.text,
        "preset": row.preset,
        "at": at,
    }


def chat_text(text: Any, preset: Any) -> tuple[str, str | None]:
    """The text of a chat message and its preset's key, if the message is one; else :class:`Refused`."""
    if preset is not None:
        if not isinstance(preset, str) or preset not in PRESETS or text is not None:
            raise Refused("malformed", "a quick message is one of " + ", ".join(PRESETS) + ", without text")
        return PRESETS[preset], preset
    if not isinstance(text, str):
        raise Refused("malformed", "a chat message needs 'text' (a string) or 'preset'")
    text = text.strip()
    if len(text) > CHAT_LENGTH:
        raise Refused("too_long", f"a chat message is at most {CHAT_LENGTH} characters")
    if not text or not text.isprintable():
        raise Refused("malformed", f"a chat message is 1 to {CHAT_LENGTH} printable characters on one line")
    return text, None


class Chat:
    """The chat of every table of this process: who each connection speaks as, the limit, the relay."""

    def __init__(
        self,
        engine: Engine,
        held: Callable[[str], Table | None],
        fanout: Fanout,
        redis_url: str | None,
        friends: Friends,
        per_address: str | None = None,
        scope: str = "",
        broker: Broker | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.held = held
        """The table of an id if this process holds it in memory (``Registry.held``)."""
        self.fanout = fanout
        self.friends = friends
        self.store = ChatStore(engine)
        self.per_person = SharedRateLimit(CHAT_RATE, redis_url, scope, clock)
        self.per_address = SharedRateLimit(per_address, redis_url, scope, clock) if per_address else None
        self.speakers: weakref.WeakKeyDictionary[Any, Speaker] = weakref.WeakKeyDictionary()
        self.broker = broker
        """The other processes' relay: each table's channel (broker.py), none with one process."""

    async def start(self) -> None:
        """Hear the other processes' messages (through the broker)."""
        if self.broker is not None:
            self.broker.on_chat(self.heard)

    async def heard(self, table_id: str, message: dict[str, Any]) -> None:
        """Another process's chat message at a table this process holds."""
        table = self.held(table_id)
        if table is not None:  # a table no connection of this process has opened: nobody to tell
            await self.deliver(table, message)

    async def close(self) -> None:
        return None

    # -- connections ---------------------------------------------------------------------------------------

    async def joined(
        self, table: Table, seat: int | None, connection: Any, identity: Any, address: str | None = None
    ) -> None:
        """A connection opened from client ``address``: note who it speaks as (``identity``: the spectator's, if
        any) and send it the recent messages it may read."""
        reader = table.state.seats[seat].player if seat is not None else identity and identity.player_id
        blocked = await asyncio.to_thread(self.friends.blocked_by, reader) if reader else frozenset()
        if seat is not None:
            speaker = Speaker(seat, None, None, reader, blocked, address)
        elif identity is None:
            speaker = Speaker(None, None, None)
        else:
            speaker = Speaker(None, identity.player_id, identity.name, reader, blocked, address)
        self.speakers[connection] = speaker
        await self.send_history(table, connection)

    def blocks_changed(self, player_id: str, blocked: frozenset[str]) -> None:
        """``player_id`` blocked or unblocked someone: its connections on this process hide ``blocked``'s words
        from now on."""
        for connection, speaker in list(self.speakers.items()):
            if speaker.reader == player_id:
                self.speakers[connection] = replace(speaker, blocked=blocked)

    async def send_history(self, table: Table, connection: Any) -> None:
        """The newest messages ``connection`` may read (nothing when there are none)."""
        speaker = self.speakers.get(connection)
        if speaker is None:
            return
        channels = speaker.channels(table)
        messages = await asyncio.to_thread(self.store.messages, table.state.id, channels, limit=HISTORY)
        messages = [m for m in messages if m["player"] not in speaker.blocked]
        if messages:
            await connection.send_text(dumps({"type": "chat", "history": True, "messages": messages}))

    # -- messages ------------------------------------------------------------------------------------------

    async def say(self, table: Table, connection: Any, text: Any, preset: Any) -> None:
        """Store what ``connection`` says and send it to every connection that reads its channel, on every
        process. :class:`Refused` for a bad text, a spectator without an identity, or a person or a client address
        over its limit."""
        speaker = self.speakers.get(connection)
        if speaker is None or (speaker.seat is None and speaker.player is None):
            raise Refused("spectator", "spectators chat under a name: open the site first to get one")
        if speaker.seat is None and speaker.seated(table):
            raise Refused("spectator", "you hold a seat at this table: chat from your seat")
        text, preset = chat_text(text, preset)
        state = table.state
        player = state.seats[speaker.seat].player if speaker.seat is not None else speaker.player
        person = player or f"seat:{state.id}:{speaker.seat}"
        if await self.per_person.hit(f"chat:{person}") is not None:
            raise Refused("rate_limited", "too many chat messages: wait a few seconds", "chat_per_person")
        by_address = self.per_address if speaker.address is not None else None
        if by_address is not None and await by_address.hit(f"chat-address:{speaker.address}") is not None:
            raise Refused(
                "rate_limited", "too many chat messages from your address: wait a few seconds", "chat_per_address"
            )
        seated = speaker.seat is not None
        message = await asyncio.to_thread(
            self.store.add,
            {
                "table": state.id,
                "game_no": state.game_no if state.status != Status.WAITING else state.game_no + 1,
                "channel": PLAYERS if seated else SPECTATORS,
                "seat": speaker.seat,
                "player": player,
                # A seat's name as the table shows it (its player's name now).
                "name": (table.names()[speaker.seat] if speaker.seat is not None else speaker.name or "")[:40],
                "text": text,
                "preset": preset,
            },
        )
        relay = self.broker.chat(table.id, message) if self.broker is not None else asyncio.sleep(0)
        await asyncio.gather(self.deliver(table, message), relay)

    async def deliver(self, table: Table, message: dict[str, Any]) -> None:
        """Send ``message`` to this process's connections of its table that read its channel."""
        text = dumps({"type": "chat", "history": False, "messages": [message]})
        readers: list[tuple[int | None, Connection]] = []
        speaker_of, author = self.speakers.get, message["player"]
        if message["channel"] == PLAYERS:
            readers += [
                (seat, c)
                for seat, connections in table.seats.items()
                for c in list(connections)
                if author is None or author not in getattr(speaker_of(c), "blocked", ())
            ]
        for connection in list(table.spectators):
            speaker = speaker_of(connection)
            if speaker is not None and message["channel"] in speaker.channels(table) and author not in speaker.blocked:
                readers.append((None, connection))
        await self.fanout.deliver(table, [(seat, c, text) for seat, c in readers])
