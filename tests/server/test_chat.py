"""Table chat over the WebSocket (on SQLite and PostgreSQL): the players' channel reaches the seats and the
spectators, the spectators' channel never a seat; plain text with a length limit, quick messages, a limit per
person; stored with the table, sent again on connecting, and shown for the replay once the game is over.

Every message a peer receives goes through ``support.server.Checker``, which also fails a seat that is sent a
message of the spectators' channel, and any chat message or error holding one of the receiver's hidden cards.
"""

from __future__ import annotations

from typing import Any

from luz.server import Settings, create_app
from luz.server.tables.chat import CHAT_LENGTH
from support.server import Message, Peer, Truth, create_table, guest, is_over, join_all, play, seats

HTML = "<script>window.owned = 1</script><b>bold</b> & <img src=x onerror=alert(1)>"


def start(client: Any, *kinds: str) -> tuple[str, dict[int, str]]:
    table_id, tokens, _ = create_table(client, players=len(kinds), seats=seats(*kinds))
    join_all(client, table_id, tokens)
    return table_id, tokens


def say(peer: Peer, text: str | None = None, preset: str | None = None) -> Message:
    """Send a chat message; its reply (the chat event it causes comes before an ``ack``)."""
    message: dict[str, Any] = {"type": "chat"}
    if text is not None:
        message["text"] = text
    if preset is not None:
        message["preset"] = preset
    return peer.request(message)


def heard(peer: Peer) -> list[Message]:
    """Every chat message the peer was sent (history and live), after a round trip (so nothing is in flight), by
    id as a client keeps them (a message said while a connection opens may come both live and in its history)."""
    assert peer.request({"type": "ping"})["type"] == "pong"
    by_id: dict[int, Message] = {}
    for said in (said for m in peer.check.messages if m["type"] == "chat" for said in m["messages"]):
        assert by_id.setdefault(said["id"], said) == said, "one id, two messages"
    return [by_id[number] for number in sorted(by_id)]


def texts(peer: Peer) -> list[str]:
    return [said["text"] for said in heard(peer)]


def test_players_chat_reaches_everyone_and_spectators_chat_only_spectators(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, "human", "human", "random")
    watcher = guest(client)
    with (
        Peer(client, table_id, tokens[0], 0, truth) as ana,
        Peer(client, table_id, tokens[1], 1, truth) as bo,
        Peer(client, table_id, None, None, truth, headers=watcher) as spectator,
        Peer(client, table_id, None, None, truth) as anonymous,
    ):
        reply = say(ana, HTML)
        assert reply["type"] == "ack", reply
        event = bo.wait(lambda m: m["type"] == "chat")
        [said] = event["messages"]
        assert event["history"] is False
        assert said["text"] == HTML and said["channel"] == "players" and said["seat"] == 0
        assert (
            said["name"] == "player 0"
            and said["player"] == client.get(f"/api/tables/{table_id}").json()["seats"][0]["player"]
        )
        assert said["preset"] is None and said["game_no"] == 1 and isinstance(said["id"], int)

        assert say(spectator, "they should bid 2")["type"] == "ack"
        assert say(bo, preset="good_luck")["type"] == "ack"
        refused = say(anonymous, "hello")
        assert refused["type"] == "error" and refused["code"] == "spectator", refused

        for seat in (ana, bo):  # never the spectators' channel (the Checker fails it too)
            assert texts(seat) == [HTML, "good luck"]
        assert texts(spectator) == [HTML, "they should bid 2", "good luck"]
        assert texts(anonymous) == [HTML, "they should bid 2", "good luck"]  # an anonymous spectator reads
        quick = heard(spectator)[-1]
        assert quick["preset"] == "good_luck" and quick["seat"] == 1

    # On connecting: the history that connection may read, in order.
    with (
        Peer(client, table_id, tokens[1], 1, truth) as back,
        Peer(client, table_id, None, None, truth, headers=watcher) as watching,
    ):
        assert texts(back) == [HTML, "good luck"]
        [history] = [m for m in back.check.messages if m["type"] == "chat"]
        assert history["history"] is True
        assert texts(watching) == [HTML, "they should bid 2", "good luck"]
        back.sync()  # and on sync
        assert texts(back) == [HTML, "good luck"]
        assert len([m for m in back.check.messages if m["type"] == "chat" and m["history"]]) == 2


