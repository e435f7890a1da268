"""The database: tables, seats, games and the append-only action log (SQLAlchemy 2, migrated by Alembic)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    false,
    text,
    true,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from .domain import Status

MIGRATIONS = Path(__file__).parent / "migrations"


def now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    """A table: where games are played in a row by the same seats."""

    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    edition: Mapped[str] = mapped_column(String(40))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    grace_seconds: Mapped[float] = mapped_column(Float, default=30.0)
    hints: Mapped[bool] = mapped_column(Boolean, default=False)
    """Whether each seat's view carries hints (the exact odds of its own hidden values)."""
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether its games change the players' ratings (then every human seat is an account's: ratings.py)."""
    status: Mapped[str] = mapped_column(String(16), default=Status.WAITING)
    """``waiting`` for players, ``playing``, or ``over`` (the current game is finished)."""
    game_no: Mapped[int] = mapped_column(Integer, default=0)
    version: Mapped[int] = mapped_column(Integer, default=0)
    """Bumped by every stored change of the table: clients notice gaps by it."""
    time_control: Mapped[dict[str, int] | None] = mapped_column(JSON, nullable=True)
    """``{"reserve_ms", "increment_ms"}``; ``None``: untimed (timecontrol.py)."""
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The current game's clock: each seat's reserve and when its turn began (timecontrol), stored with each action."""
    turn_based: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether its time control is days per move (timecontrol.py): it waits for days, mostly out of memory."""
    to_move: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The seat to move in the current game (public), stored with each change; ``None``: no game being played."""
    deadline: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    """A turn-based table's next call on the server (epoch ms): its mover's deadline, or, when a bot is to move,
    a watchdog time by which it has moved unless the process died. ``None``: nothing to wait for (or real-time)."""
    notify_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    """When the turn passed to the human seat to move at a turn-based table: its player is to be told (push,
    email); cleared by the one process that tells them (notify/)."""
    remind_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    """When a quarter of the mover's time is left at a turn-based table: its reminder's time, cleared once sent."""
    show_hands: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether spectators see every hand face up (only an unlisted, unrated table: friends who stream or teach)."""
    tutorial: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether it is a tutorial's table (``POST /api/tutorial``): one unfinished per identity."""
    rematch: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The rematch offered at game over: who offered, each human seat's answer, when it expires; ``None``: none."""
    creator: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    """A keyed hash of the client that created it (as ``SeatRow.client``): its waiting public tables are capped,
    and the lobby interleaves the creators; ``None``: unknown (a table from before)."""
    expires_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    """When it expires if it is still waiting for players then (epoch ms, tables/commands.py ``Expire``);
    ``None``: never."""
    deal_seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    """The seed of the finished game whose deal its first game plays again ("Play this deal"); never shown while
    that game runs; ``None``: a random deal."""
    deal_table: Mapped[str | None] = mapped_column(String(32), nullable=True)
    deal_game: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The finished game (table and number) whose deal it plays again, when ``deal_seed`` is set."""
    deal_set: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    """The named deal set whose deal its first game plays (``deal_seed`` is the set's), if any."""
    tournament: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The tournament whose round it plays (one game: no rematch), if any."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class SeatRow(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "player_id", name="one_seat_per_player"),)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``human`` or ``bot``."""
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    joined: Mapped[bool] = mapped_column(Boolean, default=False)
    player_id: Mapped[str | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL"), nullable=True, index=True
    )
    """The identity that took the seat (one seat per identity at a table); ``None``: a bot or an open seat."""
    client: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """A keyed hash of the client address the seat was taken from (one seat per address at public and rated
    tables); never the address itself."""
    shows_hand: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether its player agreed that anyone watching sees its cards (a ``show_hands`` table starts once every
    seated human has)."""


class GameRow(Base):
    __tablename__ = "games"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    game_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    seed: Mapped[int] = mapped_column(BigInteger, index=True)
    """Its deal: every game on one seed (and the same edition, players and options) is dealt the same cards."""
    unrated: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """Why a rated table's game no longer counts for the ratings (``left``, ``timeout``: in the first deal);
    ``None``: it counts (when the table is rated)."""
    unrated_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The seat whose player left or ran out of time, when ``unrated`` is set (the table is told who)."""
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class DealSetRow(Base):
    """A named deal ("Thursday club, week 12"): one secret seed that several tables play at different times, then
    compare. Its games' records stay hidden until its owner closes it (no table helped by another's replay)."""

    __tablename__ = "deal_sets"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    """Its link's key (random: knowing it is being invited)."""
    name: Mapped[str] = mapped_column(String(80))
    edition: Mapped[str] = mapped_column(String(40))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    owner: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The identity that named it (who may close it)."""
    closed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Closed: no new table on it, and its games' replays are shown."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ActionRow(Base):
    """One action, appended once and never changed: with the game's seed, the truth of the game."""

    __tablename__ = "actions"
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class NoteRow(Base):
    """A player's note on one of their own cards (what they think it is): theirs alone while the game runs."""

    __tablename__ = "notes"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    game_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(String(16))


class ChatRow(Base):
    """A chat message of a table (tables/chat.py): the players' channel or the spectators', kept for the replay."""

    __tablename__ = "chat"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    game_no: Mapped[int] = mapped_column(Integer)
    """The game it was said at (before the first game: 1; between two games: the one just over)."""
    channel: Mapped[str] = mapped_column(String(16))
    """``players`` or ``spectators``."""
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    player_id: Mapped[str | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL"), nullable=True, index=True
    )
    """Indexed: a pruned guest's messages are found to keep without it (identity.py, ``prune_guests``)."""
    name: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(String(280))
    preset: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """A quick message's key (``good_game``...), shown in each reader's language; ``text`` is its English."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


# -- players (docs/PROTOCOL.md, "Players") ----------------------------------------------------------------------


class PlayerRow(Base):
    """An identity: a guest (no username) or an account (a username and an Argon2 password hash)."""

    __tablename__ = "players"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    """The display name, as the player chose it."""
    username: Mapped[str | None] = mapped_column(String(40), nullable=True, unique=True)
    """An account's login name, lower-cased; ``None`` for a guest."""
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    name_skeleton: Mapped[str | None] = mapped_column(String(255), nullable=True, unique=True, index=True)
    """An account's display name as it looks (:func:`luz.server.names.skeleton`: names are unique among accounts
    however they are written); ``None``: a guest."""
    seen_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    """When the player was last seen with a page open (epoch ms, written at most once a minute): online."""
    # What the player is told of, and how (notify/): none of it is public.
    push_on: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    """Whether "your turn" notifications go to the player's browsers (those subscribed)."""
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    """An account's email address for the digest of its turns (opt-in); ``None``: none given."""
    email_verified: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    email_on: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    quiet_start: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Quiet hours (no notification): from this minute of the day, in ``timezone``; ``None``: none."""
    quiet_end: Mapped[int | None] = mapped_column(Integer, nullable=True)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC", server_default="UTC")
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")
    forced_moves: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    """Whether their only legal card is played for them at turn-based tables (tables/forced.py)."""
    """The language of the player's notifications (``en``, ``fr``, ``ja``)."""
    email_pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """A turn came since the last digest: the next one is due (at most one an hour)."""
    emailed_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    """When the last digest was sent (epoch ms)."""
    vacation_until: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    """When the player's vacation ends (epoch ms; vacation.py), ``None``: not on vacation. Public at their tables."""
    vacation_year: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The calendar year ``vacation_days`` counts in (a new year starts the allowance afresh)."""
    vacation_days: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The vacation days taken in ``vacation_year``."""


class PushSubscriptionRow(Base):
    """A browser's Web Push subscription (its push service's endpoint and keys), for one player."""

    __tablename__ = "push_subscriptions"
    endpoint: Mapped[str] = mapped_column(String(1000), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    p256dh: Mapped[str] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class VerificationMailRow(Base):
    """A verification email sent (counted in the database, so that every process counts together): one an address
    a day (UTC), a few an account a day (``slot``: its first, second ... that day)."""

    __tablename__ = "verification_mails"
    __table_args__ = (
        UniqueConstraint("address", "day", name="one_verification_per_address_a_day"),
        UniqueConstraint("player_id", "day", "slot", name="verification_slots_per_account"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(String(32))
    """The account that asked (no foreign key: a deleted account's mails still count for their address)."""
    address: Mapped[str] = mapped_column(String(254))
    """The address as email-validator normalised it, lower-cased."""
    day: Mapped[str] = mapped_column(String(10))
    """The UTC day it was sent (``YYYY-MM-DD``)."""
    slot: Mapped[int] = mapped_column(Integer)
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class NameChangeRow(Base):
    """A display name a player left: shown on their profile, so that a rename cannot hide a record."""

    __tablename__ = "name_changes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    old_name: Mapped[str] = mapped_column(String(40))
    new_name: Mapped[str] = mapped_column(String(40))
    changed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class FollowRow(Base):
    """One player following another (their friends: those they follow)."""

    __tablename__ = "follows"
    follower_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    followee_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class BlockRow(Base):
    """One player blocking another: no invitation from them, their chat hidden, never seated together in public."""

    __tablename__ = "blocks"
    blocker_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class InvitationRow(Base):
    """A seated player's invitation of a friend to an open seat: the friend may take it without its token."""

    __tablename__ = "invitations"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True)
    """The invited player."""
    by_player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class SessionRow(Base):
    """A signed-in browser or client: the cookie carries the token, the database only its hash (revocable)."""

    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ServerKeyRow(Base):
    """Secrets shared by every server process (the cookie-signing key when ``LUZ_SECRET_KEY`` is not set)."""

    __tablename__ = "server_keys"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class ResultRow(Base):
    """One seat's result in a finished game, written in the transaction that stores the game's last action."""

    __tablename__ = "results"
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL"), nullable=True, index=True
    )
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(40))
    rank: Mapped[int] = mapped_column(Integer)
    """1 for the winner."""
    points: Mapped[int] = mapped_column(Integer)
    deals: Mapped[int] = mapped_column(Integer)
    exact_bids: Mapped[int] = mapped_column(Integer)
    safeties: Mapped[int] = mapped_column(Integer)
    against_bots: Mapped[bool] = mapped_column(Boolean)
    """Whether a bot held another seat of the game."""
    abandoned: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether a bot was playing this human seat at the end (its player had left): last, for the ratings."""
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, index=True)


class RatingRow(Base):
    """A player's OpenSkill (Plackett-Luce) rating in one pool: an edition at one player count (ratings.py)."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ratings_by_pool", "edition", "players", "mu"),)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    edition: Mapped[str] = mapped_column(String(40), primary_key=True)
    players: Mapped[int] = mapped_column(Integer, primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    """Rated games played in the pool: provisional below ``ratings.PROVISIONAL_GAMES``."""
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class RatingChangeRow(Base):
    """What one rated game did to one player's rating: written once per (game, player), with the game's last
    action (the primary key refuses a second one)."""

    __tablename__ = "rating_changes"
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True)
    edition: Mapped[str] = mapped_column(String(40))
    players: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)
    """The place the rating counted (1 first; whoever abandoned is last)."""
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


