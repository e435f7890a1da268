"""A disconnected player's seat waits a grace period, then a bot plays it until the player comes back."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from luz.server import Settings, app_services, create_app
from luz.server.clock import FakeClock
from support.server import Peer, Truth, create_table, is_over, join_all, play, seats

GRACE = 0.6


def moved(peer: Peer, version: int) -> bool:
    peer.pump()
    return peer.state["version"] > version


def test_a_bot_plays_for_an_away_player_until_they_come_back(settings: Settings) -> None:
    """The grace period on a fake clock (``luz.server.clock``): the test moves time on, never sleeps."""
    clock = FakeClock()
    with TestClient(create_app(settings, clock)) as client:
        away_until_back(client, Truth(app_services(client.app).tables.store), clock)


def away_until_back(client: Any, truth: Truth, clock: FakeClock) -> None:
    table_id, tokens, _ = create_table(
        client, players=3, seats=seats("human", "human", "random"), options={"first_player": 0}, grace_seconds=GRACE
    )
    # Both connect before the game starts (a seat with nobody connected when it starts would count down already).
    away = Peer(client, table_id, tokens[0], 0, truth).__enter__()
    with Peer(client, table_id, tokens[1], 1, truth) as stays:
        join_all(client, table_id, tokens)
        stays.wait_state(lambda s: s["view"] is not None)
        assert stays.view["current_player"] == 0 and stays.state["table"]["seats"][0]["connected"]
        version = stays.state["version"]
        away.close()
        left = stays.wait_state(lambda s: not s["table"]["seats"][0]["connected"])
        assert left["version"] == version and not left["table"]["seats"][0]["bot_playing"]
        # Within the grace period nothing is played for the seat.
        client.portal.call(clock.advance, GRACE / 3)
        assert not moved(stays, version)
        # Then a bot takes the seat over: it bids for seat 0, and the game comes to seat 1.
        client.portal.call(clock.advance, GRACE)
        taken = stays.wait_state(lambda s: s["table"]["seats"][0]["bot_playing"], timeout=5)
        assert taken["version"] == version  # the takeover itself is no game event
        bid = stays.wait_state(lambda s: s["view"]["bids"][0] is not None, timeout=5)
        assert bid["version"] == version + 1
        stays.wait_state(lambda s: s["view"]["current_player"] == 1)
        # Seat 1 bids, the bot bids for seat 2, and leads for seat 0: the game is at seat 1 again.
        play([stays], until=lambda s: s["view"]["phase"] == "play" and s["view"]["current_player"] == 1)
        assert stays.view["trick"]["plays"][0]["seat"] == 0
        before_return = stays.state
        # The player comes back: the takeover stops, and they are sent the table as it is now.
        with Peer(client, table_id, tokens[0], 0, truth) as back:
            assert back.state["version"] == before_return["version"]
            assert back.view["bids"] == before_return["view"]["bids"]
            assert back.view["trick"] == before_return["view"]["trick"]
            assert not back.state["table"]["seats"][0]["bot_playing"] and back.state["table"]["seats"][0]["connected"]
            stays.wait_state(lambda s: not s["table"]["seats"][0]["bot_playing"])
            # When it is seat 0's turn again, nobody plays for it, even after the grace period.
            play([stays], until=lambda s: s["view"]["current_player"] == 0)
            waiting = back.wait_state(lambda s: s["view"]["current_player"] == 0)
            client.portal.call(clock.advance, 2 * GRACE)
            # No grace period counts down (the app's other timers, a tournament's sweep, the daily's midnight, may):
            # nothing can take the seat.
            tables = app_services(client.app).tables
            assert not tables.presence.counting(tables.live[table_id])
            assert not moved(back, waiting["version"])
            final = play([back, stays])
    assert is_over(final)


def test_a_takeover_survives_a_restart(sqlite_url: str) -> None:
    """A bot plays for seat 0, whose player is away, when the server restarts: after the restart, nobody is
    connected, and a bot plays for seat 0 again (after the grace period) while seat 1 plays on."""
    settings = Settings(database_url=sqlite_url, bot_workers=0, messages_per_second=10_000)
    with TestClient(create_app(settings)) as client:
        truth = Truth(app_services(client.app).tables.store)
        table_id, tokens, _ = create_table(
            client, players=3, seats=seats("human", "human", "random"), options={"first_player": 0}, grace_seconds=0.3
        )
        with Peer(client, table_id, tokens[1], 1, truth) as stays:
            join_all(client, table_id, tokens)
            Peer(client, table_id, tokens[0], 0, truth).__enter__().close()
            stays.wait_state(lambda s: s["table"]["seats"][0]["bot_playing"], timeout=5)
            state = stays.wait_state(lambda s: s["view"]["current_player"] == 1 and s["view"]["bids"][0] is not None)
    clock = FakeClock()  # after the restart no grace period runs out before seat 1 is back, however slow the machine
    with TestClient(create_app(settings, clock)) as client:
        truth = Truth(app_services(client.app).tables.store)
        with Peer(client, table_id, tokens[1], 1, truth) as back:
            assert back.state["version"] == state["version"] and back.view == state["view"]
            client.portal.call(clock.advance, 1.0)  # seat 0's grace period: a bot plays for it again
            final = play([back], timeout=15)
    assert is_over(final)


def test_a_player_who_joined_but_never_connects_is_played_for(client: Any, truth: Truth) -> None:
    """The game starts when every seat is taken; a player who took a seat but never opens the table gets the same
    grace period as one who left, then a bot plays for them, and the game does not wait for ever."""
    table_id, tokens, _ = create_table(
        client, players=3, seats=seats("human", "human", "random"), options={"first_player": 0}, grace_seconds=GRACE
    )
    with Peer(client, table_id, tokens[1], 1, truth) as present:
        join_all(client, table_id, tokens)
        started = present.wait_state(lambda s: s["view"] is not None and s["view"]["current_player"] == 0)
        assert not started["table"]["seats"][0]["connected"]
        taken = present.wait_state(lambda s: s["table"]["seats"][0]["bot_playing"], timeout=5)
        assert taken["version"] == started["version"]
        present.wait_state(lambda s: s["view"]["bids"][0] is not None and s["view"]["current_player"] == 1)
        # The player turns up after all: the bot stops, and the game goes on with them.
        with Peer(client, table_id, tokens[0], 0, truth) as late:
            present.wait_state(lambda s: not s["table"]["seats"][0]["bot_playing"])
            final = play([late, present])
    assert is_over(final)
