"""The email digest (issue 23): a local SMTP server (aiosmtpd) receives the verification email, whose link
verifies the address; then the digest of the games where it is the player's turn, at most one an hour, with a
one-click unsubscribe link that turns it off. Nothing is sent without SMTP configured. SQLite and PostgreSQL."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlsplit

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import text

from luz.server import app_services, create_app
from support.notify import DAY_MS, column, epoch_ms, make_due, notifier_of, notify_settings, scans_pass, seated_table
from support.server import free_port, guest, wait_for

PUBLIC_URL = "http://testserver"
PASSWORD = "correct horse battery"


class Inbox:
    """What the SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self._changed = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._changed:
            self.messages.append(message)  # type: ignore[arg-type]
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


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture
def mail_app(database_url: str, smtp: tuple[Inbox, int]) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    settings = notify_settings(
        database_url, smtp_url=f"smtp://127.0.0.1:{smtp[1]}", mail_from="luz@example.org", public_url=PUBLIC_URL
    )
    with TestClient(create_app(settings)) as client:
        yield client


def account(client: Any, username: str = "ann") -> tuple[dict[str, str], str]:
    """A new account's session header and player id."""
    answer = client.post(
        "/api/account/register", json={"username": username, "password": PASSWORD}, headers=guest(client)
    )
    assert answer.status_code == 201, answer.text
    return {"X-Luz-Session": answer.json()["session"]}, answer.json()["id"]


def body_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())  # type: ignore[attr-defined]


def link_in(message: EmailMessage, path: str) -> str:
    found = re.search(rf"{re.escape(PUBLIC_URL + path)}\?token=\S+", body_of(message))
    assert found, body_of(message)
    return found.group(0)


