"""A player's games across tables: ``GET /api/me/games`` (unfinished games, your turn first) and
``GET /api/me/events``, a server-sent event stream of how many wait for your move (the header's badge) and of
friends' invitations to a seat (friends.py); an open stream keeps its identity seen (online)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse

from .deps import client_of, clock_of, friends_of, guards_of, identities_of, tables_of
from .guards import OverLimit

router = APIRouter()

STREAMS_PER_PLAYER = 8
"""Event streams one identity may have open on a process (a tab each); more are refused (429)."""
KEEPALIVE_SECONDS = 25.0
"""A comment line this often keeps proxies from closing a quiet stream."""
SETTLE_SECONDS = 0.2
"""A stream woken waits this long before it counts again: a burst of changes costs one query."""


@router.get("/api/me/games")
async def my_games(request: Request) -> dict[str, Any]:
    """The caller's unfinished games (real-time and turn-based): each table with its edition, seats, whose turn,
    ``your_turn`` and the mover's deadline (epoch ms), your-turn ones first. No identity: no games."""
    identity, _ = await identities_of(request).current(request)
    games = [] if identity is None else await asyncio.to_thread(tables_of(request).store.games_of, identity.player_id)
    return {"games": games, "your_turn": sum(g["your_turn"] for g in games), "server_time": clock_of(request).now_ms()}


@router.get("/api/me/events", include_in_schema=False)  # an endless stream: no fuzzing
async def my_events(request: Request) -> StreamingResponse:
    """Server-sent events: ``games`` with ``{"your_turn": n}`` on connecting and whenever that number changes;
    ``invitation`` with each live invitation to a seat (on connecting, and as one comes); ``invitations`` with the
    whole list of live ones, newest first, whenever it changes (one withdrawn: its inviter left,
    its table started or ended, its seat was taken; it is looked at again at least every 25 s)."""
    identity, _ = await identities_of(request).current(request)
    if identity is None:
        raise HTTPException(401, "not signed in: open the site (or POST /api/me/guest) first")
    tables, guards, client = tables_of(request), guards_of(request), client_of(request)
    player = identity.player_id
    if tables.watchers.count(player) >= STREAMS_PER_PLAYER:
        raise OverLimit("event_streams_per_player", f"{STREAMS_PER_PLAYER} event streams are open already: close one")
    if not guards.client_connections.take(client):
        raise OverLimit("max_connections_per_client", "too many connections from your address")
    try:
        woken = await tables.watchers.watch(player)
    except BaseException:  # Redis unreachable: no stream
        guards.client_connections.give_back(client)
        raise
    friends = friends_of(request)

    async def stream() -> AsyncIterator[str]:
        told, invitations_told, listed = None, set[tuple[str, int, str]](), list[dict[str, Any]]()
        try:
            while not tables.watchers.closed:
                if friends.due(player):
                    await asyncio.to_thread(friends.seen, player)
                count = await asyncio.to_thread(tables.store.your_turn_count, player)
                if count != told:
                    told = count
                    yield f"event: games\ndata: {json.dumps({'your_turn': count})}\n\n"
                invitations = await asyncio.to_thread(friends.invitations_of, player)
                for invitation in invitations:
                    key = (invitation["table"], invitation["seat"], invitation["at"])
                    if key not in invitations_told:
                        invitations_told.add(key)
                        yield f"event: invitation\ndata: {json.dumps(invitation)}\n\n"
                if invitations != listed:
                    listed = invitations
                    yield f"event: invitations\ndata: {json.dumps({'invitations': invitations})}\n\n"
                try:
                    await asyncio.wait_for(woken.wait(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    if friends.due(player):
                        await asyncio.to_thread(friends.seen, player)
                    yield ": keep-alive\n\n"
                    continue
                woken.clear()
                await asyncio.sleep(SETTLE_SECONDS)
        finally:
            tables.watchers.unwatch(player, woken)
            guards.client_connections.give_back(client)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)
