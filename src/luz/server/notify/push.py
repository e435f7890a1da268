"""Web Push: the server's VAPID key, the browsers' subscriptions, and sending (encrypted aes128gcm by pywebpush,
signed with VAPID by py_vapid, posted with aiohttp: never blocking the event loop, each within a timeout, a few at
a time).

A subscription's endpoint is a URL the server posts to, so it is checked as an outside address (SSRF): https on a
public host when stored, and again, with the addresses its name resolves to, when posted to; redirects are not
followed. A host written as a number in any form a resolver accepts (``127.1``, ``2130706433``, ``0x7f000001``) is
read as the address it means. ``push_allow_local`` (tests) lets loopback and private addresses through.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import logging
import re
import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid  # type: ignore[import-untyped]
from pywebpush import WebPusher  # type: ignore[import-untyped]
from sqlalchemy import delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..db import PushSubscriptionRow, ServerKeyRow

log = logging.getLogger("luz.server.notify")

SUBSCRIPTIONS_PER_PLAYER = 10
"""A player's browsers: a new one beyond drops the oldest."""
SEND_TIMEOUT = 10.0
"""Seconds one push may take, connection included."""
SENDING_AT_ONCE = 16
MAX_TTL = 28 * 24 * 3600
"""How long a push service keeps an undelivered push at most (seconds)."""
GONE = (404, 410)
"""A push service's answers that the subscription no longer exists: it is deleted."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# -- the VAPID key -------------------------------------------------------------------------------------------------


def vapid_key(engine: Engine, configured: str) -> Any:
    """The server's VAPID key (a ``py_vapid.Vapid``): ``configured`` (PEM, or base64url raw or DER) if set, else
    one generated once and stored in ``server_keys`` for every process."""
    if "-----BEGIN" in configured:
        return Vapid.from_pem(configured.strip().encode())
    if configured:
        return Vapid.from_string(configured)
    with Session(engine) as session:
        stored = session.get(ServerKeyRow, "vapid")
    if stored is None:
        number = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
        try:
            with Session(engine) as session, session.begin():
                session.add(ServerKeyRow(name="vapid", value=b64url(number.to_bytes(32, "big"))))
        except IntegrityError:  # another process stored one first
            pass
        with Session(engine) as session:
            stored = session.get(ServerKeyRow, "vapid")
    assert stored is not None
    return Vapid.from_string(stored.value)


def public_key(vapid: Any) -> str:
    """The VAPID public key as browsers take it (``applicationServerKey``): the uncompressed point, base64url."""
    point: bytes = vapid.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64url(point)


# -- what may be stored -------------------------------------------------------------------------------------------


LEGACY_IPV4 = re.compile(r"[0-9a-fx.]+", re.IGNORECASE)
"""What may be an IPv4 address in a legacy form (``127.1``, ``2130706433``, ``0x7f000001``, ``0177.0.0.1``)."""


def host_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address ``host`` means, whatever the form it is written in (``None``: it is a name). The legacy IPv4 forms
    that resolvers and HTTP clients accept are read as ``inet_aton`` reads them, so none passes for a name."""
    host = host.removesuffix(".")
    try:
        return ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        pass
    if LEGACY_IPV4.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:  # hexadecimal-looking but not a number, as a name can be ("cafe.face")
            return None
    return None


def _local_address(address: str) -> bool:
    ip = host_address(address)
    if ip is None:
        raise ValueError(f"{address} is a name, not an address")
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast or ip.is_reserved or ip.is_unspecified


def endpoint_problem(endpoint: str, allow_local: bool) -> str | None:
    """Why ``endpoint`` may not be posted to (``None``: it may)."""
    try:
        url = urlsplit(endpoint)
        host = url.hostname or ""
        _ = url.port  # a port that is not a number is refused here
    except ValueError:
        return "the endpoint is not a URL"
    if url.username is not None or url.password is not None:
        return "the endpoint may not carry credentials"
    if not host:
        return "the endpoint has no host"
    try:
        local = _local_address(host)
    except ValueError:  # a name: its addresses are checked when it is posted to
        local = host.removesuffix(".") == "localhost" or host.removesuffix(".").endswith(".localhost")
    if local and not allow_local:
        return "the endpoint's host is a local or private address"
    if url.scheme != "https" and not (url.scheme == "http" and local and allow_local):
        return "the endpoint must be an https URL"
    return None


def keys_problem(p256dh: str, auth: str) -> str | None:
    """Why a subscription's keys are unusable (``None``: they are a P-256 public key and a 16-byte secret)."""
    try:
        point, secret = b64url_decode(p256dh), b64url_decode(auth)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        return "keys.p256dh is not a P-256 public key (base64url, uncompressed point)"
    if len(point) != 65:
        return "keys.p256dh is not an uncompressed point"
    if len(secret) != 16:
        return "keys.auth is not a 16-byte secret (base64url)"
    return None