def test_a_spectator_who_holds_a_seat_reads_the_players_channel_only(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    ana = guest(client)
    for seat, headers in ((0, ana), (1, guest(client))):
        answer = client.post(f"/api/tables/{table_id}/seats/{seat}/join", json={"token": tokens[seat]}, headers=headers)
        assert answer.status_code == 200, answer.text
    with (
        Peer(client, table_id, tokens[1], 1, truth) as bo,
        Peer(client, table_id, None, None, truth, headers=guest(client)) as spectator,
        Peer(client, table_id, None, None, truth, headers=ana) as ana_watching,
    ):
        assert say(spectator, "psst")["type"] == "ack"
        assert say(bo, "hi")["type"] == "ack"
        refused = say(ana_watching, "I see you")
        assert refused["type"] == "error" and refused["code"] == "spectator"
        assert texts(ana_watching) == ["hi"]
        assert texts(spectator) == ["psst", "hi"]


def test_text_is_checked_and_errors_never_echo_it(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, "human", "random", "random")
    with Peer(client, table_id, tokens[0], 0, truth) as ana:
        too_long = say(ana, "é" * (CHAT_LENGTH + 1))
        assert too_long["type"] == "error" and too_long["code"] == "too_long" and "280" in too_long["message"]
        assert "é" not in too_long["message"]
        for bad in ({"text": ""}, {"text": "   "}, {"text": "two\nlines"}, {"text": 7}, {"text": None}):
            refused = ana.request({"type": "chat", **bad})
            assert refused["type"] == "error" and refused["code"] == "malformed", (bad, refused)
        for bad_preset in ({"preset": "you cheat"}, {"preset": "thanks", "text": "x"}, {"preset": 1}):
            refused = ana.request({"type": "chat", **bad_preset})
            assert refused["type"] == "error" and refused["code"] == "malformed", (bad_preset, refused)
        assert texts(ana) == []
        longest = " " + "é" * CHAT_LENGTH + " "  # trimmed, then counted in characters (not bytes)
        assert say(ana, longest)["type"] == "ack"
        assert texts(ana) == ["é" * CHAT_LENGTH]


def test_each_person_is_rate_limited_alone(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, "human", "human", "random")
    with Peer(client, table_id, tokens[0], 0, truth) as ana, Peer(client, table_id, tokens[1], 1, truth) as bo:
        replies = [say(ana, f"message {n}")["type"] for n in range(6)]
        assert replies == ["ack"] * 5 + ["error"]
        limited = ana.check.messages[-1]
        assert limited["code"] == "rate_limited" and "chat" in limited["message"]
        assert say(bo, "my turn to talk")["type"] == "ack"  # another person is not held up
        assert texts(bo) == [f"message {n}" for n in range(5)] + ["my turn to talk"]


def test_one_address_is_rate_limited_whatever_its_guests(database_url: str, truth: Truth) -> None:
    """The reproduction of the issue: 12 guests of one address posted 60 spectator messages in 2 s, each within
    its own limit. The address has a limit of its own too (every client of this test is one address)."""
    from fastapi.testclient import TestClient

    settings = Settings(
        database_url=database_url, bot_workers=0, messages_per_second=10_000, chat_per_address="8/minute"
    )
    with TestClient(create_app(settings)) as client:
        table_id, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))  # waiting
        watchers = [Peer(client, table_id, None, None, None, headers=guest(client)) for _ in range(4)]
        for watcher in watchers:
            watcher.__enter__()
        try:
            replies = [
                say(watcher, f"{n} of guest {i}")["type"] for n in range(3) for i, watcher in enumerate(watchers)
            ]
            assert replies == ["ack"] * 8 + ["error"] * 4  # 12 messages of 4 people, each within its own 5
            limited = watchers[-1].check.messages[-1]
            assert limited["code"] == "rate_limited" and "address" in limited["message"]
            assert len(heard(watchers[0])) == 8
        finally:
            for watcher in watchers:
                watcher.close()


def test_chat_is_stored_with_the_table_and_shown_for_the_replay(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    join_all(client, table_id, {0: tokens[0]})
    with Peer(client, table_id, tokens[0], 0, truth) as ana:
        assert say(ana, "anyone?")["type"] == "ack"  # before the first game: said at game 1
    join_all(client, table_id, {1: tokens[1]})
    watcher = guest(client)
    with (
        Peer(client, table_id, tokens[0], 0, truth) as ana,
        Peer(client, table_id, tokens[1], 1, truth) as bo,
        Peer(client, table_id, None, None, truth, headers=watcher) as spectator,
    ):
        assert say(bo, preset="good_luck")["type"] == "ack"
        assert say(spectator, "go Ana")["type"] == "ack"
        while_playing = client.get(f"/api/tables/{table_id}/chat")
        assert while_playing.status_code == 409  # the spectators' words are not out while the game runs
        final = play([ana, bo])
        assert say(ana, preset="good_game")["type"] == "ack"  # after the game: still game 1
        spectator.wait_state(lambda s: s["version"] == final["version"])
        assert is_over(final)
    answer = client.get(f"/api/tables/{table_id}/chat", params={"game": 1})
    assert answer.status_code == 200, answer.text
    stored = answer.json()
    assert stored["game_no"] == 1
    assert [(m["channel"], m["seat"], m["text"], m["preset"]) for m in stored["messages"]] == [
        ("players", 0, "anyone?", None),
        ("players", 1, "good luck", "good_luck"),
        ("spectators", None, "go Ana", None),
        ("players", 0, "good game", "good_game"),
    ]
    assert client.get(f"/api/tables/{table_id}/chat", params={"game": 2}).status_code == 404
    assert client.get("/api/tables/nosuchtable/chat").status_code == 404


def test_a_spectator_who_takes_a_seat_stops_reading_the_spectators(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    join_all(client, table_id, {0: tokens[0]})
    watcher, other = guest(client), guest(client)
    with (
        Peer(client, table_id, None, None, truth, headers=watcher) as watching,
        Peer(client, table_id, None, None, truth, headers=other) as spectator,
    ):
        assert say(spectator, "before")["type"] == "ack"
        assert texts(watching) == ["before"]
        joined = client.post(f"/api/tables/{table_id}/seats/1/join", json={"token": tokens[1]}, headers=watcher)
        assert joined.status_code == 200, joined.text
        assert say(spectator, "after")["type"] == "ack"
        assert texts(spectator) == ["before", "after"]
        assert texts(watching) == ["before"], "a player's other tab read the spectators"
        refused = say(watching, "hello")
        assert refused["type"] == "error" and refused["code"] == "spectator"
