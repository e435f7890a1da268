"""Turn-based tables (docs/PROTOCOL.md, "Turn-based tables"): days per move, timeouts in a row that hand a seat to a
bot, tables that leave memory and come back, deadlines found in the database, the cap of games per identity,
"my games" and its event stream, a seat opened by its identity.

Each test runs on SQLite and PostgreSQL. A day cannot pass in a test: a deadline is made to pass by moving the
stored turn's start back in time (``age``), with the table out of memory, as it would be after days.
"""

from __future__ import annotations

import asyncio
import json
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, text, update
from starlette.websockets import WebSocketDisconnect

from luz.server import Settings, app_services
from luz.server.db import PlayerRow, SeatRow
from luz.server.domain import build_game
from luz.server.timecontrol import DAY_MS
from support.server import (
    Peer,
    ServerProcess,
    Truth,
    action_log,
    backend_urls,
    create_table,
    first_legal,
    guest,
    join_all,
    open_store,
    play,
    redis_problem,
    seats,
    wait_for,
)

HEADER = "X-Luz-Session"


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Tables leave memory as soon as nobody is at them; deadlines are looked for ten times a second; the notifier
    (tests/server/test_push.py, test_mail.py) does not run, so that the turns to tell stay as stored."""
    return Settings(
        database_url=database_url,
        bot_workers=0,
        messages_per_second=10_000,
        idle_table_seconds=0.3,
        deadline_scan_seconds=0.1,
        max_turn_based_games=3,
        notify_seconds=24 * 3600,
    )


def turn_based(http: Any, days: Any = "1d", players: int = 3, **spec: Any) -> tuple[str, dict[int, str]]:
    table_id, tokens, answer = create_table(
        http, players=players, time_control=days, options={"first_player": 0}, **spec
    )
    assert answer["table"]["turn_based"] is True
    return table_id, tokens


def out_of_memory(http: Any, table_id: str) -> None:
    """Wait until the table has left the server's memory (nobody at it, nothing to do)."""
    wait_for(lambda: table_id not in app_services(http.app).tables.live, timeout=60, step=0.05)


def age(engine: Any, table_id: str, ms: int) -> None:
    """Move the stored turn's start ``ms`` back in time, as if that long had passed since."""
    with engine.begin() as connection:
        stored = connection.execute(text("SELECT clock FROM tables WHERE id = :id"), {"id": table_id}).scalar()
        clock = json.loads(stored) if isinstance(stored, str) else stored
        clock["since"] -= ms
        connection.execute(
            text(
                "UPDATE tables SET clock = :clock, deadline = deadline - :ms, notify_at = notify_at - :ms,"
                " remind_at = remind_at - :ms WHERE id = :id"
            ),
            {"clock": json.dumps(clock), "ms": ms, "id": table_id},
        )


def time_out(http: Any, table_id: str, days: int = 1) -> list[tuple[int, int, int, str]]:
    """Let the mover's time run out with the table out of memory; the action log once the timeout is stored."""
    store = app_services(http.app).tables.store
    before = len(action_log(store, table_id))
    out_of_memory(http, table_id)
    age(store.engine, table_id, days * DAY_MS + 1_000)
    return wait_for(lambda: (log := action_log(store, table_id)) and len(log) > before and log, timeout=60, step=0.05)


def without_forced_moves(http: Any, table_id: str) -> None:
    """The table's players turn forced moves off (read when the table is next loaded): a card that is the only
    legal one stays theirs to play, so each deadline is the one action it plays."""
    players = select(SeatRow.player_id).where(SeatRow.table_id == table_id, SeatRow.player_id.is_not(None))
    with app_services(http.app).engine.begin() as connection:
        connection.execute(update(PlayerRow).where(PlayerRow.id.in_(players)).values(forced_moves=False))


# -- time controls -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("time_control", "days"), [("1d", 1), ("2d", 2), ("3d", 3), ("7d", 7), ({"days_per_move": 14}, 14)]
)
def test_days_per_move_are_stored_and_the_deadline_is_shown(module_client: Any, time_control: Any, days: int) -> None:
    table_id, tokens = turn_based(module_client, time_control, timeouts_before_bot=3)
    table = join_all(module_client, table_id, tokens)
    assert table["time_control"] == {
        "days_per_move": days,
        "reserve_ms": days * DAY_MS,
        "increment_ms": 0,
        "timeouts_before_bot": 3,
        "bank_ms": 0,
    }
    summary = module_client.get(f"/api/tables/{table_id}").json()
    assert summary["status"] == "playing" and summary["to_move"] == 0
    clock = app_services(module_client.app).tables.store.load(table_id).clock
    assert summary["deadline"] == clock["since"] + days * DAY_MS


