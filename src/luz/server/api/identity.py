"""Who a request comes from (cookies, the session header, CSRF checks, the login limiter with its device cookies)
and the ``/api/me`` and ``/api/account`` endpoints (docs/PROTOCOL.md, "Players")."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from .. import links
from ..identity import (
    HEADER,
    USERNAME,
    BadName,
    Identity,
    NameTaken,
    TooManyRenames,
    display_name,
)
from .deps import engine_of, friends_of, identities_of, settings_of, tables_of
from .guards import OverLimit
from .schemas import NO_NUL

DEVICE_PATH = "/api/account"
"""Where the device cookie is sent: the account's routes only (the login reads it, it and the register renew it)."""


class NameChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., min_length=1, max_length=40, pattern=NO_NUL)


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)
    username: str = Field(..., pattern=USERNAME, description="3 to 24 letters, digits, '.', '_' or '-'")
    password: str = Field(..., min_length=8, max_length=200, pattern=NO_NUL)


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)
    current: str = Field(..., max_length=200, pattern=NO_NUL)
    new: str = Field(..., min_length=8, max_length=200, pattern=NO_NUL)


def with_session(request: Request, answer: dict[str, Any], secret: str) -> dict[str, Any]:
    """``answer``, with the new session's signed value for a client that sends it by header (not a browser)."""
    if HEADER.lower() in request.headers:
        answer["session"] = identities_of(request).signed(secret)
    return answer


async def set_name(request: Request, identity: Identity, raw: str) -> Identity:
    """Give ``identity`` the display name ``raw`` (trimmed, spaces collapsed), shown at once at every table where
    it holds a seat; the identity as it now is. 422 for a name that cannot be one, 409 when an account holds
    it, 429 past ``renames_per_week`` changes in seven days."""
    try:
        name = display_name(raw)
    except BadName as error:
        raise HTTPException(422, str(error)) from None
    players, per_week = identities_of(request).players, settings_of(request).renames_per_week
    try:
        # The name and every seat's in one transaction; every seat, changed or not: a seat left behind (renamed
        # by hand in the database) is repaired by asking again for the same name.
        await tables_of(request).rename_seats(
            identity.player_id, name, first=lambda session: players.rename(session, identity.player_id, name, per_week)
        )
    except NameTaken as error:
        raise HTTPException(409, str(error)) from None
    except TooManyRenames as error:
        raise OverLimit("renames_per_week", str(error)) from None
    return replace(identity, name=name)


router = APIRouter()
"""The ``/api/me`` and ``/api/account`` endpoints (docs/PROTOCOL.md, "Players")."""


@router.get("/api/me")
async def me(request: Request, response: Response) -> dict[str, Any]:
    """Who you are: your guest or account identity (a first visit gets a guest and its cookie)."""
    identities = identities_of(request)
    identity = await identities.require(request, response, create=True, changes=False)
    friends = friends_of(request)
    if friends.due(identity.player_id):  # online (friends.py): written at most once a minute
        await asyncio.to_thread(friends.seen, identity.player_id)
    return identity.public()


@router.post("/api/me/guest", status_code=201)
async def new_guest(request: Request) -> dict[str, Any]:
    """A new guest for a client that is not a browser: the answer's ``session`` goes in ``X-Luz-Session``."""
    identities = identities_of(request)
    identities.check_same_site(request)
    identity, secret = await identities.create_guest(request)
    return {**identity.public(), "session": identities.signed(secret)}


@router.post("/api/me/name")
async def rename(request: Request, response: Response, body: NameChange) -> dict[str, Any]:
    """Change your display name, everywhere: at the tables where you hold a seat, on your profile and the
    leaderboard (the names you left are listed on your profile)."""
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    return (await set_name(request, identity, body.name)).public()


