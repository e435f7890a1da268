"""The email digest (issue 23): a local SMTP server (aiosmtpd) receives the verification email, whose link
verifies the address; then the digest of the games where it is the player's turn, at most one an hour, with a
one-click unsubscribe link that turns it off. Nothing is sent without SMTP configured. SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlalchemy import text

from luz.server import app_services, create_app
from support.mail import Inbox, smtp_server
from support.notify import DAY_MS, column, epoch_ms, make_due, notifier_of, notify_settings, scans_pass, seated_table
from support.server import guest, wait_for

PUBLIC_URL = "http://testserver"
PASSWORD = "correct horse battery"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with smtp_server() as server:
        yield server


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
    assert inbox.recipients == [["ann@example.org"]]
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
    # The same address again the same day: refused (429 until the next UTC day), and nothing is changed.
    again = client.put("/api/me/notifications", json={"email_address": "Bob@Example.org"}, headers=me)
    assert again.status_code == 429 and "this address today" in again.json()["detail"]
    assert 0 < int(again.headers["retry-after"]) <= 24 * 3600
    assert (
        client.put("/api/me/notifications", json={"email_address": "robert@example.org"}, headers=me).status_code == 200
    )
    assert inbox.wait(2)["To"] == "robert@example.org"
    assert client.get(local(old_link)).status_code == 400  # the link was for the old address
    shown = client.get("/api/me/notifications", headers=me).json()
    assert shown["email_address"] == "robert@example.org" and shown["email_verified"] is False
    # A third address that day is the account's last (Settings.verification_mails_per_day = 3).
    assert (
        client.put("/api/me/notifications", json={"email_address": "bobby@example.org"}, headers=me).status_code == 200
    )
    assert inbox.wait(3)["To"] == "bobby@example.org"
    capped = client.put("/api/me/notifications", json={"email_address": "rob@example.org"}, headers=me)
    assert capped.status_code == 429 and "3 verification emails a day" in capped.json()["detail"]
    assert client.get("/api/me/notifications", headers=me).json()["email_address"] == "bobby@example.org"
    for bad in (
        "not an address",
        "a@b",
        "a@@b.org",
        "x" * 250 + "@example.org",
        "a@b.org,postmaster",
        "a@b.org, c@d.org",
        "Eve <a@b.org>",
        "a@b.org\r\nBcc: c@d.org",
        "@relay.org:a@b.org",
    ):
        answer = client.put("/api/me/notifications", json={"email_address": bad}, headers=me)
        assert answer.status_code == 422, bad
    assert len(inbox.messages) == 3
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


def test_no_email_without_the_public_url_and_never_a_link_from_the_host(
    database_url: str, smtp: tuple[Inbox, int]
) -> None:
    """With ``LUZ_PUBLIC_URL`` unset the verification link followed the request's ``Host`` (``Host: evil.example``
    gave ``http://evil.example/api/email/verify?...``): now nothing is sent at all; with it set, the link is the
    public address's whatever the ``Host``."""
    from fastapi.testclient import TestClient

    inbox, port = smtp
    smtp_url = f"smtp://127.0.0.1:{port}"
    evil = {"Host": "evil.example"}
    with TestClient(create_app(notify_settings(database_url, smtp_url=smtp_url))) as client:
        me, _ = account(client, "eve")
        answer = client.put("/api/me/notifications", json={"email_address": "eve@example.org"}, headers=me | evil)
        assert answer.status_code == 200 and answer.json()["smtp"] is False
        assert not app_services(client.app).notifications.sending, "no email is being sent"
    with TestClient(create_app(notify_settings(database_url, smtp_url=smtp_url, public_url=PUBLIC_URL))) as client:
        me, _ = account(client, "ann")
        answer = client.put("/api/me/notifications", json={"email_address": "ann@example.org"}, headers=me | evil)
        assert answer.status_code == 200 and answer.json()["smtp"] is True
        verification = inbox.wait(1)
        link_in(verification, "/api/email/verify")  # the public address's link
        assert "evil.example" not in body_of(verification)
    assert len(inbox.messages) == 1, "the first app sent nothing"


def test_two_processes_share_the_count_of_verification_emails(smtp: tuple[Inbox, int], tmp_path: Any) -> None:
    """Two apps on one PostgreSQL database (two server processes): an address gets one verification email a day
    whichever process is asked, and an account's emails of the day are counted together."""
    from fastapi.testclient import TestClient

    from support.server import backend_urls

    inbox, port = smtp
    with backend_urls("postgresql", tmp_path) as url:
        options = {"smtp_url": f"smtp://127.0.0.1:{port}", "public_url": PUBLIC_URL, "verification_mails_per_day": 2}
        with (
            TestClient(create_app(notify_settings(url, **options))) as first,
            TestClient(create_app(notify_settings(url, **options))) as second,
        ):
            ann, _ = account(first, "ann")
            bob, _ = account(second, "bob")
            put = "/api/me/notifications"
            assert first.put(put, json={"email_address": "shared@example.org"}, headers=ann).status_code == 200
            assert inbox.wait(1)["To"] == "shared@example.org"
            other = second.put(put, json={"email_address": "shared@example.org"}, headers=bob)
            assert other.status_code == 429 and "this address today" in other.json()["detail"]
            # Ann's second email of the day through the other process, then her third through either: refused.
            assert second.put(put, json={"email_address": "ann2@example.org"}, headers=ann).status_code == 200
            assert inbox.wait(2)["To"] == "ann2@example.org"
            for app in (first, second):
                capped = app.put(put, json={"email_address": "ann3@example.org"}, headers=ann)
                assert capped.status_code == 429 and "2 verification emails a day" in capped.json()["detail"]
    assert [m["To"] for m in inbox.messages] == ["shared@example.org", "ann2@example.org"]


def test_verification_emails_are_counted_by_utc_day_and_old_days_forgotten(database_url: str) -> None:
    from datetime import UTC, datetime, timedelta

    from luz.server.db import make_engine, migrate
    from luz.server.notify.mail import VerificationRefused, Verifications

    engine = make_engine(database_url)
    try:
        migrate(engine)
        verifications = Verifications(engine, per_account=2)
        late = datetime(2026, 3, 1, 23, 59, 30, tzinfo=UTC)
        verifications.claim("p1", "ann@example.org", late)
        with pytest.raises(VerificationRefused) as refused:
            verifications.claim("p2", "ANN@example.org", late)
        assert refused.value.retry_after == 30  # the next UTC day
        verifications.claim("p1", "ann@example.org", late + timedelta(minutes=1))  # a new day
        verifications.claim("p1", "bob@example.org", late + timedelta(days=3))
        with engine.connect() as connection:
            days = connection.execute(text("SELECT day FROM verification_mails ORDER BY day")).scalars().all()
        assert days == ["2026-03-04"], "the days before yesterday are forgotten"
    finally:
        engine.dispose()
