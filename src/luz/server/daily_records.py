"""The daily deal's records: the server's secret for its seeds, each identity's attempts (one per day and edition,
claimed by a unique row before its table exists), their settlement, the day's scores as a histogram, the
leaderboard and how the day's players bid. Each call is one short transaction."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .db import DailyAttemptRow, DailyBidRow, DailyScoreRow, ResultRow, ServerKeyRow

PLAYING, FINISHED, ABANDONED, REVEALED = "playing", "finished", "abandoned", "revealed"
OVER = frozenset({FINISHED, ABANDONED, REVEALED})
"""An attempt in one of these is over: its player may see the day's results."""


class AlreadyPlayed(Exception):
    """The identity has had its attempt at this day's deal of this edition."""


@dataclass(frozen=True)
class Attempt:
    """One attempt as stored."""

    id: int
    day: str
    edition: str
    player_id: str
    name: str
    guest: bool
    table_id: str | None
    status: str
    score: int | None
    marks: list[str]

    def to_json(self) -> dict[str, Any]:
        """As its own player sees it (``table_id`` opens it again while it is played)."""
        return {
            "day": self.day,
            "edition": self.edition,
            "status": self.status,
            "table_id": self.table_id,
            "score": self.score,
            "marks": self.marks,
        }


class Entry(NamedTuple):
    """A player listed in a day's results."""

    name: str
    score: int
    table_id: str | None


@dataclass(frozen=True)
class Board:
    """A day's results of one edition as stored."""

    histogram: list[tuple[int, int]]
    """The ranked scores as ``(score, players)``, best first."""
    leaders: list[Entry]
    guests: list[Entry]
    bids: list[dict[str, Any]]


def _attempt(row: DailyAttemptRow) -> Attempt:
    marks = row.marks.split(",") if row.marks else []
    return Attempt(
        row.id, row.day, row.edition, row.player_id, row.name, row.guest, row.table_id, row.status, row.score, marks
    )


