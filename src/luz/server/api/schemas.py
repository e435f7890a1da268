"""The HTTP API's request and answer bodies (pydantic): tables, seats, joins, the tutorial."""

from __future__ import annotations

import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from luz.bots import BOTS
from luz.engine import DEFAULT_EDITION, EDITIONS

from ..domain import SeatKind
from ..timecontrol import TIMEOUTS_BEFORE_BOT, TimeControlSpec

NO_NUL = r"^[^\x00]*$"
"""Text without NUL characters (PostgreSQL cannot store them)."""
DB_INT = 2**31
"""Whole numbers sent to the database fit its integer columns."""
TABLE_NAME_LENGTH = 80
"""The longest name of a table (``TableRow.name``)."""
HIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Co")
"""Characters a table's name may not hold: controls (a new line), formats (a bidi override, a zero-width space),
surrogates and private use (as a display name: identity.py)."""


class SeatSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: SeatKind = SeatKind.HUMAN
    bot: str | None = Field(
        None,
        max_length=32,
        description="Bot level for a bot seat: " + ", ".join(BOTS) + ", optionally with parameters (strong:iters=200)",
    )
    name: str | None = Field(None, max_length=40, pattern=NO_NUL)


class DealRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table: str = Field(..., max_length=32, pattern=r"^[0-9A-Za-z_-]+$")
    game: int = Field(..., ge=1, lt=DB_INT)


class TableCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edition: str = Field(DEFAULT_EDITION, description="Edition key: " + ", ".join(EDITIONS))
    players: int = Field(4, ge=3, le=5)
    name: str = Field(
        "", max_length=TABLE_NAME_LENGTH, pattern=NO_NUL, description="Shown as typed, trimmed (empty: the edition's)."
    )
    public: bool = Field(True, description="Listed in the lobby, where anyone may take an open seat.")
    grace_seconds: float = Field(
        30.0,
        ge=0,
        le=3600,
        description="How long a disconnected player's seat waits before a bot plays for them (until they come back).",
    )
    options: dict[str, Any] = Field(default_factory=dict, description="Table options (bid_cap, trick_history, ...)")
    hints: bool = Field(False, description="Show each player the odds of its own hidden values (a learning aid).")
    rated: bool = Field(
        False, description="Its games change the players' ratings; only accounts may take its human seats."
    )
    show_hands: bool = Field(
        False,
        description="Spectators see every hand face up (friends who stream or teach); the seats never do. Only "
        "for an unlisted (public false), unrated table.",
    )
    seats: list[SeatSpec] | None = Field(None, description="One per seat; default: every seat human.")
    time_control: TimeControlSpec | None = Field(
        None,
        description="A clock: a preset (minutes + seconds per move: 1+5, 3+10, 5+15) or {reserve_seconds, "
        "increment_seconds}; or turn-based, days per move: 1d, 2d, 3d, 7d or {days_per_move} (1 to 14). Default "
        "none. When a player's time runs out the heuristic bot plays that move for them.",
    )
    deal: DealRef | None = Field(
        None,
        description="Play a finished game's deal again (its table and game number): the same cards at every deal, "
        "the same first player; its edition, players and options are that game's (leave them out). Unrated.",
    )
    deal_set: str | None = Field(
        None,
        max_length=32,
        pattern=r"^[0-9a-f]+$",
        description="Play a named deal set's deal (its id, from its link) while the set is open; its edition, "
        "players and options are the set's (leave them out). Unrated.",
    )
    timeouts_before_bot: int = Field(
        TIMEOUTS_BEFORE_BOT,
        ge=1,
        le=5,
        description="Turn-based tables: after this many timeouts in a row, a bot plays the seat for the rest of the "
        "game (a rated game then ranks its player last).",
    )

    time_bank_hours: Literal[0, 12, 24, 48] = Field(
        0,
        description="Turn-based tables: each seat's time bank, hours per game (0, 12, 24 or 48): when a move's time "
        "first runs out, the whole bank extends it, before the timeout is played.",
    )

    @field_validator("name")
    @classmethod
    def plain_name(cls, name: str) -> str:
        """The name as the lobby shows it: NFC, trimmed, inner whitespace one space, no control or format
        character (the zero-width joiner of emoji sequences kept)."""
        plain = " ".join(unicodedata.normalize("NFC", name).split())
        if any(unicodedata.category(c) in HIDDEN_CATEGORIES and c != "\u200d" for c in plain):
            raise ValueError("a table's name cannot hold control or format characters")
        if len(plain) > TABLE_NAME_LENGTH:  # NFC lengthens a few characters
            raise ValueError(f"a table's name has at most {TABLE_NAME_LENGTH} characters")
        return plain


class JoinRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(
        None,
        min_length=1,
        max_length=40,
        pattern=NO_NUL,
        description="Your display name (default: as it is); a new one renames your identity, as POST /api/me/name.",
    )
    token: str | None = Field(None, max_length=100, description="The seat's invite token (needed for a private table).")


class DealSetCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., min_length=1, max_length=80, pattern=NO_NUL, description='"Thursday club, week 12"')
    edition: str = Field(DEFAULT_EDITION, description="Edition key: " + ", ".join(EDITIONS))
    players: int = Field(4, ge=3, le=5)
    options: dict[str, Any] = Field(default_factory=dict, description="Table options (bid_cap, trick_history, ...)")


class Invite(BaseModel):
    seat: int
    token: str
    url: str


class TableCreated(BaseModel):
    table: dict[str, Any]
    invites: list[Invite]


class Joined(BaseModel):
    seat: int
    token: str
    table: dict[str, Any]


class TutorialRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field("", max_length=40, pattern=NO_NUL)