def local(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def player_column(client: Any, player_id: str, name: str) -> Any:
    with app_services(client.app).engine.connect() as connection:
        return connection.execute(text(f"SELECT {name} FROM players WHERE id = :id"), {"id": player_id}).scalar_one()


def test_verify_then_one_digest_an_hour_then_unsubscribe(mail_app: Any, smtp: tuple[Inbox, int]) -> None:
    inbox, _ = smtp
    client = mail_app
    me, player_id = account(client)
    store = app_services(client.app).tables.store
    first, second, third = (seated_table(store, player_id, name) for name in ("Friday table", "Monday", "Tuesday"))

    changed = client.put("/api/me/notifications", json={"email_address": "ann@example.org", "email": True}, headers=me)
    assert changed.status_code == 200, changed.text
    assert changed.json() | {"email_verified": False, "smtp": True} == changed.json()
    verification = inbox.wait(1)
    assert verification["To"] == "ann@example.org" and verification["From"] == "luz@example.org"
    verify_link = link_in(verification, "/api/email/verify")

    # Not verified yet: a turn sends nothing.
    now = epoch_ms()
    make_due(store.engine, first, notify_at=now, deadline=now + 3 * DAY_MS)
    wait_for(lambda: column(store.engine, first, "notify_at") is None)
    scans_pass(lambda: notifier_of(client).counts["scans"])
    assert len(inbox.messages) == 1 and not player_column(client, player_id, "email_pending")

    page = client.get(local(verify_link))
    assert page.status_code == 200 and "verified" in page.text
    assert client.get("/api/me/notifications", headers=me).json()["email_verified"] is True

    make_due(store.engine, second, notify_at=epoch_ms(), deadline=now + DAY_MS)
    digest = inbox.wait(2)
    text_of = body_of(digest)
    assert digest["To"] == "ann@example.org" and digest["Subject"] == "Your turn at LUZ: 2 to play"
    for table_id, name in ((first, "Friday table"), (second, "Monday")):
        assert f"{name} (" in text_of and f"{PUBLIC_URL}/t/{table_id}" in text_of
    assert " left)" in text_of and f"/t/{third}" not in text_of
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = digest["List-Unsubscribe"].strip("<>")
    assert unsubscribe == link_in(digest, "/api/email/unsubscribe")

    # Another turn within the hour: it waits for the hour (nothing more is sent) ...
    make_due(store.engine, third, notify_at=epoch_ms(), deadline=now + DAY_MS)
    wait_for(lambda: column(store.engine, third, "notify_at") is None)
    wait_for(lambda: player_column(client, player_id, "email_pending"))
    scans_pass(lambda: notifier_of(client).counts["scans"])
    assert len(inbox.messages) == 2
    # ... which has passed once the last digest is an hour old.
    with store.engine.begin() as connection:
        connection.execute(
            text("UPDATE players SET emailed_at = :then WHERE id = :id"),
            {"then": epoch_ms() - 3600 * 1000 - 1, "id": player_id},
        )
    later = inbox.wait(3)
    assert later["Subject"] == "Your turn at LUZ: 3 to play" and f"/t/{third}" in body_of(later)

    # The unsubscribe link: a page with a button, whose POST (or a mail client's one-click POST) turns email off.
    shown = client.get(local(unsubscribe))
    assert shown.status_code == 200 and '<form method="post"' in shown.text and "<button" in shown.text
    assert shown.headers["referrer-policy"] == "no-referrer"
    done = client.post(local(unsubscribe), content="List-Unsubscribe=One-Click")
    assert done.status_code == 200 and "Unsubscribed" in done.text
    assert client.get("/api/me/notifications", headers=me).json()["email"] is False
    assert not player_column(client, player_id, "email_pending")


def test_bad_links_and_an_old_address_s_link_are_refused(mail_app: Any, smtp: tuple[Inbox, int]) -> None:
    inbox, _ = smtp
    client = mail_app
    me, _ = account(client, "bob")
    for path in ("/api/email/verify", "/api/email/unsubscribe"):
        for query in ("", "?token=", "?token=garbage", "?token=" + "x" * 5000):
            answer = client.get(path + query)
            assert answer.status_code == 400 and "not valid" in answer.text and "Traceback" not in answer.text
    assert client.post("/api/email/unsubscribe?token=nope").status_code == 400
    assert client.put("/api/me/notifications", json={"email_address": "bob@example.org"}, headers=me).status_code == 200
    old_link = link_in(inbox.wait(1), "/api/email/verify")
    # A second verification email within the minute is refused (429), and nothing is changed.
    again = client.put("/api/me/notifications", json={"email_address": "robert@example.org"}, headers=me)
    assert again.status_code == 429
    assert client.get("/api/me/notifications", headers=me).json()["email_address"] == "bob@example.org"
    app_services(client.app).notifications.verification_sent.clear()  # the minute has passed
    assert (
        client.put("/api/me/notifications", json={"email_address": "robert@example.org"}, headers=me).status_code == 200
    )
    assert inbox.wait(2)["To"] == "robert@example.org"
    assert client.get(local(old_link)).status_code == 400  # the link was for the old address
    shown = client.get("/api/me/notifications", headers=me).json()
    assert shown["email_address"] == "robert@example.org" and shown["email_verified"] is False
    for bad in ("not an address", "a@b", "a@@b.org", "x" * 250 + "@example.org"):
        assert client.put("/api/me/notifications", json={"email_address": bad}, headers=me).status_code == 422
    # Email on with no address: refused; removing the address turns email off.
    assert client.put("/api/me/notifications", json={"email_address": None}, headers=me).json()["email"] is False
    assert client.put("/api/me/notifications", json={"email": True}, headers=me).status_code == 409


def test_nothing_is_sent_without_smtp(sqlite_url: str, smtp: tuple[Inbox, int]) -> None:
    from fastapi.testclient import TestClient

    inbox, _ = smtp
    with TestClient(create_app(notify_settings(sqlite_url, public_url=PUBLIC_URL))) as client:
        me, player_id = account(client)
        answer = client.put(
            "/api/me/notifications", json={"email_address": "ann@example.org", "email": True}, headers=me
        )
        assert answer.status_code == 200 and answer.json()["smtp"] is False
        store = app_services(client.app).tables.store
        with store.engine.begin() as connection:
            connection.execute(
                text("UPDATE players SET email_verified = :yes WHERE id = :id"), {"yes": True, "id": player_id}
            )
        table_id = seated_table(store, player_id)
        make_due(store.engine, table_id, notify_at=epoch_ms())
        wait_for(lambda: column(store.engine, table_id, "notify_at") is None)
        scans_pass(lambda: notifier_of(client).counts["scans"])
        assert inbox.messages == [] and not player_column(client, player_id, "email_pending")
