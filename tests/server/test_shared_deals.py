"""Shared deals ("Play this deal"): a table created on a finished game's deal is dealt the same cards at every deal,
with the same first player; only a finished game's deal may be played again, never for a rated table; every game on
one deal lists the others' results, an unlisted table's only with its players' leave."""

from __future__ import annotations

from typing import Any

from luz.engine import replay
from support.server import Peer, Truth, create_table, guest, play, seats, wait_for


def bots_table(client: Any, **spec: Any) -> str:
    """A table of random bots, played to its end; its id."""
    players = spec.pop("players", 3)
    table_id, _, _ = create_table(client, players=players, seats=seats(*["random"] * players), **spec)
    wait_for(lambda: client.get(f"/api/tables/{table_id}").json()["status"] == "over", timeout=60, step=0.05)
    return table_id


def deals_of(record: dict[str, Any]) -> list[tuple[int, Any, Any]]:
    """Each deal of a record as the engine dealt it: its first player, every hand and the aside."""
    game = replay(record)
    return [
        (result.first_player, deal.hands, deal.aside) for deal, result in zip(game.deals, game.results, strict=True)
    ]


def test_play_this_deal_deals_every_deal_again(client: Any) -> None:
    original = bots_table(client, players=4, public=False, options={"bid_cap": None})
    made = client.post(
        "/api/tables",
        json={"deal": {"table": original, "game": 1}, "public": False, "seats": seats(*["random"] * 4)},
    )
    assert made.status_code == 201, made.text
    summary = made.json()["table"]
    assert summary["shared_deal"] is True and summary["players"] == 4 and summary["options"]["bid_cap"] is None
    seed = str(client.get(f"/api/tables/{original}/record").json()["seed"])
    assert seed not in made.text, "a table never shows its deal's seed"
    again = made.json()["table"]["id"]
    wait_for(lambda: client.get(f"/api/tables/{again}").json()["status"] == "over", timeout=60, step=0.05)
    assert seed not in client.get(f"/api/tables/{again}").text
    first, second = (client.get(f"/api/tables/{t}/record").json() for t in (original, again))
    assert second["seed"] == first["seed"] and second["options"] == first["options"]
    assert second["first_player"] == first["first_player"]
    assert deals_of(second) == deals_of(first)
    assert len(deals_of(first)) == len(first["deals"]) > 1

    # Each lists the other, with its results and replay.
    others = client.get(f"/api/tables/{original}/deal", params={"game": 1}).json()["others"]
    assert [(o["table"], o["game"], o["replay"]) for o in others] == [(again, 1, f"/replay/{again}?game=1")]
    points = replay(second).outcome()
    assert points is not None and [p["points"] for p in others[0]["players"]] == list(points.totals)
    back = client.get(f"/api/tables/{again}/deal").json()["others"]
    assert [o["table"] for o in back] == [original], "the game the deal was taken from, though unlisted"


def test_only_a_finished_game_deal_and_never_rated(client: Any, truth: Truth) -> None:
    live, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "random"))
    headers = guest(client)
    joined = client.post(f"/api/tables/{live}/seats/0/join", json={"token": tokens[0]}, headers=headers)
    assert joined.status_code == 200
    bots = seats("random", "random", "random")
    refused = client.post("/api/tables", json={"deal": {"table": live, "game": 1}, "seats": bots})
    assert refused.status_code == 409 and "not over" in refused.json()["detail"]
    assert client.get(f"/api/tables/{live}/deal").status_code == 409
    finished = bots_table(client)
    for body, status, words in (
        ({"deal": {"table": finished, "game": 2}, "seats": bots}, 404, "no such game"),
        ({"deal": {"table": "nope", "game": 1}, "seats": bots}, 404, "no such game"),
        ({"deal": {"table": finished, "game": 1}, "seats": bots, "rated": True}, 422, "unrated"),
        ({"deal": {"table": finished, "game": 1}, "seats": bots, "players": 4}, 422, "players"),
        ({"deal": {"table": finished, "game": 1}, "seats": bots, "options": {"bid_cap": 3}}, 422, "options"),
        ({"deal": {"table": finished, "game": 1}, "seats": seats("random", "random")}, 422, "one seat per player"),
        ({"deal": {"table": finished, "game": 0}, "seats": bots}, 422, ""),
        ({"deal": {"table": finished, "game": 1, "seed": 7}, "seats": bots}, 422, ""),
        ({"seed": 7, "seats": bots}, 422, ""),
    ):
        answer = client.post("/api/tables", json=body)
        assert answer.status_code == status, (body, answer.text)
        assert words in str(answer.json()["detail"])
    # The live table is untouched: its player still plays it to the end.
    with Peer(client, live, tokens[0], 0, truth) as peer:
        assert play([peer])["table"]["status"] == "over"


def shared(client: Any, table_id: str) -> str:
    """A table of random bots on the deal of ``table_id``'s first game, played to its end; its id."""
    made = client.post(
        "/api/tables",
        json={"deal": {"table": table_id, "game": 1}, "public": False, "seats": seats("random", "random", "random")},
    )
    assert made.status_code == 201, made.text
    again: str = made.json()["table"]["id"]
    wait_for(lambda: client.get(f"/api/tables/{again}").json()["status"] == "over", timeout=60, step=0.05)
    return again


def listed(client: Any, table_id: str, **headers: str) -> set[str]:
    answer = client.get(f"/api/tables/{table_id}/deal", headers=headers)
    assert answer.status_code == 200, answer.text
    return {other["table"] for other in answer.json()["others"]}