def to_json(data: Any) -> str:
    """JSON text of a column's value: orjson's, or the standard library's for integers past 64 bits (which orjson
    refuses and a table's options may hold)."""
    try:
        return orjson.dumps(data).decode()
    except TypeError:
        return json.dumps(data)


def execute_raw(connection: Any, statement: str) -> None:
    """Run ``statement`` on a DB-API connection (``engine.raw_connection()``: no SQLAlchemy transaction, whose
    ``BEGIN IMMEDIATE`` would take SQLite's write lock), its rows read and dropped."""
    cursor = connection.cursor()
    try:
        cursor.execute(statement)
        cursor.fetchall()
    finally:
        cursor.close()


SNAPSHOT = "luz_snapshot"
"""An execution option: on SQLite, a transaction that only reads begins deferred (a snapshot of the WAL, no write
lock taken: it neither waits for the writer nor holds it up); others begin IMMEDIATE."""


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets its folder created, WAL and foreign keys."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    # JSON columns (a timed table's clock is written with each action) through orjson, a few times faster. As many
    # pooled connections as asyncio's worker threads (its default executor's size), which make the database
    # calls: with fewer, the pool opened and closed an overflow connection per call under load. A pooled connection
    # is checked before use only on a database server (which can drop it): a SQLite file's cannot be dropped, and
    # its check, a query per call on the event loop's thread, showed in the stall watch's stacks.
    engine = create_engine(
        url,
        pool_pre_ping=not url.startswith("sqlite"),
        pool_size=min(32, (os.cpu_count() or 1) + 4),
        json_serializer=to_json,
    )
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(connection: Any, _: Any) -> None:
            connection.isolation_level = None  # transactions are begun explicitly (BEGIN IMMEDIATE)
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=10000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin_immediate(connection: Any) -> None:
            connection.exec_driver_sql(
                "BEGIN" if connection.get_execution_options().get(SNAPSHOT) else "BEGIN IMMEDIATE"
            )

    return engine


