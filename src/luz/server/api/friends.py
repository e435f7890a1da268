"""Friends' routes (docs/PROTOCOL.md, "Friends"): follow and block a player, the friends page's list with presence,
and invitations to an open seat (stored by ``friends.py``; the invitee hears of one on its ``/api/me/events``
stream and, where subscribed, by a push)."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..friends import Refusal
from ..identity import Identity
from ..notify import Notice
from .deps import chat_of, clock_of, friends_of, guards_of, identities_of, notify_of, tables_of
from .guards import OverLimit
from .schemas import DB_INT

log = logging.getLogger("luz.server")
router = APIRouter()

"""Invitations one player may send (every process together, with Redis)."""
PlayerId = Annotated[str, Path(max_length=32, pattern=r"^[0-9a-f]+$")]
TableId = Annotated[str, Path(max_length=32, pattern=r"^[0-9a-f]+$")]
Seat = Annotated[int, Path(ge=0, lt=DB_INT)]


class InvitationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player: str = Field(..., max_length=32, pattern=r"^[0-9a-f]+$", description="The friend invited (their id).")


def refused(refusal: Refusal) -> JSONResponse:
    return JSONResponse({"detail": refusal.detail, "code": refusal.code}, status_code=refusal.status)


async def account(request: Request, response: Response, changes: bool) -> Identity:
    """The caller, an account (a guest gets a typed 403, ``account_required``)."""
    identity = await identities_of(request).require(request, response, create=False, changes=changes)
    if identity.guest:
        raise AccountNeeded
    return identity


class AccountNeeded(Exception):
    """Following and inviting are for accounts."""


def account_needed() -> JSONResponse:
    detail = "friends are for accounts: register (it keeps your games) to follow players and invite them"
    return JSONResponse({"detail": detail, "code": "account_required"}, status_code=403)


@router.put("/api/players/{player_id}/follow")
async def follow(request: Request, response: Response, player_id: PlayerId) -> Any:
    """Follow an account (at most 500): it is among your friends. Accounts only."""
    try:
        identity = await account(request, response, changes=True)
        await asyncio.to_thread(friends_of(request).follow, identity.player_id, player_id)
    except AccountNeeded:
        return account_needed()
    except Refusal as refusal:
        return refused(refusal)
    return {"following": True}


@router.delete("/api/players/{player_id}/follow")
async def unfollow(request: Request, response: Response, player_id: PlayerId) -> dict[str, bool]:
    """Stop following a player."""
    identity = await identities_of(request).require(request, response, create=False, changes=True)
    await asyncio.to_thread(friends_of(request).unfollow, identity.player_id, player_id)
    return {"following": False}


@router.put("/api/players/{player_id}/block")
async def block(request: Request, response: Response, player_id: PlayerId) -> Any:
    """Block a player (any identity may): no invitation from them, their chat hidden to you, never seated together
    at a public table; the follows between you end, both ways."""
    identity = await identities_of(request).require(request, response, create=False, changes=True)
    friends = friends_of(request)
    try:
        await asyncio.to_thread(friends.block, identity.player_id, player_id)
    except Refusal as refusal:
        return refused(refusal)
    await blocks_changed(request, identity.player_id)
    return {"blocked": True}


@router.delete("/api/players/{player_id}/block")
async def unblock(request: Request, response: Response, player_id: PlayerId) -> dict[str, bool]:
    """Unblock a player (the follows a block ended stay ended)."""
    identity = await identities_of(request).require(request, response, create=False, changes=True)
    await asyncio.to_thread(friends_of(request).unblock, identity.player_id, player_id)
    await blocks_changed(request, identity.player_id)
    return {"blocked": False}


async def blocks_changed(request: Request, player_id: str) -> None:
    """The chat of ``player_id``'s connections on this process follows its blocks at once (on another process,
    from its next connection)."""
    blocked = await asyncio.to_thread(friends_of(request).blocked_by, player_id)
    chat_of(request).blocks_changed(player_id, blocked)


@router.get("/api/players/{player_id}/relation")
async def relation(request: Request, player_id: PlayerId) -> dict[str, Any]:
    """What you are to this player: ``following``, ``follower`` (they follow you), ``blocked`` (by you), and
    whether you are an account (``account``) and this is you (``self``). No identity: all false."""
    identity, _ = await identities_of(request).current(request)
    if identity is None:
        return {"following": False, "follower": False, "blocked": False, "account": False, "self": False}
    found = await asyncio.to_thread(friends_of(request).relation, identity.player_id, player_id)
    return {**found, "account": not identity.guest, "self": identity.player_id == player_id}


@router.get("/api/me/friends")
async def my_friends(request: Request, response: Response) -> Any:
    """Those you follow (``mutual``: they follow you back; then only, ``online``, ``seen_at`` to the quarter hour
    and the public table each sits at), your followers (``followed``: whether you
    follow them back), those you blocked, and the open seats of your waiting tables (where to invite a friend).
    Accounts only."""
    try:
        identity = await account(request, response, changes=False)
    except AccountNeeded:
        return account_needed()
    friends = friends_of(request)
    if friends.due(identity.player_id):
        await asyncio.to_thread(friends.seen, identity.player_id)
    found = await asyncio.to_thread(friends.friends_of, identity.player_id)
    return {**found, "server_time": clock_of(request).now_ms()}


@router.get("/api/me/invitations")
async def my_invitations(request: Request, response: Response) -> dict[str, Any]:
    """Your live invitations to seats still open, newest first (no identity: none)."""
    identity, _ = await identities_of(request).current(request)
    if identity is None:
        return {"invitations": []}
    return {"invitations": await asyncio.to_thread(friends_of(request).invitations_of, identity.player_id)}


@router.delete("/api/me/invitations/{table_id}/{seat}")
async def decline(request: Request, response: Response, table_id: TableId, seat: Seat) -> dict[str, bool]:
    """Decline (or dismiss) an invitation: it is gone from every page of yours."""
    identity = await identities_of(request).require(request, response, create=False, changes=True)
    declined = await asyncio.to_thread(friends_of(request).decline, identity.player_id, table_id, seat)
    return {"declined": declined}


@router.post("/api/tables/{table_id}/seats/{seat}/invite", status_code=201)
async def invite(request: Request, response: Response, table_id: TableId, seat: Seat, body: InvitationRequest) -> Any:
    """Invite a friend you follow to an open seat of a table you sit at: they may take it without its token
    (``POST .../join`` with no token). Refused: a guest (403 ``account_required``), not seated (403
    ``not_seated``), a seat taken (409 ``seat_taken``), not followed (403 ``not_following``), a block between you
    (403 ``blocked``); at most 10 a minute, and ``Settings.invitations_per_invitee`` to one player (429)."""
    try:
        identity = await account(request, response, changes=True)
    except AccountNeeded:
        return account_needed()
    guards = guards_of(request)
    wait = await guards.invitation_wait(identity.player_id, body.player)
    if wait is not None:
        raise OverLimit("invitations_per_minute", "too many invitations: wait a minute", wait)
    friends = friends_of(request)
    try:
        invitation = await asyncio.to_thread(friends.invite, identity.player_id, table_id, seat, body.player)
    except Refusal as refusal:
        return refused(refusal)
    await guards.invitation_sent(identity.player_id, body.player)
    await tables_of(request).watchers.changed([body.player])  # their open pages show it (/api/me/events)
    task = asyncio.create_task(push_invitation(request, body.player, invitation))
    pushing.add(task)
    task.add_done_callback(pushing.discard)
    return invitation


async def invitations_changed(request: Request, table_id: str) -> None:
    """A seat of ``table_id`` was taken or given up, or it started: the pages of those invited to it look again at
    their invitations (one may be withdrawn)."""
    invitees = await asyncio.to_thread(friends_of(request).invitees, table_id)
    if invitees:
        await tables_of(request).watchers.changed(invitees)


pushing: set[asyncio.Task[None]] = set()
"""Invitations being pushed (kept until sent)."""


async def push_invitation(request: Request, player_id: str, invitation: dict[str, Any]) -> None:
    """The invitation told to the invitee through their channels (Web Push; not in their quiet hours)."""
    notice = Notice(
        "invitation", invitation["table"], invitation["name"], seat=invitation["seat"], by=invitation["by"]["name"]
    )
    await notify_of(request).notifier.tell(player_id, notice)
