"""The lobby and "show all hands" against a real ``luz serve`` behind the documented proxy (the loopback a trusted
proxy, the client in ``X-Forwarded-For``).

Before: from 30 addresses, 300 public 7-day tables with 80-character names filled the lobby (100 of its 100);
a seated player's own cookie-less socket, or another guest of its address, got the face-up view of its table."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from support.server import ServerProcess, wait_for

pytestmark = pytest.mark.slow

FLOOD = {"players": 3, "time_control": "7d", "name": "x" * 80, "seats": [{"kind": "human"}] * 3}
"""The attacker's table: public, turn-based (a week to wait), the longest name."""


LIMITS = {
    "LUZ_TRUSTED_PROXIES": "127.0.0.1",
    "LUZ_TABLES_PER_MINUTE": "10/minute",
    "LUZ_WAITING_TABLES_PER_CLIENT": "3",
    "LUZ_SEATS_PER_ADDRESS": "1",
}
"""``luz serve``'s limits behind a trusted proxy (the loopback)."""


@pytest.fixture
def serve(serve: Callable[..., ServerProcess]) -> Callable[..., ServerProcess]:
    """``luz serve`` with this module's limits, and the test's environment over them."""
    return lambda **env: serve(**(LIMITS | env))


def post(http: httpx.Client, path: str, body: dict[str, Any], address: str, **headers: str) -> httpx.Response:
    """A request from ``address`` by someone new (no cookie but the ``headers`` given)."""
    http.cookies.clear()
    return http.post(path, json=body, headers={"X-Forwarded-For": address, **headers})


