"""Persistence: every change of a table is one short transaction that locks the table's row first.

The row lock makes each table single-writer across every server process (PostgreSQL ``SELECT ... FOR UPDATE``;
SQLite serialises writers with ``BEGIN IMMEDIATE``), and the table's ``version`` says what a reader has missed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from typing import Any

from sqlalchemy import bindparam, func, insert, select, text, update
from sqlalchemy.engine import Engine, Row
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from . import friends, links
from .clock import SYSTEM_CLOCK, Clock
from .db import (
    SNAPSHOT,
    ActionRow,
    DealSetRow,
    GameRow,
    NameChangeRow,
    NoteRow,
    PlayerRow,
    ResultRow,
    ReviewRow,
    SeatRow,
    TableRow,
    now,
)
from .domain import (
    AccountRequired,
    AccountTooNew,
    Expired,
    OneSeatPerAddress,
    SeatKind,
    SeatPolicy,
    SeatState,
    SecondSeat,
    Status,
    TableState,
    TooManyGames,
    TooManyWaiting,
    build_game,
    is_turn_based,
    replaced,
)
from .ratings import rate_game
from .timecontrol import Turn, ends_at, new_clock, turn_of

# The statements of an action, written once (an ORM unit of work or statements built per call were half of the
# server's CPU per action). Each table's action numbers (seq) count from 1 in each game.
_BUMP = (
    "UPDATE tables SET version = version + 1, to_move = :to_move, deadline = :deadline, notify_at = :notify_at,"
    " remind_at = :remind_at{} WHERE id = :table_id AND version = :expected RETURNING game_no, version{}"
)
"""With the turn's columns (timecontrol.Turn): the seat to move, and a turn-based table's next deadline."""
BUMP = text(_BUMP.format("", ""))
_OVER = (", status = 'over'", ", rated, edition, players")  # the game over: what its rating needs
BUMP_OVER = text(_BUMP.format(*_OVER))
_CLOCK = bindparam("clock", type_=TableRow.__table__.c.clock.type)
BUMP_CLOCK = text(_BUMP.format(", clock = :clock", "")).bindparams(_CLOCK)
"""A timed table's: its clock is stored with each action, in the same statement."""
BUMP_OVER_CLOCK = text(_BUMP.format(_OVER[0] + ", clock = :clock", _OVER[1])).bindparams(_CLOCK)
APPEND = text(
    "INSERT INTO actions (table_id, game_no, seq, seat, action, created_at) VALUES (:table_id, :game_no,"
    " (SELECT COALESCE(MAX(seq), 0) + 1 FROM actions WHERE table_id = :same_table AND game_no = :same_game),"
    " :seat, :action, :created_at)"
).bindparams(bindparam("created_at", type_=ActionRow.__table__.c.created_at.type))


_TABLES, _GAMES, _SEATS, _PLAYERS = (row.__table__ for row in (TableRow, GameRow, SeatRow, PlayerRow))
READ_TABLES = (
    select(
        _TABLES,
        _GAMES.c.seed.label("game_seed"),
        _GAMES.c.unrated.label("game_unrated"),
        _GAMES.c.unrated_seat.label("game_unrated_seat"),
    )
    .outerjoin(_GAMES, (_GAMES.c.table_id == _TABLES.c.id) & (_GAMES.c.game_no == _TABLES.c.game_no))
    .where(_TABLES.c.id.in_(bindparam("ids", expanding=True)))
)
"""Tables with their current game's seed and rating (``Store.load_many``)."""
READ_SEATS = (
    select(_SEATS, _PLAYERS.c.username, _PLAYERS.c.id.label("person"), _PLAYERS.c.forced_moves.label("forced"))
    .outerjoin(_PLAYERS, _PLAYERS.c.id == _SEATS.c.player_id)
    .where(_SEATS.c.table_id.in_(bindparam("ids", expanding=True)))
    .order_by(_SEATS.c.table_id, _SEATS.c.seat)
)
"""Their seats in order, each with its player's username, id and forced-moves setting."""
READ_ACTIONS = (
    select(ActionRow.action)
    .where(ActionRow.table_id == bindparam("table_id"), ActionRow.game_no == bindparam("game_no"))
    .order_by(ActionRow.seq)
)
"""A game's actions in order."""


@dataclass(frozen=True)
class DealSource:
    """A stored game as the deal of a new table ("Play this deal"): its seed and rules, and whether it is over
    (only a finished game's deal may be played again: its cards are already in its replay); or a deal set's."""

    table: str | None
    game: int | None
    seed: int
    edition: str
    players: int
    options: dict[str, Any]
    finished: bool
    deal_set: str | None = None
    """The named deal set it is (then ``table`` and ``game`` are ``None``; ``finished``: the set is open)."""
    set_open: bool = False
    """Whether the game is a table's first game on a deal set still open (its deal still secret)."""


@dataclass(frozen=True)
class DriverStatement:
    """A statement as the database driver takes it: its SQL in the driver's parameter style, and the order of its
    parameters when they are positional (SQLite's ``?``)."""

    sql: str
    order: tuple[str, ...] | None

    @classmethod
    def compile(cls, statement: Any, engine: Engine) -> DriverStatement:
        compiled = statement.compile(dialect=engine.dialect)
        return cls(str(compiled), tuple(compiled.positiontup) if compiled.positional else None)

    def params(self, values: dict[str, Any]) -> Any:
        return values if self.order is None else tuple(values[name] for name in self.order)


def append_params(table_id: str, game_no: int, seat: int, action: str) -> dict[str, Any]:
    """The parameters of ``APPEND``."""
    return {
        "table_id": table_id,
        "game_no": game_no,
        "same_table": table_id,  # a parameter of its own: PostgreSQL types each parameter once
        "same_game": game_no,
        "seat": seat,
        "action": action,
        "created_at": now(),
    }


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class AppendedAction:
    """An action to append to a table's current game (``Store.append_action``): ``seat``'s ``action`` on the table
    at ``expected_version``; ``game_over`` with each seat's ``results``; the table's ``clock`` after it, if timed;
    the ``turn``'s columns; ``unrated``: (why, seat) the game stops counting for the ratings from it on."""

    table_id: str
    expected_version: int
    seat: int
    action: str
    game_over: bool = False
    results: list[dict[str, Any]] | None = None
    clock: dict[str, Any] | None = None
    turn: Turn = field(default_factory=Turn)
    unrated: tuple[str, int] | None = None

    @property
    def plain(self) -> bool:
        """Two statements and no more (neither the game's last action nor one that unrates it)."""
        return not self.game_over and self.unrated is None


