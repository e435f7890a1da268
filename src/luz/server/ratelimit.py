"""Who a client is, for limits (its address, or its forwarded one from a trusted proxy), and rate limits on the
``limits`` library (shared by the server processes through Redis when they have it).

A key is ``addr:<address>``: an IPv4 address (an IPv4-mapped IPv6 one counts as its IPv4 address), or an IPv6
address's network of ``ipv6_prefix`` bits (``addr:2001:db8:1:2::/64``): a home's IPv6 provider gives it a whole /64
or /56, so each of its addresses is not another client.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping

from limits import RateLimitItem, parse, storage
from limits.aio import storage as aio_storage
from limits.aio import strategies as aio_strategies
from limits.errors import StorageError

from .clock import SYSTEM_CLOCK, Clock

log = logging.getLogger("luz.server")

LIMITS_CLOCK: Clock = SYSTEM_CLOCK
"""The clock of the ``limits`` library's windows (shared through Redis): its storages read ``time.time()`` and
take no other clock, so the wait luz derives from one of their windows reads this same clock (an injected
``FakeClock`` would mix two times). Windows in this process's memory are luz's own, on the injected clock."""


DEFAULT_IPV6_PREFIX = 64
"""The IPv6 network one client is counted by (``Settings.ipv6_prefix``)."""


def client_key(
    peer: str | None,
    headers: Mapping[str, str],
    trusted_proxies: Iterable[str],
    ipv6_prefix: int = DEFAULT_IPV6_PREFIX,
) -> str:
    """The key of the client behind a connection from ``peer``: the peer itself, or, when the peer is a trusted
    proxy, the last address in ``X-Forwarded-For`` that is not one of the trusted proxies (the earlier ones are
    whatever the client wrote); an IPv6 address by its network of ``ipv6_prefix`` bits (``address_key``)."""
    trusted = _networks(trusted_proxies)
    address = peer or "unknown"
    if _in(address, trusted):
        forwarded = [a.strip() for a in headers.get("x-forwarded-for", "").split(",") if a.strip()]
        while forwarded and _in(address, trusted):
            address = forwarded.pop()
    return "addr:" + address_key(address, ipv6_prefix)


def address_key(address: str, ipv6_prefix: int = DEFAULT_IPV6_PREFIX) -> str:
    """What one client's ``address`` is counted as: an IPv4 address itself (an IPv4-mapped IPv6 one, or one in a
    zone, as its plain IPv4 address), an IPv6 one as its network of ``ipv6_prefix`` bits; anything else (no
    address) as its first 64 characters."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip), ipv6_prefix), strict=False))
    return str(ip)


def is_trusted(address: str, trusted_proxies: Iterable[str]) -> bool:
    """Whether ``address`` is one of the trusted proxies."""
    return _in(address, _networks(trusted_proxies))