# -- subscriptions ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subscription:
    endpoint: str
    player_id: str
    p256dh: str
    auth: str

    def info(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


class Subscriptions:
    """The players' push subscriptions in the database (each call one short transaction)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, subscription: Subscription, most: int = SUBSCRIPTIONS_PER_PLAYER) -> None:
        """Store ``subscription`` (an endpoint seen before is the player's now, with its new keys); beyond ``most``
        of the player's, the oldest are deleted."""
        with Session(self.engine) as session, session.begin():
            session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == subscription.endpoint))
            session.add(
                PushSubscriptionRow(
                    endpoint=subscription.endpoint,
                    player_id=subscription.player_id,
                    p256dh=subscription.p256dh,
                    auth=subscription.auth,
                )
            )
            session.flush()
            older = session.scalars(
                select(PushSubscriptionRow.endpoint)
                .where(PushSubscriptionRow.player_id == subscription.player_id)
                .order_by(PushSubscriptionRow.created_at.desc(), PushSubscriptionRow.endpoint)
                .offset(most)
            ).all()
            if older:
                session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint.in_(older)))

    def remove(self, endpoint: str, player_id: str | None = None) -> bool:
        """Delete a subscription (only if it is ``player_id``'s, when given); whether there was one."""
        query = delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint == endpoint)
        if player_id is not None:
            query = query.where(PushSubscriptionRow.player_id == player_id)
        with Session(self.engine) as session, session.begin():
            return bool(session.execute(query).rowcount)  # type: ignore[attr-defined]

    def of(self, player_id: str) -> list[Subscription]:
        with Session(self.engine) as session:
            rows = session.scalars(
                select(PushSubscriptionRow)
                .where(PushSubscriptionRow.player_id == player_id)
                .order_by(PushSubscriptionRow.created_at)
            ).all()
            return [Subscription(r.endpoint, r.player_id, r.p256dh, r.auth) for r in rows]


# -- sending ------------------------------------------------------------------------------------------------------


class PublicResolver(AbstractResolver):
    """Names resolved to public addresses only: a push endpoint's name cannot lead the server to its own network."""

    def __init__(self) -> None:
        self.inner = ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        found = [r for r in await self.inner.resolve(host, port, family) if not _local_address(r["host"])]
        if not found:
            raise OSError(f"{host} resolves to no public address")
        return found

    async def close(self) -> None:
        await self.inner.close()


class Pusher:
    """Sends pushes; :meth:`start` and :meth:`close` in the event loop that sends."""

    def __init__(
        self,
        vapid: Any,
        contact: str,
        allow_local: bool = False,
        timeout: float = SEND_TIMEOUT,
        at_once: int = SENDING_AT_ONCE,
    ) -> None:
        self.vapid = vapid
        self.contact = contact if contact.startswith(("mailto:", "https:")) else f"mailto:{contact}"
        """The VAPID ``sub`` claim: who the push services may contact."""
        self.allow_local = allow_local
        self.timeout = timeout
        self.at_once = at_once
        self._session: aiohttp.ClientSession | None = None
        self._limit: asyncio.Semaphore | None = None

    async def start(self) -> None:
        connector = aiohttp.TCPConnector(limit=self.at_once, resolver=None if self.allow_local else PublicResolver())
        self._session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=self.timeout))
        self._limit = asyncio.Semaphore(self.at_once)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def prepare(self, subscription: Subscription, payload: dict[str, Any], ttl: int) -> tuple[bytes, dict[str, str]]:
        """The encrypted body and the headers (VAPID included) of one push."""
        body: bytes = WebPusher(subscription.info()).encode(orjson.dumps(payload), "aes128gcm")["body"]
        url = urlsplit(subscription.endpoint)
        claims = {"sub": self.contact, "aud": f"{url.scheme}://{url.netloc}", "exp": int(time.time()) + 12 * 3600}
        headers: dict[str, str] = dict(self.vapid.sign(claims))
        headers.update(
            {
                "Content-Encoding": "aes128gcm",
                "Content-Type": "application/octet-stream",
                "TTL": str(max(0, min(ttl, MAX_TTL))),
                "Urgency": "high",
            }
        )
        return body, headers

    async def send(self, subscription: Subscription, payload: dict[str, Any], ttl: int = 86400) -> int | None:
        """Post one push; the push service's status, or ``None`` when it could not be reached in time."""
        assert self._session is not None and self._limit is not None, "Pusher.start() first"
        problem = endpoint_problem(subscription.endpoint, self.allow_local)
        if problem is not None:
            log.warning("push not sent: %s", problem)
            return None
        body, headers = self.prepare(subscription, payload, ttl)
        try:
            async with (
                self._limit,
                asyncio.timeout(self.timeout),
                self._session.post(subscription.endpoint, data=body, headers=headers, allow_redirects=False) as answer,
            ):
                return answer.status
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            log.warning("push not sent to %s: %s", urlsplit(subscription.endpoint).hostname, type(error).__name__)
            return None
