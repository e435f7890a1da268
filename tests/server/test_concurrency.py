"""One writer per table: concurrent actions for the same turn, from one server process or two on one database.

Exactly one is acknowledged, the others are refused with a clear error, and the stored action log has neither a
duplicate nor a gap (on SQLite and PostgreSQL).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from luz.server import Settings, app_services, create_app
from luz.server.appends import ActionWriter
from luz.server.db import migrate
from luz.server.store import AppendedAction, StaleVersion
from support.server import (
    REDIS_URL,
    Message,
    Peer,
    Truth,
    action_log,
    action_text,
    assert_log_has_no_gap,
    assert_stored,
    create_table,
    join_all,
    open_store,
    redis_problem,
)

LOSING = {"not_your_turn", "stale"}


def race(peers: list[Peer], messages: list[dict[str, Any]]) -> list[Message]:
    """Send each peer its message at the same moment (threads behind a barrier); the replies."""
    barrier = threading.Barrier(len(peers))
    replies: list[Message | None] = [None] * len(peers)
    failures: list[BaseException] = []

    def send(index: int) -> None:
        try:
            barrier.wait(5)
            replies[index] = peers[index].request(messages[index])
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(peers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not failures, failures
    return [r for r in replies if r is not None]


def one_wins(replies: list[Message]) -> Message:
    acks = [r for r in replies if r["type"] == "ack"]
    assert len(acks) == 1, replies
    for reply in replies:
        if reply["type"] == "error":
            assert reply["code"] in LOSING, reply
            assert "not your turn" in reply["message"] or "the table is at version" in reply["message"], reply
    return acks[0]


def test_the_store_takes_one_writer_per_version(database_url: str) -> None:
    store = open_store(database_url)
    migrate(store.engine)
    table_id, _ = store.create_table(
        name="race",
        edition="iello-2024",
        players=3,
        options={"first_player": 0},
        public=True,
        grace_seconds=30.0,
        seats=[{"kind": "bot", "bot": "random", "name": None}] * 3,
    )
    state = store.start_game(table_id, 1, seed=5)

    def append(number: int, version: int, barrier: threading.Barrier, outcomes: list[str]) -> None:
        barrier.wait(5)
        try:
            store.append_action(AppendedAction(table_id, version, 0, f"bid:{number}"))
            outcomes.append(f"bid:{number}")
        except StaleVersion:
            outcomes.append("stale")

    for round_ in range(6):
        version = state.version + round_
        barrier = threading.Barrier(8)
        outcomes: list[str] = []
        threads = [threading.Thread(target=append, args=(n, version, barrier, outcomes)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        winners = [o for o in outcomes if o != "stale"]
        assert len(outcomes) == 8 and len(winners) == 1, outcomes
        stored = store.load(table_id)
        assert stored.version == version + 1 and stored.actions[-1] == winners[0]
    log = action_log(store, table_id)
    assert len(log) == 6
    assert_log_has_no_gap(log)
    store.engine.dispose()


def test_the_action_writer_commits_a_group_each_action_checked_on_its_own(database_url: str) -> None:
    """Actions at many tables queued together are stored in fewer transactions than actions; at each table one of
    two actions on the same version is stored, the other refused as stale, and the log has no gap."""
    import asyncio

    store = open_store(database_url)
    migrate(store.engine)
    tables = []
    for number in range(12):
        table_id, _ = store.create_table(
            name=f"group {number}",
            edition="iello-2024",
            players=3,
            options={"first_player": 0},
            public=True,
            grace_seconds=30.0,
            seats=[{"kind": "bot", "bot": "random", "name": None}] * 3,
        )
        tables.append((table_id, store.start_game(table_id, 1, seed=number).version))
    writer = ActionWriter(store)

    async def outcome(appended: AppendedAction) -> str | int:
        try:
            return await writer.append(appended)
        except StaleVersion:
            return "stale"

    async def both() -> list[str | int]:
        actions = []
        for table_id, version in tables:
            actions += [AppendedAction(table_id, version, 0, "bid:1"), AppendedAction(table_id, version, 0, "bid:2")]
        return await asyncio.gather(*(outcome(appended) for appended in actions))

    try:
        outcomes = asyncio.run(both())
    finally:
        writer.close()
    assert writer.batches < len(outcomes)
    for number, (table_id, version) in enumerate(tables):
        first, second = outcomes[2 * number : 2 * number + 2]
        assert sorted([first, second], key=str) == [version + 1, "stale"], (first, second)
        stored = store.load(table_id)
        assert stored.version == version + 1 and stored.actions == ["bid:1" if first != "stale" else "bid:2"]
        assert_log_has_no_gap(action_log(store, table_id))
    store.engine.dispose()


def all_humans(client: Any) -> tuple[str, dict[int, str]]:
    table_id, tokens, _ = create_table(client, players=3, options={"first_player": 0})
    join_all(client, table_id, tokens)
    return table_id, tokens


@pytest.mark.parametrize("variant", ["same action", "different actions", "same version", "no version"])
def test_two_connections_of_one_seat_act_at_once(client: Any, truth: Truth, variant: str) -> None:
    table_id, tokens = all_humans(client)
    store = app_services(client.app).tables.store
    with Peer(client, table_id, tokens[0], 0, truth) as phone, Peer(client, table_id, tokens[0], 0, truth) as laptop:
        phone.pump()
        version = phone.state["version"]
        bids = [{"type": "bid", "tricks": 1}, {"type": "bid", "tricks": 2 if variant == "different actions" else 1}]
        messages = [{"type": "action", "action": bid} for bid in bids]
        if variant != "no version":
            for message in messages:
                message["version"] = version
        replies = race([phone, laptop], messages)
        ack = one_wins(replies)
        winner = bids[[r["type"] for r in replies].index("ack")]
        assert ack["version"] == version + 1
        assert_stored(store, table_id, ack["version"], action_text(winner))
        for peer in (phone, laptop):
            peer.wait_state(lambda s: s["version"] == version + 1)
            assert peer.view["bids"][0] == {"safety": False, **{"tricks": winner["tricks"]}}
    log = action_log(store, table_id)
    assert [row[3] for row in log] == [action_text(winner)]


@pytest.fixture
def two_servers(database_url: str) -> Iterator[tuple[Any, Any]]:
    """Two server processes' apps on one database (no events between them)."""
    settings = Settings(database_url=database_url, bot_workers=0, messages_per_second=10_000)
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        yield first, second


