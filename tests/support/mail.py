"""A local SMTP server (aiosmtpd) for the email tests: what it received, each message with its envelope's
recipients."""

from __future__ import annotations

import contextlib
import email
import email.policy
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from support.server import free_port


class Inbox:
    """What the SMTP server received: ``messages`` and, for each, ``recipients`` (``RCPT TO``)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.recipients: list[list[str]] = []
        self._changed = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._changed:
            self.messages.append(message)  # type: ignore[arg-type]
            self.recipients.append(list(envelope.rcpt_tos))
            self._changed.notify_all()
        return "250 OK"

    def wait(self, count: int, timeout: float = 30.0) -> EmailMessage:
        """The ``count``-th message, once it has come."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.messages)} emails, not {count}"
                self._changed.wait(left)
            return self.messages[count - 1]


@contextlib.contextmanager
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    """An SMTP server on the loopback: its inbox and port."""
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()
