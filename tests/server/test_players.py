"""Players: guests by cookie with no form, one seat per identity at a table (HTTP and WebSocket), accounts with
Argon2 passwords, sessions that end, CSRF, the login rate limit, and a migration that keeps what was stored."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from starlette.websockets import WebSocketDisconnect

from luz.server import Settings, app_services, create_app
from luz.server.api.identity import DEVICE_PATH
from luz.server.clock import FakeClock
from luz.server.identity import COOKIE, DEVICE_COOKIE, HEADER, LOGIN_ATTEMPTS_PER_DEVICE, LOGIN_ATTEMPTS_PER_MINUTE
from support.server import Peer, create_table, guest, migrate_to, seats, wait_for

PASSWORD = "correct horse battery"


def join(client: Any, table_id: str, seat: int, token: str | None = None, **headers: str) -> Any:
    body = {"token": token} if token else {}
    return client.post(f"/api/tables/{table_id}/seats/{seat}/join", json=body, headers=headers)


def test_a_first_visit_gets_a_guest_by_a_signed_http_only_cookie(client: Any) -> None:
    first = client.get("/api/me")
    assert first.status_code == 200
    me = first.json()
    assert me["guest"] is True and me["username"] is None and len(me["name"]) >= 3
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert client.get("/api/me").json() == me  # the cookie keeps the identity
    assert "set-cookie" not in client.get("/api/me").headers
    # A cookie that was not signed by the server is nobody: the request gets a new guest.
    value = client.cookies[COOKIE]
    client.cookies.set(COOKIE, value[:-2] + ("AA" if not value.endswith("AA") else "BB"))
    assert client.get("/api/me").json()["id"] != me["id"]


def test_a_guest_joins_with_no_form_under_its_own_name(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    me = client.get("/api/me").json()
    joined = join(client, table_id, 0, tokens[0])
    assert joined.status_code == 200
    seat = joined.json()["table"]["seats"][0]
    assert seat["name"] == me["name"] and seat["player"] == me["id"]


def test_one_identity_cannot_take_two_open_seats(client: Any) -> None:
    """The reproduction of the issue: one client took two open seats of a public table. Now refused."""
    table_id, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    assert join(client, table_id, 0).status_code == 200
    second = join(client, table_id, 1)
    assert second.status_code == 409
    assert second.json()["detail"] == "you already hold seat 1 at this table: one seat per player"
    assert not client.get(f"/api/tables/{table_id}").json()["seats"][1]["joined"]
    # Another identity takes it.
    assert join(client, table_id, 1, **guest(client)).status_code == 200


def test_one_identity_cannot_take_a_second_seat_by_its_invite(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
    assert join(client, table_id, 0, tokens[0]).status_code == 200
    assert join(client, table_id, 1, tokens[1]).status_code == 409
    # Invite links keep working for guests: a guest of its own takes seat 1 with the invite.
    assert join(client, table_id, 1, tokens[1], **guest(client)).status_code == 200
    # A seat that is someone else's is not taken over by another identity with its invite.
    assert join(client, table_id, 0, tokens[0], **guest(client)).status_code == 403


def test_one_identity_cannot_play_a_second_seat_over_the_websocket(client: Any) -> None:
    """Holding seat 0, the browser opens seat 1 with its token (got from someone): the connection is refused."""
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
    assert join(client, table_id, 0, tokens[0]).status_code == 200  # the cookie's identity holds seat 0
    assert join(client, table_id, 1, tokens[1], **guest(client)).status_code == 200
    with client.websocket_connect(f"/ws/tables/{table_id}?token={tokens[1]}") as ws:
        refusal = ws.receive_json()
        assert refusal["type"] == "error" and refusal["code"] == "second_seat"
        assert refusal["message"] == "you already hold seat 1 at this table: one seat per player"
        assert "view" not in refusal
        with pytest.raises(Exception) as closed:
            ws.receive_json()
        assert getattr(closed.value, "code", None) == 4409
    # Its own seat opens; without a cookie the token alone opens seat 1 (another device of its player).
    with client.websocket_connect(f"/ws/tables/{table_id}?token={tokens[0]}") as ws:
        assert ws.receive_json()["seat"] == 0
    with Peer(client, table_id, tokens[1], 1, None) as peer:
        assert peer.state["seat"] == 1


def test_spectators_stay_anonymous(client: Any) -> None:
    table_id, _, _ = create_table(client, players=3, seats=seats("random", "random", "random"))
    client.cookies.clear()
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        assert ws.receive_json()["seat"] is None
    assert COOKIE not in client.cookies


def register(client: Any, username: str, password: str = PASSWORD, **headers: str) -> Any:
    return client.post("/api/account/register", json={"username": username, "password": password}, headers=headers)


def login(client: Any, username: str, password: str = PASSWORD, **headers: str) -> Any:
    return client.post("/api/account/login", json={"username": username, "password": password}, headers=headers)


def test_a_guest_becomes_an_account_and_keeps_its_seats(client: Any) -> None:
    table_id, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    assert join(client, table_id, 0).status_code == 200
    guest_id = client.get("/api/me").json()["id"]
    made = register(client, "Ada")
    assert made.status_code == 201, made.text
    assert made.json() == {**made.json(), "id": guest_id, "username": "ada", "guest": False}
    assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["player"] == guest_id
    assert register(client, "ada", **guest(client)).status_code == 409  # taken, whatever the case
    assert register(client, "other").status_code == 409  # already an account


def test_session_fixation_a_session_does_not_survive_a_sign_in(client: Any) -> None:
    register(client, "bea")
    client.post("/api/account/logout")
    client.get("/api/me")
    planted = client.cookies[COOKIE]  # a session an attacker could have planted in the victim's browser
    assert login(client, "bea").status_code == 200
    signed_in = client.cookies[COOKIE]
    assert signed_in != planted
    client.cookies.set(COOKIE, planted)
    assert client.get("/api/me").json()["username"] is None  # the planted session is gone: a new guest
    client.cookies.set(COOKIE, signed_in)
    assert client.get("/api/me").json()["username"] == "bea"


def test_logout_logout_everywhere_and_password_change_end_sessions(client: Any) -> None:
    session = register(client, "cyd", **{HEADER: guest(client)[HEADER]}).json()["session"]
    second = login(client, "cyd", **{HEADER: guest(client)[HEADER]}).json()["session"]
    third = login(client, "cyd", **{HEADER: guest(client)[HEADER]}).json()["session"]
    for value in (session, second, third):
        assert client.get("/api/me", headers={HEADER: value}).json()["username"] == "cyd"
    assert client.post("/api/account/logout", headers={HEADER: session}).status_code == 200
    assert client.post("/api/account/logout", headers={HEADER: session}).status_code == 401
    wrong = client.post("/api/account/password", json={"current": "nope", "new": "n" * 9}, headers={HEADER: second})
    assert wrong.status_code == 403
    changed = client.post("/api/account/password", json={"current": PASSWORD, "new": "n" * 9}, headers={HEADER: second})
    assert changed.status_code == 200
    renewed = changed.json()["session"]
    assert client.post("/api/account/logout", headers={HEADER: third}).status_code == 401  # ended by the change
    fourth = login(client, "cyd", "n" * 9, **{HEADER: guest(client)[HEADER]}).json()["session"]
    client.cookies.clear()
    assert login(client, "cyd").status_code == 401 and login(client, "cyd", "n" * 9).status_code == 200
    ended = client.post("/api/account/logout-all")  # by the cookie of that last login
    assert ended.status_code == 200 and ended.json()["sessions"] == 3
    for value in (renewed, fourth):
        assert client.post("/api/account/logout", headers={HEADER: value}).status_code == 401
    assert client.get("/api/me").json()["username"] is None


def test_cross_site_state_changes_by_cookie_are_refused(client: Any) -> None:
    table_id, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    client.get("/api/me")
    for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        refused = join(client, table_id, 0, **headers)
        assert refused.status_code == 403 and "another site" in refused.json()["detail"]
        assert client.post("/api/me/name", json={"name": "x"}, headers=headers).status_code == 403
        assert login(client, "nobody", **headers).status_code == 403
    assert not client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"]
    assert join(client, table_id, 0, Origin="http://testserver").status_code == 200


def test_a_socket_from_another_site_is_refused_before_the_handshake(sqlite_url: str) -> None:
    # With LUZ_PUBLIC_URL set, the site is that origin, whatever the Host header says (a proxy may rewrite it).
    settings = Settings(database_url=sqlite_url, bot_workers=0, public_url="https://luz.example")
    with TestClient(create_app(settings), base_url="https://testserver") as client:
        table_id, tokens, _ = create_table(client, players=3)
        assert join(client, table_id, 0, tokens[0]).status_code == 200  # the cookie's guest holds seat 0
        for origin in ("https://evil.example", "https://testserver", "http://luz.example", "null"):
            for query in ("?me=1", f"?token={tokens[0]}", ""):
                with (
                    pytest.raises(WebSocketDisconnect) as refused,
                    client.websocket_connect(f"/ws/tables/{table_id}{query}", headers={"origin": origin}),
                ):
                    pass
                assert refused.value.code == 4403, (origin, query)
        cookie = {"cookie": f"{COOKIE}={client.cookies[COOKIE]}"}  # (the test client's sockets leave Secure ones)
        for origin in ({"origin": "https://luz.example"}, {"origin": "HTTPS://LUZ.EXAMPLE"}, {}):
            with client.websocket_connect(f"/ws/tables/{table_id}?me=1", headers=origin | cookie) as socket:
                assert socket.receive_json()["seat"] == 0
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(f"/ws/tables/{table_id}?me=1", headers={"sec-fetch-site": "cross-site"} | cookie),
        ):
            pass
        assert refused.value.code == 4403
        # The HTTP changes follow the same rule (one function): the public origin, not the Host header.
        assert client.post("/api/me/name", json={"name": "Pat"}, headers={"Origin": "https://luz.example"}).is_success
        refused_http = client.post("/api/me/name", json={"name": "Eve"}, headers={"Origin": "https://testserver"})
        assert refused_http.status_code == 403 and client.get("/api/me").json()["name"] == "Pat"


def test_a_password_is_never_logged_nor_answered(client: Any, caplog: pytest.LogCaptureFixture) -> None:
    secret = "Sw0rdfish-never-shown"
    with caplog.at_level(logging.DEBUG):
        answers = [
            register(client, "dee", secret),
            login(client, "dee", secret),
            login(client, "dee", secret + "x"),
            client.post("/api/account/login", json={"username": "dee", "password": secret, "extra": secret}),
            client.post("/api/account/login", json={"username": secret + "!", "password": secret}),
            client.post("/api/account/password", json={"current": secret, "new": "short"}),
        ]
    assert [a.status_code for a in answers] == [201, 200, 401, 422, 422, 422]
    for answer in answers:
        assert secret not in answer.text and secret not in str(answer.headers)
    assert secret not in caplog.text
    with app_services(client.app).engine.connect() as connection:
        stored = connection.execute(text("SELECT password_hash FROM players WHERE username = 'dee'")).scalar_one()
    assert stored.startswith("$argon2id$") and secret not in stored


def test_login_attempts_are_rate_limited(client: Any) -> None:
    register(client, "eve")
    client.cookies.delete(DEVICE_COOKIE)  # a browser that never logged in to eve
    statuses = [login(client, "eve", "wrong password").status_code for _ in range(LOGIN_ATTEMPTS_PER_MINUTE)]
    assert statuses == [401] * LOGIN_ATTEMPTS_PER_MINUTE
    limited = login(client, "eve")  # even the right password, until the minute is over
    assert limited.status_code == 429 and limited.json()["detail"] == "too many login attempts: wait a minute"
    assert limited.headers["retry-after"] == "60"


def test_the_login_and_guest_limits_lift_when_the_apps_clock_has_moved_past_their_window(sqlite_url: str) -> None:
    """The login limits and the new guests per client run on the app's injected clock: a fake one moved a minute
    on lifts them, nothing sleeps."""
    clock = FakeClock()
    settings = Settings(database_url=sqlite_url, bot_workers=0, guests_per_minute="2/minute")
    with TestClient(create_app(settings, clock)) as client:
        assert register(client, "uma").status_code == 201  # the client's first guest becomes an account
        assert [client.post("/api/me/guest").status_code for _ in range(2)] == [201, 429]
        client.cookies.clear()  # a browser that never logged in to uma: no device cookie
        statuses = [login(client, "uma", "wrong password").status_code for _ in range(LOGIN_ATTEMPTS_PER_MINUTE)]
        assert statuses == [401] * LOGIN_ATTEMPTS_PER_MINUTE
        client.portal.call(clock.advance, 59.5)
        assert login(client, "uma").status_code == 429  # the first attempt is still in the window
        assert client.post("/api/me/guest").status_code == 429
        client.portal.call(clock.advance, 0.5)
        assert login(client, "uma").status_code == 200  # a minute after the first attempt
        assert client.post("/api/me/guest").status_code == 201


def hammer(client: Any, username: str, attempts: int) -> list[int]:
    """An attacker's wrong passwords for ``username``, from a client with no cookie at all."""
    with cookies_apart(client):
        return [login(client, username, "wrong password").status_code for _ in range(attempts)]


