"""Friends (on SQLite and PostgreSQL): following accounts, the friends list with presence and the public table each
sits at, inviting a friend to an open seat (taken without its token, heard on the invitee's event stream), and
blocks: no invitation, chat hidden, never seated together at a public table."""

from __future__ import annotations

import json
import threading
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from luz.server import app_services
from luz.server.db import BlockRow, FollowRow, PlayerRow
from luz.server.friends import MOST_BLOCKED, MOST_FOLLOWED, ONLINE_MS, SEEN_STEP_MS, epoch_ms
from support.server import Message, Peer, Truth, create_table, guest, is_over, play, seats, wait_for

PASSWORD = "correct horse battery"


def account(client: Any, username: str) -> dict[str, str]:
    """The session header of a new account."""
    made = client.post(
        "/api/account/register", json={"username": username, "password": PASSWORD}, headers=guest(client)
    )
    assert made.status_code == 201, made.text
    return {"X-Luz-Session": made.json()["session"]}


def me(client: Any, headers: dict[str, str]) -> str:
    player: str = client.get("/api/me", headers=headers).json()["id"]
    return player


def follow(client: Any, who: dict[str, str], player: str) -> Any:
    return client.put(f"/api/players/{player}/follow", headers=who)


def join(client: Any, table_id: str, seat: int, who: dict[str, str], token: str | None = None) -> Any:
    body = {"token": token} if token else {}
    return client.post(f"/api/tables/{table_id}/seats/{seat}/join", json=body, headers=who)


def invite(client: Any, table_id: str, seat: int, who: dict[str, str], player: str) -> Any:
    return client.post(f"/api/tables/{table_id}/seats/{seat}/invite", json={"player": player}, headers=who)


def test_follow_and_the_friends_list_with_presence_and_table(client: Any) -> None:
    ana, bo = account(client, "ana"), account(client, "bob")
    ana_id, bo_id = me(client, ana), me(client, bo)
    assert follow(client, ana, bo_id).json() == {"following": True}
    assert follow(client, ana, bo_id).status_code == 200  # once is enough: twice is the same
    assert client.get(f"/api/players/{bo_id}/relation", headers=ana).json() == {
        "following": True,
        "follower": False,
        "blocked": False,
        "account": True,
        "self": False,
    }
    assert client.get(f"/api/players/{ana_id}/relation", headers=bo).json()["follower"] is True

    # Following needs no consent, so it shows nothing of bo's presence: not whether he is online (he asked
    # /api/me just now), not when he was last seen, not the public table he sits at.
    table_id, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    assert join(client, table_id, 1, bo).status_code == 200
    [friend] = client.get("/api/me/friends", headers=ana).json()["following"]
    assert friend["id"] == bo_id and friend["name"] and friend["mutual"] is False
    assert friend["online"] is None and friend["seen_at"] is None and friend["table"] is None
    ana_name = client.get("/api/me", headers=ana).json()["name"]
    followers = client.get("/api/me/friends", headers=bo).json()["followers"]
    assert followers == [{"id": ana_id, "name": ana_name, "followed": False}]

    # bo follows ana back: she sees that he is online, when he was last seen (to the quarter hour) and his public
    # table (to watch it).
    assert follow(client, bo, ana_id).status_code == 200
    [friend] = client.get("/api/me/friends", headers=ana).json()["following"]
    assert friend["mutual"] is True and friend["online"] is True
    with Session(app_services(client.app).engine) as session:
        seen_at = session.get(PlayerRow, bo_id).seen_at  # type: ignore[union-attr]
    assert seen_at is not None and friend["seen_at"] == seen_at - seen_at % SEEN_STEP_MS
    assert friend["table"] == {"id": table_id, "name": friend["table"]["name"], "status": "waiting"}

    # Not seen for longer than ONLINE_MS: offline.
    with Session(app_services(client.app).engine) as session, session.begin():
        session.execute(update(PlayerRow).where(PlayerRow.id == bo_id).values(seen_at=epoch_ms() - ONLINE_MS - 1000))
    [friend] = client.get("/api/me/friends", headers=ana).json()["following"]
    assert friend["online"] is False

    assert client.delete(f"/api/players/{bo_id}/follow", headers=ana).json() == {"following": False}
    assert client.get("/api/me/friends", headers=ana).json()["following"] == []


