"""Who a request comes from: cookies, the session header, CSRF checks, the login limiter with its device cookies
(one ``Identities`` per app, in its services)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException, Request, Response
from itsdangerous import BadSignature, URLSafeSerializer
from pwdlib import PasswordHash
from starlette.requests import HTTPConnection

from .. import links
from ..clock import SYSTEM_CLOCK, Clock
from ..identity import (
    COOKIE,
    COOKIE_SECONDS,
    DEVICE_ACCOUNTS,
    DEVICE_COOKIE,
    HEADER,
    LOGIN_ATTEMPTS_PER_DEVICE,
    LOGIN_ATTEMPTS_PER_MINUTE,
    Identity,
    Players,
)
from ..ratelimit import DEFAULT_IPV6_PREFIX, SharedRateLimit, client_key
from .guards import OverLimit

DEVICE_PATH = "/api/account"
"""Where the device cookie is sent: the account's routes (the login reads it, it and the register renew it)."""
WATCH_COOKIE, WATCH_PATH = "luz_device_ws", "/ws"
"""The device cookie's copy sent to the live connections: a spectator whose browser signed in to a seat's account
never sees that table's hands face up (fanout.py)."""


def from_this_site(connection: HTTPConnection, public_url: str) -> bool:
    """Whether a request or a WebSocket comes from this site's pages, or from no page at all (no ``Origin``: the
    CLI, scripts). This site is ``public_url``'s origin, or the host the request was sent to when that is unset; a
    browser's ``Sec-Fetch-Site`` saying another site is believed too. Another site's page must not act, chat or
    watch with its visitor's cookie (CSRF, cross-site WebSocket hijacking)."""
    if connection.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        return False
    origin = connection.headers.get("origin")
    if origin is None:
        return True
    if public_url:
        site = urlsplit(public_url)
        return origin.lower() == f"{site.scheme}://{site.netloc}".lower()
    return urlsplit(origin).netloc == connection.headers.get("host", "")


