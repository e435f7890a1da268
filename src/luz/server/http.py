"""The HTTP protocol of ``luz serve``: uvicorn's, guarded against two cheap attacks on the sockets themselves.

- A client opening sockets faster than ``connections_per_second`` (from its own address, an IPv6 one by its
  network, not a trusted proxy's) has them closed as they open, before any of its bytes are read: a flood of
  connections costs the server microseconds each, not a request's handling (refusing each at the WebSocket
  handshake cost a millisecond, and a burst of them held every other table up).
- A request whose headers take over ``header_timeout`` to arrive is cut off (a client sending them a byte at a
  time would otherwise hold its socket for ever).

And uvicorn's server, stopping promptly on SIGTERM or SIGINT (:class:`StoppingServer`).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .metrics import Metrics
from .ratelimit import RateLimit, address_key, is_trusted
from .settings import Settings


def guarded_http(settings: Settings, metrics: Metrics) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol with this server's limits on opening sockets and on slow headers (each refused
    socket counted in ``metrics``)."""
    opening = RateLimit(settings.connections_per_second)
    seconds = settings.header_timeout

    class Guarded(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None
        _refused = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
            trusted = is_trusted(address, settings.trusted_proxies)
            if address and not trusted and opening.hit("open:" + address_key(address, settings.ipv6_prefix)):
                self._refused = True
                metrics.refused("connections_per_second")
                transport.abort()
                return
            super().connection_made(transport)
            self._start_header_timer()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._start_header_timer()  # each request of a kept-alive connection

        def on_headers_complete(self) -> None:
            self._stop_header_timer()
            super().on_headers_complete()

        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            # The socket is the WebSocket protocol's now. This one would stay in a reference cycle with its parser
            # (which holds its bound callbacks), cyclic garbage for the collector: one per connection, some 60
            # objects, frozen with the live heap when the collector freezes it (collector.py), never freed then.
            self.parser = None  # type: ignore[assignment]

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            self._stop_header_timer()
            super().connection_lost(exc)

        def _start_header_timer(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(seconds, self._too_slow)

        def _stop_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self, *_: Any) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return Guarded


GRACEFUL_SECONDS = 5
"""On SIGTERM, how long the requests in progress have to finish before they are cancelled (uvicorn waits for ever
by default): with the bot processes' second (``botpool.STOP_GRACE``), a server stops well within 10 s."""


class StoppingServer(uvicorn.Server):
    """uvicorn's server, which calls ``on_stop`` as soon as it stops accepting (the application ends what would
    hold it up: its event streams), then closes the WebSockets (1012: service restart, the clients reconnect),
    gives the requests in progress ``config.timeout_graceful_shutdown`` seconds and ends the application."""

    def __init__(self, config: uvicorn.Config, on_stop: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_stop = on_stop

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.on_stop()
        await super().shutdown(sockets)
