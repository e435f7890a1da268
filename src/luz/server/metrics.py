"""The server's Prometheus metrics (``GET /metrics``, docs/DEPLOY.md "Metrics"): one registry per application, filled
through a few narrow calls. Labels are of low cardinality only (an action's kind and source, a limit's name): never
a table, a player or a card. Imports nothing of ``luz.server``, so that every layer may call it."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_LATEST
ACK_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds from a client's action message received to its acknowledgement sent."""
MIN_TOKEN_LENGTH = 16
"""The shortest ``LUZ_METRICS_TOKEN`` that ``luz serve`` accepts."""
STORED_TABLES_SECONDS = 5.0
"""The stored tables are counted in the database at most this often (a scrape in between gets the last count)."""


class Metrics:
    """This application's metrics and the calls that move them."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        for default in (ProcessCollector, PlatformCollector, GCCollector):
            default(registry=self.registry)
        self._actions = Counter(
            "luz_actions_stored",
            "Actions stored by this process, by kind (bid, play) and source (human, bot, timeout).",
            ["kind", "source"],
            registry=self.registry,
        )
        self._ack = Histogram(
            "luz_ack_seconds",
            "Seconds from a client's action message received to its acknowledgement sent.",
            buckets=ACK_BUCKETS,
            registry=self.registry,
        )
        self._connections = Gauge(
            "luz_websocket_connections", "WebSocket connections open on this process.", registry=self.registry
        )
        self._refusals = Counter(
            "luz_refusals",
            "Requests and messages refused by a limit, by the limit's name.",
            ["limit"],
            registry=self.registry,
        )
        self._watched: _Watched | None = None
        self._deadlines = Counter(
            "luz_deadlines_fired", "Moves played by the clock for a player whose time ran out.", registry=self.registry
        )

    def action_stored(self, kind: str, source: str) -> None:
        self._actions.labels(kind, source).inc()

    def acknowledged(self, seconds: float) -> None:
        self._ack.observe(seconds)

    def connection_opened(self) -> None:
        self._connections.inc()

    def connection_closed(self) -> None:
        self._connections.dec()

    def refused(self, limit: str) -> None:
        """A refusal by the limit named ``limit`` (a setting's name without its prefix, e.g. ``tables_per_minute``)."""
        self._refusals.labels(limit).inc()

    def deadline_fired(self) -> None:
        self._deadlines.inc()

    def watch(
        self,
        live_tables: Callable[[], int],
        stored_tables: Callable[[], Mapping[str, int]],
        bot_queue: Callable[[], int] | None = None,
        bot_replacements: Callable[[], int] | None = None,
    ) -> None:
        """Read at each scrape: the live tables, the stored ones by status (from the database, at most every
        ``STORED_TABLES_SECONDS``), the bot computations waiting and the bot pool's replacements (if a pool)."""
        if self._watched is not None:  # the app started again: what it reads now
            self.registry.unregister(self._watched)
        self._watched = _Watched(live_tables, stored_tables, bot_queue, bot_replacements)
        self.registry.register(self._watched)

    def exposition(self) -> bytes:
        """The metrics in Prometheus's text format."""
        return generate_latest(self.registry)


def token_matches(expected: str, authorization: str | None) -> bool:
    """Whether ``authorization`` is ``Bearer <expected>`` (compared in constant time)."""
    scheme, _, given = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and secrets.compare_digest(given.strip().encode(), expected.encode())


class _Watched(Collector):
    """The gauges and counters read from the server's objects at scrape time."""

    def __init__(
        self,
        live_tables: Callable[[], int],
        stored_tables: Callable[[], Mapping[str, int]],
        bot_queue: Callable[[], int] | None,
        bot_replacements: Callable[[], int] | None,
    ) -> None:
        self.live_tables = live_tables
        self.stored_tables = stored_tables
        self.bot_queue = bot_queue
        self.bot_replacements = bot_replacements
        self._lock = threading.Lock()
        self._stored: Mapping[str, int] = {}
        self._counted_at = float("-inf")

    def _stored_counts(self) -> Mapping[str, int]:
        with self._lock:
            if time.monotonic() - self._counted_at >= STORED_TABLES_SECONDS:
                self._stored = self.stored_tables()
                self._counted_at = time.monotonic()
            return self._stored

    def collect(self) -> Iterable[Metric]:
        yield GaugeMetricFamily("luz_live_tables", "Tables in this process's memory.", value=self.live_tables())
        stored = GaugeMetricFamily(
            "luz_stored_tables", "Tables in the database, by status (counted at most every 5 s).", labels=["status"]
        )
        for status, count in sorted(self._stored_counts().items()):
            stored.add_metric([status], count)
        yield stored
        if self.bot_queue is not None:
            yield GaugeMetricFamily(
                "luz_bot_queue", "Bot computations waiting for a bot process.", value=self.bot_queue()
            )
        if self.bot_replacements is not None:
            yield CounterMetricFamily(
                "luz_bot_pool_replacements",
                "Times the bot processes were replaced after one died.",
                value=self.bot_replacements(),
            )
