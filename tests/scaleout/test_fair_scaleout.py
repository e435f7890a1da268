"""Fair play across two ``luz serve`` processes (PostgreSQL, Redis): one seat per client address whichever process
takes it, the accounts-per-address limit shared through Redis, and a rated game left in its first deal told
unrated on the other process. Clients are told apart by ``X-Forwarded-For`` (the loopback is a trusted proxy)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from luz.bench.server import ServerProcess
from support.scaleout import two_servers

POLICY = {
    "LUZ_SEATS_PER_ADDRESS": "1",
    "LUZ_ACCOUNTS_PER_ADDRESS": "3/day",
    "LUZ_TRUSTED_PROXIES": "127.0.0.1",
}


@pytest.fixture(scope="module")
def fair_servers(
    postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[ServerProcess]]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in POLICY.items():
            patch.setenv(name, value)
        with two_servers(postgres_url, redis_url, tmp_path_factory.mktemp("fair")) as started:
            yield started


def at(address: str, **headers: str) -> dict[str, str]:
    return {"X-Forwarded-For": address, **headers}


def account(http: httpx.Client, server: ServerProcess, username: str, address: str) -> dict[str, str]:
    session = http.post(f"{server.url}/api/me/guest", headers=at(address)).json()["session"]
    registered = http.post(
        f"{server.url}/api/account/register",
        json={"username": username, "password": "correct horse"},
        headers=at(address, **{"X-Luz-Session": session}),
    )
    assert registered.status_code == 201, registered.text
    return at(address, **{"X-Luz-Session": registered.json()["session"]})


def test_one_seat_per_address_whichever_process_takes_it(fair_servers: list[ServerProcess]) -> None:
    one, two = fair_servers
    spec = {"players": 3, "seats": [{"kind": "human"}] * 3}
    with httpx.Client(timeout=30) as http:
        table_id = http.post(f"{one.url}/api/tables", json=spec).json()["table"]["id"]
        for server, seat, address, status in ((one, 0, "203.0.113.9", 200), (two, 1, "203.0.113.9", 409)):
            session = http.post(f"{server.url}/api/me/guest", headers=at(address)).json()["session"]
            joined = http.post(
                f"{server.url}/api/tables/{table_id}/seats/{seat}/join",
                json={"name": f"player {seat}"},
                headers=at(address, **{"X-Luz-Session": session}),
            )
            assert joined.status_code == status, joined.text
        assert joined.json()["code"] == "one_seat_per_address"


def test_new_accounts_per_address_counted_across_processes(fair_servers: list[ServerProcess]) -> None:
    one, two = fair_servers
    address = ".".join(str(random.randrange(1, 255)) for _ in range(4))  # Redis keeps a day's count: a new one
    with httpx.Client(timeout=30) as http:
        for number, server in enumerate((one, two, one)):
            account(http, server, f"shared{number}", address)
        session = http.post(f"{two.url}/api/me/guest", headers=at(address)).json()["session"]
        refused = http.post(
            f"{two.url}/api/account/register",
            json={"username": "shared3", "password": "correct horse"},
            headers=at(address, **{"X-Luz-Session": session}),
        )
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0


def test_a_rated_game_left_in_its_first_deal_is_told_unrated_on_the_other_process(
    fair_servers: list[ServerProcess],
) -> None:
    one, two = fair_servers
    spec = {
        "players": 3,
        "rated": True,
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}],
    }
    with httpx.Client(timeout=30) as http:
        created = http.post(f"{one.url}/api/tables", json=spec).json()
        table_id, tokens = created["table"]["id"], {i["seat"]: i["token"] for i in created["invites"]}
        for server, seat in ((one, 0), (two, 1)):
            address = ".".join(str(random.randrange(1, 255)) for _ in range(4))  # a day's count in Redis: a new one
            headers = account(http, server, f"abort{seat}", address)
            joined = http.post(
                f"{server.url}/api/tables/{table_id}/seats/{seat}/join", json={"token": tokens[seat]}, headers=headers
            )
            assert joined.status_code == 200, joined.text

    async def told() -> dict[str, Any]:
        async with connect(f"{two.ws_url}/ws/tables/{table_id}?token={tokens[0]}") as ws:
            while json.loads(await ws.recv())["type"] != "state":
                pass
            async with httpx.AsyncClient(timeout=30) as http:
                left = await http.post(
                    f"{one.url}/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[1]}"}
                )
                assert left.status_code == 200, left.text
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if message["type"] == "state" and message["table"]["unrated"] is not None:
                    return dict(message["table"]["unrated"])

    assert asyncio.run(told()) == {"reason": "left", "seat": 1}
    with httpx.Client(timeout=30) as http:
        assert http.get(f"{two.url}/api/tables/{table_id}").json()["unrated"] == {"reason": "left", "seat": 1}
