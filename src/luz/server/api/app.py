"""The application: its start and stop (database, identities, brokers, bot processes, the tables), error answers,
``/healthz``, and the routers of ``api`` and the web client (see docs/PROTOCOL.md)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from luz.web import install as install_web_client

from .. import checkpoints, collector
from ..clock import SYSTEM_CLOCK, Clock
from ..daily_records import DailyRecords
from ..db import make_engine, migrate
from ..domain import AccountRequired, AccountTooNew, Expired, OneSeatPerAddress, TooManyGames, TooManyWaiting
from ..friends import Blocked, Friends
from ..health import DatabaseHealth
from ..identity import Players
from ..logs import RequestIds
from ..metrics import CONTENT_TYPE, Metrics, token_matches
from ..pacing import Pacer
from ..ratelimit import deployment_scope
from ..reviews import Reviews
from ..settings import Settings
from ..stalls import watch_from_env
from ..store import Store
from ..tables import Registry
from ..tables.botpool import BotPool, start_bots
from ..tables.broker import Broker, MemoryBroker, RedisBroker
from ..tables.chat import Chat
from ..tables.rounds import Rounds
from ..tournaments import Tournaments
from ..vacation import VacationRefused, Vacations
from . import daily as daily_routes
from . import (
    dealsets,
    friends,
    games,
    history,
    identity,
    live,
    mygames,
    notify,
    playsettings,
    ratings,
    reviews,
    tables,
    tournaments,
    vacation,
)
from .dailies import Daily
from .deps import services_of, tables_of
from .guards import Guards, OverLimit
from .identities import Identities
from .notifications import Notifications
from .services import Services

log = logging.getLogger("luz.server")
T = TypeVar("T")

CONNECTIONS_PER_TURN = 16
"""Connections attached (and told their state) or detached in one turn of the loop, at most: each is about a
millisecond of work (the others at the table are told the seat's presence)."""


class InlineExecutor(ThreadPoolExecutor):
    """Runs each call at once, in the caller's thread (never starting one): the database calls of a SQLite server
    (see lifespan). A ThreadPoolExecutor by type, as asyncio's default executor must be."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # handed to the awaiting coroutine, as a thread's would be
            future.set_exception(error)
        return future


def stopping(app: FastAPI) -> None:
    """The server stops accepting (SIGTERM, SIGINT): end the event streams now, which would hold its shutdown up
    (it waits for the responses in progress, and an event stream never ends by itself)."""
    services: Services | None = getattr(app.state, "services", None)
    if services is not None:
        services.tables.watchers.close()


def app_services(app: FastAPI) -> Services:
    """The services of a started app (the benches and the tests look into them)."""
    services: Services = app.state.services
    return services


def create_app(
    settings: Settings | None = None, clock: Clock = SYSTEM_CLOCK, metrics: Metrics | None = None
) -> FastAPI:
    """The server's ASGI application (``luz serve`` runs it with uvicorn), its services built as it starts
    (``Services``, the only thing kept in ``app.state``). ``clock``: the time its tables' timers, notifications and
    rate windows read (tests give a ``FakeClock``); ``metrics``: its Prometheus metrics (``luz serve``'s HTTP
    protocol counts into them too)."""
    settings = settings or Settings.from_env()
    metrics = metrics or Metrics()  # a registry of this app's own (several apps in one test process)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url)
        wal = checkpoints.start(engine)  # SQLite: WAL checkpoints in a thread, off the loop (checkpoints.py)
        if engine.dialect.name == "sqlite":
            # SQLite is in this process and writes one transaction at a time (each begins IMMEDIATE): its calls,
            # a millisecond or two of CPU, are run in the event loop's thread. Threads would only contend, for
            # the GIL and for SQLite's lock (sleeping in its busy handler: p99 over a second under load).
            asyncio.get_running_loop().set_default_executor(InlineExecutor())
        stall_watch = watch_from_env()  # LUZ_STALL_MS: log every stall of the event loop (stalls.py)
        await asyncio.to_thread(migrate, engine)
        # Players (identity.py): guests, accounts, sessions; one seat per identity at a table.
        players = Players(engine)
        identities = Identities(
            players,
            await asyncio.to_thread(players.signing_key, settings.secret_key),
            settings.redis_url,
            secure_cookies=settings.public_url.startswith("https://"),
            trusted_proxies=settings.trusted_proxies,
            ipv6_prefix=settings.ipv6_prefix,
            guests_per_minute=settings.guests_per_minute,
            accounts_per_address=settings.accounts_per_address,
            scope=deployment_scope(settings.database_url),
            public_url=settings.public_url,
            clock=clock,
        )
        broker: Broker = RedisBroker(settings.redis_url, clock) if settings.redis_url else MemoryBroker()
        pool = BotPool(settings.bot_workers, start=False) if settings.bot_workers > 0 else None
        # The bot levels imported and numba started in a thread before the server answers (numba's start holds the
        # interpreter for long stretches: done while serving, it held every table up for seconds), then the bot
        # processes started: they warm up while the server answers and its quick bots play.
        await start_bots(pool)
        registry = Registry(Store(engine, clock), broker, pool, settings, metrics, clock)
        metrics.watch(
            lambda: len(registry.live),
            registry.store.count_tables,
            (lambda: pool.waiting) if pool is not None else None,
            (lambda: pool.replacements) if pool is not None else None,
        )
        await broker.start(registry.on_event, registry.on_presence, registry.on_players)
        await registry.resume_all()
        registry.start()  # deadlines found in the database, idle tables leaving memory
        reviews = Reviews(registry.store, pool, settings)  # finished games' reviews (reviews.py)
        database_health = DatabaseHealth(engine)  # /healthz's pings, in a thread
        friends = Friends(engine)  # follows, blocks, presence, invitations (friends.py)
        # The chat of the tables, across processes with Redis.
        chat = Chat(
            engine,
            registry.held,
            registry.fanout,
            settings.redis_url,
            friends,
            per_address=settings.chat_per_address,
            scope=deployment_scope(settings.database_url),
            broker=broker if broker.shared else None,
            clock=clock,
        )
        await chat.start()
        # Notifications (notify/): push and email when it is a player's turn and they are not looking.
        notifications = await Notifications.start(engine, registry, settings, clock)
        # Tournaments (tournament.py, tournaments.py, tables/rounds.py): rounds formed and started through the door.
        tournaments = Tournaments(engine)
        rounds = Rounds(registry, tournaments, clock, notifications.round_started)
        registry.game_over = rounds.game_over
        rounds.start()
        daily = Daily(DailyRecords(engine), registry, clock)  # the daily deal, settled at each midnight
        await daily.start()
        vacations = Vacations(engine, registry, settings, clock)  # each vacation's end rung by a timer
        await vacations.start_timers()
        services = Services(
            settings=settings,
            clock=clock,
            metrics=metrics,
            guards=guards,
            engine=engine,
            tables=registry,
            identities=identities,
            friends=friends,
            chat=chat,
            reviews=reviews,
            notifications=notifications,
            daily=daily,
            database_health=database_health,
            tournaments=tournaments,
            rounds=rounds,
            vacations=vacations,
            connections=Pacer(CONNECTIONS_PER_TURN),
        )
        app.state.services = services
        # LUZ_GC=freeze (luz serve's default): no collection scans the long-lived heap (collector.py)
        freezing_gc = collector.from_env(lambda: not registry.live)  # full collections only with no table live
        try:
            yield
        finally:
            identities.close()
            daily.close()
            await vacations.close()
            await notifications.close()
            await chat.close()
            await reviews.close()
            rounds.close()
            await registry.close()
            await broker.close()
            if pool is not None:
                pool.shutdown()
            if wal is not None:
                wal.stop()
            database_health.stop()
            engine.dispose()
            if stall_watch is not None:
                stall_watch.stop()
            if freezing_gc is not None:
                freezing_gc.stop()

    app = FastAPI(title="luz", version="1", lifespan=lifespan, description="Play LUZ at tables of humans and bots.")
    guards = Guards.of(settings, clock)
    app.add_middleware(RequestIds)  # each request's id, in its log lines and its answer (logs.py)
    app.add_middleware(live.Frames)  # added last, so outside the others: a WebSocket's frames skip them (live.py)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        # What was wrong and where, without echoing the input (which may not even be JSON: NaN, infinities).
        detail = [{k: e[k] for k in ("type", "loc", "msg") if k in e} for e in error.errors()]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(AccountRequired)
    @app.exception_handler(AccountTooNew)
    @app.exception_handler(TooManyGames)
    @app.exception_handler(Blocked)
    async def refused_seat(
        request: Request, error: AccountRequired | AccountTooNew | TooManyGames | Blocked
    ) -> JSONResponse:
        if isinstance(error, TooManyGames):
            metrics.refused("max_turn_based_games")
        return JSONResponse({"detail": str(error), "code": error.code}, status_code=403)

    @app.exception_handler(VacationRefused)
    async def vacation_refused(request: Request, error: VacationRefused) -> JSONResponse:
        return JSONResponse({"detail": str(error), "code": error.code}, status_code=error.status)

    @app.exception_handler(OneSeatPerAddress)
    async def seat_per_address(request: Request, error: OneSeatPerAddress) -> JSONResponse:
        metrics.refused("seats_per_address")
        return JSONResponse({"detail": str(error), "code": error.code}, status_code=409)

    @app.exception_handler(Expired)
    async def expired(request: Request, error: Expired) -> JSONResponse:
        return JSONResponse({"detail": str(error), "code": error.code}, status_code=409)

    @app.exception_handler(TooManyWaiting)
    async def waiting_tables(request: Request, error: TooManyWaiting) -> JSONResponse:
        metrics.refused(error.code)
        return JSONResponse({"detail": str(error), "code": error.code}, status_code=429)

    @app.exception_handler(OverLimit)
    async def over_limit(request: Request, error: OverLimit) -> Response:
        metrics.refused(error.limit)
        return await http_exception_handler(request, error)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        log.error("unexpected %s on %s", type(error).__name__, request.url.path)
        return JSONResponse({"detail": "internal error"}, status_code=500)

    @app.get("/healthz", response_model=None, responses={503: {"description": "the database does not answer"}})
    async def healthz(request: Request) -> dict[str, Any] | JSONResponse:
        """Liveness and database reachability (a ping of the last few seconds, made in a thread: this answer waits
        for nothing); 503 while the database does not answer; ``degraded`` while the bot processes are being
        replaced (a worker died) or warming up: bots move meanwhile, the quick fallback bot for them."""
        if not services_of(request).database_health.reachable:
            return JSONResponse({"status": "unavailable", "database": "unreachable"}, status_code=503)
        pool = tables_of(request).bots.pool
        if pool is None:
            return {"status": "ok"}
        pool.recover()
        return {
            "status": "ok" if pool.healthy else "degraded",
            "bots": "ready" if pool.healthy else "starting",
            "bot_pool_replacements": pool.replacements,
        }

    @app.get("/metrics", include_in_schema=False)
    async def metrics_page(request: Request) -> Response:
        """Prometheus metrics (docs/DEPLOY.md "Metrics"): 404 unless ``LUZ_METRICS_TOKEN`` is set, 401 without
        ``Authorization: Bearer`` that token."""
        if not settings.metrics_token:
            raise HTTPException(404, "Not Found")
        if not token_matches(settings.metrics_token, request.headers.get("authorization")):
            return Response("a metrics token is needed\n", 401, {"WWW-Authenticate": "Bearer"})
        return Response(await asyncio.to_thread(metrics.exposition), media_type=CONTENT_TYPE)

    routers = (
        tables,
        live,
        games,
        reviews,
        identity,
        history,
        ratings,
        mygames,
        notify,
        friends,
        tournaments,
        daily_routes,
        dealsets,
        playsettings,
        vacation,
    )
    for module in routers:
        app.include_router(module.router)
    install_web_client(app)  # the browser client: pages, static files (src/luz/web)
    return app
