"""Which identities share a client: each identity's **sightings**, the clients (a keyed hash of the address,
``ratelimit.client_key`` through ``Identities.address_hash``) and browsers (a device cookie's nonce, hashed:
``api/identities.py``) it was seen from, and when, in the database (every process sees them).

An identity is seen from its client when it takes a seat, registers or logs in, and from its browser's device
cookie when it registers or logs in (the cookie remembers the accounts of that browser). Two identities seen from
one client or one browser within :data:`LINK_DAYS`, or seated from one client at the same table, are **linked**:
they exchange no rating (ratings.py) and their games together do not open rated seats (store.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import timedelta

from sqlalchemy import Connection, delete, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from .db import SeatRow, SightingRow, now

LINK_DAYS = 7
"""How long a sighting links identities."""


def address_key(address_hash: str) -> str:
    """The sighting key of a client (the keyed hash of its address a seat keeps)."""
    return f"addr:{address_hash}"


def device_key(nonce: str) -> str:
    """The sighting key of a browser: the hash of a nonce of its device cookie (never the nonce itself)."""
    return "device:" + hashlib.sha256(nonce.encode()).hexdigest()


def seen(connection: Connection | Session, player_id: str, keys: Iterable[str]) -> None:
    """``player_id`` is seen now from each of ``keys`` (in the caller's transaction); its sightings older than
    :data:`LINK_DAYS` go (they link nothing any more)."""
    stamp = now()
    rows = [{"player_id": player_id, "key": key, "seen_at": stamp} for key in sorted(set(keys))]
    if not rows:
        return
    old = stamp - timedelta(days=LINK_DAYS)
    connection.execute(delete(SightingRow).where(SightingRow.player_id == player_id, SightingRow.seen_at < old))
    dialect = connection.get_bind().dialect.name if isinstance(connection, Session) else connection.dialect.name
    insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
    statement = insert(SightingRow).values(rows)
    connection.execute(statement.on_conflict_do_update(index_elements=["player_id", "key"], set_={"seen_at": stamp}))


def _keys(connection: Connection | Session, ids: Iterable[str]) -> dict[str, set[str]]:
    """Each of ``ids``'s keys seen within :data:`LINK_DAYS`."""
    since = now() - timedelta(days=LINK_DAYS)
    query = select(SightingRow.player_id, SightingRow.key).where(
        SightingRow.player_id.in_(list(ids)), SightingRow.seen_at >= since
    )
    keys: dict[str, set[str]] = {}
    for player, key in connection.execute(query):
        keys.setdefault(player, set()).add(key)
    return keys


def linked_pairs(connection: Connection | Session, table_id: str, ids: list[str]) -> set[frozenset[str]]:
    """The pairs of ``ids`` linked: seated from one client at ``table_id``, or seen from one client or browser
    within :data:`LINK_DAYS`."""
    keys = _keys(connection, ids)
    seated = select(SeatRow.player_id, SeatRow.client).where(
        SeatRow.table_id == table_id, SeatRow.player_id.in_(ids), SeatRow.client.is_not(None)
    )
    for player, client in connection.execute(seated):
        if player is not None and client is not None:
            keys.setdefault(player, set()).add(address_key(client))
    return {
        frozenset((one, other))
        for n, one in enumerate(ids)
        for other in ids[n + 1 :]
        if keys.get(one, set()) & keys.get(other, set())
    }


def linked_to(connection: Connection | Session, player_id: str) -> set[str]:
    """The identities linked to ``player_id`` by a client or browser seen within :data:`LINK_DAYS`."""
    since = now() - timedelta(days=LINK_DAYS)
    mine = select(SightingRow.key).where(SightingRow.player_id == player_id, SightingRow.seen_at >= since)
    query = select(SightingRow.player_id).where(
        SightingRow.key.in_(mine), SightingRow.seen_at >= since, SightingRow.player_id != player_id
    )
    return set(connection.scalars(query))


def record(engine: Engine, player_id: str, keys: Iterable[str]) -> None:
    """``player_id`` is seen now from each of ``keys`` (a transaction of its own: a login, a registration)."""
    with engine.begin() as connection:
        seen(connection, player_id, keys)
