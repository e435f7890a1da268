"""Ratings: a rated table takes accounts only; each finished game updates its human players' OpenSkill ratings
once (bots play, unrated; whoever abandoned is last), shown on profiles, the leaderboard and at the table."""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, text
from sqlalchemy.exc import IntegrityError

from luz.server import Settings, app_services, create_app
from luz.server.clock import FakeClock
from luz.server.db import PlayerRow
from luz.server.ratings import PROVISIONAL_GAMES, SCALE, places_of, rate_game
from support.server import Peer, Truth, create_table, from_address, guest, play, seats

HEADER = "X-Luz-Session"


def account(http: Any, username: str) -> tuple[dict[str, str], str]:
    """The header of a new account, and its player id."""
    registered = http.post(
        "/api/account/register", json={"username": username, "password": "correct horse"}, headers=guest(http)
    )
    assert registered.status_code == 201, registered.text
    return {HEADER: registered.json()["session"]}, registered.json()["id"]


def rated_table(
    http: Any, names: tuple[str, ...] = ("ann", "bob"), **spec: Any
) -> tuple[str, dict[int, str], list[str]]:
    """A rated 3-player table of two accounts (seats 0 and 1) and a bot, both joined, each from an address of its
    own (identities of one client exchange no rating: links.py); the players' ids."""
    table_id, tokens, answer = create_table(
        http, players=3, rated=True, seats=seats("human", "human", "random"), options={"first_player": 0}, **spec
    )
    assert answer["table"]["rated"] is True
    ids = []
    for seat, name in enumerate(names):
        home = from_address(http, f"203.0.113.{seat + 1}")
        headers, player = account(home, name)
        joined = home.post(
            f"/api/tables/{table_id}/seats/{seat}/join",
            json={"name": name.title(), "token": tokens[seat]},
            headers=headers,
        )
        assert joined.status_code == 200, joined.text
        ids.append(player)
    return table_id, tokens, ids


def rating_rows(http: Any) -> list[tuple[Any, ...]]:
    with app_services(http.app).engine.connect() as connection:
        return [
            tuple(row)
            for row in connection.execute(
                text("SELECT player_id, edition, players, games FROM ratings ORDER BY player_id")
            )
        ]


def changes(http: Any) -> list[tuple[Any, ...]]:
    with app_services(http.app).engine.connect() as connection:
        return [
            tuple(row)
            for row in connection.execute(
                text(
                    "SELECT table_id, game_no, player_id, place, mu_before, mu_after FROM rating_changes"
                    " ORDER BY game_no, player_id"
                )
            )
        ]


def test_a_rated_game_rates_its_accounts_once_and_shows_it(settings: Settings) -> None:
    """The tables' timers on a fake clock: once the games are over, an hour passes in an instant and whatever a
    timer or a bot hands in has been processed (``Registry.settled``) before the ratings are read again."""
    clock = FakeClock()
    with TestClient(create_app(settings, clock)) as client:
        rates_once(client, Truth(app_services(client.app).tables.store), clock)


