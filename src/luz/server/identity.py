"""Players: guests by default, accounts on request, and their sessions, in the database (``api/identity.py`` is
the HTTP side: cookies, the session header, CSRF checks, the login limiter, the routes).

A first visit gets a guest (a random display name) and a session; the session's secret travels in a signed,
HttpOnly, SameSite=Lax cookie (``luz_session``) or, for clients that are not browsers, in the ``X-Luz-Session``
header (the same signed value). The database keeps only a hash of each session's secret, so a session is
revoked by deleting its row (log out, log out everywhere, a password change). Guests that were never used (no
seat, no game, no follow, block or subscription) are deleted after ``Settings.guest_days`` unseen
(:meth:`Players.prune_guests`): a pruned guest's cookie is nobody's, and its next visit gets a new guest.

CSRF: a state change authenticated by the cookie is refused when the browser says it comes from another site
(``Sec-Fetch-Site``) or when its ``Origin`` is not this server's; the cookie's SameSite=Lax already keeps it
off cross-site POSTs. The header is never sent by a browser on its own, so header-authenticated calls need no
check.

Passwords are hashed with Argon2 (pwdlib), in a thread of their own, and never logged nor echoed: validation
errors show where the input was wrong, not what it was. Login attempts are rate-limited with the ``limits``
library (in Redis when the server has one, so every process counts together), with OWASP's device cookies
(``api/identity.py``): a browser that logged in to an account before counts its attempts on its own device cookie,
every other attempt is counted per username and per client address, so that an attacker slows the guessing of a
password without locking its owner out.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import CursorResult, delete, exists, func, or_, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .db import (
    BlockRow,
    FollowRow,
    InvitationRow,
    NameChangeRow,
    PlayerRow,
    PushSubscriptionRow,
    RatingChangeRow,
    RatingRow,
    ResultRow,
    SeatRow,
    ServerKeyRow,
    SessionRow,
    now,
)
from .names import SKELETON_LENGTH, invisible_problem, skeleton

COOKIE = "luz_session"
HEADER = "X-Luz-Session"
COOKIE_SECONDS = 400 * 24 * 3600
"""A session cookie lasts as long as browsers allow (400 days); the session itself lasts until revoked."""
USERNAME = r"^[A-Za-z0-9_.-]{3,24}$"
NAME_LENGTH = 40
RENAME_WINDOW = timedelta(days=7)
"""Renames are counted over this window (``Settings.renames_per_week``)."""

DEVICE_COOKIE = "luz_device"
"""The device cookie: the accounts this browser logged in to, each with a nonce, signed by the server."""
DEVICE_ACCOUNTS = 4
"""The most accounts one device cookie remembers (the newest)."""
LOGIN_ATTEMPTS_PER_MINUTE = 10
"""Login attempts without a device cookie for their username, failed or not, per client address and per username."""
LOGIN_ATTEMPTS_PER_DEVICE = 5
"""Login attempts a minute with one device cookie, failed or not; past them it is worth nothing for the minute
(the attempts count per username and per address again)."""

GUEST_PRUNE_BATCH = 1000
"""The most guests one pruning deletes: one bounded DELETE a run (a backlog goes in several)."""
USES = (
    SeatRow.player_id,
    ResultRow.player_id,
    RatingRow.player_id,
    RatingChangeRow.player_id,
    FollowRow.follower_id,
    FollowRow.followee_id,
    BlockRow.blocker_id,
    BlockRow.blocked_id,
    InvitationRow.player_id,
    PushSubscriptionRow.player_id,
)
"""What keeps a guest: a seat (at any table, over or not), a game's result, a rating, a follow, a block (either
way), an invitation, a push subscription. Chat messages stay without their guest, under their name."""

_ADJECTIVES = [
    "Amber",
    "Brisk",
    "Calm",
    "Clever",
    "Daring",
    "Eager",
    "Gentle",
    "Golden",
    "Jolly",
    "Keen",
    "Lucky",
    "Merry",
    "Nimble",
    "Quiet",
    "Swift",
    "Witty",
]
_ANIMALS = [
    "Badger",
    "Crane",
    "Finch",
    "Fox",
    "Hare",
    "Heron",
    "Ibis",
    "Lynx",
    "Marten",
    "Otter",
    "Owl",
    "Panda",
    "Raven",
    "Stoat",
    "Swan",
    "Wren",
]


def guest_name() -> str:
    """A random display name for a new guest (``Swift Heron 217``)."""
    choice = secrets.choice
    return f"{choice(_ADJECTIVES)} {choice(_ANIMALS)} {secrets.randbelow(900) + 100}"


class BadName(ValueError):
    """A display name that cannot be one: empty once trimmed, too long, or with control characters."""


class NameTaken(Exception):
    """Another account holds that display name, or one that looks like it (the same :func:`.names.skeleton`)."""

    def __init__(self) -> None:
        super().__init__("that display name is taken: choose another")


class TooManyRenames(Exception):
    """The identity changed its name as often as it may in seven days."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"you changed your name {limit} times in the last 7 days, the most allowed: try again later")


