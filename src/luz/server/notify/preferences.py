"""What each player is told of and how, in the database (``players``' notification columns), and quiet hours."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from ..db import PlayerRow

CHANGEABLE = ("push_on", "email_on", "quiet_start", "quiet_end", "timezone", "language")


@dataclass(frozen=True)
class Recipient:
    """A player's notification settings."""

    id: str
    username: str | None
    push_on: bool
    email: str | None
    email_verified: bool
    email_on: bool
    quiet_start: int | None
    quiet_end: int | None
    timezone: str
    language: str
    email_pending: bool
    emailed_at: int | None

    @classmethod
    def of(cls, row: PlayerRow) -> Recipient:
        return cls(
            row.id,
            row.username,
            row.push_on,
            row.email,
            row.email_verified,
            row.email_on,
            row.quiet_start,
            row.quiet_end,
            row.timezone,
            row.language,
            row.email_pending,
            row.emailed_at,
        )

    @property
    def mailable(self) -> bool:
        """Whether the digest may be sent: an account's verified address, email turned on."""
        return self.username is not None and self.email is not None and self.email_verified and self.email_on

    def quiet_until(self, now_ms: int) -> int | None:
        """The end of the quiet hours (epoch ms) when ``now_ms`` is in them, else ``None``."""
        return quiet_until(now_ms, self.timezone, self.quiet_start, self.quiet_end)


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def quiet_until(now_ms: int, timezone: str, start: int | None, end: int | None) -> int | None:
    """The end of quiet hours from minute ``start`` to minute ``end`` of the day in ``timezone`` (across midnight
    when ``start > end``), if ``now_ms`` falls in them."""
    if start is None or end is None or start == end:
        return None
    local = datetime.fromtimestamp(now_ms / 1000, zone(timezone))
    minute = local.hour * 60 + local.minute
    inside = start <= minute < end if start < end else minute >= start or minute < end
    if not inside:
        return None
    ends = local.replace(hour=end // 60, minute=end % 60, second=0, microsecond=0)
    if ends <= local:
        ends = (ends.replace(tzinfo=None) + timedelta(days=1)).replace(tzinfo=local.tzinfo)
    return int(ends.timestamp() * 1000)


class Preferences:
    """The players' notification settings (each call one short transaction)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def of(self, player_id: str) -> Recipient | None:
        with Session(self.engine) as session:
            row = session.get(PlayerRow, player_id)
            return Recipient.of(row) if row is not None else None

    def change(self, player_id: str, **changes: Any) -> None:
        """Set some of :data:`CHANGEABLE`."""
        assert set(changes) <= set(CHANGEABLE), changes
        if changes:
            with Session(self.engine) as session, session.begin():
                session.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(**changes))

    def set_email(self, player_id: str, address: str | None) -> None:
        """A new address (to be verified) or none (email off)."""
        values: dict[str, Any] = {"email": address, "email_verified": False}
        if address is None:
            values |= {"email_on": False, "email_pending": False}
        with Session(self.engine) as session, session.begin():
            session.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(**values))

    def verify(self, player_id: str, address: str) -> bool:
        """Mark ``address`` verified, if it is still the player's."""
        return self._where_address(player_id, address, email_verified=True)

    def unsubscribe(self, player_id: str, address: str) -> bool:
        """Turn email off, if ``address`` is still the player's."""
        return self._where_address(player_id, address, email_on=False, email_pending=False)

    def _where_address(self, player_id: str, address: str, **values: Any) -> bool:
        query = update(PlayerRow).where(PlayerRow.id == player_id, PlayerRow.email == address).values(**values)
        with Session(self.engine) as session, session.begin():
            return bool(session.execute(query).rowcount)  # type: ignore[attr-defined]