@dataclass(frozen=True)
class NewTable:
    """A table to create, waiting for its players (``insert_tables``). Each seat: ``kind``, ``bot``, ``name``, and
    ``player``, which reserves a human seat for that player, who takes it by the door (``StartRound``)."""

    name: str
    edition: str
    players: int
    options: dict[str, Any]
    public: bool
    grace_seconds: float
    seats: list[dict[str, Any]]
    hints: bool = False
    rated: bool = False
    time_control: dict[str, int] | None = None
    show_hands: bool = False
    tutorial: bool = False
    creator: str | None = None
    expires_at: int | None = None
    """When it expires if still waiting (epoch ms)."""
    deal: DealSource | None = None
    """Its first game on this deal."""
    tournament: str | None = None
    """The tournament whose round it plays."""


class StaleVersion(Exception):
    """The table changed since the caller last read it."""


class Store:
    def __init__(self, engine: Engine, clock: Clock = SYSTEM_CLOCK) -> None:
        self.engine = engine
        self.clock = clock
        """When a game starts (its stored clock's first turn) and who is on vacation then."""
        # A table is read in several queries: they must see one snapshot, else a reader may get a version with
        # the actions of a later one (another process writing in between). PostgreSQL: REPEATABLE READ; SQLite
        # (WAL): a deferred transaction, a snapshot that neither waits for the writer nor holds it up (db.py).
        self._reader = engine.execution_options(
            **({"isolation_level": "REPEATABLE READ"} if engine.dialect.name == "postgresql" else {SNAPSHOT: True})
        )
        # The statements of an action that does not end the game, run on the driver's connection (append_action).
        self._sqlite = engine.dialect.name == "sqlite"
        self._bump_sql, self._bump_clock_sql, self._append_sql = (
            DriverStatement.compile(statement, engine) for statement in (BUMP, BUMP_CLOCK, APPEND)
        )
        to_json = TableRow.__table__.c.clock.type.dialect_impl(engine.dialect).bind_processor(engine.dialect)
        self._clock_json: Any = to_json or (lambda value: value)  # the engine's JSON serialiser (orjson)
        created_at = ActionRow.__table__.c.created_at.type.dialect_impl(engine.dialect).bind_processor(engine.dialect)
        self._created_at: Any = created_at or (lambda value: value)

    @contextmanager
    def _locked(self, table_id: str) -> Iterator[tuple[Session, TableRow]]:
        with Session(self.engine) as session, session.begin():
            query = select(TableRow).where(TableRow.id == table_id)
            if self.engine.dialect.name != "sqlite":
                query = query.with_for_update()
            row = session.scalars(query).one_or_none()
            if row is None:
                raise KeyError(table_id)
            yield session, row

    def create_table(
        self,
        *,
        name: str,
        edition: str,
        players: int,
        options: dict[str, Any],
        public: bool,
        grace_seconds: float,
        seats: list[dict[str, Any]],
        hints: bool = False,
        rated: bool = False,
        time_control: dict[str, int] | None = None,
        show_hands: bool = False,
        tutorial: bool = False,
        creator: str | None = None,
        expires_at: int | None = None,
        most_waiting: int | None = None,
        deal: DealSource | None = None,
    ) -> tuple[str, dict[int, str]]:
        """Store a new table (its first game on ``deal``'s when given: ``NewTable``); returns its id and the
        secret token of each human seat. ``creator``: the keyed hash of its client; a public one is refused
        (:class:`TooManyWaiting`) when that client has ``most_waiting`` public tables waiting already.
        ``expires_at``: when it expires if still waiting (epoch ms)."""
        with Session(self.engine) as session, session.begin():
            if public and creator is not None and most_waiting is not None:
                self._check_waiting(session, creator, most_waiting)
            new = NewTable(
                name=name,
                edition=edition,
                players=players,
                options=options,
                public=public,
                grace_seconds=grace_seconds,
                seats=seats,
                hints=hints,
                rated=rated,
                time_control=time_control,
                show_hands=show_hands,
                tutorial=tutorial,
                creator=creator,
                expires_at=expires_at,
                deal=deal,
            )
            return insert_tables(session, [new])[0]

    def _check_waiting(self, session: Session, creator: str, most: int) -> None:
        """:class:`TooManyWaiting` when ``creator`` has ``most`` public tables waiting for players (the count and
        the new table in one transaction: SQLite's are serialised, PostgreSQL's take a lock on the creator)."""
        if self.engine.dialect.name == "postgresql":
            session.execute(text("SELECT pg_advisory_xact_lock(hashtext(:creator))"), {"creator": creator})
        waiting = session.scalar(
            select(func.count())
            .select_from(TableRow)
            .where(TableRow.creator == creator, TableRow.public.is_(True), TableRow.status == Status.WAITING)
        )
        if (waiting or 0) >= most:
            raise TooManyWaiting(most)

    def load(self, table_id: str) -> TableState | None:
        """The table as stored now, with its current game's actions."""
        return self.load_many([table_id]).get(table_id)

    def load_many(self, table_ids: list[str]) -> dict[str, TableState]:
        """The tables of ``table_ids`` found, as stored now, read together (one snapshot): three fixed statements
        (the tables with their current games, their seats, each one's actions), no ORM (a table coming into
        memory: a cold move's read)."""
        if not table_ids:
            return {}
        ids = {"ids": table_ids}
        with self._reader.connect() as connection, connection.begin():
            rows = connection.execute(READ_TABLES, ids).all()
            seats: dict[str, list[tuple[Any, str | None, str | None, bool | None]]] = {}
            for seat in connection.execute(READ_SEATS, ids):
                seats.setdefault(seat.table_id, []).append((seat, seat.username, seat.person, seat.forced))
            states = {}
            for row in rows:
                state = table_state(row, seats.get(row.id, []))
                if row.game_no:
                    state.seed = row.game_seed
                    if row.game_unrated is not None:
                        state.unrated = {"reason": row.game_unrated, "seat": row.game_unrated_seat}
                    at = {"table_id": row.id, "game_no": row.game_no}
                    state.actions = list(connection.scalars(READ_ACTIONS, at))
                states[row.id] = state
            return states

    def _state(self, session: Session, row: TableRow, actions: bool = True) -> TableState:
        state = table_state(row, self._seats(session, row.id))
        return self._with_game(session, row, state) if actions else state

    @staticmethod
    def _with_game(session: Session, row: TableRow, state: TableState) -> TableState:
        """``state`` with its current game's seed, actions and rating, read."""
        if row.game_no:
            game = session.get(GameRow, (row.id, row.game_no))
            assert game is not None
            state.seed = game.seed
            if game.unrated is not None:
                state.unrated = {"reason": game.unrated, "seat": game.unrated_seat}
            state.actions = list(
                session.scalars(
                    select(ActionRow.action)
                    .where(ActionRow.table_id == row.id, ActionRow.game_no == row.game_no)
                    .order_by(ActionRow.seq)
                )
            )
        return state

    @staticmethod
    def _seats(session: Session, *table_ids: str) -> list[tuple[SeatRow, str | None, str | None, bool | None]]:
        """The tables' seats in order, each with its player's username, id and forced-moves setting."""
        where = SeatRow.table_id == table_ids[0] if len(table_ids) == 1 else SeatRow.table_id.in_(table_ids)
        return [
            (seat, username, person, forced)
            for seat, username, person, forced in session.execute(
                select(SeatRow, PlayerRow.username, PlayerRow.id, PlayerRow.forced_moves)
                .outerjoin(PlayerRow, PlayerRow.id == SeatRow.player_id)
                .where(where)
                .order_by(SeatRow.table_id, SeatRow.seat)
            )
        ]

    def seat_of(self, table_id: str, token: str) -> int | None:
        """The seat that ``token`` opens at ``table_id``, if any."""
        with Session(self.engine) as session:
            return session.scalars(
                select(SeatRow.seat).where(SeatRow.table_id == table_id, SeatRow.token_hash == token_hash(token))
            ).one_or_none()

    def lobby(self, limit: int = 100) -> list[TableState]:
        """Public tables still waiting for players, the creators interleaved: each creator's newest table first
        (newest first), then each one's second newest, and so on; so that one client cannot fill the lobby."""
        waiting = (TableRow.public.is_(True), TableRow.status == Status.WAITING)
        rank = (
            func.row_number()
            .over(partition_by=func.coalesce(TableRow.creator, TableRow.id), order_by=TableRow.created_at.desc())
            .label("rank")
        )
        ranked = select(TableRow.id, TableRow.created_at, rank).where(*waiting).subquery()
        with Session(self._reader) as session:
            rows = session.scalars(
                select(TableRow)
                .join(ranked, ranked.c.id == TableRow.id)
                .order_by(ranked.c.rank, ranked.c.created_at.desc(), TableRow.id)
                .limit(limit)
            ).all()
            return [self._state(session, row) for row in rows]

    def expiring(self, at: int, limit: int = 200) -> list[str]:
        """Tables still waiting for players whose time to wait is up at ``at`` (epoch ms), earliest first."""
        with Session(self.engine) as session:
            return list(
                session.scalars(
                    select(TableRow.id)
                    .where(TableRow.status == Status.WAITING, TableRow.expires_at <= at)
                    .order_by(TableRow.expires_at)
                    .limit(limit)
                )
            )

    def expire(self, table_id: str, at: int) -> TableState | None:
        """Mark the table expired if it still waits for players and its time to wait is up at ``at`` (epoch ms);
        ``None`` if it does not (started, expired already, or not yet due)."""
        with self._locked(table_id) as (session, row):
            if row.status != Status.WAITING or row.expires_at is None or row.expires_at > at:
                return None
            row.status, row.expires_at = Status.EXPIRED, None
            self._bump(session, row)
            return self._state(session, row)

    def show_hand(self, table_id: str, seat: int) -> TableState:
        """Store that ``seat``'s player agreed that anyone watching sees its cards."""
        with self._locked(table_id) as (session, row):
            seat_row = session.get(SeatRow, (table_id, seat))
            assert seat_row is not None
            seat_row.shows_hand = True
            self._bump(session, row)
            return self._state(session, row)

    def playing(self, limit: int = 50) -> list[TableState]:
        """Public tables with a game being played, the newest game first (without their actions: the lobby's
        "Playing now")."""
        with Session(self._reader) as session:
            rows = session.scalars(
                select(TableRow)
                .join(GameRow, (GameRow.table_id == TableRow.id) & (GameRow.game_no == TableRow.game_no))
                .where(TableRow.public.is_(True), TableRow.status == Status.PLAYING)
                .order_by(GameRow.started_at.desc(), TableRow.id)
                .limit(limit)
            ).all()
            return [self._state(session, row, actions=False) for row in rows]

    def live_tables(self) -> list[str]:
        """Tables with a game being played (to resume after a restart)."""
        with Session(self.engine) as session:
            return list(
                session.scalars(
                    select(TableRow.id).where(TableRow.status == Status.PLAYING, TableRow.turn_based.is_(False))
                )
            )

    def count_tables(self) -> dict[str, int]:
        """How many tables are stored, by status (the metrics' ``luz_stored_tables``)."""
        counts = {status.value: 0 for status in Status}
        with Session(self.engine) as session:
            for status, count in session.execute(select(TableRow.status, func.count()).group_by(TableRow.status)):
                counts[status] = count
        return counts

    def due_tables(self, at: int, limit: int = 200) -> list[str]:
        """Turn-based tables whose deadline is past at ``at`` (epoch ms), earliest first: a mover's time has run
        out, or a bot should have moved (its process died)."""
        with Session(self.engine) as session:
            return list(
                session.scalars(
                    select(TableRow.id).where(TableRow.deadline <= at).order_by(TableRow.deadline).limit(limit)
                )
            )

    def games_of(self, player_id: str) -> list[dict[str, Any]]:
        """The unfinished games (tables waiting or playing) where ``player_id`` holds a seat, each with its seats,
        whose turn it is and the mover's deadline; the ones where it is the player's turn first, then by deadline."""
        with Session(self._reader) as session:
            mine: dict[str, int] = {
                table_id: seat
                for table_id, seat in session.execute(
                    select(SeatRow.table_id, SeatRow.seat)
                    .join(TableRow, TableRow.id == SeatRow.table_id)
                    .where(SeatRow.player_id == player_id, TableRow.status.in_((Status.WAITING, Status.PLAYING)))
                )
            }
            if not mine:
                return []
            rows = session.scalars(select(TableRow).where(TableRow.id.in_(mine))).all()
            seats: dict[str, list[dict[str, Any]]] = {}
            for seat in session.scalars(
                select(SeatRow).where(SeatRow.table_id.in_(mine)).order_by(SeatRow.table_id, SeatRow.seat)
            ):
                seats.setdefault(seat.table_id, []).append({"seat": seat.seat, "name": seat.name, "kind": seat.kind})
            games = [game_entry(row, mine[row.id], seats.get(row.id, [])) for row in rows]
        return sorted(games, key=lambda g: (not g["your_turn"], g["deadline"] is None, g["deadline"] or 0, g["name"]))

    def your_turn_count(self, player_id: str) -> int:
        """How many of ``player_id``'s games wait for its move (the header's badge)."""
        return sum(game["your_turn"] for game in self.games_of(player_id))

    def turn_based_count(self, session: Session, player_id: str, other_than: str) -> int:
        """The unfinished turn-based tables, other than ``other_than``, where ``player_id`` holds a seat."""
        return int(
            session.scalar(
                select(func.count())
                .select_from(SeatRow)
                .join(TableRow, TableRow.id == SeatRow.table_id)
                .where(
                    SeatRow.player_id == player_id,
                    SeatRow.table_id != other_than,
                    TableRow.turn_based.is_(True),
                    TableRow.status != Status.OVER,
                )
            )
            or 0
        )

    def rename_player(
        self, player_id: str, name: str, every: bool = False, first: Callable[[Session], object] | None = None
    ) -> list[tuple[str, int]]:
        """Every seat of ``player_id`` named ``name`` (and its guest mark read again) in one transaction, after
        ``first`` (the player's own name: ``Players.rename``): all of it or none. Each table whose seat's name
        changed gets a new version (every process reloads it); a seat already so named is left alone, so renaming
        again to the same name repairs only what is behind. ``every``: every table of the player gets a new version
        (its guest mark changed: an account registered). Returns the tables changed and their new versions."""
        with Session(self.engine) as session, session.begin():
            if first is not None:
                first(session)
            query = select(SeatRow).where(SeatRow.player_id == player_id)
            seats = [seat for seat in session.scalars(query) if every or seat.name != name]
            return self._rename(session, [(seat, name) for seat in seats])

    def repair_names(self) -> list[tuple[str, int]]:
        """Every seat of a renamed player whose name is not its player's name as stored (a rename cut short when
        the player's name and its seats' were two transactions) renamed, in one transaction: the tables changed and
        their new versions (each process reloads them)."""
        with Session(self.engine) as session, session.begin():
            query = (
                select(SeatRow, PlayerRow.name)
                .join(PlayerRow, PlayerRow.id == SeatRow.player_id)
                .where(SeatRow.player_id.in_(select(NameChangeRow.player_id)), SeatRow.name != PlayerRow.name)
            )
            return self._rename(session, [(seat, name) for seat, name in session.execute(query).all()])

    def _rename(self, session: Session, names: list[tuple[SeatRow, str | None]]) -> list[tuple[str, int]]:
        """Each seat given its name, after a new version for each of their tables, whose rows are locked first and
        in the order of their ids (as every writer of a table: two renames never wait on each other in a circle)."""
        ids = sorted({seat.table_id for seat, _ in names})
        if not ids:
            return []
        rows = select(TableRow).where(TableRow.id.in_(ids)).order_by(TableRow.id)
        if self.engine.dialect.name != "sqlite":
            rows = rows.with_for_update()
        changed = [(row.id, self._bump(session, row)) for row in session.scalars(rows)]
        for seat, name in names:
            seat.name = name
        return changed

    def unfinished_tutorial(self, player_id: str) -> str | None:
        """The tutorial's table where ``player_id`` holds a seat and whose game is not over, if any."""
        with Session(self.engine) as session:
            return session.scalars(
                select(TableRow.id)
                .join(SeatRow, SeatRow.table_id == TableRow.id)
                .where(TableRow.tutorial, TableRow.status != Status.OVER, SeatRow.player_id == player_id)
                .limit(1)
            ).one_or_none()

    def player_seat(self, table_id: str, player_id: str) -> int | None:
        """The seat ``player_id`` holds at ``table_id``, if any."""
        with Session(self.engine) as session:
            return session.scalars(
                select(SeatRow.seat).where(SeatRow.table_id == table_id, SeatRow.player_id == player_id)
            ).one_or_none()

    def join(
        self,
        table_id: str,
        seat: int,
        name: str,
        token: str | None,
        player_id: str | None = None,
        max_turn_based: int | None = None,
        client: str | None = None,
        policy: SeatPolicy | None = None,
    ) -> tuple[str, TableState]:
        """Take ``seat`` for ``player_id`` (with its invite token, or an open seat of a public table); returns the
        seat's token. :class:`SecondSeat` when the player holds another seat of the table (checked under the
        table's lock, and by the database's unique constraint on (table, player)); :class:`AccountRequired` for a
        guest (or no identity) at a rated table; :class:`friends.Blocked` at a public table where the player and
        someone seated blocked one another; ``policy`` (fair play):
        :class:`AccountTooNew`, :class:`OneSeatPerAddress` (``client``: the keyed hash of the client's address, kept on
        the seat). A friend's invitation to the seat stands for its token."""
        with self._locked(table_id) as (session, row):
            seat_row = session.get(SeatRow, (table_id, seat))
            if seat_row is None or seat_row.kind != SeatKind.HUMAN:
                raise PermissionError("there is no human seat with that number")
            if row.status == Status.EXPIRED:
                raise Expired
            # A friend's invitation (friends.py) opens the seat without its token, at a private table too.
            invited = token is None and player_id is not None and friends.invited(session, table_id, seat, player_id)
            if invited and policy is not None and row.rated and self._address_full(session, row, seat, client, policy):
                row.rated = False  # a friend at home with its inviter: seated, and the table is no longer rated
            if row.rated and not self._is_account(session, player_id):
                raise AccountRequired
            if policy is not None:  # fair play: checked under the table's lock, like every seat rule
                self._check_policy(session, row, seat, player_id, client, policy, invited)
                seat_row.client = client
            if client is not None and player_id is not None:
                links.seen(session, player_id, [links.address_key(client)])
            if player_id is not None:
                held = session.scalars(
                    select(SeatRow.seat).where(
                        SeatRow.table_id == table_id, SeatRow.player_id == player_id, SeatRow.seat != seat
                    )
                ).first()
                if held is not None:
                    raise SecondSeat(held)
                if (
                    row.turn_based
                    and max_turn_based is not None
                    and seat_row.player_id != player_id
                    and self.turn_based_count(session, player_id, table_id) >= max_turn_based
                ):
                    raise TooManyGames(max_turn_based)
                if seat_row.joined and seat_row.player_id not in (None, player_id):
                    raise PermissionError("this seat belongs to another player")
            if row.public and player_id is not None:  # friends.py: blocked players never sit together in public
                others = session.scalars(
                    select(SeatRow.player_id).where(SeatRow.table_id == table_id, SeatRow.player_id.is_not(None))
                )
                if friends.blocks_among(session, player_id, [p for p in others if p is not None and p != player_id]):
                    raise friends.Blocked
            if token is not None:
                if seat_row.token_hash != token_hash(token):
                    raise PermissionError("that invite token does not open this seat")
            elif (not row.public and not invited) or seat_row.joined:
                raise PermissionError("this seat is taken or the table is private: use its invite link")
            else:
                token = new_token()
                seat_row.token_hash = token_hash(token)
            friends.seat_taken(session, table_id, seat)
            if seat_row.player_id != player_id:  # another player: the agreement to show its cards is not theirs
                seat_row.shows_hand = False
            seat_row.name, seat_row.joined = name, True
            if player_id is not None:
                seat_row.player_id = player_id
            self._bump(session, row)
            return token, self._state(session, row)

    @staticmethod
    def _check_policy(
        session: Session,
        row: TableRow,
        seat: int,
        player_id: str | None,
        client: str | None,
        policy: SeatPolicy,
        invited: bool,
    ) -> None:
        """:class:`AccountTooNew` for a young account with few counted games (:meth:`counted_games`) at a rated
        table; :class:`OneSeatPerAddress` when ``client`` holds its share of the seats of a public or rated table
        (a friend's invitation excepted: its table is unrated by then)."""
        if row.rated and player_id is not None and (policy.rated_min_account_hours or policy.rated_min_games):
            player = session.get(PlayerRow, player_id)
            created = player.created_at if player is not None else now()
            if created.tzinfo is None:  # SQLite keeps no time zone: the times it stores are UTC
                created = created.replace(tzinfo=UTC)
            young = now() - created < timedelta(hours=policy.rated_min_account_hours)
            if young and Store.counted_games(session, player_id) < policy.rated_min_games:
                raise AccountTooNew(policy.rated_min_account_hours, policy.rated_min_games)
        if not invited and Store._address_full(session, row, seat, client, policy):
            raise OneSeatPerAddress

    @staticmethod
    def _address_full(session: Session, row: TableRow, seat: int, client: str | None, policy: SeatPolicy) -> bool:
        """Whether ``client`` holds its share of the seats of a public or rated table (one seat per address)."""
        if not policy.seats_per_address or client is None or not (row.rated or row.public):
            return False
        others = session.scalar(
            select(func.count())
            .select_from(SeatRow)
            .where(SeatRow.table_id == row.id, SeatRow.client == client, SeatRow.seat != seat)
        )
        return (others or 0) >= policy.seats_per_address

    @staticmethod
    def counted_games(session: Session, player_id: str) -> int:
        """The games that open rated seats: those ``player_id`` finished at its seat with another human who
        finished it too, one not linked to it (links.py: another client and browser). Games left, games against
        bots alone, games with one's own other accounts do not count."""
        mine, other = aliased(ResultRow), aliased(ResultRow)
        linked = links.linked_to(session, player_id)
        partner = (
            select(other.seat)
            .where(
                other.table_id == mine.table_id,
                other.game_no == mine.game_no,
                other.kind == SeatKind.HUMAN,
                other.player_id.is_not(None),
                other.player_id != player_id,
                other.player_id.not_in(linked),
                other.abandoned.is_(False),
            )
            .exists()
        )
        query = select(func.count()).select_from(mine).where(mine.player_id == player_id, mine.abandoned.is_(False))
        return session.scalar(query.where(partner)) or 0

    @staticmethod
    def _is_account(session: Session, player_id: str | None) -> bool:
        player = session.get(PlayerRow, player_id) if player_id is not None else None
        return player is not None and player.username is not None

    def leave(self, table_id: str, seat: int, unrates: bool = False) -> TableState:
        """Give a seat up: before the first game it is open again; afterwards its player is away (a bot stands in).
        ``unrates``: leaving ends the current game's rating (a rated game's first deal: unrates, below)."""
        with self._locked(table_id) as (session, row):
            seat_row = session.get(SeatRow, (table_id, seat))
            assert seat_row is not None
            if row.status == Status.WAITING:
                seat_row.joined, seat_row.name, seat_row.token_hash, seat_row.player_id = False, None, None, None
                seat_row.client, seat_row.shows_hand = None, False
            else:
                seat_row.joined = False
                if unrates:
                    session.execute(unrate(table_id, row.game_no, "left", seat))
            self._bump(session, row)
            return self._state(session, row)

    def start_game(self, table_id: str, expected_version: int, seed: int) -> TableState:
        """Start the table's next game with ``seed``."""
        with self._locked(table_id) as (session, row):
            if row.version != expected_version:
                raise StaleVersion
            return self._begin_game(session, row, self._seats(session, table_id), seed)

    def start_round(self, table_id: str, expected_version: int, seed: int) -> TableState:
        """Seat every player a tournament table's seats were reserved for (``NewTable``) and start its first game on
        the round's ``seed``: one transaction, one version. :class:`StaleVersion` if the table moved;
        ``PermissionError`` if it is not waiting or a human seat is reserved for nobody."""
        with self._locked(table_id) as (session, row):
            if row.version != expected_version:
                raise StaleVersion
            if row.status != Status.WAITING:
                raise PermissionError("the table is not waiting for its players")
            seats = self._seats(session, table_id)
            for seat, *_ in seats:
                if seat.kind == SeatKind.HUMAN and seat.player_id is None:
                    raise PermissionError(f"seat {seat.seat} is reserved for nobody")
                seat.joined = True
            return self._begin_game(session, row, seats, seed)

    def _begin_game(
        self,
        session: Session,
        row: TableRow,
        seats: list[tuple[SeatRow, str | None, str | None, bool | None]],
        seed: int,
    ) -> TableState:
        """The table's next game stored on ``seed`` (``seats``: as ``_seats`` read them, changed in this
        transaction), the turn's columns set, a new version; the table as it will be stored (no read again)."""
        row.game_no += 1
        row.status = Status.PLAYING
        row.rematch = None
        if row.time_control is not None:
            at = self.clock.now_ms()
            clock = new_clock(row.time_control, [seat.kind for seat, *_ in seats], at)
            if clock is not None and "banks" in clock:  # turn-based: its players away start paused
                clock["vacation"] = Store._away(session, row.id, row.players, at)
            row.clock = clock
        row.version += 1
        session.add(GameRow(table_id=row.id, game_no=row.game_no, seed=seed))
        state = table_state(row, seats)
        state.seed = seed
        game = build_game(state)
        assert game is not None
        bots = {seat.seat for seat, *_ in seats if seat.kind == SeatKind.BOT}
        turn = turn_of(row.time_control, row.clock, game.current_player, bots)
        row.to_move, row.deadline, row.notify_at, row.remind_at = (
            turn.to_move,
            turn.deadline,
            turn.notify_at,
            turn.remind_at,
        )
        return state

    def set_clock(self, table_id: str, expected_version: int, clock: dict[str, Any], turn: Turn) -> TableState:
        """Store a turn-based table's clock changed between moves (a time bank spent, a player's vacation begun or
        over) with its turn's columns, a new version. :class:`StaleVersion` if the table moved."""
        with self._locked(table_id) as (session, row):
            if row.version != expected_version or row.status != Status.PLAYING:
                raise StaleVersion
            row.clock = clock
            row.to_move, row.deadline, row.notify_at, row.remind_at = (
                turn.to_move,
                turn.deadline,
                turn.notify_at,
                turn.remind_at,
            )
            self._bump(session, row)
            return self._state(session, row)

    def turn_based_playing(self, player_id: str) -> list[str]:
        """The turn-based tables with a game in progress where ``player_id`` holds a seat."""
        with Session(self.engine) as session:
            return list(
                session.scalars(
                    select(SeatRow.table_id)
                    .join(TableRow, TableRow.id == SeatRow.table_id)
                    .where(
                        SeatRow.player_id == player_id,
                        TableRow.turn_based.is_(True),
                        TableRow.status == Status.PLAYING,
                    )
                )
            )

    @staticmethod
    def _away(session: Session, table_id: str, players: int, at: int) -> list[int | None]:
        """Per seat of the table: until when its player is on vacation at ``at`` (vacation.py), or ``None``."""
        away: list[int | None] = [None] * players
        rows = session.execute(
            select(SeatRow.seat, PlayerRow.vacation_until)
            .join(PlayerRow, PlayerRow.id == SeatRow.player_id)
            .where(SeatRow.table_id == table_id, PlayerRow.vacation_until > at)
        )
        for seat, until in rows:
            away[seat] = until
        return away

    def set_rematch(self, table_id: str, expected_version: int, offer: dict[str, Any]) -> TableState:
        """Store the rematch offer of a table between games (tables/rematch.py decides it), a new version.
        :class:`StaleVersion` if the table moved."""
        with self._locked(table_id) as (session, row):
            if row.version != expected_version or row.status != Status.OVER:
                raise StaleVersion
            row.rematch = offer
            self._bump(session, row)
            return self._state(session, row)

    def append_action(self, appended: AppendedAction) -> int:
        """Append an action to the current game's log; the new version. :class:`StaleVersion` if the table moved.

        One transaction (the hot path: every action): the version-checked update of the table's row, which takes
        its write lock (PostgreSQL: the row's; SQLite: the database's), then the action's insert; with the game's
        last action, each seat's ``results`` (history.py) too, and at a rated table the players' new ratings
        (ratings.py), so they are stored exactly once; a timed table's ``clock`` with it, and the ``turn``'s
        columns (whose move, a turn-based table's deadline); ``unrated``: (why, seat) the game stops counting for
        the ratings from this action on (a rated game's first deal: domain.unrates). A plain action (see
        :attr:`AppendedAction.plain`) goes straight to the database driver (``append_plain``): SQLAlchemy's
        execution layer was four fifths of this call's CPU on SQLite. The server stores its actions through
        ``appends.ActionWriter`` (one connection, group commits); this is the same, one action, one transaction.
        """
        if appended.plain:
            raw = self.engine.raw_connection()
            try:
                outcome = self.append_plain(raw, [appended])[0]
            finally:
                raw.close()  # back to the pool
            if isinstance(outcome, StaleVersion):
                raise outcome
            return outcome
        table_id, turn, clock = appended.table_id, appended.turn, appended.clock
        with self.engine.begin() as connection:
            values = {"table_id": table_id, "expected": appended.expected_version, **turn.params()}
            if appended.game_over:
                values.update(Turn().params())
                statement = BUMP_OVER if clock is None else BUMP_OVER_CLOCK
            else:
                statement = BUMP if clock is None else BUMP_CLOCK
            bump = connection.execute(statement, values if clock is None else {**values, "clock": clock})
            bumped = bump.one_or_none()
            if bumped is None:
                raise StaleVersion
            game_no, version = bumped[0], bumped[1]
            connection.execute(APPEND, append_params(table_id, game_no, appended.seat, appended.action))
            if appended.unrated is not None:
                connection.execute(unrate(table_id, game_no, *appended.unrated))
            results = appended.results
            if results:
                connection.execute(
                    insert(ResultRow), [{"table_id": table_id, "game_no": game_no, **result} for result in results]
                )
                rated, edition, players = bumped[2:]
                counts = (
                    connection.scalar(
                        select(GameRow.unrated).where(GameRow.table_id == table_id, GameRow.game_no == game_no)
                    )
                    is None
                )
                if rated and counts:
                    why = rate_game(connection, table_id, game_no, edition, players, results)
                    if why is not None:  # the game-over panel says why nobody was rated: links
                        connection.execute(unrate(table_id, game_no, why, None))
            return int(version)

    def append_plain(self, connection: Any, batch: list[AppendedAction]) -> list[int | StaleVersion]:
        """Plain actions (:attr:`AppendedAction.plain`) appended in one transaction on ``connection`` (a DB-API
        connection: SQLite's begun IMMEDIATE, as all transactions here), each checked against its own expected
        version: its new version, or :class:`StaleVersion` (that one stored nothing; the others are stored).
        The statements are the same strings each time: SQLite's statement cache and psycopg's prepared
        statements (after a few runs on one connection) parse them once. Rolled back if anything fails."""
        outcomes: list[int | StaleVersion] = []
        cursor = connection.cursor()
        try:
            if self._sqlite:
                cursor.execute("BEGIN IMMEDIATE")
            for appended in batch:
                values = {"table_id": appended.table_id, "expected": appended.expected_version}
                values.update(appended.turn.params())
                bump = self._bump_sql
                if appended.clock is not None:
                    bump, values["clock"] = self._bump_clock_sql, self._clock_json(appended.clock)
                cursor.execute(bump.sql, bump.params(values))
                bumped = cursor.fetchone()
                if bumped is None:
                    outcomes.append(StaleVersion())
                    continue
                game_no, version = bumped
                params = append_params(appended.table_id, game_no, appended.seat, appended.action)
                params["created_at"] = self._created_at(params["created_at"])
                cursor.execute(self._append_sql.sql, self._append_sql.params(params))
                outcomes.append(int(version))
            connection.commit()
        except BaseException:
            connection.rollback()
            raise
        finally:
            cursor.close()
        return outcomes

    def deal_source(self, table_id: str, game_no: int) -> DealSource | None:
        """Game ``game_no`` of ``table_id`` as a deal to play again (``None``: no such game)."""
        with Session(self.engine) as session:
            found = session.execute(
                select(GameRow.seed, TableRow.edition, TableRow.players, TableRow.options)
                .join(TableRow, TableRow.id == GameRow.table_id)
                .where(GameRow.table_id == table_id, GameRow.game_no == game_no)
            ).one_or_none()
            if found is None:
                return None
            finished = session.scalar(
                select(func.count())
                .select_from(ResultRow)
                .where(ResultRow.table_id == table_id, ResultRow.game_no == game_no)
            )
            seed, edition, players, options = found
            return DealSource(
                table_id,
                game_no,
                seed,
                edition,
                players,
                dict(options),
                bool(finished),
                set_open=game_no == 1 and self._set_open(session, table_id),
            )

    @staticmethod
    def _set_open(session: Session, table_id: str) -> bool:
        """Whether ``table_id`` plays its first game on a deal set still open."""
        found = session.execute(
            select(DealSetRow.closed).join(TableRow, TableRow.deal_set == DealSetRow.id).where(TableRow.id == table_id)
        ).one_or_none()
        return found is not None and not found.closed

    def set_open_game(self, table_id: str, game_no: int) -> bool:
        """Whether game ``game_no`` of ``table_id`` is on a deal set still open: its record, chat and notes are
        withheld (another table of the set may still be playing those cards)."""
        if game_no != 1:
            return False
        with Session(self.engine) as session:
            return self._set_open(session, table_id)

    def create_deal_set(
        self, name: str, edition: str, players: int, options: dict[str, Any], owner: str | None
    ) -> dict[str, Any]:
        """Name a new deal set on a secret random seed: its summary."""
        row = DealSetRow(
            id=secrets.token_hex(8),
            name=name,
            edition=edition,
            players=players,
            options=options,
            seed=secrets.randbits(62),
            owner=owner,
            closed=False,
        )
        with Session(self.engine) as session, session.begin():
            session.add(row)
            session.flush()
            return deal_set_summary(row)

    def deal_set(self, set_id: str) -> DealSource | None:
        """A deal set as the deal of a new table (``finished``: it is still open to new tables)."""
        with Session(self.engine) as session:
            row = session.get(DealSetRow, set_id)
            if row is None:
                return None
            options = dict(row.options)
            return DealSource(None, None, row.seed, row.edition, row.players, options, not row.closed, set_id)

    def forced_moves(self, player_id: str) -> bool:
        """Whether ``player_id``'s only legal card is played for them at turn-based tables."""
        with Session(self.engine) as session:
            return session.scalar(select(PlayerRow.forced_moves).where(PlayerRow.id == player_id)) is not False

    def set_forced_moves(self, player_id: str, on: bool) -> None:
        """Change that setting (tables read it when they load; one held in memory is told: ``ChangeSeatSettings``)."""
        with Session(self.engine) as session, session.begin():
            session.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(forced_moves=on))

    def deal_set_summary(self, set_id: str) -> dict[str, Any] | None:
        """A deal set as anyone with its link sees it (``None``: no such set)."""
        with Session(self.engine) as session:
            row = session.get(DealSetRow, set_id)
            return None if row is None else deal_set_summary(row)

    def close_deal_set(self, set_id: str, owner: str) -> dict[str, Any] | None:
        """Close a deal set (``None``: no such set); :class:`PermissionError` for anyone but its owner."""
        with Session(self.engine) as session, session.begin():
            row = session.get(DealSetRow, set_id, with_for_update=True)
            if row is None:
                return None
            if row.owner != owner:
                raise PermissionError("only who named the deal set may close it")
            row.closed = True
            session.flush()
            return deal_set_summary(row)

    def record_of(self, table_id: str, game_no: int) -> tuple[int, list[str]] | None:
        """A game's seed and actions."""
        with Session(self.engine) as session:
            game = session.get(GameRow, (table_id, game_no))
            if game is None:
                return None
            actions = session.scalars(
                select(ActionRow.action)
                .where(ActionRow.table_id == table_id, ActionRow.game_no == game_no)
                .order_by(ActionRow.seq)
            )
            return game.seed, list(actions)

    @staticmethod
    def _bump(session: Session, row: TableRow) -> int:
        row.version += 1
        session.flush()
        return row.version

    def set_note(self, table_id: str, game_no: int, deal: int, seat: int, slot: int, text: str) -> None:
        """Keep ``seat``'s note on its card ``slot`` of ``deal`` (an empty text removes it)."""
        with Session(self.engine) as session, session.begin():
            row = session.get(NoteRow, (table_id, game_no, deal, seat, slot))
            if not text:
                if row is not None:
                    session.delete(row)
            elif row is None:
                session.add(NoteRow(table_id=table_id, game_no=game_no, deal=deal, seat=seat, slot=slot, text=text))
            else:
                row.text = text

    def notes(self, table_id: str, game_no: int, seat: int | None = None) -> list[dict[str, Any]]:
        """The notes of a game (of one seat when ``seat`` is given), deal by deal."""
        with Session(self.engine) as session:
            query = select(NoteRow).where(NoteRow.table_id == table_id, NoteRow.game_no == game_no)
            if seat is not None:
                query = query.where(NoteRow.seat == seat)
            rows = session.scalars(query.order_by(NoteRow.deal, NoteRow.seat, NoteRow.slot))
            return [{"deal": r.deal, "seat": r.seat, "slot": r.slot, "text": r.text} for r in rows]

    def review_of(self, table_id: str, game_no: int, seat: int) -> dict[str, Any] | None:
        """The stored review of ``seat`` in a game, if it was computed."""
        with Session(self.engine) as session:
            row = session.get(ReviewRow, (table_id, game_no, seat))
            return None if row is None else dict(json.loads(row.body))

    def save_review(self, table_id: str, game_no: int, seat: int, review: dict[str, Any]) -> None:
        """Keep a computed review (the first one stays: two processes may have computed it)."""
        with contextlib.suppress(IntegrityError), Session(self.engine) as session, session.begin():
            if session.get(ReviewRow, (table_id, game_no, seat)) is None:
                session.add(ReviewRow(table_id=table_id, game_no=game_no, seat=seat, body=json.dumps(review)))