@pytest.mark.parametrize(
    "spec",
    [
        {"time_control": {"days_per_move": 0}},
        {"time_control": {"days_per_move": 15}},
        {"time_control": "5d"},
        {"time_control": "1d", "timeouts_before_bot": 0},
        {"time_control": "1d", "timeouts_before_bot": 6},
    ],
)
def test_bad_turn_based_settings_are_refused_with_a_typed_422(module_client: Any, spec: dict[str, Any]) -> None:
    response = module_client.post("/api/tables", json={"players": 3, **spec})
    assert response.status_code == 422
    assert "Traceback" not in response.text


def test_a_real_time_table_is_not_turn_based(module_client: Any) -> None:
    _, _, answer = create_table(module_client, players=3, time_control="3+10")
    assert answer["table"]["turn_based"] is False


# -- deadlines ---------------------------------------------------------------------------------------------------


def test_a_deadline_passed_out_of_memory_plays_once_and_the_second_in_a_row_hands_the_seat_to_a_bot(
    client: Any, truth: Truth
) -> None:
    table_id, tokens = turn_based(client, "2d")
    join_all(client, table_id, tokens)
    without_forced_moves(client, table_id)
    store = app_services(client.app).tables.store
    movers = []
    for _ in range(4):  # seat 0, 1, 2 bid at their timeouts; seat 0 times out a second time in a row
        game = build_game(store.load(table_id))
        movers.append(game.current_player)
        log = time_out(client, table_id, days=2)
        assert len(log) == len(movers), "each deadline played exactly once"
    assert [row[2] for row in log] == movers == [0, 1, 2, 0]
    clock = store.load(table_id).clock
    assert clock["timeouts"] == [2, 1, 1] and clock["replaced"] == [0]
    assert clock["reserves"][0] is None, "a replaced seat is no longer timed"
    with Peer(client, table_id, tokens[1], 1, truth) as seat1:
        table = seat1.state["table"]
        assert [s["replaced"] for s in table["seats"]] == [True, False, False]
        assert table["to_move"] == 1 and table["deadline"] == clock["since"] + 2 * DAY_MS
    with app_services(client.app).engine.connect() as connection:
        row = connection.execute(text("SELECT to_move, notify_at FROM tables WHERE id = :id"), {"id": table_id}).one()
    assert row == (1, clock["since"]), "the turn passed to seat 1: its player is to be told"


def test_a_player_at_the_table_is_told_of_the_seat_passing_to_a_bot(client: Any, truth: Truth) -> None:
    table_id, tokens = turn_based(client, "1d", timeouts_before_bot=1)
    join_all(client, table_id, tokens)
    log = time_out(client, table_id)
    assert [row[2] for row in log] == [0]
    with Peer(client, table_id, tokens[1], 1, truth) as seat1:
        assert seat1.state["table"]["seats"][0]["replaced"] is True
        # Seat 1 bids; seat 2 times out at once (its deadline made past while seat 1 watches).
        assert seat1.act(first_legal(seat1.view), seat1.state["version"])["type"] == "ack"
    log = time_out(client, table_id)
    with Peer(client, table_id, tokens[1], 1, truth) as seat1:
        assert [s["replaced"] for s in seat1.state["table"]["seats"]] == [True, False, True]
    assert [row[2] for row in log][:3] == [0, 1, 2]  # then a bot plays seat 0's turn, at once


def test_a_rated_game_whose_player_is_replaced_in_the_first_deal_rates_nobody(client: Any, truth: Truth) -> None:
    """Replaced after its time ran out in the first deal: the game goes on unrated for everyone (fair ratings;
    after the first deal the replaced player would rank last: test_fair_ratings)."""
    table_id, tokens = turn_based(
        client, "1d", rated=True, seats=seats("human", "human", "random"), timeouts_before_bot=1
    )
    ids = []
    for seat, name in enumerate(("ann", "bob")):
        registered = client.post(
            "/api/account/register", json={"username": name, "password": "correct horse"}, headers=guest(client)
        )
        assert registered.status_code == 201, registered.text
        joined = client.post(
            f"/api/tables/{table_id}/seats/{seat}/join",
            json={"token": tokens[seat]},
            headers={HEADER: registered.json()["session"]},
        )
        assert joined.status_code == 200, joined.text
        ids.append(registered.json()["id"])
    time_out(client, table_id)  # seat 0's first timeout: with timeouts_before_bot=1, a bot has its seat
    with Peer(client, table_id, tokens[1], 1, truth) as bob:
        final = play([bob])
    assert final["table"]["seats"][0]["replaced"] is True
    assert final["table"]["unrated"] == {"reason": "timeout", "seat": 0}
    with app_services(client.app).engine.connect() as connection:
        places = dict(list(connection.execute(text("SELECT player_id, place FROM rating_changes"))))
        abandoned = connection.execute(text("SELECT seat, abandoned FROM results ORDER BY seat")).all()
    assert places == {} and len(ids) == 2, "nobody is rated"
    assert abandoned == [(0, True), (1, False), (2, False)]


