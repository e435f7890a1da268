"""Live play over WebSocket: a seat (with its token) or a spectator (without) connects to a table, receives its view
after every change, and sends messages (``messages.py``)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ..domain import SecondSeat
from ..identity import COOKIE, HEADER, Identity
from ..logs import on_table
from ..ratelimit import TokenBucket
from ..tables import Refused
from ..tables.commands import Away, Return
from ..tables.fanout import replay_message
from ..tables.model import Watcher, dumps
from .deps import (
    client_of,
    close_all,
    guards_of,
    identities_of,
    metrics_of,
    round_in_play,
    services_of,
    settings_of,
    tables_of,
)
from .identities import from_this_site
from .messages import Session, error, handle

log = logging.getLogger("luz.server")

router = APIRouter()


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
    try:
        arrived, evicted = tables.presence.attach(table, seat, websocket, ties)
    except Refused as refused:
        if refused.limit is not None:
            metrics_of(websocket).refused(refused.limit)
        await websocket.close(code=4429, reason=str(refused))
        return
    await close_all(set(evicted), code=4409)
    services = services_of(websocket)
    settings, chat = services.settings, services.chat
    bucket = TokenBucket(settings.messages_per_second, services.clock)
    session = Session(tables, chat, table, seat, websocket, bucket, settings.max_message_bytes)
    try:
        if arrived and seat is not None:  # the others see the seat connected (its bot, if any, stops)
            await tables.submit(table, Return(seat, websocket))
        await session.send_state()
        await chat.joined(table, seat, websocket, watcher, client_of(websocket))
        replay = replay_message(table) if seat is None else None
        if replay:
            await websocket.send_text(dumps(replay))
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            reply = await handle(session, frame.get("text") or "")  # a binary frame is no message: malformed
            if reply is not None:
                await websocket.send_text(dumps(reply))
    finally:
        if tables.presence.detach(table, seat, websocket) and seat is not None:
            await tables.submit(table, Away(seat))


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