def test_an_unlisted_game_is_listed_only_with_its_players_leave(client: Any, truth: Truth) -> None:
    """An unlisted table's game that was not made to share its deal is listed to its own players, and from the
    tables made on its deal (their makers had its link); a table made from one of those does not see it."""
    original, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "random", "random"))
    me = guest(client)
    assert client.post(f"/api/tables/{original}/seats/0/join", json={"token": tokens[0]}, headers=me).status_code == 200
    with Peer(client, original, tokens[0], 0, truth) as peer:
        assert play([peer])["table"]["status"] == "over"
    second = shared(client, original)
    third = shared(client, second)
    assert listed(client, original) == {second, third}, "tables made to share the deal are listed"
    assert listed(client, second) == {original, third}, "its source, though unlisted"
    client.cookies.clear()
    assert listed(client, third) == {second}, "an unlisted game's, only with its players' leave"
    assert listed(client, third, **me) == {original, second}, "a player of it sees it"


def set_table(client: Any, set_id: str, **spec: Any) -> str:
    """A table of random bots on deal set ``set_id``, played to its end; its id."""
    made = client.post("/api/tables", json={"deal_set": set_id, "seats": seats("random", "random", "random"), **spec})
    assert made.status_code == 201, made.text
    table_id: str = made.json()["table"]["id"]
    wait_for(lambda: client.get(f"/api/tables/{table_id}").json()["status"] == "over", timeout=60, step=0.05)
    return table_id


def test_a_named_deal_set_is_played_by_several_tables_then_compared(client: Any) -> None:
    owner, other = guest(client), guest(client)
    named = client.post("/api/deal-sets", json={"name": "Thursday club, week 12", "players": 3}, headers=owner)
    assert named.status_code == 201, named.text
    summary = named.json()
    set_id = summary["id"]
    assert summary["name"] == "Thursday club, week 12" and summary["url"] == f"/deals/{set_id}"
    assert summary["closed"] is False and summary["owner"] == client.get("/api/me", headers=owner).json()["id"]
    assert "seed" not in summary
    first = set_table(client, set_id, public=True)
    table = client.get(f"/api/tables/{first}").json()
    assert table["public"] is False and table["deal_set"] == set_id and table["shared_deal"] is True
    second = set_table(client, set_id)

    # While the set is open, no finished table of it shows its cards: another may still be playing them.
    for path in ("record", "chat", "notes", "deal"):
        withheld = client.get(f"/api/tables/{first}/{path}")
        assert withheld.status_code == 409 and "deal set is still open" in withheld.json()["detail"], path
    again = client.post("/api/tables", json={"deal": {"table": first, "game": 1}, "seats": seats(*["random"] * 3)})
    assert again.status_code == 409 and "still open" in again.json()["detail"]
    exported = client.get("/api/export", params={"since": "2000-01-01"}).text
    assert first not in exported and second not in exported
    page = client.get(f"/api/deal-sets/{set_id}").json()
    assert page["unfinished"] == 0 and len(page["games"]) == 2
    assert all("table" not in game and "replay" not in game for game in page["games"])
    assert first not in str(page) and second not in str(page)

    # Its namer closes it: no new table, every replay shown, the same cards at both.
    assert client.post(f"/api/deal-sets/{set_id}/close", headers=other).status_code == 403
    assert client.post(f"/api/deal-sets/{set_id}/close", headers=owner).json()["closed"] is True
    late = client.post("/api/tables", json={"deal_set": set_id, "seats": seats(*["random"] * 3)})
    assert late.status_code == 409 and "closed" in late.json()["detail"]
    page = client.get(f"/api/deal-sets/{set_id}").json()
    assert {game["replay"] for game in page["games"]} == {f"/replay/{t}?game=1" for t in (first, second)}
    records = [client.get(f"/api/tables/{t}/record").json() for t in (first, second)]
    assert records[0]["seed"] == records[1]["seed"]
    assert deals_of(records[0])[:3] == deals_of(records[1])[:3]
    assert [d["hands"] for d in records[0]["deals"]] == [d["hands"] for d in records[1]["deals"]]
    exported = client.get("/api/export", params={"since": "2000-01-01"}).text
    assert first not in exported and second not in exported, "a set's tables are unlisted: never exported"


def test_deal_sets_refuse_bad_input(client: Any) -> None:
    me = guest(client)
    for body, status in (
        ({"name": ""}, 422),
        ({"name": "x", "players": 7}, 422),
        ({"name": "x", "edition": "nope"}, 422),
        ({"name": "x", "options": {"bid_cap": "many"}}, 422),
        ({"name": "x", "seed": 3}, 422),
    ):
        assert client.post("/api/deal-sets", json=body, headers=me).status_code == status, body
    assert client.get("/api/deal-sets/0123456789abcdef").status_code == 404
    assert client.get("/api/deal-sets/NOT-HEX").status_code == 422
    assert client.post("/api/deal-sets/0123456789abcdef/close", headers=me).status_code == 404
    assert client.post("/api/deal-sets/0123456789abcdef/close").status_code == 401
    set_id = client.post("/api/deal-sets", json={"name": "x", "players": 3}, headers=me).json()["id"]
    bots = seats("random", "random", "random")
    for body, status in (
        ({"deal_set": set_id, "seats": bots, "rated": True}, 422),
        ({"deal_set": set_id, "seats": bots, "players": 4}, 422),
        ({"deal_set": set_id, "deal": {"table": "a", "game": 1}, "seats": bots}, 422),
        ({"deal_set": "0123456789abcdef", "seats": bots}, 404),
    ):
        answer = client.post("/api/tables", json=body)
        assert answer.status_code == status, (body, answer.text)
