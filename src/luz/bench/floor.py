"""The floor of ``luz bench server``: a bare game server on luz serve's own stack, the reference of its CPU per action.

uvicorn with uvloop, httptools and websockets' Sans-I/O protocol (as ``luz serve``), a plain ASGI application (no
framework), the engine's game and its views (``ViewsJson``), each action written to SQLite (one insert and a
commit, WAL, synchronous=NORMAL, as the server's database) before its acknowledgement, and each seat's message
encoded by orjson and sent on its connection. It speaks just what the bench's clients use of luz's protocol
(create a table, join its seats, ``state``, ``action``, ``next_game``, ``ack``, ``error``), checks nothing else
(no identities, limits, clocks, bots, presence, chat, other processes), so that what luz costs above it is what
luz adds to the same work. Run as ``python -m luz.bench.floor PORT DATABASE``.
"""

from __future__ import annotations

import secrets
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs

import orjson

from luz.engine import Game, IllegalAction, InvalidAction, Phase, ViewsJson, action_from_json, get_edition

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS actions (table_id TEXT, game_no INTEGER, seq INTEGER, seat INTEGER, action TEXT,"
    " created_at TEXT, PRIMARY KEY (table_id, game_no, seq))"
)
"""The columns of luz's action log that the bench's check reads (``check_log``), so that it checks the floor too."""


@dataclass
class FloorTable:
    id: str
    edition: str
    players: int
    tokens: dict[str, int]
    game_no: int = 0
    game: Game | None = None
    version: int = 0
    seq: int = 0
    views: ViewsJson | None = None
    views_version: int = -1
    sends: dict[int, Send] = field(default_factory=dict)
    answered: set[int] = field(default_factory=set)

    def start(self) -> None:
        rules = get_edition(self.edition)
        self.game_no += 1
        self.game = Game(rules, self.players, rules.options(self.players), seed=secrets.randbits(62))
        self.version += 1
        self.seq, self.answered, self.views = 0, set(), None

    def state(self, seat: int) -> bytes:
        """``seat``'s state message now (the views built once per version)."""
        game = self.game
        assert game is not None
        if self.views is None or self.views_version != self.version:
            self.views, self.views_version = ViewsJson(game, self.views), self.version
        over = game.phase is Phase.GAME_OVER
        table = {"id": self.id, "status": "over" if over else "playing", "game_no": self.game_no}
        message = {"type": "state", "version": self.version, "seat": seat, "table": table, "view": self.views.of(seat)}
        return orjson.dumps(message)


class Floor:
    """The floor's ASGI application."""

    def __init__(self, database: str) -> None:
        self.db = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(SCHEMA)
        self.tables: dict[str, FloorTable] = {}

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self.websocket(scope, receive, send)

    async def http(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        path = scope["path"].strip("/").split("/")
        answer: Any = {"ok": True}
        if path == ["api", "tables"]:
            spec = orjson.loads(body)
            players = int(spec["players"])
            tokens = {secrets.token_hex(8): seat for seat in range(players)}
            table = FloorTable(secrets.token_hex(6), spec["edition"], players, tokens)
            self.tables[table.id] = table
            table.start()
            answer = {"table": {"id": table.id}, "invites": [{"seat": s, "token": t} for t, s in tokens.items()]}
        elif path == ["api", "me", "guest"]:
            answer = {"session": secrets.token_hex(8)}
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": orjson.dumps(answer)})

    async def websocket(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        table = self.tables.get(scope["path"].rsplit("/", 1)[-1])
        token = parse_qs(scope["query_string"].decode()).get("token", [""])[0]
        await receive()  # websocket.connect
        if table is None or token not in table.tokens:
            await send({"type": "websocket.close", "code": 4404})
            return
        seat = table.tokens[token]
        await send({"type": "websocket.accept"})
        table.sends[seat] = send
        await send({"type": "websocket.send", "bytes": None, "text": table.state(seat).decode()})
        while True:
            event = await receive()
            if event["type"] == "websocket.disconnect":
                table.sends.pop(seat, None)
                return
            message = orjson.loads(event.get("text") or event.get("bytes") or b"{}")
            reply = self.handle(table, seat, message)
            await send({"type": "websocket.send", "text": orjson.dumps(reply).decode()})
            if reply["type"] == "ack":
                for other, other_send in list(table.sends.items()):
                    await other_send({"type": "websocket.send", "text": table.state(other).decode()})

    def handle(self, table: FloorTable, seat: int, message: dict[str, Any]) -> dict[str, Any]:
        """The reply to a message (``ack`` once the change is stored and applied); the others are then sent."""
        ident = message.get("id")
        game = table.game
        assert game is not None
        if message.get("type") == "next_game":
            if game.phase is not Phase.GAME_OVER:
                return {"type": "error", "id": ident, "code": "no_game", "message": "the game is not over"}
            table.answered.add(seat)
            if len(table.answered) == table.players:
                table.start()
            return {"type": "ack", "id": ident}
        if message.get("version") != table.version:
            return {"type": "error", "id": ident, "code": "stale", "message": "stale"}
        if game.current_player != seat:
            return {"type": "error", "id": ident, "code": "not_your_turn", "message": "not your turn"}
        try:
            action = action_from_json(message["action"])
            game.apply(action, seat)
        except (InvalidAction, IllegalAction, KeyError) as error:
            return {"type": "error", "id": ident, "code": "illegal", "message": str(error)}
        table.seq += 1
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute(
            "INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?)",
            (table.id, table.game_no, table.seq, seat, str(action), datetime.now(UTC).isoformat()),
        )
        self.db.execute("COMMIT")
        table.version += 1
        return {"type": "ack", "id": ident}


def main(port: int, database: str) -> None:
    import uvicorn

    uvicorn.run(
        Floor(database),
        host="127.0.0.1",
        port=port,
        loop="uvloop",
        http="httptools",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        lifespan="off",
        log_level="warning",
    )


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