def rates_once(client: Any, truth: Truth, clock: FakeClock) -> None:
    table_id, tokens, (ann, bob) = rated_table(client)
    with Peer(client, table_id, tokens[0], 0, truth) as zero, Peer(client, table_id, tokens[1], 1, truth) as one:
        final = play([zero, one])
        assert final["table"]["status"] == "over"
        outcome = final["view"]["outcome"]
        # The humans' places among themselves: the bot's place is taken out.
        first = ann if outcome["ranking"].index(0) < outcome["ranking"].index(1) else bob
        assert rating_rows(client) == sorted([(ann, "iello-2024", 3, 1), (bob, "iello-2024", 3, 1)])
        rows = {
            player: (place, before, after) for _, game, player, place, before, after in changes(client) if game == 1
        }
        assert set(rows) == {ann, bob}, "a row per human, none for the bot"
        assert rows[first][0] == 1 and rows[first][2] > rows[first][1]
        loser = bob if first == ann else ann
        assert rows[loser][0] == 2 and rows[loser][2] < rows[loser][1]

        # The next game is rated too, once (a rematch: offered by one, accepted by the other).
        zero.request({"type": "next_game"})
        one.request({"type": "rematch", "accept": True})
        play([zero, one], until=lambda s: s["table"]["status"] == "over" and s["table"]["game_no"] == 2)
    client.portal.call(clock.advance, 3600)  # every timer of the next hour rings now (a rematch offer's end...)
    client.portal.call(app_services(client.app).tables.settled)  # and what they handed in is done: nothing written late
    assert rating_rows(client) == sorted([(ann, "iello-2024", 3, 2), (bob, "iello-2024", 3, 2)])
    assert len(changes(client)) == 4

    profile = client.get(f"/api/players/{first}").json()
    [rating] = profile["ratings"]
    assert rating["edition"] == "iello-2024" and rating["players"] == 3 and rating["games"] == 2
    assert rating["provisional"] is True and PROVISIONAL_GAMES > 2
    game_one = next(g for g in profile["games"] if g["game"] == 1)
    _, before, after = rows[first]
    assert game_one["rating_change"] == round(SCALE * after) - round(SCALE * before) > 0

    board = client.get("/api/leaderboard", params={"edition": "iello-2024", "players": 3}).json()
    assert {e["player"] for e in board["ranking"]} == {ann, bob}
    assert [e["rating"] for e in board["ranking"]] == sorted((e["rating"] for e in board["ranking"]), reverse=True)
    assert {"edition": "iello-2024", "players": 3, "rated": 2} in board["pools"]
    assert client.get("/api/leaderboard", params={"edition": "iello-2024", "players": 4}).json()["ranking"] == []
    assert client.get("/api/leaderboard", params={"edition": "nope"}).status_code == 422

    at_table = client.get(f"/api/tables/{table_id}/ratings").json()["seats"]
    assert at_table[2] is None, "a bot has no rating"
    assert [s["rating"] for s in at_table[:2]] == [
        next(e["rating"] for e in board["ranking"] if e["player"] == p) for p in (ann, bob)
    ]
    assert client.get("/api/tables/0000000000000000/ratings").status_code == 404


def test_a_guest_is_refused_a_seat_at_a_rated_table_with_a_typed_error(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, rated=True, seats=seats("human", "random", "random"))
    for body in ({"name": "Gus", "token": tokens[0]}, {"name": "Gus"}):
        refused = client.post(f"/api/tables/{table_id}/seats/0/join", json=body, headers=guest(client))
        assert refused.status_code == 403
        assert refused.json()["code"] == "account_required" and "account" in refused.json()["detail"]
    assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"] is False
    headers, _ = account(client, "carol")
    assert client.post(f"/api/tables/{table_id}/seats/0/join", json={"name": "C"}, headers=headers).status_code == 200


def test_an_unrated_table_rates_nobody(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "random"))
    headers, _ = account(client, "dora")
    assert (
        client.post(f"/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, headers=headers).status_code
        == 200
    )
    with Peer(client, table_id, tokens[0], 0, truth) as zero:
        play([zero])
    assert rating_rows(client) == [] and changes(client) == []


def second_deal(state: dict[str, Any]) -> bool:
    """Whether the first deal is over (leaving from then on no longer makes the game unrated: test_fair_ratings)."""
    return state["view"] is not None and state["view"]["deal_number"] >= 2


def test_whoever_abandoned_alone_leaves_the_game_rated_for_nobody(client: Any, truth: Truth) -> None:
    """Seat 0 leaves after the first deal; a bot plays it after the grace period to the end. Its player counts as
    abandoned, and with one human left to finish it the game is rated for nobody (issue 36: an accomplice who
    left in the second deal handed the other account a win)."""
    table_id, tokens, (ann, bob) = rated_table(client, ("erin", "finn"), grace_seconds=0.2)
    with Peer(client, table_id, tokens[1], 1, truth) as stays:
        leaves = Peer(client, table_id, tokens[0], 0, truth).__enter__()
        play([leaves, stays], until=second_deal)
        leaves.close()
        stays.wait_state(lambda s: s["table"]["seats"][0]["bot_playing"], timeout=5)
        final = play([stays])
    assert final["table"]["seats"][0]["bot_playing"]
    assert final["table"]["unrated"] == {"reason": "alone", "seat": 0}
    with app_services(client.app).engine.connect() as connection:
        assert connection.execute(text("SELECT seat, abandoned FROM results ORDER BY seat")).all() == [
            (0, True),
            (1, False),
            (2, False),
        ]
    assert changes(client) == [] and rating_rows(client) == []
    for player in (ann, bob):  # the game is on both profiles, with no rating change
        [game] = client.get(f"/api/players/{player}").json()["games"]
        assert game["rating"] is None and game["abandoned"] is (player == ann)


def test_leaving_the_table_counts_as_abandoning(client: Any, truth: Truth) -> None:
    table_id, tokens, (ann, bob) = rated_table(client, ("ivan", "jade"))
    with Peer(client, table_id, tokens[1], 1, truth) as stays:
        with Peer(client, table_id, tokens[0], 0, truth) as leaves:
            play([leaves, stays], until=second_deal)
        left = client.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[0]}"})
        assert left.status_code == 200 and left.json()["seats"][0]["joined"] is False
        play([stays])
    assert changes(client) == []
    board = client.get("/api/leaderboard", params={"edition": "iello-2024", "players": 3}).json()["ranking"]
    assert not {ann, bob} & {entry["player"] for entry in board}
    answer = client.get(f"/api/tables/{table_id}/ratings").json()
    assert answer["unrated"] == {"reason": "alone", "seat": 0} and answer["changes"] == [None, None, None]