def migrate(engine: Engine) -> None:
    """Bring the schema up to date with the Alembic migrations."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Processes started together would race to create the schema: one migrates at a time.
            connection.execute(text("SELECT pg_advisory_xact_lock(7107165)"))
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


class ReviewRow(Base):
    """The review of one seat's decisions in a finished game (luz.bots.review): computed once, then served from
    here. It never changes the game's record."""

    __tablename__ = "reviews"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    game_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    body: Mapped[str] = mapped_column(Text)
    """The review's JSON (docs/REVIEW.md), its search settings included."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class SightingRow(Base):
    """An identity seen from a client (a keyed hash of its address) or a browser (a device cookie's nonce, hashed),
    and when last (links.py): identities seen from one within a week exchange no rating."""

    __tablename__ = "sightings"
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(80), primary_key=True, index=True)
    """``addr:<keyed hash of the address>`` or ``device:<hash of a device cookie's nonce>``; never the address."""
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, index=True)


class TournamentRow(Base):
    """A duplicate Swiss tournament (tournament.py): its settings and where it stands."""

    __tablename__ = "tournaments"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    edition: Mapped[str] = mapped_column(String(40))
    size: Mapped[int] = mapped_column(Integer)
    """Players per table."""
    rounds: Mapped[int] = mapped_column(Integer)
    time_control: Mapped[dict[str, Any]] = mapped_column(JSON)
    """As a table stores it (timecontrol.py): a clock, or turn-based days per move."""
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    starts_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When it starts; ``None``: once ``capacity`` players have joined."""
    capacity: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The most players it takes (it starts when full if it has no start time)."""
    status: Mapped[str] = mapped_column(String(16), index=True)
    """``open`` (players join and leave), ``playing``, ``over``."""
    round_no: Mapped[int] = mapped_column(Integer, default=0)
    """The round being played (0 before the first)."""
    created_by: Mapped[str | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class TournamentPlayerRow(Base):
    """A player of a tournament: one per identity and one per client address."""

    __tablename__ = "tournament_players"
    __table_args__ = (UniqueConstraint("tournament_id", "client", name="one_place_per_client"),)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True)
    client: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The keyed hash of the client address it joined from (never the address)."""
    lot: Mapped[int] = mapped_column(BigInteger)
    """A random number drawn on joining: the last tie-break and the first round's order."""
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class TournamentRoundRow(Base):
    """A round of a tournament: its secret seed (every table plays it), never sent before the round ends."""

    __tablename__ = "tournament_rounds"
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    round_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    over: Mapped[bool] = mapped_column(Boolean, default=False)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class TournamentTableRow(Base):
    """A table of a round."""

    __tablename__ = "tournament_tables"
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    round_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), unique=True)