@contextlib.contextmanager
def cookies_apart(client: Any) -> Iterator[None]:
    """The client without its cookies meanwhile (another browser), then with them again."""
    saved = list(client.cookies.jar)
    client.cookies.clear()
    try:
        yield
    finally:
        client.cookies.clear()
        for cookie in saved:
            client.cookies.jar.set_cookie(cookie)


def test_an_attacker_does_not_lock_out_a_browser_that_logged_in_before(client: Any) -> None:
    """The reproduction of the issue: an attacker's wrong passwords for a username locked its owner out, who got 429
    with the right password. A browser that logged in to the account before carries a device cookie for it, and
    its attempts count on that cookie alone (OWASP's device cookies)."""
    register(client, "fay")
    client.post("/api/account/logout")
    signed_in = login(client, "fay")
    assert signed_in.status_code == 200
    device = next(c for c in signed_in.headers.get_list("set-cookie") if c.startswith(f"{DEVICE_COOKIE}="))
    assert "HttpOnly" in device and "SameSite=strict" in device and f"Path={DEVICE_PATH}" in device
    assert "Secure" not in device  # an http:// site (see the next test for https)
    client.post("/api/account/logout")  # the device cookie stays: it is no session
    statuses = hammer(client, "fay", LOGIN_ATTEMPTS_PER_MINUTE + 5)
    assert statuses == [401] * LOGIN_ATTEMPTS_PER_MINUTE + [429] * 5
    before = client.cookies[DEVICE_COOKIE]
    again = login(client, "fay")  # the owner's browser, with the right password
    assert again.status_code == 200 and again.json()["username"] == "fay"
    assert client.cookies[DEVICE_COOKIE] != before  # a new nonce with each login
    # Without a device cookie for fay, attempts still meet the limits of the username and of the address.
    assert hammer(client, "fay", 1) == [429]
    with cookies_apart(client):
        assert login(client, "fay").status_code == 429  # the right password, from a browser fay never used
        register(client, "gil")  # a device cookie for another account does not help
        assert DEVICE_COOKIE in client.cookies and login(client, "fay").status_code == 429
        from itsdangerous import URLSafeSerializer

        forged = URLSafeSerializer("another key", salt="luz-device").dumps({"fay": "n" * 22})
        client.cookies.clear()
        client.cookies.set(DEVICE_COOKIE, forged)
        assert login(client, "fay").status_code == 429  # nor does one the server did not sign
    assert login(client, "fay").status_code == 200  # the owner's browser still


