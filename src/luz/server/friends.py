"""Friends in the database: follows, blocks, presence (``seen_at``) and invitations to an open seat
(``api/friends.py`` is the HTTP side).

- Following is for accounts: an account follows other accounts (at most :data:`MOST_FOLLOWED`); its friends are
  those it follows. Following needs no consent, so presence does: whether a friend is online, when they were
  last seen (to :data:`SEEN_STEP_MS`) and the public table they sit at are shown only to those they follow back.
- Blocking is for every identity (a guest, too, may be bothered in a chat): the blocked player cannot invite the
  blocker, their chat is hidden to the blocker, and the two are never seated together at a public table (private
  tables reached by an invite link are exempt). A block ends the follows between the two, both ways.
- Presence: an identity with a page open is seen at most once a minute (per process, and a conditional update
  across processes); it is online while seen within :data:`ONLINE_MS`.
- An invitation lets its invitee take that seat without its token (``store.join``) for :data:`INVITATION_MS`,
  while the table waits and its inviter still sits there: otherwise it is withdrawn (its invitee's pages drop it).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, exists, func, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from .db import BlockRow, FollowRow, InvitationRow, PlayerRow, SeatRow, TableRow, now
from .domain import SeatKind, Status

MOST_FOLLOWED = 500
"""The most players one account follows."""
MOST_BLOCKED = 500
"""Players one identity may block (each of its connections keeps the set, to hide their chat)."""
SEEN_EVERY_MS = 60_000
"""An identity's ``seen_at`` is written at most this often."""
ONLINE_MS = 180_000
"""Seen within this long: online (an open page's event stream is seen every minute)."""
SEEN_STEP_MS = 15 * 60_000
"""A friend's last visit is shown to the quarter of an hour it began (never to the minute)."""
INVITATION_MS = 30 * 60_000
"""How long an invitation admits its invitee."""


def epoch_ms() -> int:
    return int(now().timestamp() * 1000)


class Blocked(PermissionError):
    """A seat refused at a public table: the joiner blocked, or is blocked by, someone seated there."""

    code = "blocked"

    def __init__(self) -> None:
        super().__init__("you cannot sit at this public table: you and a player seated there have blocked one another")


# -- what store.join asks, in its transaction ---------------------------------------------------------------------


def invited(session: Session, table_id: str, seat: int, player_id: str) -> bool:
    """Whether ``player_id`` holds a live invitation to ``seat`` of ``table_id`` (its inviter still seated)."""
    since = now() - timedelta(milliseconds=INVITATION_MS)
    found = session.scalar(
        select(func.count())
        .select_from(InvitationRow)
        .where(
            InvitationRow.table_id == table_id,
            InvitationRow.seat == seat,
            InvitationRow.player_id == player_id,
            InvitationRow.created_at >= since,
            _inviter_seated(),
        )
    )
    return bool(found)


def _inviter_seated() -> Any:
    """An invitation's inviter still holds a seat at its table (one who left withdrew their invitations)."""
    inviter_seat = SeatRow.__table__.alias("inviter_seat")
    return exists().where(
        inviter_seat.c.table_id == InvitationRow.table_id,
        inviter_seat.c.player_id == InvitationRow.by_player_id,
        inviter_seat.c.joined.is_(True),
    )


def blocks_among(session: Session, player_id: str, others: list[str]) -> bool:
    """Whether ``player_id`` blocked, or is blocked by, one of ``others``."""
    if not others:
        return False
    found = session.scalar(
        select(func.count())
        .select_from(BlockRow)
        .where(
            or_(
                (BlockRow.blocker_id == player_id) & BlockRow.blocked_id.in_(others),
                (BlockRow.blocked_id == player_id) & BlockRow.blocker_id.in_(others),
            )
        )
    )
    return bool(found)


def seat_taken(session: Session, table_id: str, seat: int) -> None:
    """A seat was taken: its invitations are spent."""
    session.execute(delete(InvitationRow).where(InvitationRow.table_id == table_id, InvitationRow.seat == seat))


# -- follows, blocks, presence, invitations -----------------------------------------------------------------------


