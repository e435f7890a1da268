"""Helpers of the server tests: test databases, WebSocket peers that check every message they receive, game
drivers, and real ``luz serve`` processes.

Every message a peer receives goes through :class:`Checker`, which knows the real cards (replayed from the
database: seed and actions) and asserts that nothing the receiver may not see is in it, that versions never go
back, and that replies are well formed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import httpx
import psycopg
from sqlalchemy import Engine

from luz.engine import Deal, Edition, Game, action_from_json, get_edition, parse_action
from luz.server import app_services
from luz.server.db import make_engine
from luz.server.store import Store

POSTGRES_URL = os.environ.get("LUZ_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("LUZ_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
LUZ = Path(sys.executable).with_name("luz")

ERROR_CODES = {
    "too_large",
    "rate_limited",
    "malformed",
    "spectator",
    "no_game",
    "stale",
    "not_your_turn",
    "not_now",
    "your_turn",
    "turn_based",
    "illegal",
    "busy",
    "second_seat",
    "too_long",
    "no_offer",
    "answered",
    "not_seated",
    "tournament",
}
LIVE = ("bid", "play")

Message = dict[str, Any]


# -- databases -------------------------------------------------------------------------------------------------


@functools.cache
def postgres_problem() -> str | None:
    """Why PostgreSQL cannot be used for the tests (``None``: it can)."""
    try:
        with psycopg.connect(POSTGRES_URL, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
    except Exception as error:
        return f"PostgreSQL unreachable at {POSTGRES_URL} ({type(error).__name__})"
    return None


@functools.cache
def redis_problem() -> str | None:
    try:
        import redis

        redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as error:
        return f"Redis unreachable at {REDIS_URL} ({type(error).__name__})"
    return None


@contextlib.contextmanager
def postgres_schema() -> Iterator[str]:
    """A database URL whose tables live in a fresh PostgreSQL schema, dropped afterwards."""
    name = "luz_test_" + secrets.token_hex(6)
    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {name}")
    separator = "&" if "?" in POSTGRES_URL else "?"
    try:
        yield f"{POSTGRES_URL}{separator}options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
            connection.execute("SET lock_timeout = '20s'")
            connection.execute(f"DROP SCHEMA {name} CASCADE")


@contextlib.contextmanager
def backend_urls(backend: str, tmp_path: Path) -> Iterator[str]:
    """An empty database of ``backend`` (``sqlite`` or ``postgresql``); skips the test when PostgreSQL is out of
    reach."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path}/luz.sqlite3"
        return
    import pytest

    problem = postgres_problem()
    if problem:
        pytest.skip(problem)
    with postgres_schema() as url:
        yield url


def migrate_to(engine: Engine, revision: str) -> None:
    """Bring the database to an earlier schema ``revision`` (as a server of that time left it), to test what the
    later migrations do to its rows."""
    from alembic import command
    from alembic.config import Config

    from luz.server.db import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def open_store(database_url: str) -> Store:
    """A store of its own on a server's database (to look at what is really stored)."""
    return Store(make_engine(database_url))


# -- what is really dealt ----------------------------------------------------------------------------------------


def strings_in(data: Any) -> set[str]:
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings_in(v) for v in data.values()), *(strings_in(k) for k in data))
    if isinstance(data, list | tuple):
        return set().union(*(strings_in(v) for v in data))
    return set()