def test_the_timeout_notice_says_the_seat_passed_to_a_bot(client: Any, truth: Truth) -> None:
    table_id, tokens = turn_based(client, "1d", timeouts_before_bot=1)
    join_all(client, table_id, tokens)
    with Peer(client, table_id, tokens[1], 1, truth) as seat1:
        registry = app_services(client.app).tables
        table = registry.live[table_id]
        # The table is held (seat 1 is here): its own timer plays the deadline, made past in memory and stored.
        age(registry.store.engine, table_id, DAY_MS + 1_000)
        table.state.clock = registry.store.load(table_id).clock
        client.portal.call(registry.resume, table)
        told = seat1.wait(lambda m: m["type"] == "timeout", timeout=10)
        assert told == {"type": "timeout", "seat": 0, "version": told["version"], "timeouts": 1, "replaced": True}
        assert seat1.state["table"]["seats"][0]["replaced"] is True


def test_the_move_a_bot_played_at_a_timeout_is_kept_for_its_player_until_they_move(client: Any, truth: Truth) -> None:
    table_id, tokens = turn_based(client, "1d")
    join_all(client, table_id, tokens)
    without_forced_moves(client, table_id)  # each peer plays its own cards, the only legal ones too
    out_of_memory(client, table_id)  # loaded again with that setting
    registry = app_services(client.app).tables
    with ExitStack() as stack:
        peers = [stack.enter_context(Peer(client, table_id, tokens[seat], seat, truth)) for seat in range(3)]
        for seat in range(3):  # everyone bids: seat 0 is to lead the first trick
            peers[seat].wait_state(lambda m, seat=seat: m["view"]["current_player"] == seat)
            assert peers[seat].act(first_legal(peers[seat].view), peers[seat].state["version"])["type"] == "ack"
        peers[1].wait_state(lambda m: m["view"]["phase"] == "play")
        table = registry.live[table_id]
        age(registry.store.engine, table_id, DAY_MS + 1_000)
        table.state.clock = registry.store.load(table_id).clock
        client.portal.call(registry.resume, table)
        played = peers[1].wait_state(lambda m: m["view"]["current_player"] == 1)
        [lead] = played["view"]["trick"]["plays"]
        missed = played["table"]["clock"]["missed"]
        card = {k: lead[k] for k in ("card", "colour", "value", "rank")}
        assert lead["seat"] == 0 and missed[1:] == [None, None]
        assert missed[0] == {"action": f"play:{lead['slot']}", "card": card, "at": missed[0]["at"]}
        player = played["table"]["seats"][0]["player"]
        [game] = registry.store.games_of(player)
        assert game["missed"] == missed[0], "My games tells it too"

        # Seat 0's own view holds nothing more than the others' (the card is on the table for all).
        mine = peers[0].wait_state(lambda m: m["version"] == played["version"])
        assert mine["table"]["clock"]["missed"] == missed and mine["view"]["trick"] == played["view"]["trick"]

        # Another seat's move keeps it; seat 0's own move at its next turn forgets it.
        mover = 1
        while mover != 0:
            peer = peers[mover]
            version = peer.act(first_legal(peer.view), peer.state["version"])["version"]
            kept = peers[1].wait_state(lambda m, version=version: m["version"] == version)
            assert kept["table"]["clock"]["missed"] == missed
            mover = kept["view"]["current_player"]
            peers[mover].wait_state(lambda m, version=version: m["version"] == version)
        version = peers[0].act(first_legal(peers[0].view), peers[0].state["version"])["version"]
        after = peers[1].wait_state(lambda m: m["version"] == version)
        assert "missed" not in after["table"]["clock"]
        assert registry.store.games_of(player)[0]["missed"] is None


