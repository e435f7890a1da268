"""Forced moves: at a turn-based table a person whose only legal action is one card has it played for them (their
setting, on by default): the seat's entry says so while it is coming, the clock lists the seat after it, the peer
never has to send it; with the setting off, the player plays every card. Real-time tables never play for anyone."""

from __future__ import annotations

from typing import Any

from luz.engine import Phase, replay
from support.server import Peer, Truth, create_table, first_legal, guest, play, seats


def forced_positions(record: dict[str, Any], seat: int) -> int:
    """How many of ``seat``'s moves in a finished game had one legal action only (a card)."""
    total = sum(len(deal["actions"]) for deal in record["deals"])
    forced = 0
    for step in range(total):
        game = replay(record, upto=step)
        if game.current_player == seat and game.phase is Phase.PLAY and len(game.legal_actions()) == 1:
            forced += 1
    return forced


def seat_moves(record: dict[str, Any], seat: int) -> int:
    total = sum(len(deal["actions"]) for deal in record["deals"])
    return sum(1 for step in range(total) if replay(record, upto=step).current_player == seat)


def played(
    client: Any, truth: Truth, time_control: str | None, forced_moves: bool | None
) -> tuple[dict[str, Any], int, list[Any]]:
    """A 3-player game of one guest (its setting ``forced_moves`` when given) against two random bots, played to
    its end: its record, the guest's acknowledged moves, and the clock's ``forced`` lists the guest saw."""
    spec: dict[str, Any] = {"players": 3, "seats": seats("human", "random", "random")}
    if time_control is not None:
        spec["time_control"] = time_control
    table_id, tokens, _ = create_table(client, **spec)
    me = guest(client)
    if forced_moves is not None:
        changed = client.put("/api/me/play", json={"forced_moves": forced_moves}, headers=me)
        assert changed.json() == {"forced_moves": forced_moves}
    assert client.post(f"/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, headers=me).status_code == 200
    with Peer(client, table_id, tokens[0], 0, truth) as peer:
        final = play([peer])
        states = peer.check.states
        seen = [state["table"]["clock"]["forced"] for state in states if state["table"].get("clock")]
        flags = [state["table"]["seats"][0]["forced"] for state in states]
        acks = len(peer.acks)
    assert final["table"]["status"] == "over"
    assert any(flags) == (time_control is not None and forced_moves is not False)
    return client.get(f"/api/tables/{table_id}/record").json(), acks, seen


def test_forced_cards_are_played_for_the_player_at_a_turn_based_table(client: Any, truth: Truth) -> None:
    record, acks, seen = played(client, truth, "1d", None)
    forced = forced_positions(record, 0)
    assert forced >= 4, "at least each deal's last card"
    assert acks == seat_moves(record, 0) - forced, "every forced card played by the server, the rest by the player"
    assert [0] in seen, "the clock lists the seat whose last card was played for it"


def test_with_the_setting_off_or_in_real_time_the_player_plays_every_card(client: Any, truth: Truth) -> None:
    assert client.get("/api/me/play", headers=guest(client)).json() == {"forced_moves": True}
    assert client.put("/api/me/play", json={"forced_moves": "yes"}, headers=guest(client)).status_code == 422
    for time_control, setting in (("1d", False), (None, None)):
        record, acks, seen = played(client, truth, time_control, setting)
        assert acks == seat_moves(record, 0)
        assert all(not forced for forced in seen)


def test_changing_the_setting_mid_game_applies_from_the_next_turn(client: Any, truth: Truth) -> None:
    """The setting turned off during a game, then on again (each at the player's turn with a choice of cards:
    nothing moves meanwhile): the player's only legal cards are played for them, then by them, then for them; a
    spectator is sent nothing when the setting changes."""
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "random"), time_control="1d")
    me = guest(client)
    assert client.post(f"/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, headers=me).status_code == 200
    settings = [True, False, True]
    phase = 0
    played_for = [0, 0, 0]
    """Each phase's states saying the player's only legal card is about to be played for them."""
    played_by = [0, 0, 0]
    """Each phase's moves of the player with one legal card, made by the player."""
    read = 0

    def take_states(peer: Peer) -> None:
        nonlocal read
        states = peer.check.states
        played_for[phase] += sum(1 for state in states[read:] if state["table"]["seats"][0]["forced"])
        read = len(states)

    def choose(peer: Peer, view: dict[str, Any]) -> dict[str, Any]:
        nonlocal phase, read
        take_states(peer)
        choices = len(view["legal_actions"]) if view["phase"] == "play" else 0
        played_by[phase] += choices == 1
        seen_phase = played_for[phase] if settings[phase] else played_by[phase]
        if choices > 1 and phase < 2 and seen_phase:
            phase += 1
            watcher.request({"type": "ping"})
            before = len(watcher.check.messages)
            changed = client.put("/api/me/play", json={"forced_moves": settings[phase]}, headers=me)
            assert changed.json() == {"forced_moves": settings[phase]}
            watcher.request({"type": "ping"})  # after anything the change sent it
            assert len(watcher.check.messages) == before + 1, "a spectator is sent nothing of a private setting"
            peer.sync()
            read = len(peer.check.states)
        return first_legal(view)

    with Peer(client, table_id, tokens[0], 0, truth) as peer, Peer(client, table_id, None, None, truth) as watcher:
        final = play([peer], choose=choose)
        take_states(peer)
    assert final["table"]["status"] == "over"
    assert phase == 2, "the game was long enough to see the setting on, off and on again"
    assert played_by[0] == played_by[2] == 0 < played_by[1], f"the player's own only legal cards: {played_by}"
    assert played_for[1] == 0 < min(played_for[0], played_for[2]), f"played for the player: {played_for}"
