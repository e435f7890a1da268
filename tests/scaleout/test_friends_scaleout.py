"""Friends across two server processes (one PostgreSQL database, Redis): an invitation sent through one process
reaches the invitee's event stream on the other, which then takes the seat without its token; a block made on one
process refuses the seat at a public table on the other."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx

from luz.bench.server import ServerProcess
from support.server import wait_for

PASSWORD = "correct horse battery"


def account(http: httpx.Client, server: ServerProcess, username: str) -> tuple[dict[str, str], str]:
    """A new account's session header and id."""
    guest = {"X-Luz-Session": http.post(f"{server.url}/api/me/guest").json()["session"]}
    made = http.post(
        f"{server.url}/api/account/register", json={"username": username, "password": PASSWORD}, headers=guest
    )
    assert made.status_code == 201, made.text
    return {"X-Luz-Session": made.json()["session"]}, made.json()["id"]


def test_an_invitation_crosses_processes_and_opens_the_seat(servers: list[ServerProcess]) -> None:
    one, two = servers
    suffix = threading.get_ident() % 10_000
    spec = {"players": 3, "public": False, "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]}
    with httpx.Client(timeout=30) as http:
        ana, _ = account(http, one, f"ana{suffix}")
        bo, bo_id = account(http, two, f"bob{suffix}")
        created = http.post(f"{one.url}/api/tables", json=spec).json()
        table_id, token = created["table"]["id"], created["invites"][0]["token"]
        assert http.post(f"{one.url}/api/tables/{table_id}/seats/0/join", json={"token": token}, headers=ana).is_success
        assert http.put(f"{one.url}/api/players/{bo_id}/follow", headers=ana).is_success

        events: list[tuple[str, Any]] = []

        def listen() -> None:
            with httpx.Client(timeout=60) as own, own.stream("GET", f"{two.url}/api/me/events", headers=bo) as stream:
                kind = ""
                for line in stream.iter_lines():
                    if line.startswith("event: "):
                        kind = line.removeprefix("event: ")
                    elif line.startswith("data: "):
                        events.append((kind, json.loads(line.removeprefix("data: "))))
                    if any(k == "invitation" for k, _ in events):
                        return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        wait_for(lambda: events, timeout=30)
        invited = http.post(f"{one.url}/api/tables/{table_id}/seats/1/invite", json={"player": bo_id}, headers=ana)
        assert invited.status_code == 201, invited.text
        wait_for(lambda: any(k == "invitation" for k, _ in events), timeout=30)
        listener.join(30)
        [invitation] = [data for kind, data in events if kind == "invitation"]
        assert invitation["table"] == table_id and invitation["seat"] == 1
        joined = http.post(f"{two.url}/api/tables/{table_id}/seats/1/join", json={}, headers=bo)
        assert joined.status_code == 200, joined.text
        assert joined.json()["table"]["seats"][1]["player"] == bo_id


def test_a_block_on_one_process_refuses_the_seat_on_the_other(servers: list[ServerProcess]) -> None:
    one, two = servers
    spec = {"players": 3, "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]}
    with httpx.Client(timeout=30) as http:
        ana = {"X-Luz-Session": http.post(f"{one.url}/api/me/guest").json()["session"]}
        bo = {"X-Luz-Session": http.post(f"{two.url}/api/me/guest").json()["session"]}
        ana_id = http.get(f"{one.url}/api/me", headers=ana).json()["id"]
        assert http.put(f"{one.url}/api/players/{ana_id}/block", headers=bo).is_success
        table_id = http.post(f"{one.url}/api/tables", json=spec).json()["table"]["id"]
        assert http.post(f"{one.url}/api/tables/{table_id}/seats/0/join", json={}, headers=ana).is_success
        refused = http.post(f"{two.url}/api/tables/{table_id}/seats/1/join", json={}, headers=bo)
        assert refused.status_code == 403 and refused.json()["code"] == "blocked"
