"""Helpers of the notification tests: a table seated for a player, a turn made due (the columns core writes with
each change of a turn-based table, set by SQL until it does), settings of a server that pushes to 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine

from luz.engine import DEFAULT_EDITION
from luz.server import Settings, app_services
from luz.server.notify import Notifier
from luz.server.store import Store
from support.server import wait_for

DAY_MS = 24 * 3600 * 1000


def epoch_ms() -> int:
    return int(time.time() * 1000)


def notify_settings(database_url: str, **changes: Any) -> Settings:
    values: dict[str, Any] = {"bot_workers": 0, "messages_per_second": 10_000, "push_allow_local": True}
    values["notify_seconds"] = 0.05
    return Settings(database_url=database_url, **(values | changes))


def seated_table(store: Store, player_id: str, name: str = "Friday table") -> str:
    """A table of three stored with ``player_id`` at seat 0 and two bots."""
    bot = {"kind": "bot", "bot": "random"}
    table_id, tokens = store.create_table(
        name=name,
        edition=DEFAULT_EDITION,
        players=3,
        options={},
        public=False,
        grace_seconds=30,
        seats=[{"kind": "human"}, bot, bot],
    )
    store.join(table_id, 0, "me", tokens[0], player_id)
    return table_id


def make_due(engine: Engine, table_id: str, *, seat: int = 0, **columns: int | None) -> None:
    """What core writes when a turn-based table's turn passes (set by SQL until it does): ``notify_at``,
    ``remind_at``, ``deadline``."""
    values = {"notify_at": None, "remind_at": None, "deadline": None} | columns
    with engine.begin() as connection:
        connection.execute(
            text(
                "UPDATE tables SET turn_based = :yes, status = 'playing', to_move = :seat, deadline = :deadline,"
                " notify_at = :notify_at, remind_at = :remind_at WHERE id = :id"
            ),
            {"yes": True, "seat": seat, "id": table_id, **values},
        )


def column(engine: Engine, table_id: str, name: str) -> Any:
    with engine.connect() as connection:
        return connection.execute(text(f"SELECT {name} FROM tables WHERE id = :id"), {"id": table_id}).scalar_one()


def notifier_of(client: Any) -> Notifier:
    notifier: Notifier = app_services(client.app).notifications.notifier
    return notifier


def scans_pass(counts: Callable[[], int], more: int = 3) -> None:
    """Wait for ``more`` scans of the notifier after now (what did not come by then did not come of this turn)."""
    start = counts()
    wait_for(lambda: counts() >= start + more, timeout=30)