def test_a_device_cookie_has_a_small_limit_of_its_own(client: Any) -> None:
    register(client, "hal")
    client.post("/api/account/logout")
    # Registering trusts this browser too; past its own limit the cookie counts for nothing this minute, and the
    # attempts go to the username's and the address's limits (the attacker with a stolen cookie gains little).
    statuses = [login(client, "hal", "wrong password").status_code for _ in range(LOGIN_ATTEMPTS_PER_DEVICE)]
    assert statuses == [401] * LOGIN_ATTEMPTS_PER_DEVICE
    assert hammer(client, "hal", LOGIN_ATTEMPTS_PER_MINUTE) == [401] * LOGIN_ATTEMPTS_PER_MINUTE
    assert login(client, "hal").status_code == 429


def test_a_browser_remembers_its_newest_accounts(client: Any) -> None:
    names = ["ida", "jon", "kim", "lea", "max"]
    for name in names:
        register(client, name)
        client.post("/api/account/logout")
    assert login(client, "max").status_code == 200  # the newest four of five kept: max, lea, kim, jon
    for name in names:
        hammer(client, name, LOGIN_ATTEMPTS_PER_MINUTE)
    assert [login(client, name).status_code for name in names] == [429, 200, 200, 200, 200]


def test_the_device_cookie_is_secure_on_an_https_site(sqlite_url: str) -> None:
    from fastapi.testclient import TestClient

    settings = Settings(database_url=sqlite_url, bot_workers=0, public_url="https://luz.example")
    with TestClient(create_app(settings), base_url="https://testserver") as secure:
        made = register(secure, "ned")
        assert made.status_code == 201
        [device] = [c for c in made.headers.get_list("set-cookie") if c.startswith(f"{DEVICE_COOKIE}=")]
        assert "Secure" in device and "HttpOnly" in device