def test_a_game_is_rated_at_most_once(client: Any, truth: Truth) -> None:
    table_id, tokens, (ann, bob) = rated_table(client, ("gail", "hugo"))
    with Peer(client, table_id, tokens[0], 0, truth) as zero, Peer(client, table_id, tokens[1], 1, truth) as one:
        play([zero, one])
    results = [
        {"kind": "human", "player_id": ann, "rank": 1, "abandoned": False},
        {"kind": "human", "player_id": bob, "rank": 2, "abandoned": False},
    ]
    with pytest.raises(IntegrityError), app_services(client.app).engine.begin() as connection:
        rate_game(connection, table_id, 1, "iello-2024", 3, results)
    assert [row[3] for row in rating_rows(client)] == [1, 1]


def test_games_rated_at_once_lose_no_update_and_ratings_stop_being_provisional(client: Any) -> None:
    """Twelve games rated by four threads at once (PostgreSQL: concurrent transactions locking the same rating
    rows), each with the same player: none of its updates is lost, and after 10 games it is no longer
    provisional."""
    engine = app_services(client.app).engine
    ids = [secrets.token_hex(8) for _ in range(5)]
    with engine.begin() as connection:
        connection.execute(
            insert(PlayerRow),
            [
                {"id": p, "name": f"P{n}", "username": f"p{n}-{p[:6]}", "created_at": datetime.now(UTC)}
                for n, p in enumerate(ids)
            ],
        )

    def rate(number: int) -> None:
        seated = [ids[0], ids[1 + number % 4], ids[1 + (number + 1) % 4]]
        results = [
            {"player_id": p, "kind": "human", "rank": rank, "abandoned": False} for rank, p in enumerate(seated, 1)
        ]
        with engine.begin() as connection:
            rate_game(connection, f"c{number}", 1, "korokorodou-2014", 3, results)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(rate, range(12)))
    board = client.get("/api/leaderboard", params={"edition": "korokorodou-2014", "players": 3}).json()["ranking"]
    games = {entry["player"]: (entry["games"], entry["provisional"]) for entry in board}
    assert games == {ids[0]: (12, False), **{p: (6, True) for p in ids[1:]}}
    assert board[0]["player"] == ids[0], "the established rating is listed first"
    # Each update started from the one before it (no two read the same rating): the changes form one chain.
    with engine.connect() as connection:
        steps = connection.execute(
            text("SELECT mu_before, mu_after FROM rating_changes WHERE player_id = :p"), {"p": ids[0]}
        ).all()
        final = connection.execute(text("SELECT mu FROM ratings WHERE player_id = :p"), {"p": ids[0]}).scalar_one()
    befores, afters = {b for b, _ in steps}, {a for _, a in steps}
    assert len(befores) == 12 and befores - afters == {25.0} and afters - befores == {final}


def test_places_take_bots_out_keep_ties_and_put_abandoners_last() -> None:
    def result(player: str | None, rank: int, kind: str = "human", abandoned: bool = False) -> dict[str, Any]:
        return {"player_id": player, "rank": rank, "kind": kind, "abandoned": abandoned}

    assert places_of([result(None, 1, "bot"), result("a", 2), result("b", 3)]) == {"a": 1, "b": 2}
    assert places_of([result("a", 1), result("b", 1), result("c", 3)]) == {"a": 1, "b": 1, "c": 3}
    assert places_of([result("a", 1, abandoned=True), result("b", 2), result("c", 3, abandoned=True)]) == {
        "b": 1,
        "a": 2,
        "c": 2,
    }
    assert places_of([result("a", 1), result(None, 2, "bot")]) == {"a": 1}