def table_state(
    row: TableRow | Row[Any], seats: list[tuple[SeatRow, str | None, str | None, bool | None]] | list[tuple[Any, ...]]
) -> TableState:
    """The table of ``row`` with its ``seats`` (``Store._seats``), without its game's seed and actions."""
    return TableState(
        id=row.id,
        name=row.name,
        edition=row.edition,
        players=row.players,
        options=dict(row.options),
        public=row.public,
        grace_seconds=row.grace_seconds,
        status=Status(row.status),
        game_no=row.game_no,
        version=row.version,
        seats=[
            SeatState(
                s.seat,
                SeatKind(s.kind),
                s.bot,
                s.name,
                s.joined,
                s.player_id,
                person is not None and not username,
                s.shows_hand,
                s.client,
                forced is not False,
            )
            for s, username, person, forced in seats
        ],
        hints=row.hints,
        rated=row.rated,
        time_control=row.time_control,
        clock=row.clock,
        rematch=row.rematch,
        show_hands=row.show_hands,
        tutorial=row.tutorial,
        deal_seed=row.deal_seed,
        deal_set=row.deal_set,
        tournament=row.tournament,
    )


def insert_tables(session: Session, tables: list[NewTable]) -> list[tuple[str, dict[int, str]]]:
    """Add new tables waiting for their players to ``session``'s transaction, in two statements whatever their
    number (``Store.create_table``; a tournament round's tables with the round: tournaments.py); each one's id and
    the secret token of each human seat."""
    made: list[tuple[str, dict[int, str]]] = [(secrets.token_hex(8), {}) for _ in tables]
    table_rows, seat_rows = [], []
    for (table_id, tokens), new in zip(made, tables, strict=True):
        deal = new.deal
        table_rows.append(
            {
                "id": table_id,
                "name": new.name,
                "edition": new.edition,
                "players": new.players,
                "options": new.options,
                "public": new.public,
                "grace_seconds": new.grace_seconds,
                "hints": new.hints,
                "rated": new.rated,
                "show_hands": new.show_hands,
                "tutorial": new.tutorial,
                "deal_seed": deal.seed if deal else None,
                "deal_table": deal.table if deal else None,
                "deal_game": deal.game if deal else None,
                "deal_set": deal.deal_set if deal else None,
                "tournament": new.tournament,
                "time_control": new.time_control,
                "turn_based": is_turn_based(new.time_control),
                "status": Status.WAITING,
                "game_no": 0,
                "version": 1,
                "creator": new.creator,
                "expires_at": new.expires_at,
            }
        )
        for number, spec in enumerate(new.seats):
            token = None
            if spec["kind"] == SeatKind.HUMAN:
                token = tokens[number] = new_token()
            seat_rows.append(
                {
                    "table_id": table_id,
                    "seat": number,
                    "kind": spec["kind"],
                    "bot": spec.get("bot"),
                    "name": spec.get("name"),
                    "token_hash": token_hash(token) if token else None,
                    "joined": spec["kind"] == SeatKind.BOT,
                    "player_id": spec.get("player"),
                }
            )
    if table_rows:
        session.execute(insert(TableRow), table_rows)
        session.execute(insert(SeatRow), seat_rows)
    return made


