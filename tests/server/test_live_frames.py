"""A live connection's frames: each one ASGI message handed to the server's own ``send`` (past the middleware), the
handshake still carrying the request id."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.types import Message

from luz.server.api.live import FRAMES, Socket
from support.server import create_table, seats

REQUEST_ID = "frames-0123456789"


class FakeWebSocket:
    """What ``Socket`` reads of a Starlette WebSocket: its scope, its own ``send`` and ``close``."""

    def __init__(self, scope: dict[str, Any]) -> None:
        self.scope = scope
        self.through_starlette: list[Message] = []
        self.closed: list[tuple[int, str | None]] = []

    async def send(self, message: Message) -> None:
        self.through_starlette.append(message)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed.append((code, reason))


def test_a_frame_is_one_message_to_the_servers_send_and_a_close_goes_through_starlette() -> None:
    sent: list[Message] = []

    async def server_send(message: Message) -> None:
        sent.append(message)

    websocket = FakeWebSocket({"type": "websocket", FRAMES: server_send})
    socket = Socket(websocket)  # type: ignore[arg-type]
    asyncio.run(socket.send_text('{"type":"pong","id":1}'))
    asyncio.run(socket.close(4409))
    assert sent == [{"type": "websocket.send", "text": '{"type":"pong","id":1}'}]
    assert websocket.through_starlette == [] and websocket.closed == [(4409, None)]


def test_without_the_servers_send_a_frame_goes_through_starlette() -> None:
    websocket = FakeWebSocket({"type": "websocket"})
    asyncio.run(Socket(websocket).send_text("{}"))  # type: ignore[arg-type]
    assert websocket.through_starlette == [{"type": "websocket.send", "text": "{}"}]


def test_the_handshake_carries_the_request_id_and_the_frames_arrive(client: Any) -> None:
    table_id, _, _ = create_table(client, players=3, seats=seats("human", "random", "heuristic"))
    with client.websocket_connect(f"/ws/tables/{table_id}", headers={"X-Request-ID": REQUEST_ID}) as ws:
        assert (b"x-request-id", REQUEST_ID.encode()) in ws.extra_headers
        state = ws.receive_json()
        assert state["type"] == "state" and state["seat"] is None and state["table"]["id"] == table_id
        ws.send_json({"type": "ping", "id": 7})
        assert ws.receive_json() == {"type": "pong", "id": 7}
