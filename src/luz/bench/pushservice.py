"""A Web Push service on 127.0.0.1, for the bench and the tests: it records each POST (path, headers, body, when it
came) and answers 201, or what :meth:`PushService.answer` set for a path (404, 410...)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    """Lower-cased names."""
    body: bytes
    at: float
    """``time.time()`` when it arrived."""


class PushService:
    """The service; ``with PushService() as service:`` runs it in a thread."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.answers: dict[str, int] = {}
        self._changed = threading.Condition()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status = service.answers.get(self.path, 201)
                with service._changed:
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    service.received.append(Received(self.path, headers, body, time.time()))
                    service._changed.notify_all()
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> PushService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.origin + path

    def answer(self, path: str, status: int) -> None:
        self.answers[path] = status

    def at(self, path: str) -> list[Received]:
        with self._changed:
            return [r for r in self.received if r.path == path]

    def wait(self, path: str, count: int = 1, timeout: float = 30.0) -> list[Received]:
        """The first ``count`` pushes to ``path``, once they have come."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(got := [r for r in self.received if r.path == path]) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(got)} pushes to {path}, not {count}"
                self._changed.wait(left)
            return got[:count]

    def arrivals(self) -> list[tuple[str, float]]:
        """Each push's path and when it came, in order."""
        with self._changed:
            return [(r.path, r.at) for r in self.received]