class DailyRecords:
    """The daily deal's rows in the database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def secret(self) -> bytes:
        """The key of the daily seeds: stored once for every process, never sent to anyone."""
        with Session(self.engine) as session:
            stored = session.get(ServerKeyRow, "daily")
            if stored is not None:
                return stored.value.encode()
        try:
            with Session(self.engine) as session, session.begin():
                session.add(ServerKeyRow(name="daily", value=secrets.token_urlsafe(32)))
        except IntegrityError:  # another process stored one first
            pass
        with Session(self.engine) as session:
            stored = session.get(ServerKeyRow, "daily")
            assert stored is not None
            return stored.value.encode()

    def claim(self, day: str, edition: str, player_id: str, name: str, guest: bool, now: float, status: str) -> int:
        """Claim the identity's one attempt at the day's deal (``playing``, or ``revealed``: given up to see the
        results); ``AlreadyPlayed`` if it had it."""
        try:
            with Session(self.engine) as session, session.begin():
                row = DailyAttemptRow(
                    day=day,
                    edition=edition,
                    player_id=player_id,
                    name=name[:40],
                    guest=guest,
                    status=status,
                    started_at=now,
                )
                session.add(row)
                session.flush()
                return row.id
        except IntegrityError:
            raise AlreadyPlayed(f"you have had your attempt at today's {edition} deal: come back tomorrow") from None

    def set_table(self, attempt_id: int, table_id: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(update(DailyAttemptRow).where(DailyAttemptRow.id == attempt_id).values(table_id=table_id))

    def attempt(self, day: str, edition: str, player_id: str) -> Attempt | None:
        with Session(self.engine) as session:
            row = session.scalars(
                select(DailyAttemptRow).where(
                    DailyAttemptRow.day == day,
                    DailyAttemptRow.edition == edition,
                    DailyAttemptRow.player_id == player_id,
                )
            ).one_or_none()
            return _attempt(row) if row is not None else None

    def history(self, player_id: str, limit: int) -> list[Attempt]:
        """The identity's newest ``limit`` attempts, newest day first."""
        with Session(self.engine) as session:
            rows = session.scalars(
                select(DailyAttemptRow)
                .where(DailyAttemptRow.player_id == player_id)
                .order_by(DailyAttemptRow.day.desc(), DailyAttemptRow.edition)
                .limit(limit)
            ).all()
            return [_attempt(row) for row in rows]

    def days_played(self, player_id: str) -> list[str]:
        """The days on which the identity played a daily (an attempt given up before playing does not count)."""
        with Session(self.engine) as session:
            rows = session.scalars(
                select(DailyAttemptRow.day)
                .where(DailyAttemptRow.player_id == player_id, DailyAttemptRow.status != REVEALED)
                .distinct()
            ).all()
            return list(rows)

    def unsettled(self, before: str) -> list[Attempt]:
        """Attempts still being played from days before ``before``."""
        with Session(self.engine) as session:
            rows = session.scalars(
                select(DailyAttemptRow).where(DailyAttemptRow.status == PLAYING, DailyAttemptRow.day < before)
            ).all()
            return [_attempt(row) for row in rows]

    def left(self, table_id: str, seat: int) -> bool:
        """Whether a bot was playing ``seat`` at the end of the table's first game (its player had left)."""
        with Session(self.engine) as session:
            result = session.get(ResultRow, (table_id, 1, seat))
            return result is not None and result.abandoned

    def give_up(self, attempt_id: int) -> None:
        """An attempt being played, given up to see the results: over, never ranked."""
        self._close(attempt_id, REVEALED)

    def abandon(self, attempt_id: int) -> None:
        """An attempt not finished when its day ended: played, never ranked."""
        self._close(attempt_id, ABANDONED)

    def _close(self, attempt_id: int, status: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(
                update(DailyAttemptRow)
                .where(DailyAttemptRow.id == attempt_id, DailyAttemptRow.status == PLAYING)
                .values(status=status)
            )

    def finish(self, attempt: Attempt, score: int, marks: list[str], bids: list[tuple[int, bool]]) -> bool:
        """Settle a finished attempt: its score and marks (ranked if an account's: its score counted among the
        day's), each deal's bid counted among the day's; ``False`` if it was settled already."""
        with Session(self.engine) as session, session.begin():
            done = session.execute(
                update(DailyAttemptRow)
                .where(DailyAttemptRow.id == attempt.id, DailyAttemptRow.status == PLAYING)
                .values(status=FINISHED, score=score, marks=",".join(marks), ranked=not attempt.guest)
            )
            if done.rowcount != 1:  # type: ignore[attr-defined]
                return False
            insert = pg_insert if self.engine.dialect.name == "postgresql" else sqlite_insert
            key = {"day": attempt.day, "edition": attempt.edition}
            counted: list[tuple[type[DailyBidRow] | type[DailyScoreRow], dict[str, Any]]] = [
                (DailyBidRow, {**key, "deal": deal, "bid": bid, "safety": safety})
                for deal, (bid, safety) in enumerate(bids, start=1)
            ]
            if not attempt.guest:
                counted.append((DailyScoreRow, {**key, "score": score}))
            for row, values in counted:
                statement = insert(row).values(**values, players=1)
                session.execute(
                    statement.on_conflict_do_update(index_elements=list(values), set_={"players": row.players + 1})
                )
            return True

    def board(self, day: str, edition: str, leaders: int, guests: int) -> Board:
        """A day's results of ``edition`` in one read: its ranked scores, its best ``leaders``, some ``guests``
        and its bids (plain rows, no ORM objects: it is the page every player opens once done)."""
        with self.engine.connect() as connection:
            return Board(
                self._histogram(connection, day, edition),
                self._leaders(connection, day, edition, leaders),
                self._guests(connection, day, edition, guests),
                self._bids(connection, day, edition),
            )

    def histogram(self, day: str, edition: str) -> list[tuple[int, int]]:
        with self.engine.connect() as connection:
            return self._histogram(connection, day, edition)

    @staticmethod
    def _histogram(connection: Connection, day: str, edition: str) -> list[tuple[int, int]]:
        """The day's ranked scores as ``(score, players)``, best first (counted as each attempt is settled)."""
        rows = connection.execute(
            select(DailyScoreRow.score, DailyScoreRow.players)
            .where(DailyScoreRow.day == day, DailyScoreRow.edition == edition)
            .order_by(DailyScoreRow.score.desc())
        ).all()
        return [(int(score), int(count)) for score, count in rows]

    @staticmethod
    def _leaders(connection: Connection, day: str, edition: str, limit: int) -> list[Entry]:
        """The day's best ranked attempts (the index ``daily_board`` answers it)."""
        rows = connection.execute(
            select(DailyAttemptRow.name, DailyAttemptRow.score, DailyAttemptRow.table_id)
            .where(DailyAttemptRow.day == day, DailyAttemptRow.edition == edition, DailyAttemptRow.ranked)
            .order_by(DailyAttemptRow.score.desc(), DailyAttemptRow.id.desc())
            .limit(limit)
        ).all()
        return [Entry(name, score or 0, table_id) for name, score, table_id in rows]

    @staticmethod
    def _guests(connection: Connection, day: str, edition: str, limit: int) -> list[Entry]:
        """Some of the day's guests who finished (listed, never ranked)."""
        rows = connection.execute(
            select(DailyAttemptRow.name, DailyAttemptRow.score, DailyAttemptRow.table_id)
            .where(
                DailyAttemptRow.day == day,
                DailyAttemptRow.edition == edition,
                DailyAttemptRow.ranked.is_(False),  # guests are never ranked: the index daily_board answers it
                DailyAttemptRow.status == FINISHED,
                DailyAttemptRow.guest,
            )
            .order_by(DailyAttemptRow.score.desc(), DailyAttemptRow.id.desc())
            .limit(limit)
        ).all()
        return [Entry(name, score or 0, table_id) for name, score, table_id in rows]

    @staticmethod
    def _bids(connection: Connection, day: str, edition: str) -> list[dict[str, Any]]:
        """How the day's players bid each deal: ``{"deal", "bid", "safety", "players"}`` rows."""
        rows = connection.execute(
            select(DailyBidRow.deal, DailyBidRow.bid, DailyBidRow.safety, DailyBidRow.players)
            .where(DailyBidRow.day == day, DailyBidRow.edition == edition)
            .order_by(DailyBidRow.deal, DailyBidRow.bid, DailyBidRow.safety)
        ).all()
        return [{"deal": deal, "bid": bid, "safety": safety, "players": n} for deal, bid, safety, n in rows]
