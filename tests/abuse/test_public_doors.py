"""The doors of issue 36 that let one player reach strangers or pass for another, each tried against a real
``luz serve``: mail sent with another site's link or to several recipients, push endpoints on the server's own
network written as numbers, look-alike names, unlisted tables in the export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from support.mail import Inbox, smtp_server
from support.server import ServerProcess, free_port, seats, wait_for

PASSWORD = "correct horse battery"
EVIL = {"Host": "evil.example"}


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with smtp_server() as server:
        yield server


def account(http: httpx.Client, username: str, name: str | None = None) -> dict[str, str]:
    """A new account's session header (its display name ``name`` when given)."""
    made = http.post("/api/me/guest")
    assert made.status_code == 201, made.text
    headers = {"X-Luz-Session": made.json()["session"]}
    if name is not None:
        assert http.post("/api/me/name", json={"name": name}, headers=headers).status_code == 200
    registered = http.post("/api/account/register", json={"username": username, "password": PASSWORD}, headers=headers)
    assert registered.status_code == 201, registered.text
    return {"X-Luz-Session": registered.json()["session"]}


def test_mail_needs_the_public_url_and_goes_to_one_address_with_its_links(
    tmp_path: Path, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    mail_env = {"LUZ_SMTP_URL": f"smtp://127.0.0.1:{port}", "LUZ_MAIL_FROM": "luz@example.org"}
    # Without LUZ_PUBLIC_URL: a line at start-up, and no email whatever the request's Host.
    unset = ServerProcess(f"sqlite:///{tmp_path}/a.sqlite3", tmp_path / "a.log", env=mail_env).start()
    try:
        with httpx.Client(base_url=unset.http, timeout=30) as http:
            me = account(http, "eve")
            answer = http.put("/api/me/notifications", json={"email_address": "eve@example.org"}, headers=me | EVIL)
            assert answer.status_code == 200 and answer.json()["smtp"] is False
    finally:
        unset.stop()
    assert unset.log().count("email is off: LUZ_SMTP_URL is set but LUZ_PUBLIC_URL is not") == 1
    # With it: the link is the public address's, the recipient the one address given.
    public = f"http://127.0.0.1:{free_port()}"
    port_of = int(public.rsplit(":", 1)[1])
    env = mail_env | {"LUZ_PUBLIC_URL": public}
    server = ServerProcess(f"sqlite:///{tmp_path}/b.sqlite3", tmp_path / "b.log", port=port_of, env=env).start()
    try:
        with httpx.Client(base_url=server.http, timeout=30) as http:
            me = account(http, "ann")
            several = http.put("/api/me/notifications", json={"email_address": "a@b.org,postmaster"}, headers=me)
            assert several.status_code == 422
            answer = http.put("/api/me/notifications", json={"email_address": "ann@example.org"}, headers=me | EVIL)
            assert answer.status_code == 200, answer.text
            body = str(inbox.wait(1).get_body(("plain",)).get_content())  # type: ignore[union-attr]
            assert f"{public}/api/email/verify?token=" in body and "evil.example" not in body
            assert inbox.recipients == [["ann@example.org"]]
            again = http.put("/api/me/notifications", json={"email_address": "ANN@example.org"}, headers=me)
            assert again.status_code == 429 and int(again.headers["retry-after"]) > 0
    finally:
        server.stop()
    assert len(inbox.messages) == 1
    assert "email is off" not in server.log()


def test_numeric_push_endpoints_and_look_alike_names_and_unlisted_exports(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log").start()
    try:
        with httpx.Client(base_url=server.http, timeout=30) as http:
            me = account(http, "alice", "Alice")
            # Push endpoints on the server's own network, written as numbers: refused as the addresses they are.
            keys = {"p256dh": "B" + "A" * 86, "auth": "A" * 22}
            for host in ("127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "10.1", "0"):
                body = {"endpoint": f"https://{host}/push/x", "keys": keys}
                refused = http.post("/api/me/push", json=body, headers=me)
                assert refused.status_code == 422 and "local or private" in refused.json()["detail"], host
            # Look-alike names next to the account "Alice": taken, or refused as invisible.
            stranger = {"X-Luz-Session": http.post("/api/me/guest").json()["session"]}
            for name in ("Аlice", "Ａｌｉｃｅ", "ALICE"):
                assert http.post("/api/me/name", json={"name": name}, headers=stranger).status_code == 409, name
            for name in ("Al\u200dice", "Alice\u200d"):
                assert http.post("/api/me/name", json={"name": name}, headers=stranger).status_code == 422, name
            assert http.post("/api/me/name", json={"name": "アリス"}, headers=stranger).status_code == 200
            # An unlisted table's games stay out of the export.
            bots = seats("random", "random", "random")
            made = [http.post("/api/tables", json={"players": 3, "public": p, "seats": bots}) for p in (True, False)]
            listed, unlisted = (m.json()["table"]["id"] for m in made)
            over = {listed, unlisted}
            wait_for(lambda: all(http.get(f"/api/tables/{t}").json()["status"] == "over" for t in over), timeout=120)
            exported = http.get("/api/export", params={"since": "2000-01-01"}).text
            tables = {json.loads(line)["site"]["table"] for line in exported.splitlines()}
            assert listed in tables and unlisted not in tables and unlisted not in exported
    finally:
        server.stop()


def test_presence_needs_a_follow_back_and_one_player_cannot_flood_another(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log").start()
    try:
        with httpx.Client(base_url=server.http, timeout=30) as http:
            stalker, victim = account(http, "stalker"), account(http, "victim")
            victim_id = http.get("/api/me", headers=victim).json()["id"]  # the victim has a page open: online
            table = http.post("/api/tables", json={"players": 3, "seats": seats("human", "human", "human")}).json()
            table_id, tokens = table["table"]["id"], {i["seat"]: i["token"] for i in table["invites"]}
            joined = http.post(f"/api/tables/{table_id}/seats/1/join", json={"token": tokens[1]}, headers=victim)
            assert joined.status_code == 200
            assert http.put(f"/api/players/{victim_id}/follow", headers=stalker).status_code == 200
            [seen] = http.get("/api/me/friends", headers=stalker).json()["following"]
            assert seen["mutual"] is False
            assert seen["online"] is None and seen["seen_at"] is None and seen["table"] is None
            # Invitations from the stalker to the victim: 2 a minute, then 429.
            other = http.post("/api/tables", json={"players": 3, "public": False}).json()
            other_id = other["table"]["id"]
            seat_token = {i["seat"]: i["token"] for i in other["invites"]}[0]
            seated = http.post(f"/api/tables/{other_id}/seats/0/join", json={"token": seat_token}, headers=stalker)
            assert seated.status_code == 200
            invite = f"/api/tables/{other_id}/seats/1/invite"
            codes = [http.post(invite, json={"player": victim_id}, headers=stalker).status_code for _ in range(4)]
            assert codes == [201, 201, 429, 429]
    finally:
        server.stop()
