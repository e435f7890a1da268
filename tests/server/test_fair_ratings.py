"""Fair ratings and seats (docs/PROTOCOL.md, "Fair play"): a rated game left or lost to the clock in its first
deal is rated for nobody; later, whoever leaves ranks last; rated seats need an account old enough or with
finished games; one seat per client address at public and rated tables, through any identity; new accounts per
address limited. Each attack of issue 24 is a test here (each failed before the fix). SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text, update

from luz.server import Settings, app_services, create_app
from luz.server.db import PlayerRow
from luz.server.ratings import places_of
from support.server import Peer, Truth, create_table, from_address, guest, play, seats

HEADER = "X-Luz-Session"
ELSEWHERE = ("198.51.100.7", 50000)
"""Another client address than the test client's."""


@contextmanager
def app_with(settings: Settings, **policy: Any) -> Iterator[TestClient]:
    with TestClient(create_app(replace(settings, **policy))) as client:
        yield client


@pytest.fixture
def fair(settings: Settings) -> Callable[..., Any]:
    """A test client of an app with the fair-play policies given (off by default, as in the other tests)."""
    return lambda **policy: app_with(settings, **policy)


def account(http: Any, username: str) -> tuple[dict[str, str], str]:
    registered = http.post(
        "/api/account/register", json={"username": username, "password": "correct horse"}, headers=guest(http)
    )
    assert registered.status_code == 201, registered.text
    return {HEADER: registered.json()["session"]}, registered.json()["id"]


def join(http: Any, table_id: str, seat: int, headers: dict[str, str] | None, token: str | None = None) -> Any:
    body: dict[str, Any] = {"name": f"player {seat}"}
    if token is not None:
        body["token"] = token
    return http.post(f"/api/tables/{table_id}/seats/{seat}/join", json=body, headers=headers or {})


def rating_changes(http: Any) -> list[tuple[Any, ...]]:
    with app_services(http.app).engine.connect() as connection:
        return [tuple(r) for r in connection.execute(text("SELECT player_id, place FROM rating_changes"))]


def game_row(http: Any, table_id: str) -> tuple[Any, ...]:
    with app_services(http.app).engine.connect() as connection:
        return tuple(
            connection.execute(
                text("SELECT unrated, unrated_seat FROM games WHERE table_id = :t AND game_no = 1"), {"t": table_id}
            ).one()
        )


def second_deal(state: dict[str, Any]) -> bool:
    return state["view"] is not None and state["view"]["deal_number"] >= 2


def test_the_farming_attack_a_second_account_leaving_at_once_rates_nobody(client: Any, truth: Truth) -> None:
    """Issue 24: two accounts at a rated table, the second leaves at once; the first finished last on points and
    still went from 1500 to 1658. Now the game is unrated for everyone, and everyone is told who left."""
    table_id, tokens, _ = create_table(
        client, players=3, rated=True, seats=seats("human", "human", "random"), options={"first_player": 0}
    )
    farmer, _ = account(client, "farmer")
    helper, _ = account(client, "helper")
    assert join(client, table_id, 0, farmer, tokens[0]).status_code == 200
    assert join(client, table_id, 1, helper, tokens[1]).status_code == 200
    with Peer(client, table_id, tokens[0], 0, truth) as plays, Peer(client, table_id, None, None, truth) as watches:
        plays.wait_state(lambda s: s["table"]["status"] == "playing")
        left = client.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[1]}"})
        assert left.status_code == 200
        assert left.json()["unrated"] == {"reason": "left", "seat": 1}
        for peer in (plays, watches):  # a seat and a spectator are told
            peer.wait_state(lambda s: s["table"]["unrated"] == {"reason": "left", "seat": 1})
        final = play([plays])
    assert final["table"]["status"] == "over" and final["table"]["unrated"] == {"reason": "left", "seat": 1}
    assert rating_changes(client) == [], "nobody is rated: the game was aborted in its first deal"
    assert game_row(client, table_id) == ("left", 1)
    answer = client.get(f"/api/tables/{table_id}/ratings").json()
    assert answer["unrated"] == {"reason": "left", "seat": 1} and answer["changes"] == [None, None, None]
    assert client.get(f"/api/tables/{table_id}").json()["unrated"] == {"reason": "left", "seat": 1}


