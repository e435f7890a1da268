"""A Web Push service for the tests, on 127.0.0.1: it records each POST (path, headers, body) and answers 201, or
what :meth:`PushService.answer` set for a path (404, 410...); and a browser's side of a subscription (its keys,
decryption with ``http_ece``, the VAPID header's check)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


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


class Browser:
    """A browser's subscription keys: a P-256 key pair and a 16-byte auth secret."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth_secret = os.urandom(16)

    @property
    def p256dh(self) -> str:
        return b64url(self.private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))

    def subscription(self) -> dict[str, Any]:
        """As ``PushSubscription.toJSON()`` gives it."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth_secret)},
        }

    def decrypt(self, push: Received) -> bytes:
        assert push.headers["content-encoding"] == "aes128gcm"
        return bytes(
            http_ece.decrypt(push.body, private_key=self.private_key, auth_secret=self.auth_secret, version="aes128gcm")
        )


def vapid_claims(push: Received, public_key: str) -> dict[str, Any]:
    """The claims of a push's ``Authorization: vapid t=JWT,k=KEY`` once its ES256 signature is checked against
    ``public_key`` (the server's, base64url); raises when it does not verify."""
    scheme, _, rest = push.headers["authorization"].partition(" ")
    assert scheme == "vapid", push.headers["authorization"][:20]
    fields = dict(part.split("=", 1) for part in rest.split(","))
    assert fields["k"] == public_key, "signed with another key than the server's"
    header, payload, signature = fields["t"].split(".")
    assert json.loads(b64url_decode(header))["alg"] == "ES256"
    raw = b64url_decode(signature)
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(public_key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key.verify(der, f"{header}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
    claims: dict[str, Any] = json.loads(b64url_decode(payload))
    return claims
