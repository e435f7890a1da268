"""The HTTP and WebSocket application: tables, seats, the lobby, and live play (see docs/PROTOCOL.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Annotated, Any, Literal, TypeVar

from fastapi import FastAPI, Header, HTTPException, Path, Query, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import text

from luz.bots import BOTS, make_bot
from luz.engine import EDITIONS, LuzError, action_from_json, get_edition
from luz.engine.record import to_record
from luz.web import install as install_web_client

from . import checkpoints, collector
from .bots import BotPool, check_caps, load_levels
from .chat import Chat, chat_router
from .clocks import TimeControlSpec, stored_time_control
from .db import make_engine, migrate
from .history import history_router
from .identity import Identities, Players, identity_router
from .notes import own_notes, set_note
from .ratelimit import Counter, SharedRateLimit, client_key, deployment_scope
from .ratings import ratings_router
from .runtime import Manager, MemoryBroker, RedisBroker, Refused, TableRuntime, build_game, dumps
from .settings import Settings
from .stalls import watch_from_env
from .store import AccountRequired, SecondSeat, Store

log = logging.getLogger("luz.server")
T = TypeVar("T")


NO_NUL = r"^[^\x00]*$"
"""Text without NUL characters (PostgreSQL cannot store them)."""
DB_INT = 2**31
"""Whole numbers sent to the database fit its integer columns."""


class SeatSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["human", "bot"] = "human"
    bot: str | None = Field(
        None,
        max_length=32,
        description="Bot level for a bot seat: " + ", ".join(BOTS) + ", optionally with parameters (strong:iters=200)",
    )
    name: str | None = Field(None, max_length=40, pattern=NO_NUL)


class TableCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edition: str = Field("iello-2024", description="Edition key: " + ", ".join(EDITIONS))
    players: int = Field(4, ge=3, le=5)
    name: str = Field("", max_length=80, pattern=NO_NUL)
    public: bool = Field(True, description="Listed in the lobby, where anyone may take an open seat.")
    grace_seconds: float = Field(
        30.0,
        ge=0,
        le=3600,
        description="How long a disconnected player's seat waits before a bot plays for them (until they come back).",
    )
    options: dict[str, Any] = Field(default_factory=dict, description="Table options (bid_cap, trick_history, ...)")
    hints: bool = Field(False, description="Show each player the odds of its own hidden values (a learning aid).")
    rated: bool = Field(
        False, description="Its games change the players' ratings; only accounts may take its human seats."
    )
    seats: list[SeatSpec] | None = Field(None, description="One per seat; default: every seat human.")
    time_control: TimeControlSpec | None = Field(
        None,
        description="A clock: a preset (minutes + seconds per move) or {reserve_seconds, increment_seconds}; "
        "default none. When a player's time runs out the heuristic bot plays that move for them.",
    )


class JoinRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(
        None, min_length=1, max_length=40, pattern=NO_NUL, description="Default: your identity's display name."
    )
    token: str | None = Field(None, max_length=100, description="The seat's invite token (needed for a private table).")


class Invite(BaseModel):
    seat: int
    token: str
    url: str


class TableCreated(BaseModel):
    table: dict[str, Any]
    invites: list[Invite]


class Joined(BaseModel):
    seat: int
    token: str
    table: dict[str, Any]


class ClientMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["action", "sync", "next_game", "ping", "note", "chat"]
    id: str | int | None = Field(None, description="Echoed in the reply.")
    slot: Any = Field(None, description="A note's card: a slot of your hand.")
    text: Any = Field(None, description="A note's text (empty: remove the note), or a chat message's.")
    preset: Any = Field(None, description="A quick chat message: good_luck, good_game, well_played or thanks.")
    action: dict[str, Any] | None = None
    version: int | None = Field(None, description="The version the client acts on; refused if the table moved on.")


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


class TokenBucket:
    def __init__(self, rate: float) -> None:
        self.rate, self.capacity = rate, 2 * rate
        self.tokens, self.stamp = self.capacity, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()

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
        await asyncio.to_thread(load_levels)
        # Players (identity.py): guests, accounts, sessions; one seat per identity at a table.
        players = Players(engine)
        app.state.identities = Identities(
            players,
            await asyncio.to_thread(players.signing_key, settings.secret_key),
            settings.redis_url or "memory://",
            secure_cookies=settings.public_url.startswith("https://"),
            trusted_proxies=settings.trusted_proxies,
            guests_per_minute=settings.guests_per_minute,
        )
        broker = RedisBroker(settings.redis_url) if settings.redis_url else MemoryBroker()
        pool = BotPool(settings.bot_workers) if settings.bot_workers > 0 else None
        manager = Manager(Store(engine), broker, pool, settings)
        await broker.start(manager.on_event, manager.on_presence)
        await manager.resume()
        app.state.manager, app.state.engine = manager, engine
        app.state.chat = Chat(manager, settings.redis_url)  # chat.py: table chat, across processes with Redis
        await app.state.chat.start()
        # LUZ_GC=stepped (luz serve's default): collections in short steps, none scans the heap (collector.py)
        stepped_gc = collector.from_env()
        try:
            yield
        finally:
            app.state.identities.close()
            await app.state.chat.close()
            await manager.close()
            await broker.close()
            if pool is not None:
                pool.shutdown()
            if wal is not None:
                wal.stop()
            engine.dispose()
            if stall_watch is not None:
                stall_watch.stop()
            if stepped_gc is not None:
                stepped_gc.stop()

    app = FastAPI(title="luz", version="1", lifespan=lifespan, description="Play LUZ at tables of humans and bots.")
    # Rates per client, counted by every process together when they share Redis; open sockets per process.
    scope = deployment_scope(settings.database_url)
    table_creation = (
        SharedRateLimit(settings.tables_per_minute, settings.redis_url, scope) if settings.tables_per_minute else None
    )
    client_connections = Counter(settings.max_connections_per_client)
    bot_tables_creating: dict[str, int] = {}
    """Tables of bots only being created, per client (not yet counted by ``Manager.bot_tables_of``)."""
    connection_rate = SharedRateLimit(settings.connections_per_second, settings.redis_url, scope)

    def client_of(request: Request | WebSocket) -> str:
        peer = request.client.host if request.client else None
        return client_key(peer, request.headers, settings.trusted_proxies)

    def manager_of(request: Request | WebSocket) -> Manager:
        manager: Manager = request.app.state.manager
        return manager

    async def table_or_404(request: Request, table_id: str) -> TableRuntime:
        runtime = await manager_of(request).runtime(table_id)
        if runtime is None:
            raise HTTPException(404, "no such table")
        return runtime

    async def seat_of(request: Request, table_id: str, authorization: str | None) -> int:
        token = (authorization or "").removeprefix("Bearer ").strip()
        seat = await asyncio.to_thread(manager_of(request).store.seat_of, table_id, token) if token else None
        if seat is None:
            raise HTTPException(401, "a seat's token is needed (Authorization: Bearer TOKEN)")
        return seat

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        # What was wrong and where, without echoing the input (which may not even be JSON: NaN, infinities).
        detail = [{k: e[k] for k in ("type", "loc", "msg") if k in e} for e in error.errors()]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(AccountRequired)
    async def account_required(request: Request, error: AccountRequired) -> JSONResponse:
        return JSONResponse({"detail": str(error), "code": error.code}, status_code=403)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        log.error("unexpected %s on %s", type(error).__name__, request.url.path)
        return JSONResponse({"detail": "internal error"}, status_code=500)

    @app.get("/healthz")
    async def healthz(request: Request) -> dict[str, Any]:
        """Liveness and database reachability; ``degraded`` while the bot processes are being replaced (a worker
        died) or warming up: bots move meanwhile, the quick fallback bot for them."""

        def ping() -> None:
            with request.app.state.engine.connect() as connection:
                connection.execute(text("SELECT 1"))

        await asyncio.to_thread(ping)
        pool = manager_of(request).bots
        if pool is None:
            return {"status": "ok"}
        pool.recover()
        return {
            "status": "ok" if pool.healthy else "degraded",
            "bots": "ready" if pool.healthy else "starting",
            "bot_pool_replacements": pool.replacements,
        }

    @app.get("/api/editions")
    async def editions() -> list[dict[str, Any]]:
        """The editions, with their player counts, colours and defaults."""
        return [e.describe() for e in EDITIONS.values()]

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request, spec: TableCreate) -> TableCreated:
        """Create a table; the answer holds each human seat's secret invite (keep them: they are shown once).
        A client creates at most ``tables_per_minute`` (429 with ``Retry-After`` beyond)."""
        client = client_of(request)
        wait = await table_creation.hit("create:" + client) if table_creation else None
        if wait is not None:
            raise HTTPException(429, "too many tables created: try again later", headers={"Retry-After": str(wait)})
        try:
            edition = get_edition(spec.edition)
            options = edition.options(spec.players, **spec.options).to_json()
        except LuzError as error:
            raise HTTPException(422, str(error)) from None
        except TypeError:
            raise HTTPException(422, "options must be an object of table options") from None
        seats = spec.seats or [SeatSpec() for _ in range(spec.players)]
        if len(seats) != spec.players:
            raise HTTPException(422, f"give one seat per player ({spec.players}), not {len(seats)}")
        for seat in seats:
            if seat.kind == "bot":
                try:
                    make_bot(seat.bot or "heuristic")  # a level, with parameters if any: "strong:iters=200"
                    check_caps(seat.bot or "heuristic", settings)
                except LuzError as error:
                    raise HTTPException(422, str(error)) from None
        manager = manager_of(request)
        with bot_table_place(manager, client, all(seat.kind == "bot" for seat in seats)):
            table_id, tokens = await asyncio.to_thread(
                manager.store.create_table,
                name=spec.name or f"{edition.name} table",
                edition=edition.key,
                players=spec.players,
                options=options,
                public=spec.public,
                grace_seconds=spec.grace_seconds,
                hints=spec.hints,
                rated=spec.rated,
                time_control=stored_time_control(spec.time_control),
                seats=[{**s.model_dump(), "bot": (s.bot or "heuristic") if s.kind == "bot" else None} for s in seats],
            )
            runtime = await table_or_404(request, table_id)
            runtime.creator = client  # its bots share the bot processes with the client's other tables
        await manager.start_if_ready(runtime)
        invites = [
            Invite(seat=n, token=t, url=f"{settings.public_url}/t/{table_id}?seat={n}&token={t}")
            for n, t in tokens.items()
        ]
        return TableCreated(table=runtime.state.summary(), invites=invites)

    @contextlib.contextmanager
    def bot_table_place(manager: Manager, client: str, bots_only: bool) -> Iterator[None]:
        """Hold one of ``client``'s places for a table of bots only while it is created (429 when it has none
        left: ``bot_tables_per_client`` playing or being created)."""
        if not bots_only:
            yield
            return
        if manager.bot_tables_of(client) + bot_tables_creating.get(client, 0) >= settings.bot_tables_per_client:
            raise HTTPException(
                429,
                f"you have {settings.bot_tables_per_client} tables of bots playing: wait for one to finish",
                headers={"Retry-After": "60"},
            )
        bot_tables_creating[client] = bot_tables_creating.get(client, 0) + 1
        try:
            yield
        finally:
            left = bot_tables_creating.pop(client) - 1
            if left:
                bot_tables_creating[client] = left

    @app.get("/api/tables")
    async def lobby(request: Request) -> list[dict[str, Any]]:
        """The lobby: public tables waiting for players."""
        return [t.summary() for t in await asyncio.to_thread(manager_of(request).store.lobby)]

    @app.get("/api/tables/{table_id}")
    async def table(request: Request, table_id: str) -> dict[str, Any]:
        """A table as anyone may see it (no hands: use the WebSocket for views)."""
        return (await table_or_404(request, table_id)).state.summary()

    @app.post("/api/tables/{table_id}/seats/{seat}/join")
    async def join(
        request: Request,
        response: Response,
        table_id: str,
        seat: Annotated[int, Path(ge=0, lt=DB_INT)],
        body: JoinRequest,
    ) -> Joined:
        """Take a seat: with its invite token, or an open seat of a public table (a token is issued). The seat
        becomes your identity's (a new guest's when the request has none): one seat per identity at a table."""
        runtime = await table_or_404(request, table_id)
        manager = manager_of(request)
        identity = await request.app.state.identities.require(request, response, create=True, changes=True)
        async with runtime.lock:
            try:
                token, runtime.state = await asyncio.to_thread(
                    manager.store.join, table_id, seat, body.name or identity.name, body.token, identity.player_id
                )
            except SecondSeat as error:
                raise HTTPException(409, str(error)) from None
            except AccountRequired:
                raise  # a typed 403 (account_required), by its handler
            except PermissionError as error:
                raise HTTPException(403, str(error)) from None
            runtime.game = build_game(runtime.state)
            # An open seat taken gets a new token: connections opened with the old one lose the seat.
            revoked = runtime.seats.pop(seat, set()) if body.token is None else set()
        await close_all(revoked)
        await manager.changed(runtime)
        await manager.start_if_ready(runtime)
        return Joined(seat=seat, token=token, table=runtime.state.summary())

    @app.post("/api/tables/{table_id}/leave")
    async def leave(
        request: Request, table_id: str, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        """Give up your seat (before the first game it opens again; later a bot plays it)."""
        runtime = await table_or_404(request, table_id)
        seat = await seat_of(request, table_id, authorization)
        manager = manager_of(request)
        async with runtime.lock:
            runtime.state = await asyncio.to_thread(manager.store.leave, table_id, seat)
            revoked: set[Any] = set()
            if runtime.state.status != "waiting":
                runtime.taken_over.add(seat)
            else:  # the seat is open again: its token no longer opens it
                revoked = runtime.seats.pop(seat, set())
        await close_all(revoked)
        await manager.changed(runtime)
        return runtime.state.summary()

    @app.get("/api/tables/{table_id}/record")
    async def record(
        request: Request, table_id: str, game: int | None = Query(None, ge=1, lt=DB_INT)
    ) -> dict[str, Any]:
        """The record of a finished game (every hand), for the replay; a game in progress is not shown."""
        runtime = await table_or_404(request, table_id)
        number = game or runtime.state.game_no
        current = runtime.game if number == runtime.state.game_no else None
        if current is None:
            stored = await asyncio.to_thread(manager_of(request).store.record_of, table_id, number)
            if stored is None:
                raise HTTPException(404, "no such game")
            seed, actions = stored
            current = build_game(replace(runtime.state, seed=seed, actions=actions))
        if current is None or current.outcome() is None:
            raise HTTPException(409, "the game is not over: its record is shown once it is")
        return to_record(current, runtime.names())

    @app.websocket("/ws/tables/{table_id}")
    async def play(websocket: WebSocket, table_id: str, token: str | None = None) -> None:
        """Live play: a seat (with its token) or a spectator (without) receives its view after every change."""
        client = client_of(websocket)
        if await connection_rate.hit("connect:" + client) is not None or not client_connections.take(client):
            # Refused before the handshake (HTTP 403), the cheapest answer to a flood of connections.
            await websocket.close(code=4429)
            return
        try:
            await connected(websocket, table_id, token)
        except (WebSocketDisconnect, RuntimeError, OSError) as gone:  # the client left while being written to
            log.info("connection to table ended: %s", type(gone).__name__)
        except Exception as error:  # one connection's trouble: a line in the log, never a traceback
            log.warning("connection to table failed: %s", type(error).__name__)
        finally:
            client_connections.give_back(client)

    async def connected(websocket: WebSocket, table_id: str, token: str | None) -> None:
        manager = manager_of(websocket)
        runtime = await manager.runtime(table_id)
        seat = await asyncio.to_thread(manager.store.seat_of, table_id, token) if token and runtime else None
        if runtime is None or (token and seat is None):
            await websocket.accept()  # the close code reaches a client only once the handshake is done
            await websocket.close(code=4404 if runtime is None else 4401)
            return
        held = await second_seat(websocket, table_id, seat)
        if held is not None:  # one seat per identity: this identity holds another seat of the table
            await websocket.accept()
            await websocket.send_text(json.dumps(error(None, "second_seat", str(SecondSeat(held)))))
            await websocket.close(code=4409)
            return
        await websocket.accept()
        try:
            arrived, evicted = manager.attach(runtime, seat, websocket)
        except Refused as refused:
            await websocket.close(code=4429, reason=str(refused))
            return
        await close_all(set(evicted), code=4409)
        bucket = TokenBucket(settings.messages_per_second)
        try:
            await websocket.send_text(dumps(manager.message(runtime, seat)))
            if seat is not None:
                await send_own_notes(manager, runtime, seat, websocket)
            watcher = None if seat is not None else (await websocket.app.state.identities.current(websocket))[0]
            await websocket.app.state.chat.joined(runtime, seat, websocket, watcher)
            if arrived:
                await manager.broadcast(runtime)  # the others see the seat connected
            replay = manager.replay_message(runtime) if seat is None else None
            if replay:
                await websocket.send_text(dumps(replay))
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                raw = frame.get("text") or ""  # a binary frame is no message: refused as malformed
                reply = await handle(manager, runtime, seat, raw, bucket, websocket)
                if reply is not None:
                    await websocket.send_text(dumps(reply))
        finally:
            if manager.detach(runtime, seat, websocket):
                await manager.broadcast(runtime)

    async def second_seat(websocket: WebSocket, table_id: str, seat: int | None) -> int | None:
        """The other seat of this table that the connection's identity holds, when it asks for a seat."""
        if seat is None:
            return None
        identity, _ = await websocket.app.state.identities.current(websocket)
        if identity is None:
            return None
        held = await asyncio.to_thread(manager_of(websocket).store.player_seat, table_id, identity.player_id)
        return held if held is not None and held != seat else None

    async def handle(
        manager: Manager, runtime: TableRuntime, seat: int | None, raw: str, bucket: TokenBucket, websocket: WebSocket
    ) -> dict[str, Any] | None:
        if len(raw) > settings.max_message_bytes or len(raw.encode()) > settings.max_message_bytes:
            return error(None, "too_large", f"messages are limited to {settings.max_message_bytes} bytes")
        if not bucket.take():
            return error(None, "rate_limited", "too many messages: slow down")
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return error(None, "malformed", "not a message: see docs/PROTOCOL.md")
        try:
            message = ClientMessage.model_validate(data)
        except (ValueError, ValidationError):
            return error(readable_id(data), "malformed", "not a message: see docs/PROTOCOL.md")
        if message.type == "ping":
            return {"type": "pong", "id": message.id}
        if message.type == "sync":
            await websocket.send_text(dumps(manager.message(runtime, seat)))
            if seat is not None:
                await send_own_notes(manager, runtime, seat, websocket)
            await websocket.app.state.chat.send_history(runtime, websocket)
            return None
        if message.type == "chat":
            try:
                await websocket.app.state.chat.say(runtime, websocket, message.text, message.preset)
            except Refused as refused:
                return error(message.id, refused.code, str(refused))
            return {"type": "ack", "id": message.id, "version": runtime.state.version}
        if seat is None:
            return error(message.id, "spectator", "spectators cannot act")
        try:
            if message.type == "note":
                await set_note(manager, runtime, seat, message.slot, message.text)
                return {"type": "ack", "id": message.id, "version": runtime.state.version}
            if message.type == "next_game":
                if runtime.state.status != "over":
                    raise Refused("no_game", "the next game starts once this one is over")
                await manager.start_if_ready(runtime, next_game=True)
                return {"type": "ack", "id": message.id, "version": runtime.state.version}
            if message.action is None:
                raise Refused("malformed", "an action message needs 'action'")
            try:
                action = action_from_json(message.action)
            except LuzError as problem:
                raise Refused("malformed", str(problem)) from None
            version = await manager.act(runtime, seat, action, expected=message.version)
        except Refused as refused:
            return error(message.id, refused.code, str(refused))
        return {"type": "ack", "id": message.id, "version": version}

    app.include_router(identity_router())
    app.include_router(history_router())
    app.include_router(chat_router())
    app.include_router(ratings_router())
    install_web_client(app)  # the browser client: pages, static files (src/luz/web)
    return app


async def send_own_notes(manager: Manager, runtime: TableRuntime, seat: int, websocket: WebSocket) -> None:
    """A seat's notes on its cards, to that seat's connection only (on connecting and on sync)."""
    notes = await own_notes(manager, runtime, seat)
    if notes is not None:
        await websocket.send_text(json.dumps(notes))


async def close_all(connections: set[Any], code: int = 4401) -> None:
    for connection in connections:
        with contextlib.suppress(Exception):  # already gone
            await connection.close(code=code)


def readable_id(data: Any) -> str | int | None:
    """The ``id`` of a message that is otherwise not valid, if it is one (echoed with the error)."""
    found = data.get("id") if isinstance(data, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


def error(message_id: str | int | None, code: str, text: str) -> dict[str, Any]:
    return {"type": "error", "id": message_id, "code": code, "message": text}