def display_name(raw: str) -> str:
    """``raw`` as a display name: trimmed, inner whitespace collapsed to one space, NFC; :class:`BadName` when it
    is empty, longer than 40 characters or holds an invisible or control character (:mod:`.names`)."""
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not name:
        raise BadName("a name cannot be empty")
    if len(name) > NAME_LENGTH:
        raise BadName(f"a name has at most {NAME_LENGTH} characters")
    problem = invisible_problem(name)
    if problem is not None:
        raise BadName(problem)
    if len(skeleton(name)) > SKELETON_LENGTH:
        raise BadName("a name cannot be made of so many ligatures")
    return name


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class Identity:
    """Who sent a request: a guest or an account, through one of its sessions."""

    player_id: str
    name: str
    username: str | None
    session_hash: str

    @property
    def guest(self) -> bool:
        return self.username is None

    def public(self) -> dict[str, Any]:
        return {"id": self.player_id, "name": self.name, "username": self.username, "guest": self.guest}


class Players:
    """Players and sessions in the database (each call one short transaction)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def signing_key(self, configured: str) -> str:
        """The cookie-signing key: ``configured`` if set, else one stored once for every process."""
        if configured:
            return configured
        with Session(self.engine) as session:
            stored = session.get(ServerKeyRow, "cookies")
            if stored is not None:
                return stored.value
        try:
            with Session(self.engine) as session, session.begin():
                session.add(ServerKeyRow(name="cookies", value=secrets.token_urlsafe(32)))
        except IntegrityError:  # another process stored one first
            pass
        with Session(self.engine) as session:
            stored = session.get(ServerKeyRow, "cookies")
            assert stored is not None
            return stored.value

    def create_guest(self) -> tuple[Identity, str]:
        """A new guest with its first session; returns it and the session's secret."""
        player = PlayerRow(id=secrets.token_hex(8), name=guest_name())
        with Session(self.engine) as session, session.begin():
            session.add(player)
            session.flush()
            secret = self._new_session(session, player.id)
            return Identity(player.id, player.name, None, _hash(secret)), secret

    @staticmethod
    def _new_session(session: Session, player_id: str) -> str:
        secret = secrets.token_urlsafe(32)
        session.add(SessionRow(token_hash=_hash(secret), player_id=player_id))
        return secret

    def identity(self, secret: str) -> Identity | None:
        """The identity of a session's secret, if the session still exists."""
        token_hash = _hash(secret)
        with Session(self.engine) as session:
            row = session.execute(
                select(PlayerRow.id, PlayerRow.name, PlayerRow.username)
                .join(SessionRow, SessionRow.player_id == PlayerRow.id)
                .where(SessionRow.token_hash == token_hash)
            ).one_or_none()
        return None if row is None else Identity(row.id, row.name, row.username, token_hash)

    def rename(self, session: Session, player_id: str, name: str, per_week: int) -> bool:
        """Give ``player_id`` the display name ``name`` (already :func:`display_name`'s) in the caller's
        transaction (``session``: the one that renames its seats too, ``Store.rename_player``); whether it changed
        (the same name, in the same case, is no change and is not counted). :class:`NameTaken` when another account
        holds it or one that looks like it; :class:`TooManyRenames` past ``per_week`` changes in seven days (the
        first change of all, away from a guest's random name, is free). Each change is kept (``name_changes``)."""
        query = select(PlayerRow).where(PlayerRow.id == player_id)
        if self.engine.dialect.name != "sqlite":
            query = query.with_for_update()  # two renames at once count each other
        player = session.scalars(query).one()
        if player.name == name:
            return False
        self._check_free(session, player_id, name)
        changes = select(NameChangeRow.id).where(NameChangeRow.player_id == player_id)
        first = session.scalar(changes.order_by(NameChangeRow.id).limit(1))
        if first is not None:
            recent = session.scalar(
                select(func.count()).where(
                    NameChangeRow.player_id == player_id,
                    NameChangeRow.id != first,
                    NameChangeRow.changed_at >= now() - RENAME_WINDOW,
                )
            )
            if (recent or 0) >= per_week:
                raise TooManyRenames(per_week)
        session.add(NameChangeRow(player_id=player_id, old_name=player.name, new_name=name, changed_at=now()))
        player.name = name
        if player.username is not None:
            player.name_skeleton = skeleton(name)
        try:
            session.flush()
        except IntegrityError:  # another account took it at the same moment
            raise NameTaken from None
        return True

    @staticmethod
    def _check_free(session: Session, player_id: str, name: str) -> None:
        """:class:`NameTaken` when an account other than ``player_id`` holds ``name`` or one that looks like it."""
        taken = session.scalar(
            select(func.count()).where(PlayerRow.name_skeleton == skeleton(name), PlayerRow.id != player_id)
        )
        if taken:
            raise NameTaken

    def password_hash_of(self, username: str) -> tuple[str, str] | None:
        """An account's id and password hash, by username (any case)."""
        with Session(self.engine) as session:
            row = session.execute(
                select(PlayerRow.id, PlayerRow.password_hash).where(PlayerRow.username == username.lower())
            ).one_or_none()
        return None if row is None or row.password_hash is None else (row.id, row.password_hash)

    def account_ids(self, usernames: list[str]) -> list[str]:
        """The ids of the accounts of ``usernames`` (any case; unknown ones left out)."""
        with Session(self.engine) as session:
            lowered = [name.lower() for name in usernames]
            return list(session.scalars(select(PlayerRow.id).where(PlayerRow.username.in_(lowered))))

    def register(self, player_id: str, username: str, password_hash: str) -> None:
        """Make a guest an account (its games stay its own), its display name now unique among accounts.
        :class:`KeyError` when the username is taken, :class:`NameTaken` when another account has the name."""
        try:
            with Session(self.engine) as session, session.begin():
                player = session.get(PlayerRow, player_id)
                assert player is not None
                taken = session.scalar(select(func.count()).where(PlayerRow.username == username.lower()))
                if taken:
                    raise KeyError(username)
                self._check_free(session, player_id, player.name)
                player.username, player.password_hash = username.lower(), password_hash
                player.name_skeleton = skeleton(player.name)
        except IntegrityError:  # registered (or the name taken) by another request at the same moment
            with Session(self.engine) as session:
                if session.scalar(select(func.count()).where(PlayerRow.username == username.lower())):
                    raise KeyError(username) from None
            raise NameTaken from None

    def set_password(self, player_id: str, password_hash: str) -> None:
        with Session(self.engine) as session, session.begin():
            player = session.get(PlayerRow, player_id)
            assert player is not None
            player.password_hash = password_hash

    def start_session(self, player_id: str, replacing: str | None = None) -> str:
        """A new session of ``player_id`` (the session ``replacing``, by hash, ends: no session survives a
        change of who is signed in, so a planted session id is worth nothing)."""
        with Session(self.engine) as session, session.begin():
            if replacing is not None:
                session.execute(delete(SessionRow).where(SessionRow.token_hash == replacing))
            return self._new_session(session, player_id)

    def end_session(self, session_hash: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(SessionRow).where(SessionRow.token_hash == session_hash))

    def prune_guests(self, unused_since: datetime, limit: int = GUEST_PRUNE_BATCH) -> int:
        """Delete at most ``limit`` guests made and last seen before ``unused_since`` that nothing uses (``USES``),
        with their sessions and name changes; how many. One statement, bounded by ``limit``."""
        seen_ms = int(unused_since.timestamp() * 1000)
        unused = (
            select(PlayerRow.id)
            .where(
                PlayerRow.username.is_(None),
                PlayerRow.created_at < unused_since,
                or_(PlayerRow.seen_at.is_(None), PlayerRow.seen_at < seen_ms),
                *(~exists().where(column == PlayerRow.id) for column in USES),
            )
            .limit(limit)
        )
        with self.engine.begin() as connection:
            deleted = connection.execute(delete(PlayerRow).where(PlayerRow.id.in_(unused)))
        assert isinstance(deleted, CursorResult)
        return deleted.rowcount

    def end_all_sessions(self, player_id: str) -> int:
        with Session(self.engine) as session, session.begin():
            ended = session.execute(delete(SessionRow).where(SessionRow.player_id == player_id))
            assert isinstance(ended, CursorResult)  # a DELETE's result counts its rows
            return ended.rowcount
