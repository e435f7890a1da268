"""Web Push (issue 23): a turn due is pushed once, encrypted (decrypted here with the browser's keys), signed with
the server's VAPID key, carrying only public facts; gone subscriptions are deleted; a connected seat is told
nothing; quiet hours postpone; two notifiers on one database tell each turn once. SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ipaddress
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import text
from sqlalchemy.engine import Engine

from luz.engine import DEFAULT_EDITION, Game, get_edition
from luz.server import Settings, app_services, create_app
from luz.server.clock import FakeClock
from luz.server.db import make_engine, migrate
from luz.server.identity import Players
from luz.server.notify import Notifier, Subscriptions, vapid_key
from luz.server.notify.push import (
    Pusher,
    Subscription,
    b64url,
    b64url_decode,
    endpoint_problem,
    host_address,
    public_key,
)
from luz.server.notify.push_channel import PushChannel
from luz.server.store import Store
from support.notify import DAY_MS, column, epoch_ms, make_due, notifier_of, notify_settings, scans_pass, seated_table
from support.pushservice import Browser, PushService, vapid_claims
from support.server import guest, strings_in, wait_for

PAYLOAD_KEYS = {"kind", "title", "body", "url", "table", "deadline"}


@pytest.fixture
def push_service() -> Iterator[PushService]:
    with PushService() as service:
        yield service


@pytest.fixture
def app(database_url: str) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(create_app(notify_settings(database_url))) as client:
        yield client


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    migrate(engine)
    yield engine
    engine.dispose()


# -- through a real server (the app in process) ----------------------------------------------------------------


def test_a_turn_is_pushed_encrypted_signed_in_the_players_language_and_nothing_hidden(
    app: Any, push_service: PushService
) -> None:
    me = guest(app)
    player_id = app.get("/api/me", headers=me).json()["id"]
    browser = Browser(push_service.url("/push/fr"))
    assert app.post("/api/me/push", json=browser.subscription(), headers=me).status_code == 201
    assert app.put("/api/me/notifications", json={"language": "fr"}, headers=me).json()["language"] == "fr"
    store = app_services(app.app).tables.store
    table_id = seated_table(store, player_id)
    now = epoch_ms()
    deadline = now + 3 * DAY_MS
    make_due(store.engine, table_id, notify_at=now, deadline=deadline)

    [push] = push_service.wait("/push/fr")
    payload = json.loads(browser.decrypt(push))
    assert set(payload) == PAYLOAD_KEYS
    assert payload == {
        "kind": "turn",
        "title": "À vous de jouer à Friday table",
        "body": "Ouvrez la table pour jouer votre coup.",
        "url": f"/t/{table_id}",
        "table": table_id,
        "deadline": deadline,
    }
    assert push.at * 1000 - now < 60_000, "a push leaves within 60 s of the turn passing"
    claims = vapid_claims(push, app.get("/api/push/key").json()["key"])
    assert claims["aud"] == push_service.origin and claims["sub"].startswith("mailto:")
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    assert int(push.headers["ttl"]) > 0
    # Told once: the turn is claimed, and later scans send nothing more.
    assert column(store.engine, table_id, "notify_at") is None
    scans_pass(lambda: notifier_of(app).counts["scans"])
    assert len(push_service.at("/push/fr")) == 1
    assert notifier_of(app).push_latencies_ms and max(notifier_of(app).push_latencies_ms) < 60_000


def test_subscriptions_gone_at_the_push_service_are_deleted(app: Any, push_service: PushService) -> None:
    me = guest(app)
    player_id = app.get("/api/me", headers=me).json()["id"]
    push_service.answer("/gone/404", 404)
    push_service.answer("/gone/410", 410)
    browsers = [Browser(push_service.url(path)) for path in ("/gone/404", "/gone/410", "/kept")]
    for browser in browsers:
        assert app.post("/api/me/push", json=browser.subscription(), headers=me).status_code == 201
    subscriptions = Subscriptions(app_services(app.app).tables.store.engine)
    assert len(subscriptions.of(player_id)) == 3
    store = app_services(app.app).tables.store
    make_due(store.engine, seated_table(store, player_id), notify_at=epoch_ms())
    for path in ("/gone/404", "/gone/410", "/kept"):
        push_service.wait(path)
    wait_for(lambda: [s.endpoint for s in subscriptions.of(player_id)] == [push_service.url("/kept")])
    wait_for(lambda: notifier_of(app).counts["gone"] == 2)


def test_subscribing_is_validated_and_capped(app: Any, push_service: PushService) -> None:
    me = guest(app)
    player_id = app.get("/api/me", headers=me).json()["id"]
    browser = Browser(push_service.url("/one"))
    good = browser.subscription()
    bad = [
        {**good, "endpoint": "ftp://127.0.0.1/x"},
        {**good, "endpoint": "http://push.example.org/x"},  # not https
        {**good, "endpoint": "https://user:pw@push.example.org/x"},
        {**good, "endpoint": "https://push.example.org/" + "x" * 1000},
        {**good, "keys": {"p256dh": "A" * 87, "auth": good["keys"]["auth"]}},  # not a point of the curve
        {**good, "keys": {"p256dh": good["keys"]["p256dh"], "auth": "AAAAAAAAAAAAAAAAAAAAAA=="[:11]}},
        {**good, "keys": {"p256dh": good["keys"]["p256dh"]}},
        {"endpoint": good["endpoint"]},
    ]
    for body in bad:
        answer = app.post("/api/me/push", json=body, headers=me)
        assert answer.status_code == 422, (body, answer.text)
        assert "Traceback" not in answer.text
    subscriptions = Subscriptions(app_services(app.app).tables.store.engine)
    assert subscriptions.of(player_id) == []
    endpoints = [push_service.url(f"/cap/{n}") for n in range(12)]
    for endpoint in endpoints:
        assert app.post("/api/me/push", json={**good, "endpoint": endpoint}, headers=me).status_code == 201
    assert sorted(s.endpoint for s in subscriptions.of(player_id)) == sorted(endpoints[2:])  # the oldest dropped
    assert app.request("DELETE", "/api/me/push", json={"endpoint": endpoints[5]}, headers=me).status_code == 204
    assert app.request("DELETE", "/api/me/push", json={"endpoint": endpoints[5]}, headers=me).status_code == 404
    assert len(subscriptions.of(player_id)) == 9
    # Another player cannot delete yours.
    other = guest(app)
    assert app.request("DELETE", "/api/me/push", json={"endpoint": endpoints[6]}, headers=other).status_code == 404
    # A cookie-authenticated subscription from another site is refused (CSRF).
    app.get("/api/me")
    cross = app.post("/api/me/push", json=good, headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403


def test_local_and_private_endpoints_are_refused_unless_allowed(sqlite_url: str) -> None:
    from fastapi.testclient import TestClient

    for host in ("127.0.0.1", "10.1.2.3", "192.168.0.9", "169.254.169.254", "[::1]", "[fd00::1]", "localhost"):
        assert endpoint_problem(f"https://{host}/push", allow_local=False), host
        assert endpoint_problem(f"https://{host}/push", allow_local=True) is None, host
    assert endpoint_problem("https://[::ffff:127.0.0.1]/push", allow_local=False)
    # Loopback, private and link-local addresses written in the legacy numeric forms resolvers and clients accept.
    legacy = ("127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "127.0.0.1.", "017700000001", "10.1")
    for host in (*legacy, "0.0.0.0", "0", "224.0.0.1", "240.0.0.1", "[::]", "[fe80::1]", "169.254.169.254"):
        assert endpoint_problem(f"https://{host}/push", allow_local=False), host
    # A public address in a legacy form is the public address; a name made of hexadecimal letters is a name.
    assert host_address("134744072") == ipaddress.ip_address("8.8.8.8")
    assert host_address("0x7f.1") == ipaddress.ip_address("127.0.0.1")
    assert host_address("cafe.face") is None and host_address("push.example.org") is None
    assert endpoint_problem("https://fcm.googleapis.com/fcm/send/abc", allow_local=False) is None
    with TestClient(create_app(Settings(database_url=sqlite_url, bot_workers=0))) as client:
        me = guest(client)
        good = Browser("https://push.example.org/abc").subscription()
        assert client.post("/api/me/push", json=good, headers=me).status_code == 201
        refused = ("https://127.0.0.1:9/x", "https://10.0.0.1/x", "http://127.0.0.1/x", "https://localhost/x")
        numeric = ("https://127.1/x", "https://2130706433/x", "https://0x7f000001/x", "https://0177.0.0.1/x")
        for endpoint in (*refused, *numeric):
            answer = client.post("/api/me/push", json={**good, "endpoint": endpoint}, headers=me)
            assert answer.status_code == 422, endpoint
        assert client.get("/api/me/notifications", headers=me).json()["smtp"] is False


def test_notification_settings_are_validated(app: Any) -> None:
    me = guest(app)
    shown = app.get("/api/me/notifications", headers=me).json()
    assert shown == {
        "push": True,
        "email": False,
        "email_address": None,
        "email_verified": False,
        "quiet_hours": None,
        "timezone": "UTC",
        "language": "en",
        "smtp": False,
    }
    change = {"push": False, "quiet_hours": {"start": "22:30", "end": "07:00"}, "timezone": "Europe/Paris"}
    changed = app.put("/api/me/notifications", json=change, headers=me).json()
    assert changed == {**shown, **change}
    for language in ("ja", "en"):
        assert app.put("/api/me/notifications", json={"language": language}, headers=me).json()["language"] == language
    for body in (
        {"timezone": "Mars/Olympus"},
        {"timezone": "../../etc/passwd"},
        {"quiet_hours": {"start": "24:00", "end": "07:00"}},
        {"quiet_hours": {"start": "7:00", "end": "08:00"}},
        {"language": "de"},
        {"push": None},
        {"push": "yes please"},
        {"colour": "blue"},
    ):
        answer = app.put("/api/me/notifications", json=body, headers=me)
        assert answer.status_code == 422, (body, answer.text)
    for body in ({"email_address": "me@example.org"}, {"email": True}):
        answer = app.put("/api/me/notifications", json=body, headers=me)
        assert answer.status_code == 403 and "account" in answer.json()["detail"]
    assert app.get("/api/me/notifications", headers=me).json() == changed  # nothing lost
    assert app.put("/api/me/notifications", json={"quiet_hours": None}, headers=me).json()["quiet_hours"] is None


# -- notifiers on a database ---------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def notifier(engine: Engine, **options: Any) -> AsyncIterator[Notifier]:
    """A notifier's loop, as a server process runs it."""
    pusher = Pusher(await asyncio.to_thread(vapid_key, engine, ""), "mailto:test@example.org", allow_local=True)
    running = Notifier(engine, [PushChannel(pusher, Subscriptions(engine))], interval=0.02, **options)
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


