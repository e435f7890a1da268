"""An attacker hammering a username from another address, against a real ``luz serve``: the owner's browser that
logged in before still logs in; everyone else, the attacker with a device cookie of its own account included,
meets the limits per username and per address (guessing stays slow)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from luz.bench.attacks import attacker_http
from luz.server.identity import DEVICE_COOKIE, LOGIN_ATTEMPTS_PER_MINUTE
from support.server import ServerProcess

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log").start()
    try:
        yield process
    finally:
        process.stop()
    assert "Traceback" not in process.log(), process.log()[-3000:]


def credentials(username: str, password: str = PASSWORD) -> dict[str, str]:
    return {"username": username, "password": password}


async def attack(http_url: str, victim: str, attempts: int) -> tuple[Counter[int], int]:
    """From the attacker's address: an account of its own signed in (a device cookie for it), then ``attempts``
    wrong passwords for ``victim`` all at once; the statuses, and that of one attempt at another username."""
    async with attacker_http(http_url) as http:
        await http.get("/api/me")
        assert (await http.post("/api/account/register", json=credentials("mallory"))).status_code == 201
        await http.post("/api/account/logout")
        assert (await http.post("/api/account/login", json=credentials("mallory"))).status_code == 200
        assert DEVICE_COOKIE in http.cookies
        guesses = [http.post("/api/account/login", json=credentials(victim, f"guess {n:04d}")) for n in range(attempts)]
        statuses = Counter(answer.status_code for answer in await asyncio.gather(*guesses))
        elsewhere = await http.post("/api/account/login", json=credentials("someone-else", "guess 0000"))
        return statuses, elsewhere.status_code


def test_an_attacker_does_not_lock_out_the_owners_browser(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.http, timeout=30) as owner:
        owner.get("/api/me")
        assert owner.post("/api/account/register", json=credentials("olive")).status_code == 201
        owner.post("/api/account/logout")
        assert owner.post("/api/account/login", json=credentials("olive")).status_code == 200
        owner.post("/api/account/logout")  # the device cookie stays

        statuses, elsewhere = asyncio.run(attack(server.http, "olive", 40))
        # The attacker's device cookie is for its own account: its guesses at olive's password count per username
        # and per address, 10 a minute, however many it sends at once; and its address is spent for any username.
        assert statuses == {401: LOGIN_ATTEMPTS_PER_MINUTE, 429: 40 - LOGIN_ATTEMPTS_PER_MINUTE}, statuses
        assert elsewhere == 429

        # Before the fix the owner, with the right password, got 429 here.
        signed_in = owner.post("/api/account/login", json=credentials("olive"))
        assert signed_in.status_code == 200 and signed_in.json()["username"] == "olive"
        assert owner.get("/api/me").json()["username"] == "olive"

    # A browser that never logged in to olive, on the owner's address: held by the username's limit.
    with httpx.Client(base_url=server.http, timeout=30) as stranger:
        refused = stranger.post("/api/account/login", json=credentials("olive"))
        assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
