"""The tournaments as stored: created, joined and left before the start, their rounds and tables, each round's
results read from the games' results (history.py) as the pure rules' entries (tournament.py). Persistence only:
a round's tables are created with the round, waiting, and started through the tables' door (tables/rounds.py)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .db import (
    PlayerRow,
    ResultRow,
    SeatRow,
    TableRow,
    TournamentPlayerRow,
    TournamentRoundRow,
    TournamentRow,
    TournamentTableRow,
)
from .domain import SeatKind, Status
from .store import NewTable, insert_tables
from .tournament import Entry

OPEN, PLAYING, OVER = "open", "playing", "over"
"""Where a tournament is: players join and leave, its rounds are played, it is over."""


class TournamentRefused(Exception):
    """A change of a tournament that its state refuses (409), with a machine-readable ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class RoundTable:
    """A round's table as stored."""

    table_no: int
    table_id: str


def utc(moment: datetime | None) -> datetime | None:
    """``moment`` with its zone (SQLite keeps none: what it stores is UTC)."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


class Tournaments:
    """The tournaments in the database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(
        self,
        *,
        name: str,
        edition: str,
        size: int,
        rounds: int,
        time_control: dict[str, int],
        rated: bool,
        starts_at: datetime | None,
        capacity: int | None,
        created_by: str | None,
    ) -> str:
        """Store a new tournament, open for players; its id."""
        tournament_id = secrets.token_hex(8)
        with Session(self.engine) as session, session.begin():
            session.add(
                TournamentRow(
                    id=tournament_id,
                    name=name,
                    edition=edition,
                    size=size,
                    rounds=rounds,
                    time_control=time_control,
                    rated=rated,
                    starts_at=starts_at,
                    capacity=capacity,
                    status=OPEN,
                    round_no=0,
                    created_by=created_by,
                )
            )
        return tournament_id

    def row(self, tournament_id: str) -> TournamentRow | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return session.get(TournamentRow, tournament_id)

    def listed(self, limit: int = 50) -> list[TournamentRow]:
        """The open and playing tournaments, then the latest over; the soonest first."""
        with Session(self.engine, expire_on_commit=False) as session:
            live = session.scalars(
                select(TournamentRow)
                .where(TournamentRow.status != OVER)
                .order_by(TournamentRow.created_at)
                .limit(limit)
            ).all()
            over = session.scalars(
                select(TournamentRow)
                .where(TournamentRow.status == OVER)
                .order_by(TournamentRow.created_at.desc())
                .limit(max(0, limit - len(live)))
            ).all()
            return [*live, *over]

    def players(self, tournament_id: str) -> list[tuple[str, str]]:
        """The players as ``(player_id, name)``, in the order of their lots (the draw)."""
        with Session(self.engine) as session:
            rows = session.execute(
                select(TournamentPlayerRow.player_id, PlayerRow.name)
                .join(PlayerRow, PlayerRow.id == TournamentPlayerRow.player_id)
                .where(TournamentPlayerRow.tournament_id == tournament_id)
                .order_by(TournamentPlayerRow.lot, TournamentPlayerRow.player_id)
            ).all()
            return [(player_id, name) for player_id, name in rows]

    def join(self, tournament_id: str, player_id: str, client: str | None, account: bool) -> None:
        """Add ``player_id`` (joining again changes nothing). :class:`TournamentRefused` once it started, when
        full, at a rated tournament for a guest (``account``: the player has one), or when another player joined
        from the same client."""
        with Session(self.engine) as session, session.begin():
            row = self._locked(session, tournament_id)
            if session.get(TournamentPlayerRow, (tournament_id, player_id)) is not None:
                return
            if row.status != OPEN:
                raise TournamentRefused("started", "the tournament has started: players join before the start")
            if row.rated and not account:
                raise TournamentRefused("account_required", "a rated tournament is for accounts: log in first")
            count = session.scalar(
                select(func.count()).select_from(TournamentPlayerRow).where(TournamentPlayerRow.tournament_id == row.id)
            )
            if row.capacity is not None and (count or 0) >= row.capacity:
                raise TournamentRefused("full", "the tournament is full")
            if client is not None and session.scalar(
                select(TournamentPlayerRow.player_id).where(
                    TournamentPlayerRow.tournament_id == tournament_id, TournamentPlayerRow.client == client
                )
            ):
                raise TournamentRefused("one_place_per_client", "another player joined from this device or network")
            session.add(
                TournamentPlayerRow(
                    tournament_id=tournament_id, player_id=player_id, client=client, lot=secrets.randbits(62)
                )
            )
            try:
                session.flush()
            except IntegrityError:  # the same client joined at the same moment
                raise TournamentRefused("one_place_per_client", "another player joined from this client") from None

    def leave(self, tournament_id: str, player_id: str) -> None:
        """Take ``player_id`` out before the start (:class:`TournamentRefused` after)."""
        with Session(self.engine) as session, session.begin():
            row = self._locked(session, tournament_id)
            if row.status != OPEN:
                raise TournamentRefused("started", "the tournament has started: its players play it to the end")
            session.execute(
                delete(TournamentPlayerRow).where(
                    TournamentPlayerRow.tournament_id == tournament_id, TournamentPlayerRow.player_id == player_id
                )
            )

    @staticmethod
    def _locked(session: Session, tournament_id: str) -> TournamentRow:
        query = select(TournamentRow).where(TournamentRow.id == tournament_id)
        if session.bind is not None and session.bind.dialect.name != "sqlite":
            query = query.with_for_update()
        row = session.scalars(query).one_or_none()
        if row is None:
            raise KeyError(tournament_id)
        return row

    def due(self, now: datetime) -> list[str]:
        """The open tournaments whose start time has come or that are full."""
        with Session(self.engine) as session:
            counts = (
                select(TournamentPlayerRow.tournament_id, func.count().label("n"))
                .group_by(TournamentPlayerRow.tournament_id)
                .subquery()
            )
            rows = session.execute(
                select(TournamentRow.id, TournamentRow.starts_at, TournamentRow.capacity, counts.c.n)
                .outerjoin(counts, counts.c.tournament_id == TournamentRow.id)
                .where(TournamentRow.status == OPEN)
            ).all()
        due = []
        for tournament_id, starts_at, capacity, count in rows:
            start = utc(starts_at)
            if (start is not None and start <= now) or (start is None and capacity is not None and count == capacity):
                due.append(tournament_id)
        return due

    def playing(self) -> list[str]:
        """The tournaments whose rounds are being played."""
        with Session(self.engine) as session:
            return list(session.scalars(select(TournamentRow.id).where(TournamentRow.status == PLAYING)))

    def claim_round(self, tournament_id: str, round_no: int, seed: int, tables: list[NewTable]) -> bool:
        """Claim round ``round_no`` and create its ``tables`` (their human seats reserved for the round's players) in
        one transaction: its seed stored, the tournament
        at that round, every table of the round waiting for its ``StartRound``. ``False`` if it was claimed already
        (by another call or process), so each round is formed once and never in part."""
        with Session(self.engine) as session, session.begin():
            row = self._locked(session, tournament_id)
            if row.round_no >= round_no or row.status == OVER:
                return False
            row.round_no, row.status = round_no, PLAYING
            session.add(TournamentRoundRow(tournament_id=tournament_id, round_no=round_no, seed=seed, over=False))
            session.flush()  # the round's row before its tables'
            made = insert_tables(session, tables)
            session.execute(
                insert(TournamentTableRow),
                [
                    {"tournament_id": tournament_id, "round_no": round_no, "table_no": table_no, "table_id": table_id}
                    for table_no, (table_id, _) in enumerate(made)
                ],
            )
            return True

    def waiting(self, tournament_id: str, round_no: int) -> tuple[int, list[str]]:
        """The round's seed and its tables still waiting for their ``StartRound`` (none once the round is under way;
        some where a process died while starting them)."""
        with Session(self.engine) as session:
            played = session.get(TournamentRoundRow, (tournament_id, round_no))
            if played is None:
                raise KeyError((tournament_id, round_no))
            waiting = session.scalars(
                select(TournamentTableRow.table_id)
                .join(TableRow, TableRow.id == TournamentTableRow.table_id)
                .where(
                    TournamentTableRow.tournament_id == tournament_id,
                    TournamentTableRow.round_no == round_no,
                    TableRow.status == Status.WAITING,
                )
                .order_by(TournamentTableRow.table_no)
            )
            return played.seed, list(waiting)

    def tables(self, tournament_id: str, round_no: int) -> list[RoundTable]:
        with Session(self.engine) as session:
            rows = session.execute(
                select(TournamentTableRow.table_no, TournamentTableRow.table_id)
                .where(TournamentTableRow.tournament_id == tournament_id, TournamentTableRow.round_no == round_no)
                .order_by(TournamentTableRow.table_no)
            ).all()
            return [RoundTable(no, table_id) for no, table_id in rows]

    def rounds(self, tournament_id: str) -> list[TournamentRoundRow]:
        with Session(self.engine, expire_on_commit=False) as session:
            return list(
                session.scalars(
                    select(TournamentRoundRow)
                    .where(TournamentRoundRow.tournament_id == tournament_id)
                    .order_by(TournamentRoundRow.round_no)
                )
            )

    def round_finished(self, tournament_id: str, round_no: int) -> bool:
        """Whether every table of the round has finished its first game (the one that counts: a rematch played
        after it changes nothing)."""
        with Session(self.engine) as session:
            tables = session.scalars(
                select(TournamentTableRow.table_id).where(
                    TournamentTableRow.tournament_id == tournament_id, TournamentTableRow.round_no == round_no
                )
            ).all()
            finished = session.scalar(
                select(func.count(func.distinct(ResultRow.table_id))).where(
                    ResultRow.table_id.in_(tables), ResultRow.game_no == 1
                )
            )
            return bool(tables) and finished == len(tables)

    def end_round(self, tournament_id: str, round_no: int, last: bool) -> bool:
        """Mark the round over (and the tournament, after its ``last``); ``False`` if it was already."""
        with Session(self.engine) as session, session.begin():
            row = self._locked(session, tournament_id)
            played = session.get(TournamentRoundRow, (tournament_id, round_no))
            if played is None or played.over:
                return False
            played.over = True
            if last:
                row.status = OVER
            return True

    def end(self, tournament_id: str) -> None:
        """End an open tournament that cannot start (too few players)."""
        with Session(self.engine) as session, session.begin():
            self._locked(session, tournament_id).status = OVER

    def entries(self, tournament_id: str) -> dict[int, list[Entry]]:
        """Each finished round's entries: who held each seat of each table and the points they made (the table's
        first game)."""
        with Session(self.engine) as session:
            rows = session.execute(
                select(
                    TournamentTableRow.round_no,
                    TournamentTableRow.table_no,
                    ResultRow.seat,
                    ResultRow.player_id,
                    ResultRow.kind,
                    ResultRow.points,
                )
                .join(ResultRow, (ResultRow.table_id == TournamentTableRow.table_id) & (ResultRow.game_no == 1))
                .join(
                    TournamentRoundRow,
                    (TournamentRoundRow.tournament_id == TournamentTableRow.tournament_id)
                    & (TournamentRoundRow.round_no == TournamentTableRow.round_no),
                )
                .where(TournamentTableRow.tournament_id == tournament_id, TournamentRoundRow.over.is_(True))
                .order_by(TournamentTableRow.round_no, TournamentTableRow.table_no, ResultRow.seat)
            ).all()
        rounds: dict[int, list[Entry]] = {}
        for round_no, table_no, seat, player_id, kind, points in rows:
            player = player_id if kind == SeatKind.HUMAN else None
            rounds.setdefault(round_no, []).append(Entry(table_no, seat, player, points))
        return rounds

    def round_of_table(self, table_id: str) -> tuple[str, int, bool] | None:
        """The tournament and round a table belongs to, and whether that round is over; ``None``: no
        tournament's."""
        with Session(self.engine) as session:
            row = session.execute(
                select(TournamentTableRow.tournament_id, TournamentTableRow.round_no, TournamentRoundRow.over)
                .join(
                    TournamentRoundRow,
                    (TournamentRoundRow.tournament_id == TournamentTableRow.tournament_id)
                    & (TournamentRoundRow.round_no == TournamentTableRow.round_no),
                )
                .where(TournamentTableRow.table_id == table_id)
            ).one_or_none()
            return None if row is None else (row[0], row[1], bool(row[2]))

    def plays_round(self, tournament_id: str, round_no: int, player_id: str) -> bool:
        """Whether ``player_id`` holds a seat at one of the round's tables."""
        with Session(self.engine) as session:
            return (
                session.scalar(
                    select(func.count())
                    .select_from(SeatRow)
                    .join(TournamentTableRow, TournamentTableRow.table_id == SeatRow.table_id)
                    .where(
                        TournamentTableRow.tournament_id == tournament_id,
                        TournamentTableRow.round_no == round_no,
                        SeatRow.player_id == player_id,
                    )
                )
                or 0
            ) > 0

    def describe(self, row: TournamentRow) -> dict[str, Any]:
        """A tournament's settings as the API shows them."""
        starts = utc(row.starts_at)
        return {
            "id": row.id,
            "name": row.name,
            "edition": row.edition,
            "size": row.size,
            "rounds": row.rounds,
            "time_control": row.time_control,
            "rated": row.rated,
            "starts_at": starts.isoformat() if starts is not None else None,
            "capacity": row.capacity,
            "status": row.status,
            "round": row.round_no,
        }