class Identities:
    """Who a request comes from, with cookies, CSRF checks and the login limiter; one per app. Its limits (logins,
    password attempts, new guests and accounts per client) are moving windows shared through Redis (``redis_url``;
    their keys begin with ``scope``, the deployment's name: ``ratelimit.deployment_scope``), else in this process's
    memory on ``clock`` (``ratelimit.SharedRateLimit``)."""

    def __init__(
        self,
        players: Players,
        signing_key: str,
        redis_url: str | None,
        secure_cookies: bool,
        trusted_proxies: tuple[str, ...] = (),
        ipv6_prefix: int = DEFAULT_IPV6_PREFIX,
        guests_per_minute: str | None = None,
        accounts_per_address: str | None = None,
        scope: str = "",
        public_url: str = "",
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.players = players
        self.public_url = public_url
        """This site's address (``LUZ_PUBLIC_URL``; empty: the host each request was sent to)."""
        self._address_key = hashlib.sha256(b"luz-client-address:" + signing_key.encode()).digest()
        self.trusted_proxies = trusted_proxies
        self.ipv6_prefix = ipv6_prefix
        self.signer = URLSafeSerializer(signing_key, salt="luz-session")
        self.devices = URLSafeSerializer(signing_key, salt="luz-device")
        """Signs the device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies")."""
        self.hasher = PasswordHash.recommended()
        self.hashing = ThreadPoolExecutor(2, thread_name_prefix="luz-argon2")

        def limit(rate: str) -> SharedRateLimit:  # Redis unreachable: an error, never a limit lifted
            return SharedRateLimit(rate, redis_url, scope, clock, open_on_failure=False)

        self.logins = limit(f"{LOGIN_ATTEMPTS_PER_MINUTE}/minute")
        """Login attempts per client address, per username, and a signed-in account's password attempts."""
        self.device_logins = limit(f"{LOGIN_ATTEMPTS_PER_DEVICE}/minute")
        """Login attempts of a browser whose device cookie names the account."""
        self.guests = limit(guests_per_minute) if guests_per_minute else None
        self.accounts = limit(accounts_per_address) if accounts_per_address else None
        self.secure_cookies = secure_cookies
        self._dummy_hash: str | None = None

    async def dummy_hash(self) -> str:
        """A hash checked when a username is unknown, so that the answer takes as long as for a wrong password."""
        if self._dummy_hash is None:
            self._dummy_hash = await self.hash_password(secrets.token_urlsafe(16))
        return self._dummy_hash

    def close(self) -> None:
        self.hashing.shutdown(wait=False)

    # -- sessions ------------------------------------------------------------------------------------------------

    def _secret(self, signed: str | None) -> str | None:
        if not signed:
            return None
        try:
            secret = self.signer.loads(signed)
        except BadSignature:
            return None
        return secret if isinstance(secret, str) else None

    async def current(self, request: HTTPConnection) -> tuple[Identity | None, bool]:
        """The request's identity, if any, and whether it came by cookie (then state changes are CSRF-checked)."""
        by_header = request.headers.get(HEADER)
        secret = self._secret(by_header or request.cookies.get(COOKIE))
        if secret is None:
            return None, False
        identity = await asyncio.to_thread(self.players.identity, secret)
        return identity, identity is not None and not by_header

    async def require(self, request: Request, response: Response, *, create: bool, changes: bool) -> Identity:
        """The request's identity; a new guest (its cookie set on ``response``) when it has none and ``create``.
        ``changes``: the request changes state, so a cookie-authenticated one must come from this site."""
        identity, by_cookie = await self.current(request)
        if identity is not None:
            if changes and by_cookie:
                self.check_same_site(request)
            return identity
        if not create:
            raise HTTPException(401, "not signed in: open the site (or POST /api/me/guest) first")
        if changes:
            self.check_same_site(request)
        identity, secret = await self.create_guest(request)
        self.set_cookie(response, secret)
        return identity

    def client(self, request: HTTPConnection) -> str:
        """The client's key for every limit and seat rule: its address (the forwarded one only from a trusted
        proxy), an IPv6 one by its network of ``ipv6_prefix`` bits (``ratelimit.client_key``)."""
        peer = request.client.host if request.client else None
        return client_key(peer, request.headers, self.trusted_proxies, self.ipv6_prefix)

    def address_hash(self, request: HTTPConnection) -> str:
        """A keyed hash of the client's address (HMAC with a key derived from the cookie-signing key), kept on the
        seats it takes: one seat per address at public and rated tables, without storing the address."""
        return hmac.new(self._address_key, self.client(request).encode(), hashlib.sha256).hexdigest()

    async def account_allowed(self, request: HTTPConnection) -> None:
        """429 with ``Retry-After`` when the client registered ``accounts_per_address`` accounts already."""
        if self.accounts is None:
            return
        wait = await self.accounts.wait(f"account-client:{self.client(request)}")
        if wait is not None:
            raise OverLimit("accounts_per_address", "too many new accounts from your address: try again later", wait)

    async def account_registered(self, request: HTTPConnection) -> None:
        """Count a new account of the client (``account_allowed``'s limit)."""
        if self.accounts is not None:
            await self.accounts.hit(f"account-client:{self.client(request)}")

    async def create_guest(self, request: HTTPConnection) -> tuple[Identity, str]:
        """A new guest and its session's secret; 429 past ``guests_per_minute`` from one client (each is a row)."""
        if self.guests is not None and await self.guests.hit(f"guest-client:{self.client(request)}") is not None:
            raise OverLimit("guests_per_minute", "too many new guests from your address: try again later", 60)
        return await asyncio.to_thread(self.players.create_guest)

    def signed(self, secret: str) -> str:
        return self.signer.dumps(secret)

    def set_cookie(self, response: Response, secret: str) -> None:
        response.set_cookie(
            COOKIE,
            self.signed(secret),
            max_age=COOKIE_SECONDS,
            httponly=True,
            samesite="lax",
            secure=self.secure_cookies,
            path="/",
        )

    def clear_cookie(self, response: Response) -> None:
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=self.secure_cookies)

    def check_same_site(self, request: Request) -> None:
        """Refuse a cookie-authenticated change that a browser says comes from another site (CSRF)."""
        if not from_this_site(request, self.public_url):
            raise HTTPException(403, "refused: this request comes from another site (CSRF protection)")

    # -- passwords -----------------------------------------------------------------------------------------------

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.hashing, fn, *args)

    async def hash_password(self, password: str) -> str:
        hashed: str = await self._run(self.hasher.hash, password)
        return hashed

    async def verify_password(self, password: str, hashed: str) -> bool:
        ok: bool = await self._run(self.hasher.verify, password, hashed)
        return ok

    # -- the login limiter and the device cookies -----------------------------------------------------------------

    async def allow_login(self, request: HTTPConnection, username: str) -> bool:
        """One login attempt more for ``username``; ``False`` past a limit. A browser whose device cookie says it
        logged in to that account before counts it on that cookie alone (an attacker hammering the username
        elsewhere does not lock its owner out); any other attempt counts per client address and per username."""
        username = username.lower()
        nonce = self.devices_of(request).get(username)
        if nonce is not None and await self.device_logins.hit(f"login-device:{nonce}") is None:
            return True
        keys = (f"login-client:{self.client(request)}", f"login-user:{username}")
        results = [await self.logins.hit(key) for key in keys]
        return all(wait is None for wait in results)

    async def allow_password_attempt(self, identity: Identity) -> bool:
        """One more attempt of ``identity`` (signed in) at its current password; ``False`` past the limit. Counted
        per account, apart from the logins: nobody else can spend it."""
        return await self.logins.hit(f"password-player:{identity.player_id}") is None

    def devices_of(self, request: HTTPConnection) -> dict[str, str]:
        """The accounts the request's device cookie says this browser logged in to: each username's nonce (none for
        no cookie, or one the server did not sign); a live connection gets the cookie's copy (``WATCH_COOKIE``)."""
        signed = request.cookies.get(DEVICE_COOKIE) or request.cookies.get(WATCH_COOKIE)
        if not signed:
            return {}
        try:
            accounts = self.devices.loads(signed)
        except BadSignature:
            return {}
        if not isinstance(accounts, dict):
            return {}
        return {u: n for u, n in accounts.items() if isinstance(u, str) and isinstance(n, str)}

    def remember_device(self, request: HTTPConnection, response: Response, username: str) -> list[str]:
        """Set the device cookie after a login to ``username`` (or its registration): a new nonce for it, beside
        the newest others the cookie remembers (``DEVICE_ACCOUNTS`` in all). Returns the cookie's nonces (the
        browser's accounts: links.py sees the account from each)."""
        others = [(u, n) for u, n in self.devices_of(request).items() if u != username]
        accounts = dict([*others[-(DEVICE_ACCOUNTS - 1) :], (username, secrets.token_urlsafe(16))])
        for name, path in ((DEVICE_COOKIE, DEVICE_PATH), (WATCH_COOKIE, WATCH_PATH)):
            response.set_cookie(
                name,
                self.devices.dumps(accounts),
                max_age=COOKIE_SECONDS,
                httponly=True,
                samesite="strict",
                secure=self.secure_cookies,
                path=path,
            )
        return list(accounts.values())

    def sighting_keys(self, request: HTTPConnection, nonces: list[str]) -> list[str]:
        """Where a request comes from, as links.py keeps it: its client and the device cookie's ``nonces``."""
        return [links.address_key(self.address_hash(request)), *map(links.device_key, nonces)]