class DailyAttemptRow(Base):
    """One identity's attempt at one day's deal of one edition (daily.py): one per identity, day and edition."""

    __tablename__ = "daily_attempts"
    __table_args__ = (
        UniqueConstraint("day", "edition", "player_id", name="daily_one_attempt"),
        Index("daily_board", "day", "edition", "ranked", "score"),
        Index("daily_unsettled", "status", "day"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    day: Mapped[str] = mapped_column(String(10))
    """The UTC day, ``YYYY-MM-DD``."""
    edition: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    guest: Mapped[bool] = mapped_column(Boolean)
    """A guest's attempt: listed as a guest's, never ranked."""
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    """Its table (none for an attempt given up to see the results before playing)."""
    status: Mapped[str] = mapped_column(String(10))
    """``playing``, ``finished``, ``abandoned`` (not finished when its day ended) or ``revealed`` (given up to
    see the results)."""
    ranked: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Finished by an account: counted on the leaderboard."""
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    marks: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """Each deal's mark, comma-separated (``made``, ``safety``, ``missed``)."""
    started_at: Mapped[float] = mapped_column(Float)
    """When it began (epoch seconds, the server's clock)."""


class DailyScoreRow(Base):
    """How many of a day's ranked players scored ``score`` at its deal of ``edition`` (counted as each attempt is
    settled: the leaderboard reads a few hundred rows, however many played)."""

    __tablename__ = "daily_scores"
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    edition: Mapped[str] = mapped_column(String(32), primary_key=True)
    score: Mapped[int] = mapped_column(Integer, primary_key=True)
    players: Mapped[int] = mapped_column(Integer, default=0)


class DailyBidRow(Base):
    """How many of a day's players bid ``bid`` (with or without the safety) in deal ``deal`` of its deal."""

    __tablename__ = "daily_bids"
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    edition: Mapped[str] = mapped_column(String(32), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    bid: Mapped[int] = mapped_column(Integer, primary_key=True)
    safety: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    players: Mapped[int] = mapped_column(Integer, default=0)