def test_presence_is_written_at_most_once_a_minute(client: Any) -> None:
    ana = account(client, "ana")
    ana_id = me(client, ana)
    friends = app_services(client.app).friends
    with Session(app_services(client.app).engine) as session:
        first = session.get(PlayerRow, ana_id).seen_at  # type: ignore[union-attr]
    assert first is not None and epoch_ms() - first < 60_000
    client.get("/api/me", headers=ana)
    with Session(app_services(client.app).engine) as session:
        assert session.get(PlayerRow, ana_id).seen_at == first  # type: ignore[union-attr]
    assert not friends.must_see(ana_id, first + 1000) and friends.must_see(ana_id, first + 60_000)


def test_following_is_for_accounts(client: Any) -> None:
    ana, visitor = account(client, "ana"), guest(client)
    ana_id, visitor_id = me(client, ana), me(client, visitor)
    refused = follow(client, visitor, ana_id)
    assert refused.status_code == 403 and refused.json()["code"] == "account_required"
    assert client.get("/api/me/friends", headers=visitor).json()["code"] == "account_required"
    assert follow(client, ana, visitor_id).json()["code"] == "guest"  # nor is a guest followed
    assert follow(client, ana, ana_id).json()["code"] == "self"
    assert follow(client, ana, "0123456789abcdef").status_code == 404
    assert follow(client, ana, "not-hex").status_code == 422


def test_a_friend_invited_to_an_open_seat_takes_it_without_its_token(client: Any) -> None:
    ana, bo = account(client, "ana"), account(client, "bob")
    bo_id = me(client, bo)
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
    assert join(client, table_id, 0, ana, tokens[0]).status_code == 200
    assert join(client, table_id, 1, bo).status_code == 403  # private: no token, no invitation
    refused = invite(client, table_id, 1, ana, bo_id)
    assert refused.status_code == 403 and refused.json()["code"] == "not_following"
    assert follow(client, ana, bo_id).status_code == 200
    open_seats = client.get("/api/me/friends", headers=ana).json()["open_seats"]
    assert open_seats == [{"table": table_id, "name": open_seats[0]["name"], "seat": 1, "rated": False}]

    events: list[tuple[str, Message]] = []
    stop = threading.Event()

    def listen() -> None:
        with client.stream("GET", "/api/me/events", headers=bo) as stream:
            kind = ""
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                if line.startswith("data: "):
                    events.append((kind, json.loads(line.removeprefix("data: "))))
                if stop.is_set() or any(k == "invitation" for k, _ in events):
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    wait_for(lambda: [k for k, _ in events] == ["games"], timeout=15)
    invited = invite(client, table_id, 1, ana, bo_id)
    assert invited.status_code == 201, invited.text
    invitation = invited.json()
    assert invitation["table"] == table_id and invitation["seat"] == 1 and invitation["by"]["id"] == me(client, ana)
    wait_for(lambda: any(k == "invitation" for k, _ in events), timeout=15)
    stop.set()
    listener.join(15)
    assert [data for kind, data in events if kind == "invitation"] == [invitation]
    assert "token" not in json.dumps(invitation)
    assert client.get("/api/me/invitations", headers=bo).json()["invitations"] == [invitation]

    joined = join(client, table_id, 1, bo)
    assert joined.status_code == 200, joined.text
    assert joined.json()["table"]["seats"][1]["player"] == bo_id and joined.json()["token"]
    assert client.get("/api/me/invitations", headers=bo).json()["invitations"] == []  # spent

    # Refusals: the seat is taken now, a guest, an identity not seated there.
    taken = invite(client, table_id, 1, ana, bo_id)
    assert taken.status_code == 409 and taken.json()["code"] in ("seated", "seat_taken")
    cy = account(client, "cyd")
    cy_id = me(client, cy)
    follow(client, ana, cy_id)
    follow(client, cy, bo_id)
    outsider = invite(client, table_id, 1, cy, bo_id)
    assert outsider.status_code == 403 and outsider.json()["code"] == "not_seated"
    assert invite(client, table_id, 0, guest(client), cy_id).json()["code"] == "account_required"