def test_a_seat_taken_over_after_its_grace_in_the_first_deal_rates_nobody(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(
        client, players=3, rated=True, seats=seats("human", "human", "random"), grace_seconds=0.2
    )
    for seat, name in ((0, "gone"), (1, "stays")):
        headers, _ = account(client, name)
        assert join(client, table_id, seat, headers, tokens[seat]).status_code == 200
    with Peer(client, table_id, tokens[1], 1, truth) as stays:
        Peer(client, table_id, tokens[0], 0, truth).__enter__().close()  # connected once, then gone
        # Marked with the first move the bot plays for the seat (in the same transaction), told to everyone.
        marked = play([stays], until=lambda s: s["table"]["unrated"] is not None)
        assert marked["table"]["unrated"] == {"reason": "left", "seat": 0}
        assert marked["view"]["deal_number"] == 1
        play([stays])
    assert rating_changes(client) == []
    assert game_row(client, table_id) == ("left", 0)


def test_a_timeout_in_the_first_deal_rates_nobody(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(
        client,
        players=3,
        rated=True,
        seats=seats("human", "human", "random"),
        options={"first_player": 0},
        time_control={"reserve_seconds": 1},
    )
    for seat, name in ((0, "slow"), (1, "quick")):
        headers, _ = account(client, name)
        assert join(client, table_id, seat, headers, tokens[seat]).status_code == 200
    with Peer(client, table_id, tokens[0], 0, truth) as slow:
        stated = slow.wait_state(lambda s: s["table"]["unrated"] is not None, timeout=20)
        assert stated["table"]["unrated"] == {"reason": "timeout", "seat": 0}
    assert game_row(client, table_id) == ("timeout", 0)


def test_after_the_first_deal_whoever_leaves_is_last_and_the_others_rated_by_places(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(
        client, players=4, rated=True, seats=seats("human", "human", "human", "random"), options={"first_player": 0}
    )
    ids = []
    for seat in range(3):
        home = from_address(client, f"203.0.113.{seat + 1}")  # one client each: rated together
        headers, player = account(home, f"late{seat}")
        assert join(home, table_id, seat, headers, tokens[seat]).status_code == 200
        ids.append(player)
    with (
        Peer(client, table_id, tokens[0], 0, truth) as zero,
        Peer(client, table_id, tokens[1], 1, truth) as one,
        Peer(client, table_id, tokens[2], 2, truth) as two,
    ):
        play([zero, one, two], until=second_deal)
        left = client.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[0]}"})
        assert left.status_code == 200 and left.json()["unrated"] is None
        final = play([one, two])
    ranking = final["view"]["outcome"]["ranking"]
    places = dict(rating_changes(client))
    assert places[ids[0]] == 3, "the leaver is last, whatever its points"
    stayed = sorted((1, 2), key=ranking.index)
    assert [places[ids[seat]] for seat in stayed] == [1, 2], "the others by their places"
    changes = client.get(f"/api/tables/{table_id}/ratings").json()["changes"]
    assert changes[3] is None and all(c["after"] - c["before"] == c["change"] for c in changes[:3])
    assert changes[0]["change"] < 0
    profile = client.get(f"/api/players/{ids[0]}").json()
    assert profile["games"][0]["rating"] == changes[0]


def test_places_put_the_leaver_last_even_with_the_best_points() -> None:
    results: list[dict[str, Any]] = [
        {"player_id": "leaver", "rank": 1, "kind": "human", "abandoned": True},
        {"player_id": None, "rank": 2, "kind": "bot", "abandoned": False},
        {"player_id": "a", "rank": 3, "kind": "human", "abandoned": False},
        {"player_id": "b", "rank": 4, "kind": "human", "abandoned": False},
    ]
    assert places_of(results) == {"a": 1, "b": 2, "leaver": 3}


def test_a_rated_seat_needs_an_account_old_enough_or_finished_games(fair: Any) -> None:
    with fair(rated_min_account_hours=24, rated_min_games=2) as http:
        table_id, tokens, _ = create_table(http, players=3, rated=True, seats=seats("human", "human", "random"))
        young, young_id = account(http, "young")
        refused = join(http, table_id, 0, young, tokens[0])
        assert refused.status_code == 403 and refused.json()["code"] == "account_too_new"
        assert "24 hours" in refused.json()["detail"] and "2 games" in refused.json()["detail"]
        # An unrated table takes it.
        casual, casual_tokens, _ = create_table(http, players=3, seats=seats("human", "random", "random"))
        assert join(http, casual, 0, young, casual_tokens[0]).status_code == 200
        # A day old: it may.
        with app_services(http.app).engine.begin() as connection:
            connection.execute(
                update(PlayerRow)
                .where(PlayerRow.id == young_id)
                .values(created_at=datetime.now(UTC) - timedelta(hours=25))
            )
        assert join(http, table_id, 0, young, tokens[0]).status_code == 200
        # Or with finished games: each finished at its seat with another human (of another client) who finished.
        player, player_id = account(http, "player")
        _, partner_id = account(TestClient(http.app, client=ELSEWHERE), "partner")
        _, own_id = account(http, "own")  # another account of the player's own client
        results(http, casual, 1, [(player_id, False), (own_id, False)])  # with its own other account: not counted
        results(http, casual, 2, [(player_id, False), (partner_id, True)])  # the other left: not counted
        results(http, casual, 3, [(player_id, True), (partner_id, False)])  # it left: not counted
        refused = join(http, table_id, 1, player, tokens[1])
        assert refused.status_code == 403 and refused.json()["code"] == "account_too_new"
        results(http, casual, 4, [(player_id, False), (partner_id, False)])
        results(http, casual, 5, [(player_id, False), (partner_id, False)])
        assert join(http, table_id, 1, player, tokens[1]).status_code == 200


def results(http: Any, table_id: str, game: int, seated: list[tuple[str, bool]]) -> None:
    """Store a finished game's results: each (player, whether it abandoned) at seats 0, 1, ...; a bot after them."""
    rows = [(seat, player, "human", abandoned) for seat, (player, abandoned) in enumerate(seated)]
    rows.append((len(seated), None, "bot", False))
    with app_services(http.app).engine.begin() as connection:
        for seat, player, kind, abandoned in rows:
            connection.execute(
                text(
                    "INSERT INTO results (table_id, game_no, seat, player_id, kind, name, rank, points, deals,"
                    " exact_bids, safeties, against_bots, abandoned, finished_at) VALUES (:t, :g, :s, :p, :k,"
                    " 'Pat', :r, 10, 1, 0, 0, TRUE, :a, :at)"
                ),
                {
                    "t": table_id,
                    "g": game,
                    "s": seat,
                    "p": player,
                    "k": kind,
                    "r": seat + 1,
                    "a": abandoned,
                    "at": datetime.now(UTC),
                },
            )


def test_one_seat_per_address_at_a_public_table_through_any_identity(fair: Any) -> None:
    """Issue 24: two guest sessions from one address took two seats of a public table."""
    with fair(seats_per_address=1) as http:
        table_id, _, _ = create_table(http, players=3, seats=seats("human", "human", "human"))
        assert join(http, table_id, 0, guest(http)).status_code == 200
        second = join(http, table_id, 1, guest(http))
        assert second.status_code == 409 and second.json()["code"] == "one_seat_per_address"
        assert "one seat per address" in second.json()["detail"]
        elsewhere = TestClient(http.app, client=ELSEWHERE)
        assert join(elsewhere, table_id, 1, guest(elsewhere)).status_code == 200
        seated = http.get(f"/api/tables/{table_id}").json()["seats"]
        assert [s["joined"] for s in seated] == [True, True, False]
        with app_services(http.app).engine.connect() as connection:
            stored = connection.execute(text("SELECT client FROM seats WHERE table_id = :t"), {"t": table_id}).all()
        hashes = [c for (c,) in stored if c is not None]
        assert len(hashes) == 2 and len(set(hashes)) == 2
        assert not any("testclient" in h or "198.51" in h for h in hashes), "a keyed hash, never the address"


def test_one_seat_per_address_at_a_rated_table_even_by_invite(fair: Any) -> None:
    with fair(seats_per_address=1) as http:
        table_id, tokens, _ = create_table(
            http, players=3, public=False, rated=True, seats=seats("human", "human", "random")
        )
        first, _ = account(http, "first")
        second, _ = account(http, "second")
        assert join(http, table_id, 0, first, tokens[0]).status_code == 200
        refused = join(http, table_id, 1, second, tokens[1])
        assert refused.status_code == 409 and refused.json()["code"] == "one_seat_per_address"


def test_a_private_unrated_table_lets_friends_behind_one_address_play(fair: Any) -> None:
    with fair(seats_per_address=1) as http:
        table_id, tokens, _ = create_table(http, players=3, public=False, seats=seats("human", "human", "human"))
        for seat in range(3):
            assert join(http, table_id, seat, guest(http), tokens[seat]).status_code == 200
        assert http.get(f"/api/tables/{table_id}").json()["status"] == "playing"


def test_a_client_without_cookies_gets_one_seat_of_a_public_table(fair: Any, truth: Truth) -> None:
    """Issue 24: a client sending no cookie took all three seats (each join made a new guest), and through the
    other seats read its own hidden hand. Now its second join is refused: one seat per address."""
    with fair(seats_per_address=1) as http:
        table_id, _, _ = create_table(http, players=3, seats=seats("human", "human", "human"))
        answers = []
        for seat in range(3):
            http.cookies.clear()
            answers.append(join(http, table_id, seat, None))
        assert [a.status_code for a in answers] == [200, 409, 409]
        assert all(a.json()["code"] == "one_seat_per_address" for a in answers[1:])
        assert [s["joined"] for s in http.get(f"/api/tables/{table_id}").json()["seats"]] == [True, False, False]


def test_a_seat_given_up_before_the_game_frees_its_address(fair: Any) -> None:
    with fair(seats_per_address=1) as http:
        table_id, _, _ = create_table(http, players=3, seats=seats("human", "human", "human"))
        first = join(http, table_id, 0, guest(http))
        assert first.status_code == 200
        left = http.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {first.json()['token']}"})
        assert left.status_code == 200
        assert join(http, table_id, 1, guest(http)).status_code == 200


def test_new_accounts_per_address_are_limited(fair: Any) -> None:
    with fair(accounts_per_address="2/day") as http:
        account(http, "one")
        http.cookies.clear()
        taken = http.post(
            "/api/account/register", json={"username": "one", "password": "correct horse"}, headers=guest(http)
        )
        assert taken.status_code == 409, "a taken name does not count"
        account(http, "two")
        http.cookies.clear()
        refused = http.post(
            "/api/account/register", json={"username": "three", "password": "correct horse"}, headers=guest(http)
        )
        assert refused.status_code == 429 and "accounts" in refused.json()["detail"]
        assert 0 < int(refused.headers["retry-after"]) <= 24 * 3600
        elsewhere = TestClient(http.app, client=ELSEWHERE)
        assert (
            elsewhere.post(
                "/api/account/register",
                json={"username": "three", "password": "correct horse"},
                headers=guest(elsewhere),
            ).status_code
            == 201
        )