class Truth:
    """The real cards of a table's games, rebuilt through the rules from the stored seed and actions."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._games: dict[tuple[str, int], Game] = {}

    def deal(self, table_id: str, game_no: int, deal_number: int, seen: Message) -> tuple[Deal, Edition]:
        key = (table_id, game_no)
        game = self._games.get(key)
        if game is None or len(game.deals) < deal_number:
            stored = self.store.record_of(table_id, game_no)
            assert stored is not None, f"game {game_no} of table {table_id} is not stored"
            seed, actions = stored
            edition = get_edition(seen["edition"])
            players = seen["players"]
            game = Game(edition, players, edition.options(players, **seen["options"]), seed=seed)
            for text in actions:
                game.apply(parse_action(text))
            self._games[key] = game
        assert len(game.deals) >= deal_number, "a view of a deal the database does not have"
        return game.deals[deal_number - 1], game.edition


class Checker:
    """Checks every message one connection receives (``seat=None``: a spectator)."""

    def __init__(self, seat: int | None, truth: Truth | None, table_id: str) -> None:
        self.seat = seat
        self.truth = truth
        self.table_id = table_id
        self.raw: list[str] = []
        self.messages: list[Message] = []
        self.states: list[Message] = []
        self.hidden: set[str] = set()
        """Card names the receiver may not see at the latest state (own unplayed cards and the aside)."""
        self.checked_hidden = 0

    def feed(self, raw: str) -> Message:
        assert "Traceback" not in raw and 'File "' not in raw, raw[:500]
        message = json.loads(raw)
        assert isinstance(message, dict), raw[:200]
        kind = message.get("type")
        if kind == "state":
            self._state(message)
        elif kind == "error":
            assert message["code"] in ERROR_CODES, message
            assert isinstance(message["message"], str) and message["message"], message
            assert set(message) == {"type", "id", "code", "message"}, message
            self._no_hidden(message)
        elif kind == "ack":
            # A spectator is acknowledged its chat messages only (it cannot act).
            # The seat's own view of the change is sent before the acknowledgement.
            assert self.states and message["version"] <= self.states[-1]["version"], message
            self._no_hidden(message)
        elif kind == "pong":
            assert set(message) == {"type", "id"}, message
        elif kind == "notes":
            # A seat's own notes on its cards (docs/PROTOCOL.md): to that seat only, never to a spectator.
            assert self.seat is not None, "a spectator was sent notes"
            assert set(message) == {"type", "game_no", "deal", "notes"}, message
            self._no_hidden(message)
        elif kind == "premove":
            # A seat's own next card, chosen before its turn (docs/PROTOCOL.md): to that seat only.
            assert self.seat is not None, "a spectator was sent a premove"
            assert set(message) == {"type", "game_no", "deal", "slot", "cancelled"}, message
            self._no_hidden(message)
        elif kind == "chat":
            # Table chat (docs/PROTOCOL.md): a seat never receives the spectators' channel; the server writes
            # nothing in it but the people's own words.
            assert set(message) == {"type", "history", "messages"} and message["messages"], message
            for said in message["messages"]:
                assert said["channel"] in ("players", "spectators"), said
                assert self.seat is None or said["channel"] == "players", f"spectators' chat sent to seat {self.seat}"
            self._no_hidden(message)
        elif kind == "timeout":
            # A move the timeout bot played for a seat whose time ran out (docs/PROTOCOL.md, "Clocks").
            # At a turn-based table it also says how many in a row, and whether the seat has passed to a bot.
            assert set(message) in ({"type", "seat", "version"}, {"type", "seat", "version", "timeouts", "replaced"})
            assert self.states and message["version"] <= self.states[-1]["version"], "a timeout before its state"
            self._no_hidden(message)
        elif kind == "replay":
            assert self.seat is None, "only spectators are sent the replay"
            assert self.states and self.states[-1]["view"]["phase"] == "game_over", "a replay before the game is over"
        else:
            raise AssertionError(f"unknown message type {kind!r}")
        self.raw.append(raw)
        self.messages.append(message)
        return message

    def _no_hidden(self, message: Message) -> None:
        leaked = strings_in(message) & self.hidden
        assert not leaked, f"hidden cards {sorted(leaked)} sent to seat {self.seat}: {message}"

    def _state(self, message: Message) -> None:
        assert message["seat"] == self.seat, f"seat {self.seat}'s connection was sent seat {message['seat']}'s view"
        assert message["table"]["id"] == self.table_id
        text = json.dumps(message["table"])
        assert "token" not in text and "seed" not in text, "secrets in the table summary"
        if self.states:
            previous = self.states[-1]
            assert message["version"] >= previous["version"], "the version went back"
            if message["version"] == previous["version"]:
                assert message["view"] == previous["view"], "the same version with another game state"
        seen = message["view"]
        self.states.append(message)
        if seen is None:
            assert message["table"]["status"] in ("waiting", "expired")  # no game yet, or never
            return
        assert seen["seat"] == self.seat
        if seen["current_player"] != self.seat or self.seat is None:
            assert seen["legal_actions"] == []
        if seen["phase"] == "deal" or self.truth is None:
            return
        deal, edition = self.truth.deal(self.table_id, message["table"]["game_no"], seen["deal_number"], seen)
        hidden = {edition.card_name(c) for c in deal.aside}
        for holder, hand in enumerate(seen["hands"]):
            for slot, shown in enumerate(hand):
                card = deal.hands[holder][slot]
                assert shown["colour"] == edition.colours[card.colour].letter, "the truth does not match the game"
                if shown["played"] or (self.seat is not None and holder != self.seat):
                    # What the receiver may see is shown as it really is (so the check below is not vacuous).
                    assert shown["card"] == edition.card_name(card), (holder, slot, shown)
                else:
                    hidden_value = shown["value"], shown["card"], shown["rank"]
                    assert hidden_value == (None, None, None), f"hidden value shown: {holder}/{slot}"
                    hidden.add(edition.card_name(card))
        self.hidden = hidden
        closing = seen.get("closing_trick")
        if closing is not None:
            # The previous deal's last trick: its cards are those really played then (names of another deal's
            # cards, so left out of the check below, which is about this deal).
            before, _ = self.truth.deal(self.table_id, message["table"]["game_no"], seen["deal_number"] - 1, seen)
            for play in closing["plays"]:
                assert play["card"] == edition.card_name(before.hands[play["seat"]][play["slot"]]), closing
        self._no_hidden({**message, "view": {**seen, "closing_trick": None}})
        self.checked_hidden += 1


def is_reply(message: Message, number: int) -> bool:
    """The reply to the message with id ``number`` (a refusal before the message is read has no id)."""
    if message["type"] == "error" and message["id"] is None:
        return True
    return message.get("id") == number and message["type"] in ("ack", "error", "pong")


def state_version(message: Message) -> int:
    return int(message["version"])


def is_over(state: Message) -> bool:
    return state["view"] is not None and state["view"]["phase"] == "game_over"


def first_legal(seen: Message) -> dict[str, Any]:
    return dict(seen["legal_actions"][0])


def action_text(action: dict[str, Any]) -> str:
    return str(action_from_json(action))


# -- in-process WebSocket peers (starlette TestClient) -------------------------------------------------------------


class Closed(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"closed with code {code}")
        self.code = code


async def _receive(stream: Any, timeout: float) -> Any:
    with anyio.fail_after(timeout):
        return await stream.receive()


def _drain(stream: Any) -> list[Any]:
    out = []
    while True:
        try:
            out.append(stream.receive_nowait())
        except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
            return out


class Peer:
    """One WebSocket connection to the app of a ``TestClient``; checks everything it receives.

    Receiving with a timeout and without blocking reaches into the test session's stream (starlette offers
    only a blocking receive).
    """

    def __init__(
        self,
        client: Any,
        table_id: str,
        token: str | None,
        seat: int | None,
        truth: Truth | None,
        query: str = "",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.client = client
        self.seat = seat
        self.ids = itertools.count(1)
        self.table_id = table_id
        url = f"/ws/tables/{table_id}"
        params = [f"token={token}"] if token is not None else []
        if query:
            params.append(query)
        if params:
            url += "?" + "&".join(params)
        self.url = url
        self.check = Checker(seat, truth, table_id)
        self.acks: list[tuple[int, str]] = []
        self.headers = headers
        """Sent with the handshake (an identity: ``X-Luz-Session``)."""
        self._stack = contextlib.ExitStack()
        self.ws: Any = None

    def __enter__(self) -> Peer:
        # A peer is a client of its own: without the cookies (identities) the test client picked up elsewhere.
        cookies = getattr(self.client, "cookies", None)
        kept = list(cookies.jar) if cookies is not None else []
        if cookies is not None:
            cookies.clear()
        try:
            connecting = self.client.websocket_connect(self.url, headers=dict(self.headers or {}))
            self.ws = self._stack.enter_context(connecting)
        finally:
            for cookie in kept:
                cookies.jar.set_cookie(cookie)
        self.receive()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _server_side(self) -> int:
        runtime = app_services(self.client.app).tables.live.get(self.table_id)
        if runtime is None:
            return 0
        return len(runtime.spectators if self.seat is None else runtime.seats.get(self.seat, ()))

    def close(self) -> None:
        """Disconnect as a browser would, and let the server see it before the test session ends.

        (The test session cancels the app's task right after its disconnect message: without the wait, the
        server's own clean-up, e.g. telling the others that the seat left, would be cut short.)
        """
        if self.ws is None:
            return
        before = self._server_side()
        with contextlib.suppress(Exception):
            self.ws.send({"type": "websocket.disconnect", "code": 1000})
            deadline = time.monotonic() + 5
            while self._server_side() >= before > 0 and time.monotonic() < deadline:
                time.sleep(0.002)
            time.sleep(0.02)
        self.ws = None
        self._stack.close()

    def _take(self, frame: Message) -> Message:
        if frame["type"] == "websocket.close":
            raise Closed(frame.get("code", 1000))
        assert frame["type"] == "websocket.send", frame
        return self.check.feed(frame["text"])

    def receive(self, timeout: float = 10.0) -> Message:
        return self._take(self.ws.portal.call(_receive, self.ws._send_rx, timeout))

    def pump(self) -> list[Message]:
        """Whatever has arrived, without waiting."""
        return [self._take(frame) for frame in self.ws.portal.call(_drain, self.ws._send_rx)]

    def send(self, message: Any) -> None:
        self.ws.send_text(message if isinstance(message, str) else json.dumps(message))

    def send_bytes(self, data: bytes) -> None:
        self.ws.send_bytes(data)

    def wait(self, predicate: Callable[[Message], bool], timeout: float = 10.0) -> Message:
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(0.01, deadline - time.monotonic()))
            if predicate(message):
                return message

    def request(self, message: dict[str, Any], timeout: float = 10.0) -> Message:
        """Send a message with a fresh id and return its reply (messages in between are kept and checked)."""
        number = next(self.ids)
        self.send({**message, "id": number})
        return self.wait(lambda m: is_reply(m, number), timeout)

    def act(self, action: dict[str, Any], version: int | None = None) -> Message:
        message: dict[str, Any] = {"type": "action", "action": action}
        if version is not None:
            message["version"] = version
        reply = self.request(message)
        if reply["type"] == "ack":
            self.acks.append((reply["version"], action_text(action)))
        return reply

    def sync(self) -> Message:
        self.send({"type": "sync"})
        return self.wait(lambda m: m["type"] == "state")

    @property
    def state(self) -> Message:
        return self.check.states[-1]

    @property
    def view(self) -> Message:
        return self.check.states[-1]["view"]

    def wait_state(self, predicate: Callable[[Message], bool], timeout: float = 10.0) -> Message:
        if self.check.states and predicate(self.state):
            return self.state
        return self.wait(lambda m: m["type"] == "state" and predicate(m), timeout)


def my_turn(peer: Peer | WirePeer, newest: int) -> bool:
    state = peer.state
    seen = state["view"]
    return (
        seen is not None
        and seen["phase"] in LIVE
        and seen["current_player"] == peer.seat
        and state["version"] == newest
        and not state["table"]["seats"][peer.seat]["bot_playing"]
        and not state["table"]["seats"][peer.seat].get("forced")
    )


def next_turn(peers: Sequence[Any], until: Callable[[Message], bool], deadline: float) -> tuple[Message | None, Any]:
    """Take in what every peer received: (the newest state if it satisfies ``until``; the peer to move, if any)."""
    for peer in peers:
        peer.pump()
    newest = max((peer.state for peer in peers), key=state_version)
    if until(newest):
        return newest, None
    mover = next((peer for peer in peers if my_turn(peer, newest["version"])), None)
    if mover is None:
        assert time.monotonic() < deadline, f"the game did not move: {json.dumps(newest)[:400]}"
    return None, mover


def play(
    peers: list[Peer],
    until: Callable[[Message], bool] = is_over,
    choose: Callable[[Peer, Message], dict[str, Any]] | None = None,
    timeout: float = 60.0,
    after_ack: Callable[[Peer, Message, dict[str, Any]], None] | None = None,
) -> Message:
    """Play the peers' seats (bots play theirs) until the newest state satisfies ``until``; returns that state."""
    deadline = time.monotonic() + timeout
    while True:
        done, mover = next_turn(peers, until, deadline)
        if done is not None:
            return done
        if mover is None:
            time.sleep(0.002)
            continue
        action = choose(mover, mover.view) if choose else first_legal(mover.view)
        reply = mover.act(action, version=mover.state["version"])
        assert reply["type"] == "ack", reply
        if after_ack is not None:
            after_ack(mover, reply, action)


# -- tables over REST ----------------------------------------------------------------------------------------------


def create_table(http: Any, **spec: Any) -> tuple[str, dict[int, str], Message]:
    """Create a table (``http``: a TestClient or an httpx client); returns its id, the invite tokens, the answer."""
    response = http.post("/api/tables", json=spec)
    assert response.status_code == 201, response.text
    answer = response.json()
    return answer["table"]["id"], {i["seat"]: i["token"] for i in answer["invites"]}, answer


def guest(http: Any) -> dict[str, str]:
    """The header of a new guest identity (one seat per identity at a table: each player needs one)."""
    response = http.post("/api/me/guest")
    assert response.status_code == 201, response.text
    return {"X-Luz-Session": response.json()["session"]}


def from_address(http: Any, host: str) -> Any:
    """A browser of ``http``'s app (a TestClient, entered) at another client address, with cookies of its own and
    ``http``'s event loop (the tasks its requests start, a bot's move, go on after them)."""
    from fastapi.testclient import TestClient

    browser = TestClient(http.app, client=(host, 50000))
    browser.portal = http.portal
    return browser


def create_joined(http: Any, **spec: Any) -> tuple[str, dict[int, str]]:
    """A table created from ``spec`` and every human seat joined, each by a guest of its own; its id and tokens."""
    answer = http.post("/api/tables", json=spec)
    assert answer.status_code == 201, answer.text
    table_id: str = answer.json()["table"]["id"]
    tokens = {invite["seat"]: invite["token"] for invite in answer.json()["invites"]}
    join_all(http, table_id, tokens)
    return table_id, tokens


def join_all(http: Any, table_id: str, tokens: dict[int, str]) -> Message:
    """Every seat of ``tokens`` joined, each by a guest of its own."""
    table: Message = {}
    for seat, token in tokens.items():
        response = http.post(
            f"/api/tables/{table_id}/seats/{seat}/join",
            json={"name": f"player {seat}", "token": token},
            headers=guest(http),
        )
        assert response.status_code == 200, response.text
        assert response.json()["token"] == token
        table = response.json()["table"]
    return table


def seats(*kinds: str) -> list[dict[str, Any]]:
    """Seat specs: ``"human"`` or a bot name for each seat."""
    return [{"kind": "human"} if k == "human" else {"kind": "bot", "bot": k} for k in kinds]


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, step: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(step)


def assert_stored(store: Store, table_id: str, version: int, action: str) -> None:
    """An acknowledged action is in the database, at the place its version says (no join or leave since start).

    The table's version and its number of actions are read in one statement (one snapshot): the table's version
    minus its actions is the version the game started at.
    """
    from sqlalchemy import text

    with store.engine.connect() as connection:
        stored_version, count, game_no = connection.execute(
            text(
                "SELECT t.version, (SELECT count(*) FROM actions a WHERE a.table_id = t.id AND a.game_no = t.game_no),"
                " t.game_no FROM tables t WHERE t.id = :id"
            ),
            {"id": table_id},
        ).one()
        assert stored_version >= version, f"acknowledged version {version}, stored {stored_version}"
        seq = version - (stored_version - count)
        stored = connection.execute(
            text("SELECT action FROM actions WHERE table_id = :id AND game_no = :game AND seq = :seq"),
            {"id": table_id, "game": game_no, "seq": seq},
        ).scalar_one_or_none()
    assert stored == action, (version, seq, action, stored)


def action_log(store: Store, table_id: str) -> list[tuple[int, int, int, str]]:
    """Every stored action of a table as (game, seq, seat, action)."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from luz.server.db import ActionRow

    with Session(store.engine) as session:
        rows = session.execute(
            select(ActionRow.game_no, ActionRow.seq, ActionRow.seat, ActionRow.action)
            .where(ActionRow.table_id == table_id)
            .order_by(ActionRow.game_no, ActionRow.seq)
        ).all()
    return [tuple(row) for row in rows]  # type: ignore[misc]


def assert_log_has_no_gap(log: list[tuple[int, int, int, str]]) -> None:
    for game in {row[0] for row in log}:
        seqs = [row[1] for row in log if row[0] == game]
        assert seqs == list(range(1, len(seqs) + 1)), f"game {game}: sequence {seqs}"


# -- real server processes -----------------------------------------------------------------------------------------


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux ``/proc``): a server's bot processes."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``luz serve`` in a process of its own, its output in ``log_path``."""

    def __init__(
        self,
        database_url: str,
        log_path: Path,
        bot_workers: int = 0,
        port: int | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.database_url = database_url
        self.env = env or {}
        self.log_path = log_path
        self.bot_workers = bot_workers
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120.0) -> ServerProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LUZ_")}
        env["PYTHONUNBUFFERED"] = "1"
        env["LUZ_BOT_PACE"] = "0"  # bots move at once (their pacing is tested in-process)
        # Tests create tables and open connections freely (the limits are tested on their own, tests/abuse).
        env["LUZ_TABLES_PER_MINUTE"] = ""
        env["LUZ_GUESTS_PER_MINUTE"] = ""
        env["LUZ_BOT_TABLES_PER_CLIENT"] = "1000000"
        env["LUZ_CONNECTIONS_PER_SECOND"] = "100000/second"
        env["LUZ_SEAT_CONNECTIONS_PER_MINUTE"] = ""
        # Every test client comes from 127.0.0.1: the policies per address are on only where a test says so.
        env["LUZ_SEATS_PER_ADDRESS"] = "0"
        env["LUZ_WAITING_TABLES_PER_CLIENT"] = "1000000"
        env["LUZ_RATED_MIN_ACCOUNT_HOURS"] = "0"
        env["LUZ_RATED_MIN_GAMES"] = "0"
        env["LUZ_ACCOUNTS_PER_ADDRESS"] = ""
        env["LUZ_CHAT_PER_ADDRESS"] = ""
        env["LUZ_RENAMES_PER_WEEK"] = "1000"
        env.update(self.env)
        command = [str(LUZ), "serve", "--port", str(self.port), "--database-url", self.database_url]
        command += ["--bot-workers", str(self.bot_workers)]
        with self.log_path.open("ab") as log:
            # A session (process group) of its own: the bot processes it forks go with it.
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while True:
            assert self.process.poll() is None, f"the server exited: {self.log_path.read_text()[-2000:]}"
            try:
                if httpx.get(f"{self.http}/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def kill9(self) -> None:
        """``kill -9`` the server, then whatever is left of its process group (its bot processes)."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self._kill_group()

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        self._kill_group()

    def _kill_group(self) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # the group this process leads (start_new_session)
        self.process = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


class WirePeer:
    """A real WebSocket client (the ``websockets`` library) of a server process; checks everything it receives."""

    def __init__(self, base: str, table_id: str, token: str | None, seat: int | None, truth: Truth | None) -> None:
        self.url = f"{base}/ws/tables/{table_id}" + (f"?token={token}" if token else "")
        self.seat = seat
        self.ids = itertools.count(1)
        self.check = Checker(seat, truth, table_id)
        self.acks: list[tuple[int, str]] = []
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self.ws: Any = None
        self.closed: Exception | None = None

    async def __aenter__(self) -> WirePeer:
        from websockets.asyncio.client import connect

        self.ws = await connect(self.url, max_size=2**22, open_timeout=10)
        self._reader = asyncio.create_task(self._read())
        await self.wait(lambda m: m["type"] == "state")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                assert isinstance(raw, str), "a binary frame from the server"
                self._inbox.put_nowait(self.check.feed(raw))
        except Exception as error:  # a closed connection (or a failed check) ends the reader; waiters see it
            self.closed = error
            self._inbox.put_nowait({"type": "_closed"})

    async def wait(self, predicate: Callable[[Message], bool], timeout: float = 10.0) -> Message:
        async with asyncio.timeout(timeout):
            while True:
                message = await self._inbox.get()
                if message["type"] == "_closed":
                    raise AssertionError(f"connection ended: {self.closed!r}")
                if predicate(message):
                    return message

    def pump(self) -> None:
        while not self._inbox.empty():
            message = self._inbox.get_nowait()
            if message["type"] == "_closed":
                raise AssertionError(f"connection ended: {self.closed!r}")

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> Message:
        number = next(self.ids)
        await self.ws.send(json.dumps({**message, "id": number}))
        return await self.wait(lambda m: is_reply(m, number), timeout)

    async def act(self, action: dict[str, Any], version: int | None = None) -> Message:
        message: dict[str, Any] = {"type": "action", "action": action}
        if version is not None:
            message["version"] = version
        reply = await self.request(message)
        if reply["type"] == "ack":
            self.acks.append((reply["version"], action_text(action)))
        return reply

    @property
    def state(self) -> Message:
        return self.check.states[-1]

    @property
    def view(self) -> Message:
        return self.check.states[-1]["view"]


async def play_wire(
    peers: list[WirePeer],
    until: Callable[[Message], bool] = is_over,
    timeout: float = 60.0,
    after_ack: Callable[[WirePeer, Message], Any] | None = None,
) -> Message:
    """:func:`play` over real connections."""
    deadline = time.monotonic() + timeout
    while True:
        done, mover = next_turn(peers, until, deadline)
        if done is not None:
            return done
        if mover is None:
            await asyncio.sleep(0.005)
            continue
        action = first_legal(mover.view)
        reply = await mover.act(action, version=mover.state["version"])
        while reply["type"] == "error" and reply["code"] == "rate_limited":  # faster than 20 moves a second:
            await asyncio.sleep(0.1)  # slow down and send it again (the refused move was not applied)
            reply = await mover.act(action, version=mover.state["version"])
        assert reply["type"] == "ack", reply
        if after_ack is not None and await after_ack(mover, reply):
            return mover.state