@pytest.mark.parametrize("variant", ["same action", "different actions"])
def test_two_servers_on_one_database_take_one_action_per_turn(two_servers: tuple[Any, Any], variant: str) -> None:
    first, second = two_servers
    table_id, tokens = all_humans(first)
    store = app_services(first.app).tables.store
    truth = Truth(store)
    with Peer(first, table_id, tokens[0], 0, truth) as a, Peer(second, table_id, tokens[0], 0, truth) as b:
        version = a.state["version"]
        assert b.state["version"] == version and b.view == a.view
        bids = [{"type": "bid", "tricks": 3}, {"type": "bid", "tricks": 4 if variant == "different actions" else 3}]
        replies = race([a, b], [{"type": "action", "action": bid} for bid in bids])
        one_wins(replies)
        winner = bids[[r["type"] for r in replies].index("ack")]
        # The loser's server caught up with the database on the way: its seat sees the winning action.
        loser = (a, b)[[r["type"] for r in replies].index("error")]
        assert loser.sync()["version"] == version + 1
        assert loser.view["bids"][0]["tricks"] == winner["tricks"]
    log = action_log(store, table_id)
    assert [row[3] for row in log] == [action_text(winner)]


@pytest.fixture
def servers_with_redis(database_url: str) -> Iterator[tuple[Any, Any]]:
    """Two server processes' apps on one database, hearing each other's events through Redis."""
    problem = redis_problem()
    if problem:
        pytest.skip(problem)
    settings = Settings(database_url=database_url, redis_url=REDIS_URL, bot_workers=0, messages_per_second=10_000)
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        yield first, second


def test_two_servers_with_redis_race_every_turn(servers_with_redis: tuple[Any, Any]) -> None:
    first, second = servers_with_redis
    table_id, tokens = all_humans(first)
    store = app_services(first.app).tables.store
    truth = Truth(store)
    peers = {
        (side, seat): Peer(client, table_id, tokens[seat], seat, truth).__enter__()
        for side, client in enumerate((first, second))
        for seat in range(3)
    }
    try:
        acks = 0
        for turn in range(12):  # the bids and three tricks
            version = peers[0, 0].state["version"]
            for peer in peers.values():  # both servers show the same state
                peer.wait_state(lambda s, version=version: s["version"] == version)
            mover = peers[0, 0].view["current_player"]
            legal = peers[0, mover].view["legal_actions"]
            actions = [legal[0], legal[turn % len(legal)]]
            replies = race(
                [peers[0, mover], peers[1, mover]],
                [{"type": "action", "action": a, "version": version} for a in actions],
            )
            ack = one_wins(replies)
            assert ack["version"] == version + 1
            acks += 1
            for peer in peers.values():
                peer.wait_state(lambda s, version=version: s["version"] == version + 1)
            assert peers[0, 0].view == peers[1, 0].view
        log = action_log(store, table_id)
        assert len(log) == acks
        assert_log_has_no_gap(log)
        for (side, seat), peer in peers.items():
            assert peer.check.checked_hidden > 0
            assert peer.view == peers[1 - side, seat].view
    finally:
        for peer in peers.values():
            peer.close()


def test_a_server_that_has_not_heard_of_a_move_reads_it_before_refusing(servers_with_redis: tuple[Any, Any]) -> None:
    """With several processes, an action may reach a process before the event of the move that made it legal:
    the process reads the table before answering ``not_your_turn``, so a legitimate action is never refused."""
    first, second = servers_with_redis
    table_id, tokens = all_humans(first)
    truth = Truth(app_services(first.app).tables.store)
    with Peer(first, table_id, tokens[0], 0, truth) as a, Peer(second, table_id, tokens[1], 1, truth) as b:
        assert a.view["current_player"] == 0 and b.view["current_player"] == 0
        # The second process hears nothing more from the first (as if the event were slow to come).
        second.portal.call(app_services(second.app).tables.broker._task.cancel)
        assert a.act({"type": "bid", "tricks": 2})["type"] == "ack"
        assert b.view["current_player"] == 0  # b's server has not heard of it...
        reply = b.act({"type": "bid", "tricks": 1})
        assert reply["type"] == "ack", reply  # ... but reads the table before refusing
        assert b.view["bids"][:2] == [{"tricks": 2, "safety": False}, {"tricks": 1, "safety": False}]
        # A seat whose turn it really is not is still refused.
        refused = b.act({"type": "bid", "tricks": 1})
        assert refused["type"] == "error" and refused["code"] == "not_your_turn", refused
