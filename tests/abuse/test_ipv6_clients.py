"""One client is one IPv4 address or one IPv6 network (a /64, ``LUZ_IPV6_PREFIX``), against a real ``luz serve``
behind the documented proxy (the loopback a trusted proxy, the client in ``X-Forwarded-For``). Before: 40
addresses of one /64 made 40 guests, took 3 seats of one public table and created 15 tables in a minute."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from luz.server.ratelimit import client_key
from support.server import ServerProcess

pytestmark = pytest.mark.slow

HOME = "2001:db8:1:2"
"""The attacker's /64: a home line."""
SEATS = "2001:db8:5:5"
"""Another attacker's /64, taking seats (each join from no identity is a new guest of its /64)."""


def home(number: int, network: str = HOME) -> str:
    """An address of ``network`` (a /64's first four groups)."""
    return f"{network}:{number:x}:{number * 7:x}:{number * 13:x}:{number + 1:x}"


def at(address: str, **headers: str) -> dict[str, str]:
    return {"X-Forwarded-For": address, **headers}


def post(http: httpx.Client, path: str, body: dict[str, Any], address: str) -> httpx.Response:
    """A request from ``address`` by someone new (no cookie: a guest made for it when it needs one)."""
    http.cookies.clear()
    return http.post(path, json=body, headers=at(address))


LIMITS = {
    "LUZ_TRUSTED_PROXIES": "127.0.0.1",
    "LUZ_GUESTS_PER_MINUTE": "30/minute",
    "LUZ_TABLES_PER_MINUTE": "10/minute",
    "LUZ_SEATS_PER_ADDRESS": "1",
    "LUZ_BOT_TABLES_PER_CLIENT": "1000",
}
"""``luz serve``'s limits behind a trusted proxy (the loopback)."""


@pytest.fixture
def serve(serve: Callable[..., ServerProcess]) -> Callable[..., ServerProcess]:
    """``luz serve`` with this module's limits, and the test's environment over them."""
    return lambda **env: serve(**(LIMITS | env))


def guests(http: httpx.Client, addresses: list[str]) -> Counter[int]:
    """The answers' statuses to a new guest from each address."""
    return Counter(post(http, "/api/me/guest", {}, address).status_code for address in addresses)


def test_the_key_of_an_address() -> None:
    """IPv4 by address, IPv4-mapped IPv6 as its IPv4 address, IPv6 by its /64 (or the prefix given)."""
    assert client_key("203.0.113.9", {}, []) == "addr:203.0.113.9"
    assert client_key("::ffff:203.0.113.9", {}, []) == "addr:203.0.113.9"
    assert client_key(home(1), {}, []) == client_key(home(40), {}, []) == "addr:2001:db8:1:2::/64"
    assert client_key(home(1, "2001:db8:1:3"), {}, []) == "addr:2001:db8:1:3::/64"
    assert client_key(home(1, "2001:db8:1:2ff"), {}, [], 56) == "addr:2001:db8:1:200::/56"
    forwarded = {"x-forwarded-for": f"6.6.6.6, {home(5)}"}
    assert client_key("10.0.0.1", forwarded, ["10.0.0.0/24"]) == "addr:2001:db8:1:2::/64"


def test_forty_addresses_of_one_64_are_one_client(serve: Any) -> None:
    """Guests, seats of one public table, tables and tutorials: 40 addresses of a /64 count as one client, another
    /64 and an IPv4 address are others (served meanwhile)."""
    server = serve()
    addresses = [home(n) for n in range(1, 41)]
    with httpx.Client(base_url=server.http, timeout=30) as http:
        assert guests(http, addresses) == {201: 30, 429: 10}  # before: 40 guests
        assert guests(http, [home(1, "2001:db8:1:3"), "::ffff:198.51.100.7"]) == {201: 2}

        spec = {"players": 3, "public": True, "seats": [{"kind": "human"}] * 3}
        table_id = http.post("/api/tables", json=spec, headers=at("198.51.100.7")).json()["table"]["id"]
        joined = [
            post(http, f"/api/tables/{table_id}/seats/{seat}/join", {}, home(60 + seat, SEATS)) for seat in range(3)
        ]
        assert [j.status_code for j in joined] == [200, 409, 409]  # before: 3 seats
        assert {j.json()["code"] for j in joined[1:]} == {"one_seat_per_address"}
        victim = post(http, f"/api/tables/{table_id}/seats/1/join", {}, home(1, "2001:db8:9:9"))
        assert victim.status_code == 200, victim.text

        private = {"players": 3, "public": False, "seats": [{"kind": "human"}] * 3}
        made = [post(http, "/api/tables", private, home(n)).status_code for n in range(1, 16)]
        assert Counter(made) == {201: 10, 429: 5}  # before: 15 tables
        other = post(http, "/api/tables", private, home(1, "2001:db8:1:3"))
        assert other.status_code == 201, other.text


def test_tutorials_of_one_64_are_one_clients(serve: Any) -> None:
    """Each tutorial is a table: 10 a minute from the /64's 40 addresses (before: 120 tutorial tables)."""
    server = serve(LUZ_GUESTS_PER_MINUTE="")
    with httpx.Client(base_url=server.http, timeout=30) as http:
        made = [post(http, "/api/tutorial", {"name": ""}, home(n)).status_code for n in range(1, 41)]
        assert Counter(made) == {201: 10, 429: 30}
        other = post(http, "/api/tutorial", {"name": ""}, "203.0.113.50")
        assert other.status_code == 201, other.text


def test_a_56_setting_groups_a_56(serve: Any) -> None:
    """``LUZ_IPV6_PREFIX=56``: the /64s of one /56 are one client; the next /56 is another."""
    server = serve(LUZ_IPV6_PREFIX="56")
    with httpx.Client(base_url=server.http, timeout=30) as http:
        addresses = [home(1, f"2001:db8:1:2{n:02x}") for n in range(40)]  # 40 /64s of 2001:db8:1:200::/56
        assert guests(http, addresses) == {201: 30, 429: 10}
        assert guests(http, [home(1, "2001:db8:1:300")]) == {201: 1}
