"""Limits that counted only per person, against a real ``luz serve``: many guests of one address chatting, guests
made and left behind, and the export of the whole history to anyone as often as asked."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections import Counter
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from luz.bench.attacks import ATTACKER, attacker_http
from support.server import ServerProcess, create_table, seats, wait_for

pytestmark = pytest.mark.slow

HEADER = "X-Luz-Session"


def stored(server: ServerProcess, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(server.database_url.removeprefix("sqlite:///")) as connection:
        return connection.execute(query).fetchall()


async def chat_as(ws_url: str, table_id: str, session: str, texts: list[str], source: str) -> list[dict[str, Any]]:
    """A spectator of ``table_id`` (the guest of ``session``) from address ``source`` sends ``texts`` at once; the
    replies to them (an ``ack`` or an ``error`` each)."""
    headers = {HEADER: session}
    async with connect(f"{ws_url}/ws/tables/{table_id}", additional_headers=headers, local_addr=(source, 0)) as ws:
        for number, text in enumerate(texts, 1):
            await ws.send(json.dumps({"type": "chat", "id": number, "text": text}))
        replies: dict[int, dict[str, Any]] = {}
        async with asyncio.timeout(60):
            while len(replies) < len(texts):
                message = json.loads(await ws.recv())
                if message["type"] in ("ack", "error") and message.get("id") in range(1, len(texts) + 1):
                    replies[message["id"]] = message
        return [replies[n] for n in sorted(replies)]


async def guests_chat(http_url: str, ws_url: str, table_id: str, guests: int, each: int) -> list[dict[str, Any]]:
    """The attacker's ``guests`` guests, each a spectator of the table sending ``each`` messages, all at once."""
    async with attacker_http(http_url) as http:
        sessions = [(await http.post("/api/me/guest")).json()["session"] for _ in range(guests)]
    said = await asyncio.gather(
        *(
            chat_as(ws_url, table_id, s, [f"spam {g}.{n}" for n in range(each)], ATTACKER)
            for g, s in enumerate(sessions)
        )
    )
    return [reply for replies in said for reply in replies]


def test_guests_of_one_address_share_its_chat_limit(serve: Any) -> None:
    """The reproduction of the issue: 12 guests of one address posted 60 spectator messages in 2 s, each guest
    within its limit (5 in 10 s). Now the address has a limit of its own, 15 in 10 s; another address chats on."""
    server = serve(LUZ_CHAT_PER_ADDRESS="15/10 seconds")
    with httpx.Client(base_url=server.http, timeout=30) as victim:
        table_id, _, _ = create_table(victim, players=3, seats=seats("human", "human", "random"))  # waiting
        session = victim.post("/api/me/guest").json()["session"]
    replies = asyncio.run(guests_chat(server.http, server.ws, table_id, guests=12, each=5))
    kinds = Counter(reply["type"] for reply in replies)
    assert kinds == {"ack": 15, "error": 45}, kinds
    assert {reply["code"] for reply in replies if reply["type"] == "error"} == {"rate_limited"}
    [(spam,)] = stored(server, f"SELECT count(*) FROM chat WHERE table_id = '{table_id}'")
    assert spam == 15
    # Another address's spectator is not held up by the attacker's.
    [reply] = asyncio.run(chat_as(server.ws, table_id, session, ["hello"], "127.0.0.1"))
    assert reply["type"] == "ack", reply


def test_guests_nothing_uses_are_pruned(serve: Any) -> None:
    """Guests were stored rows never deleted: an address could leave thousands behind. Now those nothing uses
    (no seat, no game...) go once unseen for ``LUZ_GUEST_DAYS`` (here 3 seconds); a seated guest stays."""
    server = serve(LUZ_GUEST_DAYS=str(3 / 86400))
    with httpx.Client(base_url=server.http, timeout=30) as victim:
        table_id, tokens, _ = create_table(victim, players=3, seats=seats("human", "human", "random"))
        seated = victim.post(f"/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]})
        assert seated.status_code == 200
        kept = victim.get("/api/me").json()["id"]
    transport = httpx.HTTPTransport(local_address=ATTACKER)
    with httpx.Client(base_url=server.http, transport=transport, timeout=30) as attacker:
        made = [attacker.post("/api/me/guest").json() for _ in range(30)]
    ids = {guest["id"] for guest in made}

    def guests() -> set[str]:
        return {row[0] for row in stored(server, "SELECT id FROM players WHERE username IS NULL")}

    assert ids | {kept} <= guests()
    wait_for(lambda: not ids & guests(), timeout=120, step=0.2)
    assert kept in guests()
    with httpx.Client(base_url=server.http, timeout=30) as returning:  # a pruned guest's session: a new guest
        again = returning.get("/api/me", headers={HEADER: made[0]["session"]})
        assert again.status_code == 200 and again.json()["id"] not in ids and again.json()["guest"]


async def export_flood(http_url: str, pages: int) -> list[tuple[int, str | None]]:
    async with attacker_http(http_url) as http:
        answers = await asyncio.gather(*(http.get("/api/export", params={"since": "2000-01-01"}) for _ in range(pages)))
    return [(answer.status_code, answer.headers.get("retry-after")) for answer in answers]


def test_the_export_is_paged_and_limited_per_client(serve: Any) -> None:
    """``/api/export`` answered anyone, as often as asked, with the whole history at once. Now pages (the next in
    the ``Link`` header), 10 a minute per client: the attacker's flood is refused, another client pages on."""
    server = serve(LUZ_EXPORTS_PER_MINUTE="10/minute")
    with httpx.Client(base_url=server.http, timeout=30) as victim:
        for _ in range(3):
            create_table(victim, players=3, seats=seats("random", "random", "random"))
        wait_for(lambda: stored(server, "SELECT count(*) FROM results WHERE seat = 0")[0][0] >= 3, timeout=120)
        answers = asyncio.run(export_flood(server.http, 30))
        statuses = Counter(status for status, _ in answers)
        assert statuses == {200: 10, 429: 20}, statuses
        assert all(wait is not None and int(wait) > 0 for status, wait in answers if status == 429)

        sites, url = [], "/api/export?since=2000-01-01&limit=2"
        while url:
            page = victim.get(url)
            assert page.status_code == 200, page.text
            sites += [(r["site"]["table"], r["site"]["game"]) for r in map(json.loads, page.text.splitlines())]
            link = page.headers.get("link")
            url = link.removeprefix("<").split(">")[0] if link else ""
        assert len(sites) >= 3 and len(set(sites)) == len(sites)
        assert victim.get("/api/export", params={"since": "2000-01-01", "limit": 1000}).status_code == 422