def test_an_invitation_declined_is_gone_and_a_taken_seat_refuses_it(client: Any) -> None:
    ana, bo, cy = account(client, "ana"), account(client, "bob"), account(client, "cyd")
    bo_id, cy_id = me(client, bo), me(client, cy)
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "human"))
    join(client, table_id, 0, ana, tokens[0])
    follow(client, ana, bo_id)
    follow(client, ana, cy_id)
    assert invite(client, table_id, 1, ana, bo_id).status_code == 201
    assert invite(client, table_id, 2, ana, cy_id).status_code == 201
    assert client.delete(f"/api/me/invitations/{table_id}/1", headers=bo).json() == {"declined": True}
    assert join(client, table_id, 1, bo).status_code == 403
    join(client, table_id, 1, guest(client), tokens[1])  # someone else takes seat 1 by its link
    refused = invite(client, table_id, 1, ana, bo_id)
    assert refused.status_code == 409 and refused.json()["code"] == "seat_taken"
    assert invite(client, table_id, 2, ana, bo_id).status_code == 201  # seat 2 is still open


def test_an_invitation_is_withdrawn_when_its_inviter_leaves_or_its_table_starts(client: Any) -> None:
    ana, bo, cy = account(client, "ana"), account(client, "bob"), account(client, "cyd")
    bo_id = me(client, bo)
    old, old_tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
    new, new_tokens, _ = create_table(
        client, players=3, public=False, time_control="1d", seats=seats("human", "human", "human")
    )
    join(client, old, 0, ana, old_tokens[0])
    join(client, new, 0, ana, new_tokens[0])
    follow(client, ana, bo_id)
    assert invite(client, old, 1, ana, bo_id).status_code == 201
    assert invite(client, new, 1, ana, bo_id).status_code == 201
    listed = client.get("/api/me/invitations", headers=bo).json()["invitations"]
    assert [(i["table"], i["time_control"]["days_per_move"] if i["time_control"] else None) for i in listed] == [
        (new, 1),
        (old, None),
    ]

    # ana leaves the old table: her invitation there is withdrawn, and it no longer admits bo.
    assert client.post(f"/api/tables/{old}/leave", headers={"Authorization": f"Bearer {old_tokens[0]}"}).is_success
    assert [i["table"] for i in client.get("/api/me/invitations", headers=bo).json()["invitations"]] == [new]
    refused = join(client, old, 1, bo)
    assert refused.status_code == 403, refused.text

    # The new table fills and starts: nothing is left to invite to.
    join(client, new, 1, cy, new_tokens[1])
    join(client, new, 2, guest(client), new_tokens[2])
    wait_for(lambda: client.get(f"/api/tables/{new}").json()["status"] == "playing")
    assert client.get("/api/me/invitations", headers=bo).json()["invitations"] == []


def test_the_event_stream_lists_the_invitations_and_tells_a_withdrawal(client: Any) -> None:
    ana, bo = account(client, "ana"), account(client, "bob")
    bo_id = me(client, bo)
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
    join(client, table_id, 0, ana, tokens[0])
    follow(client, ana, bo_id)
    lists: list[list[Message]] = []

    def listen() -> None:
        with client.stream("GET", "/api/me/events", headers=bo) as stream:
            kind = ""
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                if line.startswith("data: ") and kind == "invitations":
                    lists.append(json.loads(line.removeprefix("data: "))["invitations"])
                if len(lists) == 2:
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    wait_for(lambda: app_services(client.app).tables.watchers.count(bo_id) == 1, timeout=15)
    invitation = invite(client, table_id, 1, ana, bo_id).json()
    wait_for(lambda: len(lists) == 1, timeout=15)
    assert lists == [[invitation]]
    client.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[0]}"})
    wait_for(lambda: len(lists) == 2, timeout=15)
    listener.join(15)
    assert lists[1] == []


def test_invitations_are_rate_limited(client: Any) -> None:
    ana = account(client, "ana")
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "human"))
    join(client, table_id, 0, ana, tokens[0])
    friends = [me(client, account(client, f"friend{n}")) for n in range(11)]
    for friend in friends:
        follow(client, ana, friend)
    answers = [invite(client, table_id, 1, ana, friend).status_code for friend in friends]
    assert answers == [201] * 10 + [429]