def test_a_guest_cannot_act_as_another(client: Any) -> None:
    one = guest(client)[HEADER]
    other_id = client.get("/api/me", headers={HEADER: one}).json()["id"]
    # The session's secret without the server's signature, or signed by another key, is nobody.
    from itsdangerous import URLSafeSerializer

    raw_secret = URLSafeSerializer("x", salt="luz-session").loads_unsafe(one)[1]
    forged = URLSafeSerializer("not the server's key", salt="luz-session").dumps(raw_secret)
    for value in (raw_secret, forged, one + "x"):
        assert client.post("/api/account/logout", headers={HEADER: value}).status_code == 401
        client.cookies.clear()
        assert client.get("/api/me", headers={HEADER: value}).json()["id"] != other_id


def test_the_migration_keeps_the_tables_and_records_stored_before(database_url: str) -> None:
    from luz.server.db import make_engine, migrate

    engine = make_engine(database_url)
    try:
        migrate_to(engine, "0002")
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO tables (id, name, edition, players, options, public, grace_seconds, status, game_no,"
                    " version, created_at, hints) VALUES ('t1', 'old', 'iello-2024', 3, '{}', true, 30, 'playing', 1,"
                    " 4, CURRENT_TIMESTAMP, false)"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO seats (table_id, seat, kind, bot, name, token_hash, joined) VALUES"
                    " ('t1', 0, 'human', NULL, 'Old Ann', 'abc', true), ('t1', 1, 'bot', 'random', NULL, NULL, true)"
                )
            )
            connection.execute(
                text("INSERT INTO games (table_id, game_no, seed, started_at) VALUES ('t1', 1, 7, CURRENT_TIMESTAMP)")
            )
            connection.execute(
                text(
                    "INSERT INTO actions (table_id, game_no, seq, seat, action, created_at)"
                    " VALUES ('t1', 1, 1, 0, 'b1', CURRENT_TIMESTAMP)"
                )
            )
        migrate(engine)
        with engine.connect() as connection:
            seats_after = connection.execute(
                text("SELECT seat, kind, name, token_hash, joined, player_id FROM seats ORDER BY seat")
            ).all()
            assert [tuple(row) for row in seats_after] == [
                (0, "human", "Old Ann", "abc", True, None),
                (1, "bot", None, None, True, None),
            ]
            assert connection.execute(text("SELECT seed FROM games")).scalar_one() == 7
            assert connection.execute(text("SELECT action FROM actions")).scalar_one() == "b1"
            assert connection.execute(text("SELECT name, version FROM tables")).one() == ("old", 4)
    finally:
        engine.dispose()