def _networks(specs: Iterable[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(spec, strict=False) for spec in specs]


def _in(address: str, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


class MovingWindow:
    """At most ``rate`` (``"10/minute"``) hits per key over a moving window, in this process's memory, on
    ``clock``'s monotonic time (a ``FakeClock`` drives it in tests). The ``limits`` library's own memory windows read
    the system clock, with no hook to give them another."""

    SWEEP_EVERY = 1024
    """Hits between two sweeps of the keys whose every hit has left the window."""

    def __init__(self, rate: str, clock: Clock = SYSTEM_CLOCK) -> None:
        item = parse(rate)
        self.amount, self.seconds = item.amount, float(item.get_expiry())
        self.clock = clock
        self.hits: dict[str, deque[float]] = {}
        self._until_sweep = self.SWEEP_EVERY

    def hit(self, key: str, count: bool = True) -> int | None:
        """Count a hit of ``key`` (``count``: else only look): ``None`` if allowed, else the whole seconds until
        its oldest hit leaves the window (for ``Retry-After``)."""
        now = self.clock.monotonic()
        times = self.hits.get(key)
        if times is not None:
            while times and times[0] <= now - self.seconds:
                times.popleft()
            if len(times) >= self.amount:
                return max(1, math.ceil(times[0] + self.seconds - now))
        if count:
            self.hits.setdefault(key, deque()).append(now)
            self._until_sweep -= 1
            if self._until_sweep <= 0:
                self._sweep(now)
        return None

    def _sweep(self, now: float) -> None:
        self._until_sweep = self.SWEEP_EVERY
        for key in [key for key, times in self.hits.items() if not times or times[-1] <= now - self.seconds]:
            del self.hits[key]


class RateLimit:
    """At most ``rate`` (``"10/minute"``) hits per key over a moving window, in this process's memory (for checks
    that cannot wait for a network round trip: sockets as they open)."""

    def __init__(self, rate: str, clock: Clock = SYSTEM_CLOCK) -> None:
        self.window = MovingWindow(rate, clock)

    def hit(self, key: str) -> int | None:
        """Count a hit of ``key``: ``None`` if allowed, else the whole seconds to wait (for ``Retry-After``)."""
        return self.window.hit(key)


class SharedRateLimit:
    """At most ``rate`` hits per key over a moving window, counted together by every server process of a
    deployment when it has Redis (``redis_url``; ``scope`` keeps deployments sharing a Redis apart: the ``limits``
    library's windows, on its own clock, ``LIMITS_CLOCK``), else in this process's memory on ``clock``.
    ``open_on_failure``: with Redis unreachable, the limit is not enforced (else the storage's error is raised)."""

    def __init__(
        self,
        rate: str,
        redis_url: str | None = None,
        scope: str = "",
        clock: Clock = SYSTEM_CLOCK,
        open_on_failure: bool = True,
    ) -> None:
        self.rate = parse(rate)
        self.open_on_failure = open_on_failure
        self.window: MovingWindow | None = None
        self.limiter: aio_strategies.MovingWindowRateLimiter | None = None
        if redis_url:
            shared = storage.storage_from_string(
                f"async+{redis_url}", implementation="redispy", key_prefix=f"luz-limits:{scope}", wrap_exceptions=True
            )
            assert isinstance(shared, aio_storage.Storage)
            self.limiter = aio_strategies.MovingWindowRateLimiter(shared)
        else:
            self.window = MovingWindow(rate, clock)

    async def hit(self, key: str) -> int | None:
        """Count a hit of ``key``: ``None`` if allowed, else the whole seconds to wait (for ``Retry-After``). With
        Redis unreachable the limit is not enforced (a line in the log), rather than every request refused, unless
        it was made not to be (``open_on_failure``)."""
        if self.window is not None:
            return self.window.hit(key)
        assert self.limiter is not None
        return await self._check(key, self.limiter, self.limiter.hit)

    async def wait(self, key: str) -> int | None:
        """Without counting a hit: ``None`` if one would be allowed now, else the whole seconds to wait."""
        if self.window is not None:
            return self.window.hit(key, count=False)
        assert self.limiter is not None
        return await self._check(key, self.limiter, self.limiter.test)

    async def _check(
        self,
        key: str,
        limiter: aio_strategies.MovingWindowRateLimiter,
        allows: Callable[[RateLimitItem, str], Awaitable[bool]],
    ) -> int | None:
        try:
            if await allows(self.rate, key):
                return None
            stats = await limiter.get_window_stats(self.rate, key)
        except StorageError as error:
            if not self.open_on_failure:
                raise
            log.warning("rate limit not checked, its storage failed: %s", type(error.storage_error).__name__)
            return None
        return max(1, math.ceil(stats.reset_time - LIMITS_CLOCK.now()))


def deployment_scope(database_url: str) -> str:
    """A name for the deployment whose processes share ``database_url``: their shared limits' keys begin with it."""
    return hashlib.sha256(database_url.encode()).hexdigest()[:16]


class Counter:
    """Open things (connections) per key, refused beyond a cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: dict[str, int] = {}

    def take(self, key: str) -> bool:
        if self.open.get(key, 0) >= self.cap:
            return False
        self.open[key] = self.open.get(key, 0) + 1
        return True

    def give_back(self, key: str) -> None:
        left = self.open.get(key, 0) - 1
        if left > 0:
            self.open[key] = left
        else:
            self.open.pop(key, None)


class TokenBucket:
    """One connection's message rate: ``rate`` a second, bursts of twice that (in this process, unshared), on
    ``clock``'s monotonic time."""

    def __init__(self, rate: float, clock: Clock = SYSTEM_CLOCK) -> None:
        self.rate, self.capacity = rate, 2 * rate
        self.clock = clock
        self.tokens, self.stamp = self.capacity, clock.monotonic()

    def take(self) -> bool:
        """Whether one more message may go now (it is counted if so)."""
        now = self.clock.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