@router.post("/api/account/register", status_code=201)
async def register(request: Request, response: Response, body: Credentials) -> dict[str, Any]:
    """Turn your guest into an account (its games stay yours); signs you in with a new session."""
    identities, players = identities_of(request), identities_of(request).players
    identity = await identities.require(request, response, create=True, changes=True)
    if not identity.guest:
        raise HTTPException(409, "you are signed in to an account already: log out first")
    await identities.account_allowed(request)
    hashed = await identities.hash_password(body.password)
    try:
        await asyncio.to_thread(players.register, identity.player_id, body.username, hashed)
    except KeyError:
        raise HTTPException(409, "that username is taken") from None
    except NameTaken as error:
        raise HTTPException(409, str(error)) from None
    await tables_of(request).rename_seats(identity.player_id, identity.name, every=True)  # no longer a guest
    await identities.account_registered(request)
    secret = await asyncio.to_thread(players.start_session, identity.player_id, identity.session_hash)
    identities.set_cookie(response, secret)
    nonces = identities.remember_device(request, response, body.username.lower())
    keys = identities.sighting_keys(request, nonces)
    await asyncio.to_thread(links.record, engine_of(request), identity.player_id, keys)
    return with_session(request, {**identity.public(), "username": body.username.lower(), "guest": False}, secret)


@router.post("/api/account/login")
async def login(request: Request, response: Response, body: Credentials) -> dict[str, Any]:
    """Sign in to an account, with a new session (the one you had, a guest's, ends here) and a device cookie."""
    identities, players = identities_of(request), identities_of(request).players
    identity, by_cookie = await identities.current(request)
    if by_cookie or HEADER.lower() not in request.headers:
        identities.check_same_site(request)
    if not await identities.allow_login(request, body.username):
        raise OverLimit("login_attempts", "too many login attempts: wait a minute", 60)
    account = await asyncio.to_thread(players.password_hash_of, body.username)
    hashed = account[1] if account else await identities.dummy_hash()
    valid = await identities.verify_password(body.password, hashed)
    if account is None or not valid:
        raise HTTPException(401, "wrong username or password")
    secret = await asyncio.to_thread(
        players.start_session, account[0], identity.session_hash if identity is not None else None
    )
    identities.set_cookie(response, secret)
    nonces = identities.remember_device(request, response, body.username.lower())
    signed_in = await asyncio.to_thread(players.identity, secret)
    assert signed_in is not None
    keys = identities.sighting_keys(request, nonces)
    await asyncio.to_thread(links.record, engine_of(request), signed_in.player_id, keys)
    return with_session(request, signed_in.public(), secret)


@router.post("/api/account/logout")
async def logout(request: Request, response: Response) -> dict[str, str]:
    """End this session (your next visit starts as a new guest)."""
    identities, players = identities_of(request), identities_of(request).players
    identity = await identities.require(request, response, create=False, changes=True)
    await asyncio.to_thread(players.end_session, identity.session_hash)
    identities.clear_cookie(response)
    return {"status": "logged out"}


@router.post("/api/account/logout-all")
async def logout_everywhere(request: Request, response: Response) -> dict[str, Any]:
    """End every session of your identity, on every device (this one included)."""
    identities, players = identities_of(request), identities_of(request).players
    identity = await identities.require(request, response, create=False, changes=True)
    ended = await asyncio.to_thread(players.end_all_sessions, identity.player_id)
    identities.clear_cookie(response)
    return {"status": "logged out everywhere", "sessions": ended}


@router.post("/api/account/password")
async def change_password(request: Request, response: Response, body: PasswordChange) -> dict[str, Any]:
    """Change your password: every other session ends, this one is renewed."""
    identities, players = identities_of(request), identities_of(request).players
    identity = await identities.require(request, response, create=False, changes=True)
    if identity.username is None:
        raise HTTPException(409, "a guest has no password: register first")
    if not await identities.allow_password_attempt(identity):
        raise OverLimit("password_attempts", "too many password attempts: wait a minute", 60)
    account = await asyncio.to_thread(players.password_hash_of, identity.username)
    if account is None or not await identities.verify_password(body.current, account[1]):
        raise HTTPException(403, "the current password is wrong")
    await asyncio.to_thread(players.set_password, identity.player_id, await identities.hash_password(body.new))
    await asyncio.to_thread(players.end_all_sessions, identity.player_id)
    secret = await asyncio.to_thread(players.start_session, identity.player_id)
    identities.set_cookie(response, secret)
    return with_session(request, identity.public(), secret)