def test_a_player_who_left_a_turn_based_table_is_shown_since_when(client: Any, truth: Truth) -> None:
    table_id, tokens = turn_based(client, "1d")
    join_all(client, table_id, tokens)
    with Peer(client, table_id, tokens[1], 1, truth) as stays:
        with Peer(client, table_id, tokens[0], 0, truth):
            here = stays.wait_state(lambda m: m["table"]["seats"][0]["connected"])
            assert here["table"]["seats"][0]["away_ms"] is None
        gone = stays.wait_state(lambda m: not m["table"]["seats"][0]["connected"])
        assert 0 <= gone["table"]["seats"][0]["away_ms"] < 60_000
        assert gone["table"]["seats"][2]["away_ms"] is None, "never seen leaving here: unknown"


# -- out of memory and back --------------------------------------------------------------------------------------


def test_a_table_out_of_memory_comes_back_with_the_same_views_and_nothing_lost(client: Any, truth: Truth) -> None:
    table_id, tokens = turn_based(client, "3d")
    join_all(client, table_id, tokens)
    for mover in (0, 1):
        with Peer(client, table_id, tokens[mover], mover, truth) as peer:
            assert peer.act(first_legal(peer.view), peer.state["version"])["type"] == "ack"
    before = {}
    for seat in range(3):
        with Peer(client, table_id, tokens[seat], seat, truth) as peer:
            before[seat] = (json.dumps(peer.state["view"]), peer.state["version"])
    out_of_memory(client, table_id)
    evicted = app_services(client.app).tables.evicted
    assert evicted >= 1
    for seat in range(3):
        with Peer(client, table_id, tokens[seat], seat, truth) as peer:
            assert (json.dumps(peer.state["view"]), peer.state["version"]) == before[seat]
    out_of_memory(client, table_id)
    with Peer(client, table_id, tokens[2], 2, truth) as peer:
        assert peer.act(first_legal(peer.view), peer.state["version"])["type"] == "ack"
    log = action_log(app_services(client.app).tables.store, table_id)
    assert [row[2] for row in log] == [0, 1, 2] and len({row[1] for row in log}) == 3


def test_a_real_time_game_in_progress_stays_in_memory(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, time_control="5+15", options={"first_player": 0})
    join_all(client, table_id, tokens)
    registry = app_services(client.app).tables
    evicted = registry.evicted
    wait_for(lambda: client.portal.call(asyncio.sleep, 0.4) is None, timeout=5)
    assert table_id in registry.live and registry.evicted == evicted


# -- the cap, my games, the event stream, one's own seat -------------------------------------------------------


