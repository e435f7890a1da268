"""Watching: the lobby's "Playing now" (public tables in play, their spectator counts, newest first), the
"spectators see every hand" option (only at unlisted, unrated tables; never for a seat) and a spectator joining
mid-deal (it sees the deal's bids and the tricks won so far)."""

from __future__ import annotations

import re
import secrets
import types
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import luz.server.store as server_store
import luz.server.tables.table as server_table
from luz.engine import get_edition
from luz.server import Settings, app_services, create_app
from luz.server.api.tables import PLAYING_LISTED
from luz.server.domain import SeatKind, Status, TableState
from luz.server.tables.fanout import sees_hands
from luz.server.tables.model import Watcher
from luz.server.tables.table import Table
from support.server import Peer, Truth, create_table, guest, join_all, play, seats, wait_for

HEADER = "X-Luz-Session"


def started(http: Any, name: str, public: bool = True, **spec: Any) -> tuple[str, dict[int, str]]:
    """A table of one human seat (joined, its player away for an hour) and three bots, its game started."""
    table_id, tokens, _ = create_table(
        http,
        name=name,
        public=public,
        grace_seconds=3600,
        seats=seats("human", "random", "random", "random"),
        options={"first_player": 0},  # the human bids first: the game waits for it
        **spec,
    )
    join_all(http, table_id, tokens)
    assert http.get(f"/api/tables/{table_id}").json()["status"] == Status.PLAYING
    return table_id, tokens


def playing(http: Any) -> list[dict[str, Any]]:
    response = http.get("/api/tables", params={"status": "playing"})
    assert response.status_code == 200, response.text
    answer: list[dict[str, Any]] = response.json()
    return answer


def counts(http: Any) -> dict[str, int]:
    return {table["id"]: table["spectators"] for table in playing(http)}


def test_playing_now_lists_public_tables_in_play_newest_first_with_their_spectators(client: Any) -> None:
    waiting, _, _ = create_table(client, name="waiting", seats=seats("human", "random", "random", "random"))
    older, _ = started(client, "older")
    unlisted, _ = started(client, "unlisted", public=False)
    newer, _ = started(client, "newer")

    assert [t["id"] for t in playing(client)] == [newer, older]  # neither the waiting one nor the unlisted one
    assert [t["id"] for t in client.get("/api/tables").json()] == [waiting]  # the lobby as before
    assert all(t["status"] == "playing" and t["public"] and "show_hands" in t for t in playing(client))
    assert counts(client) == {newer: 0, older: 0}

    with Peer(client, older, None, None, None), Peer(client, older, None, None, None):
        with Peer(client, newer, None, None, None), Peer(client, unlisted, None, None, None):
            wait_for(lambda: counts(client) == {newer: 1, older: 2})
        wait_for(lambda: counts(client) == {newer: 0, older: 2})
    wait_for(lambda: counts(client) == {newer: 0, older: 0})

    store = app_services(client.app).tables.store
    assert [t.id for t in store.playing(limit=1)] == [newer]
    assert PLAYING_LISTED == 50
    assert client.get("/api/tables", params={"status": "over"}).status_code == 422


@pytest.mark.parametrize(
    ("spec", "refused"),
    [
        ({"show_hands": True}, True),  # listed by default
        ({"show_hands": True, "public": True}, True),
        ({"show_hands": True, "public": False, "rated": True}, True),
        ({"show_hands": True, "public": False}, False),
        ({"public": False}, False),
    ],
)
def test_spectators_see_every_hand_only_at_an_unlisted_unrated_table(
    module_client: Any, spec: dict[str, Any], refused: bool
) -> None:
    response = module_client.post("/api/tables", json=spec)
    if refused:
        assert response.status_code == 422, response.text
        assert "unlisted, unrated" in response.json()["detail"]
    else:
        assert response.status_code == 201, response.text
        assert response.json()["table"]["show_hands"] is spec.get("show_hands", False)
        table_id = response.json()["table"]["id"]
        assert module_client.get(f"/api/tables/{table_id}").json()["show_hands"] is spec.get("show_hands", False)