async def until(predicate: Callable[[], Any], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.01)


async def more_scans(*notifiers: Notifier, more: int = 3) -> None:
    starts = [n.counts["scans"] for n in notifiers]
    await until(lambda: all(n.counts["scans"] >= s + more for n, s in zip(notifiers, starts, strict=True)))


def player_with(engine: Engine, browser: Browser, language: str = "en") -> str:
    identity, _ = Players(engine).create_guest()
    keys = browser.subscription()["keys"]
    Subscriptions(engine).add(Subscription(browser.endpoint, identity.player_id, keys["p256dh"], keys["auth"]))
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE players SET language = :language WHERE id = :id"),
            {"language": language, "id": identity.player_id},
        )
    return identity.player_id


def test_two_notifiers_on_one_database_push_each_turn_once(database_url: str, push_service: PushService) -> None:
    engines = [make_engine(database_url) for _ in range(2)]  # two processes' engines
    migrate(engines[0])
    browser = Browser(push_service.url("/once"))
    player_id = player_with(engines[0], browser)
    store = Store(engines[0])
    tables = [seated_table(store, player_id, name=f"table {n}") for n in range(20)]

    async def both() -> list[Notifier]:
        async with notifier(engines[0]) as first, notifier(engines[1]) as second:
            now = epoch_ms()
            for table_id in tables:
                make_due(engines[0], table_id, notify_at=now, deadline=now + DAY_MS)
            await asyncio.to_thread(push_service.wait, "/once", len(tables))
            await more_scans(first, second)
            return [first, second]

    notifiers = asyncio.run(both())
    told = collections.Counter(json.loads(browser.decrypt(push))["table"] for push in push_service.at("/once"))
    assert told == dict.fromkeys(tables, 1)
    assert sum(n.counts["turn"] for n in notifiers) == len(tables)
    for engine in engines:
        engine.dispose()


