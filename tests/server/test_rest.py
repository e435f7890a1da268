"""The HTTP API: tables, invites, the lobby, joining and leaving, the record (on SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import create_engine

from luz.engine import EDITIONS, replay
from luz.server import app_services
from luz.server.health import DatabaseHealth
from support.server import create_table, guest, join_all, seats, wait_for


def test_healthz(client: Any) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_healthz_says_when_the_database_stops_answering(client: Any) -> None:
    app = client.app
    answering = DatabaseHealth(app_services(app).engine, interval=0.05, stale_after=0.5)
    # A database that never answers: nothing listens on port 9.
    silent = create_engine("postgresql+psycopg://luz@127.0.0.1:9/luz", connect_args={"connect_timeout": 1})
    down = DatabaseHealth(silent, interval=0.05, stale_after=0.5)
    kept = app_services(app).database_health
    try:
        app_services(app).database_health = answering
        wait_for(lambda: answering.pings > 20, timeout=30)  # past its first 0.5 s: its pings keep it fresh
        assert client.get("/healthz").json() == {"status": "ok"}
        app_services(app).database_health = down
        refused = wait_for(lambda: (answer := client.get("/healthz")).status_code == 503 and answer, timeout=30)
        assert refused.json() == {"status": "unavailable", "database": "unreachable"}
    finally:
        app_services(app).database_health = kept
        answering.stop()
        down.stop()


def test_editions(client: Any) -> None:
    keys = [e["key"] for e in client.get("/api/editions").json()]
    assert keys == list(EDITIONS)


def test_create_gives_one_secret_invite_per_human_seat(client: Any) -> None:
    table_id, tokens, answer = create_table(
        client, edition="standard-deck", players=4, name="Friday", seats=seats("human", "random", "human", "heuristic")
    )
    assert sorted(tokens) == [0, 2]
    assert len(set(tokens.values())) == 2 and all(len(t) >= 24 for t in tokens.values())
    for invite in answer["invites"]:
        assert invite["url"] == f"/t/{table_id}?seat={invite['seat']}&token={invite['token']}"
    table = answer["table"]
    assert table["status"] == "waiting" and table["game_no"] == 0 and table["edition"] == "standard-deck"
    assert table["name"] == "Friday" and table["players"] == 4
    assert [s["kind"] for s in table["seats"]] == ["human", "bot", "human", "bot"]
    assert [s["bot"] for s in table["seats"]] == [None, "random", None, "heuristic"]
    assert [s["joined"] for s in table["seats"]] == [False, True, False, True]
    assert table["options"]["bid_cap"] is None


def test_create_defaults(client: Any) -> None:
    _, tokens, answer = create_table(client)
    table = answer["table"]
    assert table["edition"] == "iello-2024" and table["players"] == 4 and table["public"] is True
    assert table["options"]["bid_cap"] == 15 and table["grace_seconds"] == 30.0
    assert sorted(tokens) == [0, 1, 2, 3]
    assert table["name"]


def test_create_accepts_an_edition_alias_and_options(client: Any) -> None:
    _, _, answer = create_table(
        client, edition="2014", players=3, options={"trick_history": True, "first_player": 2, "bid_cap": 12}
    )
    table = answer["table"]
    assert table["edition"] == "korokorodou-2014"
    assert table["options"] == {"bid_cap": 12, "trick_history": True, "first_player": 2, "made_points": [40] * 6}


def detail_text(response: Any) -> str:
    return json.dumps(response.json()["detail"])


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"edition": "chess"}, "unknown edition 'chess'; editions are: korokorodou-2014, iello-2024, standard-deck"),
        ({"players": 6}, "less than or equal to 5"),
        ({"players": 2}, "greater than or equal to 3"),
        ({"players": "four"}, "valid integer"),
        ({"edition": "korokorodou-2014", "players": 5}, "korokorodou-2014 is played by 3, 4 players, not 5"),
        ({"options": {"colour": "blue"}}, "unknown table option(s): colour"),
        ({"options": {"bid_cap": -1}}, "bid_cap must be a whole number >= 0 or null"),
        ({"options": {"bid_cap": "many"}}, "bid_cap must be a whole number"),
        ({"options": {"first_player": 4}}, "first_player must be a seat 0..3 or null"),
        ({"options": {"made_points": [1, 2]}}, "made_points must list 4 whole numbers"),
        ({"options": {"trick_history": "yes"}}, "trick_history must be true or false"),
        ({"options": [1, 2]}, "valid dictionary"),
        ({"players": 3, "seats": seats("human", "human")}, "give one seat per player (3), not 2"),
        ({"players": 3, "seats": seats("human", "human", "grandmaster")}, "unknown bot 'grandmaster'; bots are:"),
        ({"players": 3, "seats": seats("human", "human", "oracle")}, "unknown bot 'oracle'; bots are:"),
        ({"players": 3, "seats": seats("human", "human", "strong:iters=x")}, "is not key=number"),
        ({"players": 3, "seats": seats("human", "human", "strong:" + "i" * 40)}, "at most 32 characters"),
        ({"players": 3, "seats": [{"kind": "alien"}] * 3}, "'human' or 'bot'"),
        ({"players": 3, "seats": [{"kind": "human", "colour": "red"}] * 3}, "Extra inputs are not permitted"),
        ({"secret": 1}, "Extra inputs are not permitted"),
        ({"name": "x" * 81}, "at most 80 characters"),
        ({"grace_seconds": -1}, "greater than or equal to 0"),
        ({"public": "maybe"}, "valid boolean"),
    ],
)
def test_create_refuses_bad_tables_with_a_clear_422(module_client: Any, spec: dict[str, Any], expected: str) -> None:
    client = module_client
    lobby = client.get("/api/tables").json()
    response = client.post("/api/tables", json=spec)
    assert response.status_code == 422, response.text
    assert expected in detail_text(response), detail_text(response)
    assert client.get("/api/tables").json() == lobby


def test_create_refuses_a_body_that_is_not_json(client: Any) -> None:
    response = client.post("/api/tables", content=b"{nope", headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert "Traceback" not in response.text


def test_lobby_lists_public_waiting_tables_only(client: Any) -> None:
    open_id, _, _ = create_table(client, name="open", players=3)
    create_table(client, name="private", players=3, public=False)
    create_table(client, name="bots only", players=3, seats=seats("random", "random", "random"))  # starts at once
    full_id, full_tokens, _ = create_table(client, name="full", players=3, seats=seats("human", "random", "random"))
    join_all(client, full_id, full_tokens)
    lobby = client.get("/api/tables").json()
    assert [t["id"] for t in lobby] == [open_id]
    assert lobby[0]["status"] == "waiting" and lobby[0]["public"] is True
    text = json.dumps(lobby)
    assert "token" not in text and "seed" not in text


def test_table_info_has_no_secrets(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    join_all(client, table_id, tokens)
    store = app_services(client.app).tables.store
    seed = store.load(table_id).seed
    response = client.get(f"/api/tables/{table_id}")
    assert response.status_code == 200
    info = response.json()
    assert info["status"] == "playing" and info["game_no"] == 1
    assert set(info) == {
        "id",
        "name",
        "edition",
        "players",
        "options",
        "public",
        "grace_seconds",
        "hints",
        "rated",
        "show_hands",
        "unrated",
        "time_control",
        "status",
        "game_no",
        "version",
        "seats",
        "turn_based",
        "to_move",
        "deadline",
        "rematch",
        "tutorial",
        "shared_deal",
        "deal_set",
        "tournament",
    }
    assert info["rematch"] is None, "no rematch offer while a game is played"
    assert all(
        set(s) == {"seat", "kind", "bot", "name", "joined", "player", "guest", "replaced", "shows_hand"}
        for s in info["seats"]
    )
    text = response.text
    assert not any(token in text for token in tokens.values())
    assert str(seed) not in text
    assert client.get("/api/tables/0123456789abcdef").status_code == 404
    assert client.get("/api/tables/0123456789abcdef").json() == {"detail": "no such table"}


def test_join_with_the_invite_token(client: Any) -> None:
    table_id, tokens, answer = create_table(client, players=3, public=False)
    version = answer["table"]["version"]
    response = client.post(f"/api/tables/{table_id}/seats/1/join", json={"name": "Ada", "token": tokens[1]})
    assert response.status_code == 200
    joined = response.json()
    assert joined["seat"] == 1 and joined["token"] == tokens[1]
    seat = joined["table"]["seats"][1]
    assert seat["joined"] is True and seat["name"] == "Ada"
    assert joined["table"]["version"] == version + 1 and joined["table"]["status"] == "waiting"
    # Joining again with the same invite (another device) renames, it does not take another seat.
    again = client.post(f"/api/tables/{table_id}/seats/1/join", json={"name": "Ada L.", "token": tokens[1]})
    assert again.status_code == 200 and again.json()["table"]["seats"][1]["name"] == "Ada L."


def test_join_an_open_seat_of_a_public_table(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3)
    response = client.post(f"/api/tables/{table_id}/seats/2/join", json={"name": "Bo"})
    assert response.status_code == 200
    token = response.json()["token"]
    assert token not in tokens.values() and len(token) >= 24
    # The invite of that seat no longer opens it; the new token does (the seat is now taken).
    assert client.post(f"/api/tables/{table_id}/seats/2/join", json={"name": "Cy"}).status_code == 403
    stale = client.post(f"/api/tables/{table_id}/seats/2/join", json={"name": "Cy", "token": tokens[2]})
    assert stale.status_code == 403
    ok = client.post(f"/api/tables/{table_id}/seats/2/join", json={"name": "Bo", "token": token})
    assert ok.status_code == 200


@pytest.mark.parametrize(
    ("public", "seat", "body", "status", "expected"),
    [
        (True, 0, {"name": "Eve", "token": "wrong"}, 403, "that invite token does not open this seat"),
        (False, 0, {"name": "Eve"}, 403, "this seat is taken or the table is private: use its invite link"),
        (True, 2, {"name": "Eve"}, 403, "there is no human seat with that number"),
        (True, 3, {"name": "Eve"}, 403, "there is no human seat with that number"),
        (True, -1, {"name": "Eve"}, 422, "greater than or equal to 0"),
        (True, 2**31, {"name": "Eve"}, 422, "less than 2147483648"),
        (True, 0, {"name": ""}, 422, "at least 1 character"),
        (True, 0, {"name": "Eve", "seat": 1}, 422, "Extra inputs are not permitted"),
        (True, 0, {"name": None, "token": 7}, 422, "valid string"),
    ],
)
def test_join_refusals(
    module_client: Any, public: bool, seat: int, body: dict[str, Any], status: int, expected: str
) -> None:
    client = module_client
    table_id, _, _ = create_table(client, players=3, public=public, seats=seats("human", "human", "random"))
    response = client.post(f"/api/tables/{table_id}/seats/{seat}/join", json=body)
    assert response.status_code == status, response.text
    assert expected in detail_text(response)
    assert not client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"]


def test_join_an_unknown_table(client: Any) -> None:
    response = client.post("/api/tables/0123456789abcdef/seats/0/join", json={"name": "Eve"})
    assert response.status_code == 404


def test_the_game_starts_when_every_seat_is_joined(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "human"))
    first = client.post(f"/api/tables/{table_id}/seats/0/join", json={"name": "A", "token": tokens[0]}).json()
    assert first["table"]["status"] == "waiting" and first["table"]["game_no"] == 0
    last = client.post(
        f"/api/tables/{table_id}/seats/2/join", json={"name": "C", "token": tokens[2]}, headers=guest(client)
    ).json()
    assert last["table"]["game_no"] == 1
    info = client.get(f"/api/tables/{table_id}").json()
    assert info["status"] == "playing" and info["game_no"] == 1


def test_a_table_of_bots_starts_at_once(client: Any) -> None:
    table_id, tokens, answer = create_table(client, players=3, seats=seats("random", "heuristic", "random"))
    assert tokens == {} and answer["table"]["game_no"] == 1
    info = wait_for(lambda: (t := client.get(f"/api/tables/{table_id}").json())["status"] == "over" and t)
    assert info["game_no"] == 1


def test_leave_before_the_start_opens_the_seat_again(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3)
    client.post(f"/api/tables/{table_id}/seats/0/join", json={"name": "A", "token": tokens[0]})
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    response = client.post(f"/api/tables/{table_id}/leave", headers=auth)
    assert response.status_code == 200
    seat = response.json()["seats"][0]
    assert seat["joined"] is False and seat["name"] is None
    assert response.json()["status"] == "waiting"
    # The old token no longer opens the seat; anyone may take it.
    assert client.post(f"/api/tables/{table_id}/leave", headers=auth).status_code == 401
    again = client.post(f"/api/tables/{table_id}/seats/0/join", json={"name": "A", "token": tokens[0]})
    assert again.status_code == 403
    taken = client.post(f"/api/tables/{table_id}/seats/0/join", json={"name": "Z"})
    assert taken.status_code == 200 and taken.json()["token"] != tokens[0]


def test_leave_after_the_start_lets_a_bot_play_the_seat(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "random"))
    join_all(client, table_id, tokens)
    store = app_services(client.app).tables.store
    # Nobody connected: the game waits for the human.
    wait_for(lambda: app_services(client.app).tables.live[table_id].game.current_player == 0)
    waiting_at = client.get(f"/api/tables/{table_id}").json()["version"]
    assert client.get(f"/api/tables/{table_id}/record").status_code == 409
    response = client.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert response.status_code == 200
    assert response.json()["status"] == "playing" and response.json()["seats"][0]["joined"] is False
    info = wait_for(lambda: (t := client.get(f"/api/tables/{table_id}").json())["status"] == "over" and t, timeout=30)
    assert info["version"] > waiting_at + 100
    # The seat's token still identifies it (its player may come back).
    assert store.seat_of(table_id, tokens[0]) == 0


def test_leave_needs_the_seat_token(client: Any) -> None:
    table_id, _, _ = create_table(client, players=3)
    _, other_tokens, _ = create_table(client, players=3)
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": f"Bearer {other_tokens[0]}"}):
        response = client.post(f"/api/tables/{table_id}/leave", headers=headers)
        assert response.status_code == 401
        assert response.json()["detail"] == "a seat's token is needed (Authorization: Bearer TOKEN)"
    assert client.post("/api/tables/0123456789abcdef/leave", headers={"Authorization": "Bearer x"}).status_code == 404


def test_record_is_shown_once_the_game_is_over(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "heuristic"))
    waiting = client.get(f"/api/tables/{table_id}/record")
    assert waiting.status_code == 404 and waiting.json()["detail"] == "no such game"
    join_all(client, table_id, tokens)
    wait_for(lambda: app_services(client.app).tables.live[table_id].game.current_player == 0)
    playing = client.get(f"/api/tables/{table_id}/record")
    assert playing.status_code == 409
    assert playing.json()["detail"] == "the game is not over: its record is shown once it is"
    assert client.get(f"/api/tables/{table_id}/record", params={"game": 1}).status_code == 409
    client.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[0]}"})
    wait_for(lambda: client.get(f"/api/tables/{table_id}").json()["status"] == "over", timeout=30)
    response = client.get(f"/api/tables/{table_id}/record")
    assert response.status_code == 200
    record = response.json()
    game = replay(record)
    assert game.outcome() is not None and record["outcome"] == game.outcome().to_json()
    assert record["names"] == ["player 0", "random", "heuristic"]
    stored = app_services(client.app).tables.store.record_of(table_id, 1)
    assert record["seed"] == stored[0]
    assert [a for deal in record["deals"] for a in deal["actions"]] == stored[1]
    assert client.get(f"/api/tables/{table_id}/record", params={"game": 1}).json() == record
    assert client.get(f"/api/tables/{table_id}/record", params={"game": 2}).status_code == 404
    assert client.get(f"/api/tables/{table_id}/record", params={"game": 0}).status_code == 422