def face_up_checked(peer: Peer, truth: Truth) -> int:
    """Check that every state ``peer`` (a spectator) was sent shows every hand as it really is; how many did."""
    checked = 0
    for state in peer.check.states:
        seen = state["view"]
        if seen is None or seen["phase"] in ("deal", "game_over"):
            continue
        deal, edition = truth.deal(peer.table_id, state["table"]["game_no"], seen["deal_number"], seen)
        for holder, hand in enumerate(seen["hands"]):
            assert [s["card"] for s in hand] == [edition.card_name(c) for c in deal.hands[holder]]
        assert seen["aside"] == [edition.card_name(c) for c in deal.aside]
        assert seen["seat"] is None and seen["legal_actions"] == []
        checked += 1
    return checked


def hidden_checked(peer: Peer) -> int:
    """How many states the peer's checker (with the truth) found to show no value hidden from it."""
    assert peer.check.checked_hidden > 0
    return peer.check.checked_hidden


STRANGER = "198.51.100.7"
"""Another client's address (the test client, 127.0.0.1, is a trusted proxy: ``X-Forwarded-For`` names it)."""


def proxied_app(database_url: str) -> TestClient:
    """The app, its test client at 127.0.0.1, a trusted proxy: a request with ``X-Forwarded-For`` is another
    client's."""
    settings = Settings(
        database_url=database_url, bot_workers=0, messages_per_second=10_000, trusted_proxies=("127.0.0.1",)
    )
    return TestClient(create_app(settings), client=("127.0.0.1", 50000))