def test_a_connected_seat_is_told_nothing_and_a_reminder_says_so(engine: Engine, push_service: PushService) -> None:
    away, here = Browser(push_service.url("/away")), Browser(push_service.url("/here"))
    store = Store(engine)
    away_table = seated_table(store, player_with(engine, away), name="Away table")
    here_table = seated_table(store, player_with(engine, here), name="Here table")

    async def connected(table_id: str, seat: int) -> bool:
        return table_id == here_table and seat == 0

    async def run() -> Notifier:
        async with notifier(engine, seat_connected=connected) as running:
            now = epoch_ms()
            for table_id in (away_table, here_table):
                make_due(engine, table_id, notify_at=now, remind_at=now, deadline=now + DAY_MS)
            await asyncio.to_thread(push_service.wait, "/away", 2)
            await until(lambda: column(engine, here_table, "remind_at") is None)
            await more_scans(running)
            return running

    running = asyncio.run(run())
    assert push_service.at("/here") == []
    assert running.counts["connected"] == 2  # the turn and the reminder
    kinds = sorted(json.loads(away.decrypt(push))["kind"] for push in push_service.at("/away"))
    assert kinds == ["reminder", "turn"]
    reminder = next(p for p in map(away.decrypt, push_service.at("/away")) if b"reminder" in p)
    assert json.loads(reminder)["title"] == "A quarter of your time is left at Away table"
    assert column(engine, here_table, "notify_at") is None