def guests_stored(client: Any) -> set[str]:
    with app_services(client.app).engine.connect() as connection:
        return set(connection.execute(text("SELECT id FROM players WHERE username IS NULL")).scalars())


def test_unused_guests_are_pruned_and_their_cookie_gets_a_new_guest(client: Any) -> None:
    """Guests were stored rows never deleted: those nothing uses go once unseen for a while, a bounded batch at a
    time; a seat, a block or an account keeps an identity."""
    players = app_services(client.app).identities.players
    me = client.get("/api/me").json()["id"]  # the cookie's guest: nothing uses it
    seated, blocker, talker, account = (guest(client) for _ in range(4))
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
    assert join(client, table_id, 0, tokens[0], **seated).status_code == 200
    seated_id = client.get("/api/me", headers=seated).json()["id"]
    assert client.put(f"/api/players/{seated_id}/block", headers=blocker).status_code == 200
    with cookies_apart(client):  # the register's answer sets the account's cookie too
        made = register(client, "oli", **account)
    assert made.status_code == 201
    account = {HEADER: made.json()["session"]}  # a new session (the guest's ended)
    assert client.post("/api/me/name", json={"name": "Talker"}, headers=talker).status_code == 200
    with Peer(client, table_id, None, None, None, headers=talker) as spectator:
        assert spectator.request({"type": "chat", "text": "hello"})["type"] == "ack"
    unused = {me, client.get("/api/me", headers=talker).json()["id"]}
    unused |= {client.get("/api/me", headers=guest(client)).json()["id"] for _ in range(3)}
    kept = {seated_id, client.get("/api/me", headers=blocker).json()["id"]}
    assert guests_stored(client) == unused | kept

    assert players.prune_guests(datetime.now(UTC) - timedelta(days=1)) == 0  # all of them made just now
    later = datetime.now(UTC) + timedelta(seconds=1)  # as if they had all been unseen since
    assert players.prune_guests(later, limit=2) == 2
    assert players.prune_guests(later) == len(unused) - 2
    assert guests_stored(client) == kept
    assert players.prune_guests(later) == 0
    with app_services(client.app).engine.connect() as connection:
        said = connection.execute(text("SELECT player_id, name, text FROM chat")).one()
    assert tuple(said) == (None, "Talker", "hello")  # the words stay, under their name
    again = client.get("/api/me")  # the pruned guest's cookie: a new guest
    assert again.status_code == 200 and again.json()["id"] != me and COOKIE in again.headers["set-cookie"]
    assert client.get("/api/me", headers=account).json()["username"] == "oli"


def test_the_server_prunes_unused_guests_on_its_own(sqlite_url: str) -> None:
    from fastapi.testclient import TestClient

    settings = Settings(database_url=sqlite_url, bot_workers=0, guest_days=2 / 86400)  # two seconds
    with TestClient(create_app(settings)) as client:
        made = {client.get("/api/me", headers=guest(client)).json()["id"] for _ in range(3)}
        assert made <= guests_stored(client)
        wait_for(lambda: not made & guests_stored(client), timeout=60)
        assert app_services(client.app).tables.pruned >= len(made)