def agree(client: Any, table_id: str, token: str) -> dict[str, Any]:
    answer = client.post(f"/api/tables/{table_id}/show-hand", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_spectators_of_a_show_hands_table_see_every_hand_but_its_players_never_do(database_url: str) -> None:
    """The game starts once both seated humans agreed that anyone watching sees their cards; then strangers see
    every hand, while the players' own connections without their seat (their identity, their address with no
    cookie, another guest of their address) never do."""
    with proxied_app(database_url) as test_client:
        client: Any = test_client
        table_id, tokens, _ = create_table(
            client,
            public=False,
            show_hands=True,
            grace_seconds=3600,
            seats=seats("human", "human", "random", "random"),
            options={"first_player": 0},
        )
        players = [guest(client), guest(client)]
        for seat, headers in enumerate(players):
            joined = client.post(
                f"/api/tables/{table_id}/seats/{seat}/join", json={"token": tokens[seat]}, headers=headers
            )
            assert joined.status_code == 200, joined.text
            assert joined.json()["table"]["show_hands"] is True
        assert client.get(f"/api/tables/{table_id}").json()["status"] == "waiting"  # nobody agreed yet
        assert client.post(f"/api/tables/{table_id}/show-hand").status_code == 401  # a seat's token is needed
        first_agreed = agree(client, table_id, tokens[0])
        assert first_agreed["status"] == "waiting" and [s["shows_hand"] for s in first_agreed["seats"]][:2] == [
            True,
            False,
        ]
        assert agree(client, table_id, tokens[1])["status"] == "playing"  # the bots need no agreement
        truth = Truth(app_services(client.app).tables.store)
        elsewhere = {"X-Forwarded-For": STRANGER}
        with (
            Peer(client, table_id, tokens[0], 0, truth) as first,
            Peer(client, table_id, None, 1, truth, query="me=1", headers=players[1]) as second,
            Peer(client, table_id, None, None, truth, headers=players[0]) as player_watching,  # holds seat 0
            Peer(client, table_id, None, None, truth) as from_their_address,  # no cookie, a player's address
            Peer(client, table_id, None, None, truth, headers=guest(client)) as their_other_guest,
            Peer(client, table_id, None, None, None, headers=elsewhere) as anonymous,
            Peer(client, table_id, None, None, None, headers={**guest(client), **elsewhere}) as friend,
        ):
            last = play([first, second], until=lambda s: s["view"]["deal_number"] == 2, timeout=120)
            tied = (player_watching, from_their_address, their_other_guest)
            for peer in (*tied, anonymous, friend):
                peer.wait_state(lambda s: s["version"] >= last["version"])
            # The seats and the spectators tied to a seat: nothing they may not see (checked on every state).
            assert min(hidden_checked(p) for p in (first, second, *tied)) > 10
            # The strangers: every hand face up, as it really is, in every state.
            assert min(face_up_checked(p, truth) for p in (anonymous, friend)) > 10
            assert all(s["table"]["show_hands"] for s in first.check.states)


def test_agreeing_to_show_hands_only_at_a_show_hands_table_waiting(client: Any) -> None:
    table_id, tokens, _ = create_table(client, public=False, players=3, seats=seats("human", "random", "random"))
    refused = client.post(f"/api/tables/{table_id}/show-hand", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert refused.status_code == 409 and "not waiting to show every hand" in refused.json()["detail"]


def test_a_spectator_of_a_listed_or_rated_table_never_sees_the_hands(client: Any) -> None:
    """Even a table stored with ``show_hands`` (only the API refuses it) shows its spectators no hidden value when
    it is listed or rated."""
    store = app_services(client.app).tables.store
    for flags in ({"public": True, "rated": False}, {"public": False, "rated": True}):
        table_id, tokens = store.create_table(
            name="stored",
            edition="iello-2024",
            players=3,
            options=get_edition("iello-2024").options(3, first_player=1).to_json(),
            grace_seconds=3600,
            seats=[
                {"kind": SeatKind.HUMAN},
                {"kind": SeatKind.BOT, "bot": "random"},
                {"kind": SeatKind.BOT, "bot": "random"},
            ],
            show_hands=True,
            **flags,
        )
        if flags["rated"]:
            registered = client.post(
                "/api/account/register",
                json={"username": "rated" + secrets.token_hex(3), "password": "correct horse"},
                headers=guest(client),
            )
            headers = {HEADER: registered.json()["session"]}
        else:
            headers = guest(client)
        joined = client.post(f"/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, headers=headers)
        assert joined.status_code == 200, joined.text
        agree(client, table_id, tokens[0])  # the game starts once the player agreed
        truth = Truth(store)
        with Peer(client, table_id, None, None, truth) as spectator:
            spectator.wait_state(lambda s: s["view"] is not None and s["view"]["phase"] == "bid")
            assert hidden_checked(spectator) >= 1


def table_of(**state: Any) -> Table:
    fields: dict[str, Any] = {
        "id": "t",
        "name": "t",
        "edition": "iello-2024",
        "players": 3,
        "options": {},
        "public": False,
        "grace_seconds": 30.0,
        "status": Status.PLAYING,
        "game_no": 1,
        "version": 1,
        "seats": [],
        "show_hands": True,
    }
    return Table(TableState(**{**fields, **state}), None)


def test_who_sees_the_hands() -> None:
    ann, from_ann, anns_browser, bob, unknown = (object() for _ in range(5))
    seat = server_store.SeatState(0, SeatKind.HUMAN, None, "Ann", True, player="ann", client="ann's address")
    table = table_of(seats=[seat])
    table.watchers[ann] = Watcher("ann", "elsewhere")  # Ann holds a seat
    table.watchers[from_ann] = Watcher(None, "ann's address")  # no identity, from the seat's client
    table.watchers[anns_browser] = Watcher("guest", "elsewhere", frozenset({"ann"}))  # its device cookie names Ann
    table.watchers[bob] = Watcher("bob", "bob's address")
    assert [sees_hands(table, c) for c in (ann, from_ann, anns_browser, bob, unknown)] == [
        False,
        False,
        False,
        True,
        False,  # who it is unknown: no
    ]
    for refused in ({"public": True}, {"rated": True}, {"show_hands": False}):
        assert not sees_hands(table_of(seats=[seat], **refused), bob)


def test_a_spectator_joining_mid_deal_sees_the_bids_and_the_tricks_won(database_url: str) -> None:
    settings = Settings(database_url=database_url, bot_workers=0, messages_per_second=10_000)
    with TestClient(create_app(settings)) as test_client:
        client: Any = test_client
        table_id, tokens, _ = create_table(
            client, grace_seconds=3600, seats=seats("human", "human", "random", "random"), options={"first_player": 0}
        )
        join_all(client, table_id, tokens)
        truth = Truth(app_services(client.app).tables.store)
        with (
            Peer(client, table_id, tokens[0], 0, truth) as first,
            Peer(client, table_id, tokens[1], 1, truth) as second,
        ):
            # Until two tricks are won and a person is to move (the game then waits: nothing moves meanwhile).
            played = play(
                [first, second],
                until=lambda s: sum(s["view"]["tricks_won"]) >= 2 and s["view"]["current_player"] in (0, 1),
                timeout=120,
            )
            with Peer(client, table_id, None, None, truth) as late:
                seen = late.view
                assert late.state["version"] == played["version"]
                assert seen["phase"] == "play" and seen["deal_number"] == 1
                assert all(isinstance(bid["tricks"], int) for bid in seen["bids"])  # every seat's bid
                assert seen["bids"] == played["view"]["bids"]
                assert seen["tricks_won"] == played["view"]["tricks_won"] and sum(seen["tricks_won"]) >= 2
                played_cards = [s for hand in seen["hands"] for s in hand if s["played"]]
                assert len(played_cards) >= 2 * 4 and all(s["card"] for s in played_cards)
                assert seen["last_trick"] is not None or seen["trick"]["plays"]


# -- non-interference: the option changes nothing a seat receives ------------------------------------------------

TABLE_ID = "5ee5a11c0ffee000"
SEED = 8_000_001


def twin(client: Any, show_hands: bool) -> tuple[str, dict[int, str]]:
    table_id, tokens, _ = create_table(
        client,
        name="twin",
        public=False,
        show_hands=show_hands,
        grace_seconds=3600,
        seats=seats("human", "human", "human"),
        players=3,
        options={"first_player": 0},
    )
    assert table_id == TABLE_ID
    join_all(client, table_id, tokens)
    if show_hands:  # the game starts once everyone agreed (a version each: masked)
        for token in tokens.values():
            agree(client, table_id, token)
    return table_id, tokens


def at_least(version: int, state: dict[str, Any]) -> bool:
    return int(state["version"]) >= version


def masked(peer: Peer) -> list[str]:
    """What ``peer`` was sent, but the players' ids (random per database), the option's own flags (the table's,
    each seat's agreement) and the versions (each agreement one more)."""
    option = r'"(show_hands|shows_hand)": ?(true|false)|"version": ?\d+|"player": ?"[0-9a-f]+"'
    return [re.sub(option, "", text) for text in peer.check.raw]


def test_the_seats_receive_the_same_bytes_whether_spectators_see_the_hands_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_table, "secrets", types.SimpleNamespace(randbits=lambda n: SEED))
    monkeypatch.setattr(
        server_store,
        "secrets",
        types.SimpleNamespace(token_hex=lambda n: TABLE_ID, token_urlsafe=secrets.token_urlsafe),
    )
    sent: list[dict[Any, list[str]]] = []
    for show_hands in (True, False):
        with proxied_app(f"sqlite:///{tmp_path}/{show_hands}.db") as test_client:
            client: Any = test_client
            table_id, tokens = twin(client, show_hands)
            truth = Truth(app_services(client.app).tables.store)
            assert app_services(client.app).tables.store.load(table_id).seed == SEED
            stranger = {"X-Forwarded-For": STRANGER}
            with (
                Peer(client, table_id, None, None, None if show_hands else truth, headers=stranger) as spectator,
                Peer(client, table_id, tokens[0], 0, truth) as a,
                Peer(client, table_id, tokens[1], 1, truth) as b,
                Peer(client, table_id, tokens[2], 2, truth) as c,
            ):
                # One action at a time, each seat's messages taken in before the next (the same order at both).
                newest = play([a, b, c], until=lambda s: s["view"]["deal_number"] == 2, timeout=120)["version"]
                for peer in (a, b, c, spectator):
                    peer.wait_state(partial(at_least, newest))
                if show_hands:
                    assert face_up_checked(spectator, truth) > 10
                else:
                    assert hidden_checked(spectator) > 10
                sent.append({seat: masked(peer) for seat, peer in enumerate((a, b, c))})
    with_option, without = sent
    for seat in range(3):
        assert len(with_option[seat]) > 20
        assert with_option[seat] == without[seat], f"seat {seat} was sent something else"