def test_quiet_hours_postpone_the_push_to_their_end(engine: Engine, push_service: PushService) -> None:
    browser = Browser(push_service.url("/quiet"))
    player_id = player_with(engine, browser)
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE players SET quiet_start = 1320, quiet_end = 480, timezone = 'Europe/Paris' WHERE id = :id"),
            {"id": player_id},
        )
    table_id = seated_table(Store(engine), player_id)
    night = int(datetime(2025, 1, 15, 22, 30, tzinfo=UTC).timestamp() * 1000)  # 23:30 in Paris
    morning = int(datetime(2025, 1, 16, 7, 0, tzinfo=UTC).timestamp() * 1000)  # 08:00 in Paris
    clock = FakeClock(night / 1000)

    async def run() -> None:
        async with notifier(engine, clock=clock) as running:
            make_due(engine, table_id, notify_at=night - 1000, deadline=night + 3 * DAY_MS)
            await until(lambda: column(engine, table_id, "notify_at") == morning)
            await more_scans(running)
            assert push_service.at("/quiet") == [] and running.counts["postponed"] >= 1
            clock.advance((morning - night) / 1000)
            await asyncio.to_thread(push_service.wait, "/quiet")

    asyncio.run(run())
    assert json.loads(browser.decrypt(push_service.at("/quiet")[0]))["kind"] == "turn"
    assert column(engine, table_id, "notify_at") is None