def test_one_player_cannot_flood_another_with_invitations(client: Any) -> None:
    """One player pushed 10 invitations a minute to another: now ``invitations_per_invitee`` (2 a minute, 6 an
    hour) from one player to one other, while the inviter may still invite someone else and the invitee still be
    invited by others."""
    ana, cy = account(client, "ana"), account(client, "cyd")
    bo = account(client, "bob")
    bo_id = me(client, bo)
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "human"))
    join(client, table_id, 0, ana, tokens[0])
    join(client, table_id, 2, cy, tokens[2])
    follow(client, ana, bo_id)
    follow(client, cy, bo_id)
    answers = [invite(client, table_id, 1, ana, bo_id) for _ in range(4)]
    assert [a.status_code for a in answers] == [201, 201, 429, 429]
    assert int(answers[2].headers["retry-after"]) > 0
    other = me(client, account(client, "dee"))
    follow(client, ana, other)
    assert invite(client, table_id, 1, ana, other).status_code == 201, "ana may invite someone else"
    assert invite(client, table_id, 1, cy, bo_id).status_code == 201, "bo may be invited by someone else"


def test_a_blocked_player_cannot_invite_nor_follow_and_the_follows_end(client: Any) -> None:
    ana, bo = account(client, "ana"), account(client, "bob")
    ana_id, bo_id = me(client, ana), me(client, bo)
    follow(client, ana, bo_id)
    follow(client, bo, ana_id)
    assert client.put(f"/api/players/{ana_id}/block", headers=bo).json() == {"blocked": True}
    assert client.get("/api/me/friends", headers=ana).json()["following"] == []  # the follows ended both ways
    assert client.get("/api/me/friends", headers=bo).json()["blocked"][0]["id"] == ana_id
    assert follow(client, ana, bo_id).json()["code"] == "blocked"
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
    join(client, table_id, 0, ana, tokens[0])
    refused = invite(client, table_id, 1, ana, bo_id)
    assert refused.status_code == 403 and refused.json()["code"] in ("not_following", "blocked")
    # A private table reached by its link is exempt: they may sit together there.
    assert join(client, table_id, 1, bo, tokens[1]).status_code == 200
    assert client.delete(f"/api/players/{ana_id}/block", headers=bo).json() == {"blocked": False}
    assert follow(client, ana, bo_id).status_code == 200


def test_blocked_players_are_never_seated_together_at_a_public_table(client: Any) -> None:
    ana, bo = guest(client), guest(client)  # guests block too
    ana_id = me(client, ana)
    assert client.put(f"/api/players/{ana_id}/block", headers=bo).status_code == 200
    table_id, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    assert join(client, table_id, 0, ana).status_code == 200
    refused = join(client, table_id, 1, bo)  # the blocker joins the blocked
    assert refused.status_code == 403 and refused.json()["code"] == "blocked"
    other, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    assert join(client, other, 0, bo).status_code == 200
    refused = join(client, other, 1, ana)  # the blocked joins the blocker
    assert refused.status_code == 403 and refused.json()["code"] == "blocked"
    assert join(client, other, 1, guest(client)).status_code == 200  # anyone else sits


def test_a_blocked_players_chat_is_hidden_to_the_blocker(client: Any, truth: Truth) -> None:
    ana, bo, cy = guest(client), guest(client), guest(client)
    ana_id = me(client, ana)
    table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "human"))
    for seat, who in enumerate((ana, bo, cy)):
        assert join(client, table_id, seat, who, tokens[seat]).status_code == 200
    with (
        Peer(client, table_id, tokens[0], 0, truth) as ana_seat,
        Peer(client, table_id, tokens[1], 1, truth) as bo_seat,
        Peer(client, table_id, tokens[2], 2, truth) as cy_seat,
    ):
        assert ana_seat.request({"type": "chat", "text": "before"})["type"] == "ack"
        assert client.put(f"/api/players/{ana_id}/block", headers=bo).status_code == 200
        assert ana_seat.request({"type": "chat", "text": "after"})["type"] == "ack"
        assert cy_seat.request({"type": "chat", "text": "from cy"})["type"] == "ack"
        assert chat_texts(cy_seat) == ["before", "after", "from cy"]
        assert chat_texts(bo_seat) == ["before", "from cy"]
    # On connecting again: the history leaves the blocked player's words out.
    with Peer(client, table_id, tokens[1], 1, truth) as bo_again:
        assert bo_again.request({"type": "ping"})["type"] == "pong"
        assert chat_texts(bo_again) == ["from cy"]


def chat_texts(peer: Peer) -> list[str]:
    assert peer.request({"type": "ping"})["type"] == "pong"
    by_id = {m["id"]: m["text"] for c in peer.check.messages if c["type"] == "chat" for m in c["messages"]}
    return [by_id[number] for number in sorted(by_id)]


