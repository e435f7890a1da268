"""``LUZ_LOG_FORMAT=json``: a real ``luz serve`` writes one JSON object a line, with request and table ids, and never
a seat's token, a session's secret, a metrics token or a card a seat may not see; bad settings are one-line errors.

The server tests are slow (each server start takes seconds): marked ``slow``.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from luz.server.logs import JSON_FIELDS, JsonLines, RedactSecrets, TextLines, WithIds, request_id, table_id
from support.server import LUZ, Message, ServerProcess, Truth, WirePeer, guest, open_store, play_wire, seats

METRICS_TOKEN = "metrics-token-of-the-json-logs-test"
REQUEST_ID = "ops-test-request-1"


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of ``text`` as a JSON object (a line that is not one fails the test)."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    for line in lines:
        assert isinstance(line, dict), line
        assert set(line) <= set(JSON_FIELDS), line
        assert {"time", "level", "logger", "message"} <= set(line), line
    return lines


def log_with_secrets(formatter: logging.Formatter) -> str:
    """What ``formatter`` writes of a line and a traceback that hold secrets, in a request about table ``t-1``."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    handler.addFilter(RedactSecrets())
    handler.addFilter(WithIds())
    logger = logging.getLogger("luz.test.jsonlogs")
    logger.addHandler(handler)
    logger.propagate = False
    marks = request_id.set("r-1"), table_id.set("t-1")
    try:
        logger.warning('%s - "GET /ws/tables/t-1?token=%s&me=0"', "127.0.0.1", "s3cret-seat", extra={"colour": 1})
        try:
            raise ValueError("bad link /api/email/unsubscribe?token=s3cret-mail")
        except ValueError:
            logger.exception("failed")
    finally:
        request_id.reset(marks[0])
        table_id.reset(marks[1])
        logger.removeHandler(handler)
    return stream.getvalue()


def test_a_json_line_keeps_its_ids_and_loses_its_secrets() -> None:
    written = log_with_secrets(JsonLines())
    first, second = json_lines(written)
    assert first["message"] == '127.0.0.1 - "GET /ws/tables/t-1?token=REDACTED&me=0"'
    assert (first["level"], first["logger"], first["request_id"], first["table_id"]) == (
        "WARNING",
        "luz.test.jsonlogs",
        "r-1",
        "t-1",
    )
    assert "colour" not in first  # a record's extra attributes are not written
    assert "ValueError" in second["exc_info"] and "token=REDACTED" in second["exc_info"]
    assert "s3cret" not in written


def test_a_text_line_loses_its_secrets() -> None:
    written = log_with_secrets(TextLines())
    assert '127.0.0.1 - "GET /ws/tables/t-1?token=REDACTED&me=0"' in written
    assert "token=REDACTED" in written.split("failed", 1)[1]  # the traceback's
    assert "s3cret" not in written


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"LUZ_LOG_FORMAT": "xml"}, "LUZ_LOG_FORMAT is 'xml': it must be text or json"),
        ({"LUZ_METRICS_TOKEN": "short"}, "LUZ_METRICS_TOKEN is too short"),
    ],
)
def test_a_bad_setting_is_a_one_line_error(env: dict[str, str], said: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(LUZ), "serve", "--database-url", f"sqlite:///{tmp_path}/luz.sqlite3", "--port", "1"],
        env={**{k: v for k, v in os.environ.items() if not k.startswith("LUZ_")}, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_json_logs_hold_ids_and_no_secret(tmp_path: Path) -> None:
    env = {"LUZ_LOG_FORMAT": "json", "LUZ_METRICS_TOKEN": METRICS_TOKEN}
    server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log", env=env).start()
    store = open_store(server.database_url)
    secrets: set[str] = {METRICS_TOKEN}
    hidden: set[str] = set()
    try:
        with httpx.Client(base_url=server.http, timeout=10) as http:
            created = http.post(
                "/api/tables",
                json={"players": 3, "seats": seats("human", "random", "heuristic")},
                headers={"X-Request-ID": REQUEST_ID},
            )
            assert created.status_code == 201, created.text
            assert created.headers["x-request-id"] == REQUEST_ID
            table = created.json()["table"]["id"]
            token = created.json()["invites"][0]["token"]
            session = guest(http)
            secrets |= {token, session["X-Luz-Session"]}
            joined = http.post(
                f"/api/tables/{table}/seats/0/join", json={"name": "p0", "token": token}, headers=session
            )
            assert joined.status_code == 200, joined.text
            # Secrets where a careless log would take them: a query string, a cookie, headers.
            http.get(f"/api/tables/{table}?token={token}", headers={"Authorization": f"Bearer {token}"})
            http.get("/api/me", headers={"Cookie": f"luz_session={session['X-Luz-Session']}"})
            http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
            insane = http.get("/healthz", headers={"X-Request-ID": "x" * 65})
            assert re.fullmatch(r"[0-9a-f]{32}", insane.headers["x-request-id"])
        asyncio.run(play_a_game(server, table, token, Truth(store), hidden))
    finally:
        server.stop()  # its last lines written
        store.engine.dispose()
    text = server.log()
    lines = json_lines(text)
    assert any(line["request_id"] == REQUEST_ID and line["logger"] == "uvicorn.access" for line in lines)
    assert any(line["table_id"] == table and line["logger"] == "uvicorn.error" for line in lines)  # its WebSocket
    assert any(line["table_id"] == table and line["logger"] == "uvicorn.access" for line in lines)  # its requests
    assert any("token=REDACTED" in line["message"] for line in lines)
    for secret in secrets:
        assert secret not in text
    assert hidden  # the check below is not vacuous
    names = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(sorted(hidden)) + r")(?![A-Za-z0-9])")
    assert not names.search(text), names.search(text)


async def play_a_game(server: ServerProcess, table: str, token: str, truth: Truth, hidden: set[str]) -> None:
    """Play seat 0 to the game's end, gathering every card name it may not see at some point."""

    async def gather(peer: WirePeer, reply: Message) -> bool:
        hidden.update(peer.check.hidden)
        return False

    async with WirePeer(server.ws, table, token, 0, truth) as peer:
        await play_wire([peer], after_ack=gather)