def test_the_push_is_the_same_whatever_the_cards_dealt(engine: Engine, push_service: PushService) -> None:
    """Non-interference: the same table at the same turn, dealt two ways, is pushed byte-identical payloads."""
    browser = Browser(push_service.url("/same"))
    store = Store(engine)
    table_id = seated_table(store, player_with(engine, browser))
    edition = get_edition(DEFAULT_EDITION)
    seeds = (1, 2)
    hands = [Game(edition, 3, edition.options(3), seed=seed).deals[0].hands for seed in seeds]
    assert hands[0] != hands[1], "the two seeds deal the same cards"
    cards = {edition.card_name(card) for dealt in hands for hand in dealt for card in hand}
    fixed = epoch_ms()

    async def run() -> None:
        async with notifier(engine, clock=FakeClock(fixed / 1000)):
            for told, seed in enumerate(seeds, start=1):
                state = store.load(table_id)
                assert state is not None
                store.start_game(table_id, state.version, seed)
                make_due(engine, table_id, notify_at=fixed - 5000, deadline=fixed + DAY_MS)
                await asyncio.to_thread(push_service.wait, "/same", told)

    asyncio.run(run())
    first, second = (browser.decrypt(push) for push in push_service.at("/same"))
    assert first == second
    assert not strings_in(json.loads(first)) & cards


def test_no_subscription_no_push_and_the_turn_is_still_claimed(engine: Engine, push_service: PushService) -> None:
    identity, _ = Players(engine).create_guest()
    table_id = seated_table(Store(engine), identity.player_id)

    async def run() -> None:
        async with notifier(engine) as running:
            make_due(engine, table_id, notify_at=epoch_ms())
            await until(lambda: running.counts["turn"] == 1)
            await more_scans(running)

    asyncio.run(run())
    assert column(engine, table_id, "notify_at") is None
    assert push_service.received == []


def test_the_vapid_key_is_shared_by_every_process_or_configured(database_url: str) -> None:
    engines = [make_engine(database_url) for _ in range(2)]
    migrate(engines[0])
    stored = [public_key(vapid_key(engine, "")) for engine in engines]
    assert stored[0] == stored[1] and len(b64url_decode(stored[0])) == 65
    raw = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value.to_bytes(32, "big")
    configured = vapid_key(engines[0], b64url(raw))
    assert public_key(configured) != stored[0]
    assert public_key(vapid_key(engines[1], configured.private_pem().decode())) == public_key(configured)
    for engine in engines:
        engine.dispose()


def test_a_stored_endpoint_in_a_numeric_form_is_checked_again_before_sending(
    engine: Engine, push_service: PushService
) -> None:
    """A subscription stored before the check (or by hand) to a loopback address written as a number is not posted
    to, while the same push service under its usual address is, when local addresses are allowed (tests)."""
    port = urlsplit(push_service.url("/x")).port
    keys = Browser(push_service.url("/x")).subscription()["keys"]

    async def send(endpoint: str, allow_local: bool) -> int | None:
        pusher = Pusher(await asyncio.to_thread(vapid_key, engine, ""), "mailto:test@example.org", allow_local)
        await pusher.start()
        try:
            return await pusher.send(Subscription(endpoint, "p", keys["p256dh"], keys["auth"]), {"kind": "turn"})
        finally:
            await pusher.close()

    for host in ("127.1", "2130706433", "0x7f000001", "0177.0.0.1"):
        assert asyncio.run(send(f"https://{host}:{port}/numeric", allow_local=False)) is None, host
    assert not push_service.received, "nothing was posted to the server's own network"
    assert asyncio.run(send(f"http://127.0.0.1:{port}/plain", allow_local=True)) == 201
    assert [r.path for r in push_service.received] == ["/plain"]