def test_a_finished_games_chat_leaves_out_whom_the_reader_blocked(client: Any, truth: Truth) -> None:
    ana, watcher = guest(client), guest(client)
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "random"))
    assert join(client, table_id, 0, ana, tokens[0]).status_code == 200
    with (
        Peer(client, table_id, tokens[0], 0, truth) as seat,
        Peer(client, table_id, None, None, truth, headers=watcher) as spectator,
    ):
        assert spectator.request({"type": "chat", "text": "psst"})["type"] == "ack"
        assert seat.request({"type": "chat", "text": "hello"})["type"] == "ack"
        assert is_over(play([seat]))
    watcher_id = me(client, watcher)
    assert client.put(f"/api/players/{watcher_id}/block", headers=ana).status_code == 200
    said = client.get(f"/api/tables/{table_id}/chat", params={"game": 1}, headers=ana).json()["messages"]
    assert [m["text"] for m in said] == ["hello"]
    said = client.get(f"/api/tables/{table_id}/chat", params={"game": 1}, headers=watcher).json()["messages"]
    assert [m["text"] for m in said] == ["psst", "hello"]


def test_an_invitation_is_pushed_to_the_invitees_browser_in_its_language(database_url: str) -> None:
    from fastapi.testclient import TestClient

    from luz.server import create_app
    from support.notify import notify_settings
    from support.pushservice import Browser, PushService

    with PushService() as service, TestClient(create_app(notify_settings(database_url))) as client:
        ana, bo = account(client, "ana"), account(client, "bob")
        bo_id = me(client, bo)
        browser = Browser(service.url("/push/bo"))
        assert client.post("/api/me/push", json=browser.subscription(), headers=bo).status_code == 201
        assert client.put("/api/me/notifications", json={"language": "fr"}, headers=bo).status_code == 200
        table_id, tokens, _ = create_table(client, players=3, public=False, seats=seats("human", "human", "random"))
        join(client, table_id, 0, ana, tokens[0])
        follow(client, ana, bo_id)
        assert invite(client, table_id, 1, ana, bo_id).status_code == 201
        [push] = service.wait("/push/bo")
        payload = json.loads(browser.decrypt(push))
        ana_name = client.get("/api/me", headers=ana).json()["name"]
        assert payload == {
            "kind": "invitation",
            "title": f"{ana_name} vous invite à {client.get(f'/api/tables/{table_id}').json()['name']}",
            "body": "La place 2 est à vous si vous la prenez maintenant.",
            "url": "/friends",
            "table": table_id,
            "deadline": None,
        }


def test_one_follows_at_most_five_hundred(client: Any) -> None:
    ana, bo = account(client, "ana"), account(client, "bob")
    ana_id, bo_id = me(client, ana), me(client, bo)
    with Session(app_services(client.app).engine) as session, session.begin():
        for n in range(MOST_FOLLOWED):
            session.add(PlayerRow(id=f"{n:016x}", name=f"player {n}", username=f"player{n}"))
        session.flush()
        session.add_all(FollowRow(follower_id=ana_id, followee_id=f"{n:016x}") for n in range(MOST_FOLLOWED))
    refused = follow(client, ana, bo_id)
    assert refused.status_code == 409 and refused.json()["code"] == "too_many"
    assert client.delete(f"/api/players/{0:016x}/follow", headers=ana).status_code == 200
    assert follow(client, ana, bo_id).status_code == 200


def test_one_blocks_at_most_five_hundred(client: Any) -> None:
    ana, bo = guest(client), guest(client)
    ana_id, bo_id = me(client, ana), me(client, bo)
    with Session(app_services(client.app).engine) as session, session.begin():
        for n in range(MOST_BLOCKED):
            session.add(PlayerRow(id=f"{n:016x}", name=f"player {n}"))
        session.flush()
        session.add_all(BlockRow(blocker_id=ana_id, blocked_id=f"{n:016x}") for n in range(MOST_BLOCKED))
    refused = client.put(f"/api/players/{bo_id}/block", headers=ana)
    assert refused.status_code == 409 and refused.json()["code"] == "too_many"
    assert client.delete(f"/api/players/{0:016x}/block", headers=ana).status_code == 200
    assert client.put(f"/api/players/{bo_id}/block", headers=ana).status_code == 200