async def flood(url: str, addresses: list[str], each: int) -> Counter[int]:
    """``each`` public week-long tables from every address, all at once; the answers' statuses."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        answers = await asyncio.gather(
            *(
                http.post("/api/tables", json=FLOOD, headers={"X-Forwarded-For": address})
                for address in addresses
                for _ in range(each)
            )
        )
    return Counter(answer.status_code for answer in answers)


def test_one_64_cannot_fill_the_lobby(serve: Any) -> None:
    """40 addresses of one /64, 300 tables asked for: 3 made (the /64's share), the real player's table listed."""
    server = serve()
    with httpx.Client(base_url=server.http, timeout=30) as http:
        real = post(http, "/api/tables", {"players": 3, "name": "Friday game"}, "198.51.100.20")
        assert real.status_code == 201, real.text
        addresses = [f"2001:db8:1:2::{n:x}" for n in range(1, 41)]
        statuses = asyncio.run(flood(server.http, addresses, each=300 // 40 + 1))
        assert statuses[201] == 3 and statuses[429] == 320 - 3, statuses  # before: 300 made
        listed = http.get("/api/tables").json()
        assert [t["name"] for t in listed].count("x" * 80) == 3
        assert real.json()["table"]["id"] in [t["id"] for t in listed]


def test_thirty_addresses_cannot_push_a_real_table_off_the_lobby(serve: Any) -> None:
    """30 IPv4 addresses, 10 tables each (their minute's worth, each allowed 10 waiting here): 300 newer tables,
    and the real player's table is still on the lobby's first page (the creators interleaved)."""
    server = serve(LUZ_WAITING_TABLES_PER_CLIENT="10")
    with httpx.Client(base_url=server.http, timeout=30) as http:
        real = post(http, "/api/tables", {"players": 3, "name": "Friday game"}, "198.51.100.20")
        assert real.status_code == 201, real.text
        statuses = asyncio.run(flood(server.http, [f"203.0.113.{n}" for n in range(1, 31)], each=10))
        assert statuses == {201: 300}
        listed = [t["id"] for t in http.get("/api/tables").json()]
        assert len(listed) == 100  # the first page: before, 100 of 100 the attacker's
        assert real.json()["table"]["id"] in listed


def test_a_table_nobody_joined_leaves_the_lobby(serve: Any) -> None:
    """Waiting tables were never deleted. Now one nobody filled expires (here after a second; ``luz serve``: an
    hour) and leaves the lobby; a table whose game started stays."""
    server = serve(LUZ_WAITING_LIVE_SECONDS="1")
    with httpx.Client(base_url=server.http, timeout=30) as http:
        left = post(http, "/api/tables", {"players": 3, "seats": [{"kind": "human"}] * 3}, "203.0.113.1")
        playing = post(
            http, "/api/tables", {"players": 3, "seats": [{"kind": "human"}] + [{"kind": "bot"}] * 2}, "203.0.113.2"
        )
        token = playing.json()["invites"][0]["token"]
        assert (
            post(
                http, f"/api/tables/{playing.json()['table']['id']}/seats/0/join", {"token": token}, "203.0.113.2"
            ).status_code
            == 200
        )
        table_id = left.json()["table"]["id"]
        assert [t["id"] for t in http.get("/api/tables").json()] == [table_id]
        wait_for(lambda: http.get(f"/api/tables/{table_id}").json()["status"] == "expired", timeout=60, step=0.1)
        assert http.get("/api/tables").json() == []
        assert http.get(f"/api/tables/{playing.json()['table']['id']}").json()["status"] == "playing"


async def first_view(url: str, headers: dict[str, str]) -> dict[str, Any]:
    async with connect(url, additional_headers=headers) as ws:
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message["type"] == "state":
                return dict(message["view"])


def face_up(view: dict[str, Any]) -> bool:
    """Whether a view shows every card of every hand."""
    return all(slot["card"] is not None for hand in view["hands"] for slot in hand)


def test_a_seated_player_cannot_peek_at_its_own_cards(serve: Any) -> None:
    """A show-all-hands table of an account (seat 0, from one address) and a guest (seat 1, from a /64): the game
    starts once both agreed; then the face-up view is refused to every connection tied to a seat (the guest's
    /64 without a cookie, another guest of the account's address, the account's device cookie from elsewhere) and
    given to a true stranger."""
    server = serve()
    home, phone = "198.51.100.30", "2001:db8:7:7::1"
    with httpx.Client(base_url=server.http, timeout=30) as http:
        spec = {
            "players": 3,
            "public": False,
            "show_hands": True,
            "seats": [{"kind": "human"}] * 2 + [{"kind": "bot", "bot": "random"}],
        }
        created = post(http, "/api/tables", spec, home)
        table_id, tokens = created.json()["table"]["id"], {i["seat"]: i["token"] for i in created.json()["invites"]}
        guest = post(http, "/api/me/guest", {}, home).json()["session"]
        account = post(
            http,
            "/api/account/register",
            {"username": "ann", "password": "correct horse"},
            home,
            **{"X-Luz-Session": guest},
        )
        device = account.cookies["luz_device_ws"]
        assert account.status_code == 201, account.text
        joined = post(
            http,
            f"/api/tables/{table_id}/seats/0/join",
            {"token": tokens[0]},
            home,
            **{"X-Luz-Session": account.json()["session"]},
        )
        assert joined.status_code == 200, joined.text
        assert post(http, f"/api/tables/{table_id}/seats/1/join", {"token": tokens[1]}, phone).status_code == 200
        for seat in (0, 1):
            assert http.get(f"/api/tables/{table_id}").json()["status"] == "waiting"  # not everyone agreed
            agreed = post(http, f"/api/tables/{table_id}/show-hand", {}, home, Authorization=f"Bearer {tokens[seat]}")
            assert agreed.status_code == 200, agreed.text
        assert agreed.json()["status"] == "playing"
        other_guest = post(http, "/api/me/guest", {}, home).json()["session"]

    url = f"{server.ws}/ws/tables/{table_id}"
    tied = {
        "the guest's /64, no cookie": {"X-Forwarded-For": "2001:db8:7:7::99"},
        "another guest of the account's address": {"X-Forwarded-For": home, "X-Luz-Session": other_guest},
        "the account's device cookie, elsewhere": {"X-Forwarded-For": "192.0.2.9", "Cookie": f"luz_device_ws={device}"},
    }
    for who, headers in tied.items():
        view = asyncio.run(first_view(url, headers))
        assert view["phase"] == "bid" and not any(slot["card"] for hand in view["hands"] for slot in hand), who
    stranger = asyncio.run(first_view(url, {"X-Forwarded-For": "192.0.2.10"}))
    assert face_up(stranger)
