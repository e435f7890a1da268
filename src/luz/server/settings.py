"""Server settings: from command-line options, else the environment, else embedded defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def default_database_url() -> str:
    """An embedded SQLite database in the user's data folder (``$XDG_DATA_HOME/luz/luz.sqlite3``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite:///{base / 'luz' / 'luz.sqlite3'}"


@dataclass(frozen=True)
class Settings:
    database_url: str
    redis_url: str | None = None
    """Redis for table events across server processes; ``None``: one process, events stay in memory."""
    bot_workers: int = 1
    """Processes that compute bot moves."""
    bot_seconds: float = 5.0
    """A bot's time for one move at a table; past it, a quick bot moves for it."""
    bot_pace: float = 0.0
    """The least time a bot's move takes (``luz serve``: 0.5 s), so that its thinking time, which depends on what
    its seat sees (the others' hidden cards included), tells the players nothing."""
    max_message_bytes: int = 4096
    messages_per_second: float = 20.0
    """Sustained rate of messages a connection may send (with a burst of twice as many)."""
    public_url: str = ""
    """Prefix of invite links (e.g. ``https://luz.example``); empty: relative links."""
    secret_key: str = ""
    """Signs the session cookies (``LUZ_SECRET_KEY``); empty: a key stored once in the database for every process."""

    @classmethod
    def from_env(cls, database_url: str | None = None, redis_url: str | None = None) -> Settings:
        return cls(
            database_url=database_url or os.environ.get("LUZ_DATABASE_URL") or default_database_url(),
            redis_url=redis_url or os.environ.get("LUZ_REDIS_URL") or None,
            bot_workers=int(os.environ.get("LUZ_BOT_WORKERS", "1")),
            bot_seconds=float(os.environ.get("LUZ_BOT_SECONDS", "5")),
            bot_pace=float(os.environ.get("LUZ_BOT_PACE", "0.5")),
            public_url=os.environ.get("LUZ_PUBLIC_URL", ""),
            secret_key=os.environ.get("LUZ_SECRET_KEY", ""),
        )
