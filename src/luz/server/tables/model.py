"""The live tables' vocabulary: refusals, connections and what they are sent, who a spectator is, a stored change,
the quick bot."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

QUICK_BOT = "heuristic"
"""The quick bot (a millisecond a move): a bot seat's default, and the one that moves at once for a seat whose
player is away, whose time ran out, or whose own bot went over its time."""


@dataclass(frozen=True)
class Watcher:
    """What ties a spectator's connection to people: its identity (if it has one), its client (the keyed hash of
    its address, an IPv6 one's network: as a seat's ``client``) and the accounts its device cookie says this
    browser signed in to. At a ``show_hands`` table, a spectator tied to a seat never sees the hands (fanout.py)."""

    player: str | None = None
    client: str | None = None
    accounts: frozenset[str] = field(default_factory=frozenset)


class Refused(Exception):
    """An action or request the table refuses; ``code`` is machine-readable, the message is for people; ``limit``
    names the limit it is over, if that is why (counted in the metrics)."""

    def __init__(self, code: str, message: str, limit: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.limit = limit


class Connection(Protocol):
    """What the tables need of a client's connection (a WebSocket, or a test's recorder)."""

    async def send_text(self, data: str) -> None: ...


Outbox = list[tuple[int | None, Connection, str]]
"""Messages for this process's connections: (seat or ``None`` for a spectator, connection, text)."""


@dataclass(frozen=True)
class Change:
    """An action just stored, carried by its event: a process one version behind applies it without a read."""

    game_no: int
    action: str
    clock: dict[str, Any] | None = None
    """The table's clock after the action (``timecontrol.py``), if the table is timed."""


@dataclass(frozen=True)
class Chosen:
    """A seat's premove: the card at ``slot`` of its hand, in the deal ``deal`` of game ``game_no`` (premoves.py)."""

    game_no: int
    deal: int
    slot: int


def dumps(data: Any) -> str:
    """``data`` as JSON text (orjson: a few times faster than the standard library on views)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # what orjson does not write: an integer beyond 64 bits (a client's id, echoed)
        return json.dumps(data)
