"""The server's logs (``luz serve``): text as before, or one JSON object a line (``LUZ_LOG_FORMAT=json``) with the
time, level, logger, message, and the request's and table's ids. Secrets never reach them: a token in a query
string is redacted from every line (the server's and uvicorn's), and no header or cookie is ever logged.
Imports nothing of ``luz.server``, so that every layer may mark the table it works on."""

from __future__ import annotations

import logging
import re
import uuid
from contextvars import ContextVar
from typing import Any

from pythonjsonlogger.json import JsonFormatter
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
JSON_FIELDS = ("time", "level", "logger", "message", "request_id", "table_id", "exc_info", "stack_info")
"""The only keys of a JSON line (a record's other attributes, e.g. uvicorn's ``color_message``, are dropped)."""
REQUEST_ID_HEADER = "X-Request-ID"
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
"""A client's ``X-Request-ID`` kept as the request's id (anything else: a new one)."""
SECRET = re.compile(r"\b([\w-]*(?:token|key|secret|password|session)=)[^&\s\"']+", re.IGNORECASE)
"""A secret in a URL's query string (seat tokens travel in WebSocket URLs, signed tokens in email links)."""

request_id: ContextVar[str | None] = ContextVar("luz_request_id", default=None)
table_id: ContextVar[str | None] = ContextVar("luz_table_id", default=None)


def on_table(table: str) -> None:
    """Mark the log lines of the current task (and the tasks it starts) as about ``table``."""
    table_id.set(table)


def redact(text: str) -> str:
    return SECRET.sub(r"\1REDACTED", text)


class RedactSecrets(logging.Filter):
    """Seat tokens travel in WebSocket URLs (uvicorn's access lines): never let them into the logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None  # the whole line, as it would be written
        return True


class WithIds(logging.Filter):
    """Adds the current request's and table's ids to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.table_id = table_id.get()
        return True


class TextLines(logging.Formatter):
    """A record as ``time logger level message``, secrets redacted from its traceback too."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class JsonLines(JsonFormatter):
    """A record as one JSON object of ``JSON_FIELDS`` only, secrets redacted from its traceback too."""

    def __init__(self) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(message)s %(request_id)s %(table_id)s",
            rename_fields={"levelname": "level", "name": "logger"},
            timestamp="time",
        )

    def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
        kept = {key: log_data[key] for key in JSON_FIELDS if key in log_data}
        for traceback in ("exc_info", "stack_info"):
            if isinstance(kept.get(traceback), str):
                kept[traceback] = redact(kept[traceback])
        return kept


def configure_logs(log_format: str) -> None:
    """Send the server's and uvicorn's logs (which propagate to the root logger) to standard error as ``text`` or
    ``json`` lines. :class:`ValueError` for another format."""
    if log_format not in FORMATS:
        raise ValueError(f"LUZ_LOG_FORMAT is {log_format!r}: it must be text or json")
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines() if log_format == "json" else TextLines())
    handler.addFilter(RedactSecrets())  # on the handler: every record it writes, whichever logger made it
    handler.addFilter(WithIds())
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.captureWarnings(True)  # a library's warning is a log line too, not raw text among the JSON


class RequestIds:
    """ASGI middleware: each HTTP request and WebSocket connection gets an id (the client's ``X-Request-ID`` if sane,
    else a new one), set for its log lines and sent back in the response's ``X-Request-ID`` header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = next((value for name, value in scope["headers"] if name == b"x-request-id"), b"").decode("latin-1")
        current = given if SANE_REQUEST_ID.fullmatch(given) else uuid.uuid4().hex

        async def send_with_id(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message.setdefault("headers", [])
                MutableHeaders(scope=message).append(REQUEST_ID_HEADER, current)
            await send(message)

        marks = request_id.set(current), table_id.set(None)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id.reset(marks[0])
            table_id.reset(marks[1])
