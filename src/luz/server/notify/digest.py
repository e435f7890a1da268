"""The email digest as a notification channel: a turn of a player with a verified address marks their digest
pending; each scan sends the digests due, at most one an hour per player, listing every game where it is their turn
(with a one-click unsubscribe link)."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from ..db import PlayerRow, SeatRow, TableRow
from ..domain import SeatKind, Status
from .channel import ChannelContext, Notice, Outcome
from .mail import Mailer, Tokens, TurnGame, digest_email
from .preferences import Recipient

HOUR_MS = 3600 * 1000
DIGEST_EVERY_MS = HOUR_MS
"""At most one digest an hour per player."""
BATCH = 100
"""Players taken per scan."""
GAMES_LISTED = 50


class DigestChannel:
    name = "mail"

    def __init__(self, engine: Engine, mailer: Mailer, tokens: Tokens, base_url: str, batch: int = BATCH) -> None:
        self.engine = engine
        self.mailer = mailer
        self.tokens = tokens
        self.base_url = base_url
        self.batch = batch

    @classmethod
    def build(cls, context: ChannelContext) -> DigestChannel:
        return cls(context.engine, context.mailer, context.tokens, context.base_url)

    def wants(self, player: Recipient, notice: Notice) -> bool:
        return notice.kind in ("turn", "round") and player.mailable and self.mailer.configured

    async def tell(self, player: Recipient, notice: Notice, now_ms: int) -> Outcome:
        await asyncio.to_thread(self._mark_pending, player.id)
        return Outcome(delivered=1)  # in the next digest due

    async def sweep(self, now: int) -> Outcome:
        """Send the digests due (none without an SMTP server)."""
        outcome = Outcome()
        if not self.mailer.configured:
            return outcome
        for recipient in await asyncio.to_thread(self._digests_due, now):
            if recipient.quiet_until(now) is not None:
                continue
            games = await asyncio.to_thread(self._turn_games, recipient.id)
            if not await asyncio.to_thread(self._claim_digest, recipient.id, now, bool(games)) or not games:
                continue
            assert recipient.email is not None
            message = digest_email(
                self.mailer, self.tokens, self.base_url, recipient.id, recipient.email, recipient.language, games, now
            )
            if await self.mailer.send(message, recipient.email):
                outcome["digest"] += 1
            else:
                outcome["failed"] += 1
                await asyncio.to_thread(self._mark_pending, recipient.id)  # again after the hour
        return outcome

    async def start(self) -> None:
        """Nothing to open: each email connects on its own (aiosmtplib)."""

    async def close(self) -> None:
        """Nothing held between emails."""

    def _mark_pending(self, player_id: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(email_pending=True))

    def _digests_due(self, now_ms: int) -> list[Recipient]:
        query = (
            select(PlayerRow)
            .where(
                PlayerRow.email_pending,
                PlayerRow.email_verified,
                PlayerRow.email_on,
                PlayerRow.email.is_not(None),
                PlayerRow.username.is_not(None),
                or_(PlayerRow.emailed_at.is_(None), PlayerRow.emailed_at <= now_ms - DIGEST_EVERY_MS),
            )
            .order_by(PlayerRow.emailed_at)
            .limit(self.batch)
        )
        with Session(self.engine) as session:
            return [Recipient.of(row) for row in session.scalars(query)]

    def _turn_games(self, player_id: str) -> list[TurnGame]:
        query = (
            select(TableRow.id, TableRow.name, TableRow.deadline)
            .join(SeatRow, and_(SeatRow.table_id == TableRow.id, SeatRow.seat == TableRow.to_move))
            .where(
                SeatRow.player_id == player_id,
                SeatRow.kind == SeatKind.HUMAN,
                TableRow.status == Status.PLAYING,
                TableRow.turn_based,
            )
            .order_by(TableRow.deadline, TableRow.id)
            .limit(GAMES_LISTED)
        )
        with Session(self.engine) as session:
            return [TurnGame(*row) for row in session.execute(query)]

    def _claim_digest(self, player_id: str, now_ms: int, games: bool) -> bool:
        """Take a player's pending digest (and, when there are games to list, stamp it sent now)."""
        values: dict[str, Any] = {"email_pending": False} | ({"emailed_at": now_ms} if games else {})
        statement = (
            update(PlayerRow)
            .where(
                PlayerRow.id == player_id,
                PlayerRow.email_pending,
                or_(PlayerRow.emailed_at.is_(None), PlayerRow.emailed_at <= now_ms - DIGEST_EVERY_MS),
            )
            .values(**values)
        )
        with Session(self.engine) as session, session.begin():
            return bool(session.execute(statement).rowcount)  # type: ignore[attr-defined]