def deal_set_summary(row: DealSetRow) -> dict[str, Any]:
    """A deal set as anyone with its link sees it (never its seed)."""
    return {
        "id": row.id,
        "name": row.name,
        "edition": row.edition,
        "players": row.players,
        "options": dict(row.options),
        "closed": row.closed,
        "owner": row.owner,
        "url": f"/deals/{row.id}",
    }


def unrate(table_id: str, game_no: int, reason: str, seat: int | None) -> Any:
    """The statement that marks a game unrated (the first reason stays; ``seat``: whose doing, if one's)."""
    return (
        update(GameRow)
        .where(GameRow.table_id == table_id, GameRow.game_no == game_no, GameRow.unrated.is_(None))
        .values(unrated=reason, unrated_seat=seat)
    )


def game_entry(row: TableRow, seat: int, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """One of a player's games as ``/api/me/games`` lists it (all of it public)."""
    playing = row.status == Status.PLAYING
    mover = row.to_move if playing else None
    clock = row.clock
    ends = ends_at(clock, mover) if mover is not None and clock is not None else None
    away = (clock or {}).get("vacation") or [None] * row.players
    return {
        "table": row.id,
        "name": row.name,
        "edition": row.edition,
        "players": row.players,
        "turn_based": row.turn_based,
        "status": row.status,
        "seat": seat,
        "seats": seats,
        "to_move": mover,
        "your_turn": mover == seat and seat not in replaced(clock),
        "deadline": ends,
        "vacation": away if playing else [None] * row.players,
        "missed": ((clock or {}).get("missed") or [None] * row.players)[seat] if playing else None,
        "url": f"/t/{row.id}",
    }