class Refusal(Exception):
    """A friends' request refused: an HTTP status, a typed code and what to say."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail


class Friends:
    """Follows, blocks, presence and invitations (each call one short transaction)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.seen_here: dict[str, int] = {}
        """When this process last wrote each identity's ``seen_at`` (epoch ms)."""

    # -- presence

    def must_see(self, player_id: str, at: int) -> bool:
        """Whether ``player_id``'s presence is due to be written (at most once a minute from this process)."""
        return at - self.seen_here.get(player_id, 0) >= SEEN_EVERY_MS

    def due(self, player_id: str) -> bool:
        """Whether this process is to write ``player_id``'s presence now (else :meth:`seen` would do nothing)."""
        return self.must_see(player_id, epoch_ms())

    def seen(self, player_id: str) -> None:
        """``player_id`` has a page open now: its ``seen_at``, written at most once a minute by any process."""
        at = epoch_ms()
        if not self.must_see(player_id, at):
            return
        if len(self.seen_here) > 100_000:
            self.seen_here.clear()
        self.seen_here[player_id] = at
        with Session(self.engine) as session, session.begin():
            session.execute(
                update(PlayerRow)
                .where(
                    PlayerRow.id == player_id,
                    or_(PlayerRow.seen_at.is_(None), PlayerRow.seen_at <= at - SEEN_EVERY_MS),
                )
                .values(seen_at=at)
            )

    # -- follows

    def follow(self, follower: str, followee: str) -> None:
        """``follower`` follows ``followee`` (both accounts); a :class:`Refusal` otherwise."""
        if follower == followee:
            raise Refusal(409, "self", "you cannot follow yourself")
        with Session(self.engine) as session, session.begin():
            target = session.get(PlayerRow, followee)
            if target is None:
                raise Refusal(404, "no_player", "no such player")
            if target.username is None:
                raise Refusal(409, "guest", "a guest cannot be followed: only accounts can")
            if session.get(FollowRow, (follower, followee)) is not None:
                return
            if _blocked_either(session, follower, followee):
                raise Refusal(403, "blocked", "you cannot follow this player")
            count = session.scalar(select(func.count()).where(FollowRow.follower_id == follower)) or 0
            if count >= MOST_FOLLOWED:
                raise Refusal(409, "too_many", f"you follow {MOST_FOLLOWED} players, the most: unfollow one first")
            session.add(FollowRow(follower_id=follower, followee_id=followee))

    def unfollow(self, follower: str, followee: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(
                delete(FollowRow).where(FollowRow.follower_id == follower, FollowRow.followee_id == followee)
            )

    def relation(self, player_id: str, other: str) -> dict[str, bool]:
        """What ``player_id`` is to ``other``: following them, followed by them, blocking them."""
        with Session(self.engine) as session:
            return {
                "following": session.get(FollowRow, (player_id, other)) is not None,
                "follower": session.get(FollowRow, (other, player_id)) is not None,
                "blocked": session.get(BlockRow, (player_id, other)) is not None,
            }

    # -- blocks

    def block(self, blocker: str, blocked: str) -> None:
        """``blocker`` blocks ``blocked``: the follows between them end, both ways, and so do their invitations."""
        if blocker == blocked:
            raise Refusal(409, "self", "you cannot block yourself")
        with Session(self.engine) as session, session.begin():
            if session.get(PlayerRow, blocked) is None:
                raise Refusal(404, "no_player", "no such player")
            if session.get(BlockRow, (blocker, blocked)) is None:
                count = session.scalar(select(func.count()).where(BlockRow.blocker_id == blocker)) or 0
                if count >= MOST_BLOCKED:
                    raise Refusal(409, "too_many", f"you block {MOST_BLOCKED} players, the most: unblock one first")
                session.add(BlockRow(blocker_id=blocker, blocked_id=blocked))
            pair = [(blocker, blocked), (blocked, blocker)]
            for one, other in pair:
                session.execute(delete(FollowRow).where(FollowRow.follower_id == one, FollowRow.followee_id == other))
                session.execute(
                    delete(InvitationRow).where(InvitationRow.by_player_id == one, InvitationRow.player_id == other)
                )

    def unblock(self, blocker: str, blocked: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(delete(BlockRow).where(BlockRow.blocker_id == blocker, BlockRow.blocked_id == blocked))

    def blocked_by(self, player_id: str) -> frozenset[str]:
        """The identities ``player_id`` blocked (their chat is hidden to it)."""
        with Session(self.engine) as session:
            return frozenset(session.scalars(select(BlockRow.blocked_id).where(BlockRow.blocker_id == player_id)))

    # -- the friends page

    def friends_of(self, player_id: str) -> dict[str, Any]:
        """Those ``player_id`` follows (``mutual``: they follow it back; then only, whether they are online, when
        last seen and the public table each sits at), those following it, those it blocked, and the open seats of
        the tables it sits at (where it may invite a friend)."""
        at = epoch_ms()
        with Session(self.engine) as session:
            following = session.execute(
                select(PlayerRow.id, PlayerRow.name, PlayerRow.seen_at)
                .join(FollowRow, FollowRow.followee_id == PlayerRow.id)
                .where(FollowRow.follower_id == player_id)
                .order_by(func.lower(PlayerRow.name))
            ).all()
            followed = {row.id for row in following}
            followers = session.execute(
                select(PlayerRow.id, PlayerRow.name)
                .join(FollowRow, FollowRow.follower_id == PlayerRow.id)
                .where(FollowRow.followee_id == player_id)
                .order_by(func.lower(PlayerRow.name))
            ).all()
            blocked = session.execute(
                select(PlayerRow.id, PlayerRow.name)
                .join(BlockRow, BlockRow.blocked_id == PlayerRow.id)
                .where(BlockRow.blocker_id == player_id)
                .order_by(func.lower(PlayerRow.name))
            ).all()
            followers_ids = {row.id for row in followers}
            mutual = followed & followers_ids
            at_tables = _public_tables_of(session, list(mutual))
            invited = {
                (row.table_id, row.seat, row.player_id)
                for row in session.execute(
                    select(InvitationRow.table_id, InvitationRow.seat, InvitationRow.player_id).where(
                        InvitationRow.by_player_id == player_id,
                        InvitationRow.created_at >= now() - timedelta(milliseconds=INVITATION_MS),
                    )
                )
            }
            seats = _open_seats_of(session, player_id)
        return {
            "following": [
                {
                    "id": row.id,
                    "name": row.name,
                    "mutual": row.id in mutual,
                    **_presence(row.seen_at, at, at_tables.get(row.id), shown=row.id in mutual),
                    "invited": [{"table": t, "seat": s} for t, s, p in sorted(invited) if p == row.id],
                }
                for row in following
            ],
            "followers": [{"id": r.id, "name": r.name, "followed": r.id in followed} for r in followers],
            "blocked": [{"id": r.id, "name": r.name} for r in blocked],
            "open_seats": seats,
            "most_followed": MOST_FOLLOWED,
        }

    # -- invitations

    def invite(self, inviter: str, table_id: str, seat: int, invitee: str) -> dict[str, Any]:
        """Store ``inviter``'s invitation of ``invitee`` to ``seat`` of ``table_id``; the invitation as the
        invitee's pages show it. A :class:`Refusal` unless the inviter sits at the table, the seat is open, the
        inviter follows the invitee and neither blocked the other."""
        with Session(self.engine) as session, session.begin():
            table = session.get(TableRow, table_id)
            if table is None:
                raise Refusal(404, "no_table", "no such table")
            seats = session.scalars(select(SeatRow).where(SeatRow.table_id == table_id)).all()
            if not any(s.player_id == inviter and s.joined for s in seats):
                raise Refusal(403, "not_seated", "only a player seated at this table may invite to it")
            if any(s.player_id == invitee for s in seats):
                raise Refusal(409, "seated", "this player holds a seat at this table already")
            target = next((s for s in seats if s.seat == seat), None)
            if target is None or target.kind != SeatKind.HUMAN:
                raise Refusal(404, "no_seat", "there is no human seat with that number")
            if table.status != Status.WAITING or target.joined or target.player_id is not None:
                raise Refusal(409, "seat_taken", "this seat is taken: invite to an open seat")
            if session.get(FollowRow, (inviter, invitee)) is None:
                raise Refusal(403, "not_following", "you may invite only a player you follow")
            if _blocked_either(session, inviter, invitee):
                raise Refusal(403, "blocked", "you cannot invite this player")
            session.execute(
                delete(InvitationRow).where(
                    InvitationRow.table_id == table_id, InvitationRow.seat == seat, InvitationRow.player_id == invitee
                )
            )
            session.add(InvitationRow(table_id=table_id, seat=seat, player_id=invitee, by_player_id=inviter))
            session.flush()
            found = self._invitations(session, invitee, table_id)
        return found[0]

    def invitations_of(self, player_id: str) -> list[dict[str, Any]]:
        """``player_id``'s live invitations to seats still open of tables still waiting, their inviters still
        seated there, newest first."""
        with Session(self.engine) as session:
            return self._invitations(session, player_id)

    @staticmethod
    def _invitations(session: Session, player_id: str, table_id: str | None = None) -> list[dict[str, Any]]:
        inviter = PlayerRow.__table__.alias("inviter")
        query = (
            select(InvitationRow, TableRow.name, TableRow.time_control, inviter.c.name.label("by_name"))
            .join(TableRow, TableRow.id == InvitationRow.table_id)
            .join(inviter, inviter.c.id == InvitationRow.by_player_id)
            .join(SeatRow, (SeatRow.table_id == InvitationRow.table_id) & (SeatRow.seat == InvitationRow.seat))
            .where(
                InvitationRow.player_id == player_id,
                InvitationRow.created_at >= now() - timedelta(milliseconds=INVITATION_MS),
                TableRow.status == Status.WAITING,
                SeatRow.joined.is_(False),
                SeatRow.player_id.is_(None),
                _inviter_seated(),
            )
            .order_by(InvitationRow.created_at.desc())
        )
        if table_id is not None:
            query = query.where(InvitationRow.table_id == table_id)
        return [
            {
                "table": row.InvitationRow.table_id,
                "name": row.name,
                "time_control": row.time_control,
                "seat": row.InvitationRow.seat,
                "by": {"id": row.InvitationRow.by_player_id, "name": row.by_name},
                "at": row.InvitationRow.created_at.isoformat(),
            }
            for row in session.execute(query)
        ]

    def invitees(self, table_id: str) -> list[str]:
        """The players invited to a seat of ``table_id`` (to tell their pages when an invitation is withdrawn)."""
        with Session(self.engine) as session:
            return list(session.scalars(select(InvitationRow.player_id).where(InvitationRow.table_id == table_id)))

    def decline(self, player_id: str, table_id: str, seat: int) -> bool:
        """``player_id`` declines (or dismisses) its invitation to ``seat`` of ``table_id``; whether it had one."""
        with Session(self.engine) as session, session.begin():
            gone = session.execute(
                delete(InvitationRow).where(
                    InvitationRow.player_id == player_id, InvitationRow.table_id == table_id, InvitationRow.seat == seat
                )
            )
            return bool(gone.rowcount)  # type: ignore[attr-defined]


def _presence(seen_at: int | None, at: int, table: dict[str, Any] | None, shown: bool) -> dict[str, Any]:
    """A friend's presence as their follower sees it: nothing unless ``shown`` (they follow back); the last
    visit to :data:`SEEN_STEP_MS`."""
    if not shown:
        return {"online": None, "seen_at": None, "table": None}
    return {
        "online": seen_at is not None and at - seen_at <= ONLINE_MS,
        "seen_at": None if seen_at is None else seen_at - seen_at % SEEN_STEP_MS,
        "table": table,
    }


def _blocked_either(session: Session, one: str, other: str) -> bool:
    return session.get(BlockRow, (one, other)) is not None or session.get(BlockRow, (other, one)) is not None


def _public_tables_of(session: Session, players: list[str]) -> dict[str, dict[str, Any]]:
    """The public table each of ``players`` sits at (playing rather than waiting, the newest), if any."""
    if not players:
        return {}
    rows = session.execute(
        select(SeatRow.player_id, TableRow.id, TableRow.name, TableRow.status, TableRow.created_at)
        .join(TableRow, TableRow.id == SeatRow.table_id)
        .where(
            SeatRow.player_id.in_(players),
            SeatRow.joined.is_(True),
            TableRow.public.is_(True),
            TableRow.status != Status.OVER,
        )
    ).all()
    found: dict[str, dict[str, Any]] = {}
    for row in sorted(rows, key=lambda r: (r.status == Status.PLAYING, r.created_at)):
        found[row.player_id] = {"id": row.id, "name": row.name, "status": row.status}
    return found


def _open_seats_of(session: Session, player_id: str) -> list[dict[str, Any]]:
    """The open human seats of the waiting tables where ``player_id`` sits, and whether each table is rated (a
    friend from the inviter's address makes it unrated: store.join)."""
    mine = select(SeatRow.table_id).where(SeatRow.player_id == player_id, SeatRow.joined.is_(True))
    rows = session.execute(
        select(SeatRow.table_id, SeatRow.seat, TableRow.name, TableRow.rated)
        .join(TableRow, TableRow.id == SeatRow.table_id)
        .where(
            SeatRow.table_id.in_(mine),
            TableRow.status == Status.WAITING,
            SeatRow.kind == SeatKind.HUMAN,
            SeatRow.joined.is_(False),
            SeatRow.player_id.is_(None),
        )
        .order_by(TableRow.created_at.desc(), SeatRow.seat)
    ).all()
    return [{"table": r.table_id, "name": r.name, "seat": r.seat, "rated": r.rated} for r in rows]
