"""``luz serve``: the game server."""

from __future__ import annotations

import gc
import logging
import os
from dataclasses import replace

import typer

from .apps import app
from .extras import require
from .records import fail


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    database_url: str | None = typer.Option(
        None, help="SQLAlchemy URL (postgresql://...); default: $LUZ_DATABASE_URL, else an embedded SQLite file."
    ),
    redis_url: str | None = typer.Option(
        None, help="Redis URL for table events across several server processes; default: $LUZ_REDIS_URL."
    ),
    bot_workers: int = typer.Option(1, min=0, help="Processes computing bot moves (0: in the server process)."),
    bot_seconds: float | None = typer.Option(
        None, min=0.05, help="A bot's time for one move before a quick bot moves for it; default $LUZ_BOT_SECONDS or 5."
    ),
) -> None:
    """Run the game server (HTTP API and WebSocket play; see docs/PROTOCOL.md)."""
    require("server", "luz serve")
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE

    from luz.server import Settings, create_app, stopping
    from luz.server.http import GRACEFUL_SECONDS, StoppingServer, guarded_http
    from luz.server.logs import configure_logs
    from luz.server.metrics import MIN_TOKEN_LENGTH, Metrics
    from luz.server.notify.mail import mail_off_reason

    settings = replace(Settings.from_env(database_url, redis_url), bot_workers=bot_workers)
    if bot_seconds is not None:
        settings = replace(settings, bot_seconds=bot_seconds)
    # Fewer, cheaper collections of the young generation, and (server/collector.py) the survivors frozen every 0.5 s,
    # so that no collection scans the long-lived heap (at 1,000 tables a middle-generation collection stalled every
    # table 0.8 s). LUZ_GC=auto: CPython's collector alone.
    os.environ.setdefault("LUZ_GC", "freeze")
    gc.set_threshold(50_000, 20, 10)
    if not 32 <= settings.ipv6_prefix <= 128:
        fail(f"LUZ_IPV6_PREFIX must be 32 to 128 (an IPv6 network's length: 64, or 56), not {settings.ipv6_prefix}")
    if settings.metrics_token and len(settings.metrics_token) < MIN_TOKEN_LENGTH:
        fail(f"LUZ_METRICS_TOKEN is too short: give it at least {MIN_TOKEN_LENGTH} characters (openssl rand -hex 32)")
    try:
        configure_logs(settings.log_format)  # text or JSON lines, tokens redacted (server/logs.py)
    except ValueError as problem:
        fail(str(problem))
    where = settings.database_url.split("@")[-1]  # no password
    logging.getLogger("luz.server").info("luz server on http://%s:%d (database: %s)", host, port, where)
    mail_off = mail_off_reason(settings.smtp_url, settings.public_url)
    if mail_off is not None:  # a warning when mail was asked for and cannot be sent
        logging.getLogger("luz.server").log(logging.WARNING if settings.smtp_url else logging.INFO, mail_off)
    metrics = Metrics()  # the app's, counted into by the HTTP protocol too
    application = create_app(settings, metrics=metrics)
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        http=guarded_http(settings, metrics),
        # Frames up to 16 times the message limit reach the server, which answers `too_large`; bigger ones close
        # the connection (1009).
        ws_max_size=16 * settings.max_message_bytes,
        # No permessage-deflate: compressing each view for each connection was 8-9 % of the server's CPU and
        # holds a zlib context per connection, for messages of a few KB (docs/DEPLOY.md).
        ws_per_message_deflate=False,
        # websockets' Sans-I/O protocol (uvicorn's choice when websockets is installed, named so it stays the one):
        # 1.16 ms of server CPU per action against 1.33 ms for uvicorn's older websockets protocol, side by side at
        # 200 tables (docs/BENCHMARKS.md); the event loop is uvloop and the HTTP parser httptools (guarded_http).
        ws="websockets-sansio",
        proxy_headers=False,  # the client's address is the server's to work out, from trusted proxies only
        log_config=None,
        # On SIGTERM (a restart): stop accepting, close the WebSockets with 1012 (the clients reconnect), give the
        # requests in progress this long, then stop the application (its bot processes killed if busy).
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    server = StoppingServer(config, on_stop=lambda: stopping(application))
    server.run()
    if not server.started:  # as uvicorn.run: the sockets could not be opened, or a signal came first
        raise typer.Exit(STARTUP_FAILURE)