def test_turn_based_games_per_identity_are_capped(client: Any) -> None:
    me = guest(client)
    for _ in range(3):
        table_id, tokens = turn_based(client)
        response = client.post(f"/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, headers=me)
        assert response.status_code == 200, response.text
    table_id, tokens = turn_based(client)
    refused = client.post(f"/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, headers=me)
    assert refused.status_code == 403 and refused.json()["code"] == "too_many_games"
    assert "3 turn-based games" in refused.json()["detail"]
    real_time, real_tokens, _ = create_table(client, players=3)
    joined = client.post(f"/api/tables/{real_time}/seats/0/join", json={"token": real_tokens[0]}, headers=me)
    assert joined.status_code == 200, "real-time tables are not counted"


def test_my_games_lists_the_callers_unfinished_games_your_turn_first(client: Any) -> None:
    me = guest(client)
    waiting, waiting_tokens = turn_based(client, "1d")
    client.post(f"/api/tables/{waiting}/seats/1/join", json={"token": waiting_tokens[1]}, headers=me)
    mine, tokens = turn_based(client, "2d")
    client.post(f"/api/tables/{mine}/seats/0/join", json={"token": tokens[0]}, headers=me)
    for seat in (1, 2):
        client.post(f"/api/tables/{mine}/seats/{seat}/join", json={"token": tokens[seat]}, headers=guest(client))
    answer = client.get("/api/me/games", headers=me).json()
    assert answer["your_turn"] == 1
    assert [g["table"] for g in answer["games"]] == [mine, waiting]
    first = answer["games"][0]
    assert first["your_turn"] is True and first["seat"] == 0 and first["to_move"] == 0
    assert first["turn_based"] is True and first["status"] == "playing" and first["url"] == f"/t/{mine}"
    assert first["deadline"] > answer["server_time"] + DAY_MS
    assert [s["seat"] for s in first["seats"]] == [0, 1, 2]
    assert answer["games"][1]["your_turn"] is False and answer["games"][1]["status"] == "waiting"
    assert "token" not in json.dumps(answer)
    assert client.get("/api/me/games").json()["games"] == [], "no identity: no games"


def test_the_event_stream_counts_your_turn_games_as_they_change(client: Any, truth: Truth) -> None:
    table_id, tokens = turn_based(client, "1d")
    me = guest(client)
    client.post(f"/api/tables/{table_id}/seats/1/join", json={"token": tokens[1]}, headers=me)
    counts: list[int] = []
    stop = threading.Event()

    def listen() -> None:
        with client.stream("GET", "/api/me/events", headers=me) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    counts.append(json.loads(line.removeprefix("data: "))["your_turn"])
                if stop.is_set() or len(counts) >= 2:
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    wait_for(lambda: counts == [0], timeout=15)
    for seat in (0, 2):
        client.post(f"/api/tables/{table_id}/seats/{seat}/join", json={"token": tokens[seat]}, headers=guest(client))
    with Peer(client, table_id, tokens[0], 0, truth) as seat0:
        assert seat0.act(first_legal(seat0.view), seat0.state["version"])["type"] == "ack"
    wait_for(lambda: counts == [0, 1], timeout=15)
    stop.set()
    listener.join(15)


def test_the_identity_opens_its_own_seat_without_a_token(client: Any) -> None:
    table_id, tokens = turn_based(client, "1d")
    joined = client.post(f"/api/tables/{table_id}/seats/2/join", json={"token": tokens[2]})  # the cookie's guest
    assert joined.status_code == 200
    with client.websocket_connect(f"/ws/tables/{table_id}?me=1") as socket:
        assert socket.receive_json()["seat"] == 2
    # Another site's page is refused before the handshake (403), its visitor's cookie or not.
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(f"/ws/tables/{table_id}?me=1", headers={"origin": "https://evil.example"}),
    ):
        pass
    assert refused.value.code == 4403


# -- real servers: kill -9, two processes ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_deadlines_passed_while_the_server_was_down_are_played_once_on_start(backend: str, tmp_path: Path) -> None:
    with backend_urls(backend, tmp_path) as url:
        server = ServerProcess(url, tmp_path / "server.log", env={"LUZ_DEADLINE_SCAN_SECONDS": "0.2"}).start()
        store = open_store(url)
        try:
            with httpx.Client(base_url=server.http, timeout=10) as http:
                table_id, tokens = turn_based(http, "1d")
                join_all(http, table_id, tokens)
            server.kill9()
            age(store.engine, table_id, DAY_MS + 1_000)
            server.start()
            log = wait_for(lambda: action_log(store, table_id), timeout=30)
            assert [row[2] for row in log] == [0]
            assert store.load(table_id).clock["timeout"] == 0
            assert "Traceback" not in server.log()
        finally:
            server.stop()


@pytest.mark.slow
def test_two_processes_play_each_deadline_once(tmp_path: Path) -> None:
    if redis_problem() is not None:
        pytest.skip(redis_problem())
    with backend_urls("postgresql", tmp_path) as url:
        env = {"LUZ_REDIS_URL": "redis://127.0.0.1:6379/0", "LUZ_DEADLINE_SCAN_SECONDS": "0.1"}
        env["LUZ_IDLE_TABLE_SECONDS"] = "0.2"
        servers = [ServerProcess(url, tmp_path / f"server{n}.log", env=env).start() for n in range(2)]
        store = open_store(url)
        try:
            with httpx.Client(base_url=servers[0].http, timeout=10) as http:
                tables = [turn_based(http, "1d") for _ in range(6)]
                for table_id, tokens in tables:
                    join_all(http, table_id, tokens)
            for table_id, _ in tables:
                age(store.engine, table_id, DAY_MS + 1_000)
            for table_id, _ in tables:
                log = wait_for(lambda table_id=table_id: action_log(store, table_id), timeout=30)
                assert [row[2] for row in log] == [0]
            # Each process has looked again many times since: still one move per deadline.
            for server in servers:
                with httpx.Client(base_url=server.http, timeout=10) as http:
                    assert http.get("/healthz").status_code == 200
            for table_id, _ in tables:
                assert len(action_log(store, table_id)) == 1
                assert store.load(table_id).clock["timeouts"] == [1, 0, 0]
            for server in servers:
                assert "Traceback" not in server.log()
        finally:
            for server in servers:
                server.stop()
