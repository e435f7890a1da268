"""Premoves (docs/PROTOCOL.md, "Premoves"): at a live table a seat whose turn it is not chooses its next card; the
server plays it through the door when the seat's turn comes if it is still legal, else cancels it and tells the
seat. The choice goes to that seat's connections only: what the other seats and the spectators are sent is the
same, byte for byte, as when the seat plays the card by hand (non-interference). Driven through the registry on a
SQLite file, every move through the door; ``settled`` waits for the server's own (posted) moves."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from luz.engine import Game, Phase, Play, get_edition
from luz.server import Settings
from luz.server.db import make_engine, migrate
from luz.server.store import Store
from luz.server.tables import Refused, Registry, Table
from luz.server.tables.broker import MemoryBroker
from luz.server.tables.commands import Act, Attach, Premove, Start
from support.server import Peer, Truth, create_joined, seats

EDITION, PLAYERS, SEED = "iello-2024", 3, 20_261_206


class Recorder:
    """A connection that keeps what it is sent, as text."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, data: str) -> None:
        self.sent.append(data)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in map(json.loads, self.sent) if m["type"] == kind]


Scenario = Callable[[Registry, Table, dict[int | None, Recorder]], Awaitable[None]]


def run(tmp_path: Path, scenario: Scenario, turn_based: bool = False, name: str = "t") -> dict[int | None, Recorder]:
    """A 3-seat table of people on game ``SEED``, each seat and a spectator connected; ``scenario`` plays it."""

    async def go() -> dict[int | None, Recorder]:
        url = f"sqlite:///{tmp_path}/{name}.sqlite3"
        engine = make_engine(url)
        migrate(engine)
        store = Store(engine)
        registry = Registry(store, MemoryBroker(), None, Settings(database_url=url, bot_workers=0))
        control = {"days_per_move": 1, "reserve_ms": 86_400_000, "increment_ms": 0, "timeouts_before_bot": 2}
        try:
            table_id, tokens = store.create_table(
                name="premoves",
                edition=EDITION,
                players=PLAYERS,
                options=get_edition(EDITION).options(PLAYERS).to_json(),
                public=False,
                grace_seconds=3600,
                seats=[{"kind": "human"} for _ in range(PLAYERS)],
                time_control=control if turn_based else None,
            )
            for seat, token in tokens.items():
                store.join(table_id, seat, f"p{seat}", token)
            table = await registry.get(table_id)
            assert table is not None
            recorders: dict[int | None, Recorder] = {seat: Recorder() for seat in (0, 1, 2, None)}
            for seat, recorder in recorders.items():
                await registry.submit(table, Attach(seat, recorder))
            await registry.submit(table, Start(seed=SEED))
            await scenario(registry, table, recorders)
            return recorders
        finally:
            await registry.close()
            engine.dispose()

    return asyncio.run(go())


def game_of(table: Table) -> Game:
    assert table.game is not None
    return table.game


async def move(registry: Registry, table: Table, action: Any) -> None:
    """The mover's move, then the server's own moves it caused (a premove played)."""
    seat = game_of(table).current_player
    assert seat is not None
    await registry.submit(table, Act(seat, action, table.state.version))
    await registry.settled()


async def to_play_phase(registry: Registry, table: Table) -> None:
    while game_of(table).phase is Phase.BID:
        await move(registry, table, game_of(table).legal_actions()[0])


def colour(game: Game, seat: int, slot: int) -> int:
    return game.deals[-1].hands[seat][slot].colour


async def to_a_lead(registry: Registry, table: Table) -> tuple[int, Play, int, int]:
    """Play on to a trick's lead after which the next seat has both a card of the led colour and one of another:
    the leader's card, the next seat, a slot it may then play, a slot it then may not."""
    while True:
        game = game_of(table)
        leader = game.current_player
        assert leader is not None and game.phase is Phase.PLAY, "no such lead in the first deal"
        after = (leader + 1) % PLAYERS
        unplayed = [slot for slot in range(10) if not game.is_played(after, slot)]
        if game.trick is None or not game.trick.plays:
            for lead in game.legal_actions():
                assert isinstance(lead, Play)
                led = colour(game, leader, lead.slot)
                follows = [s for s in unplayed if colour(game, after, s) == led]
                others = [s for s in unplayed if colour(game, after, s) != led]
                if follows and others:
                    return leader, lead, follows[0], others[0]
        await move(registry, table, game.legal_actions()[0])


def premoves_of(recorder: Recorder) -> list[tuple[int | None, bool]]:
    return [(m["slot"], m["cancelled"]) for m in recorder.of_type("premove")]


def test_a_premove_is_played_at_the_seats_turn_when_legal(tmp_path: Path) -> None:
    async def scenario(registry: Registry, table: Table, seen: dict[int | None, Recorder]) -> None:
        await to_play_phase(registry, table)
        leader, lead, legal, _ = await to_a_lead(registry, table)
        after = (leader + 1) % PLAYERS
        await registry.submit(table, Premove(after, legal))
        assert premoves_of(seen[after])[-1] == (legal, False)
        version = table.state.version
        await move(registry, table, lead)
        game = game_of(table)
        assert game.is_played(after, legal) and game.current_player == (after + 1) % PLAYERS
        assert table.state.version == version + 2 and table.state.actions[-1] == f"play:{legal}"
        assert premoves_of(seen[after])[-1] == (None, False), "the seat is told its choice is spent"
        assert after not in table.premoves

    run(tmp_path, scenario)


def test_a_premove_no_longer_legal_is_cancelled_and_the_seat_told(tmp_path: Path) -> None:
    async def scenario(registry: Registry, table: Table, seen: dict[int | None, Recorder]) -> None:
        await to_play_phase(registry, table)
        leader, lead, _, illegal = await to_a_lead(registry, table)
        after = (leader + 1) % PLAYERS
        await registry.submit(table, Premove(after, illegal))
        version = table.state.version
        await move(registry, table, lead)
        assert table.state.version == version + 1, "nothing played for the seat"
        assert game_of(table).current_player == after and not game_of(table).is_played(after, illegal)
        assert premoves_of(seen[after])[-1] == (None, True)
        assert after not in table.premoves
        for other in (leader, (after + 1) % PLAYERS, None):
            assert not seen[other].of_type("premove")

    run(tmp_path, scenario)


def test_a_player_changes_and_cancels_its_premove(tmp_path: Path) -> None:
    async def scenario(registry: Registry, table: Table, seen: dict[int | None, Recorder]) -> None:
        await to_play_phase(registry, table)
        leader, lead, legal, illegal = await to_a_lead(registry, table)
        after = (leader + 1) % PLAYERS
        await registry.submit(table, Premove(after, illegal))
        await registry.submit(table, Premove(after, legal))
        await registry.submit(table, Premove(after, None))
        assert premoves_of(seen[after])[-3:] == [(illegal, False), (legal, False), (None, False)]
        version = table.state.version
        await move(registry, table, lead)
        assert table.state.version == version + 1 and game_of(table).current_player == after, "cancelled: not played"
        await registry.submit(table, Premove((after + 1) % PLAYERS, illegal))  # the third seat's choice, changed
        await registry.submit(table, Premove((after + 1) % PLAYERS, legal))
        assert [m["slot"] for m in seen[(after + 1) % PLAYERS].of_type("premove")] == [illegal, legal]

    run(tmp_path, scenario)


def test_premoves_refused_on_your_turn_in_bidding_for_cards_not_in_hand_and_at_turn_based_tables(
    tmp_path: Path,
) -> None:
    async def scenario(registry: Registry, table: Table, seen: dict[int | None, Recorder]) -> None:
        async def code(seat: int, slot: Any) -> str:
            with pytest.raises(Refused) as refused:
                await registry.submit(table, Premove(seat, slot))
            return refused.value.code

        game = game_of(table)
        mover = game.current_player
        assert mover is not None and game.phase is Phase.BID
        assert await code((mover + 1) % PLAYERS, 0) == "not_now"
        await to_play_phase(registry, table)
        mover = game_of(table).current_player
        assert mover is not None
        assert await code(mover, 0) == "your_turn"
        other = (mover + 1) % PLAYERS
        for bad in (10, -1, "3", True, 2.0):
            assert await code(other, bad) == "malformed"
        await move(registry, table, game_of(table).legal_actions()[0])
        assert await code(mover, next(s for s in range(10) if game_of(table).is_played(mover, s))) == "illegal"
        assert not seen[None].of_type("premove") and not seen[other].of_type("premove")

    async def turn_based(registry: Registry, table: Table, seen: dict[int | None, Recorder]) -> None:
        await to_play_phase(registry, table)
        mover = game_of(table).current_player
        assert mover is not None
        with pytest.raises(Refused) as refused:
            await registry.submit(table, Premove((mover + 1) % PLAYERS, 0))
        assert refused.value.code == "turn_based"

    run(tmp_path, scenario)
    run(tmp_path, turn_based, turn_based=True, name="turn-based")


def test_what_others_are_sent_never_depends_on_a_premove(tmp_path: Path) -> None:
    """Non-interference: at two tables dealt alike, the next seat chooses, changes and cancels premoves, then
    chooses the card it plays (first table), or plays that card by hand at its turn (second table). Every
    message of the other seats and the spectator is the same at both (the table's id aside); the seat's own
    messages differ only by its premove messages."""
    plan: dict[str, Any] = {}

    def chooser(premoving: bool) -> Scenario:
        async def scenario(registry: Registry, table: Table, seen: dict[int | None, Recorder]) -> None:
            await to_play_phase(registry, table)
            leader, lead, legal, illegal = await to_a_lead(registry, table)
            after = (leader + 1) % PLAYERS
            plan.update(leader=leader, after=after)
            if premoving:
                for slot in (illegal, None, legal, illegal, legal):
                    await registry.submit(table, Premove(after, slot))
            await move(registry, table, lead)
            if not premoving:
                await move(registry, table, Play(legal))
            while game_of(table).deal_number == 1:  # the rest of the deal, as at the other table
                await move(registry, table, game_of(table).legal_actions()[0])

        return scenario

    premoved = run(tmp_path, chooser(True), name="premoved")
    by_hand = run(tmp_path, chooser(False), name="by-hand")

    def texts(recorders: dict[int | None, Recorder], seat: int | None, mine: bool) -> list[str]:
        ids = {json.loads(t)["table"]["id"] for t in recorders[seat].sent if json.loads(t)["type"] == "state"}
        (table_id,) = ids
        sent = [t for t in recorders[seat].sent if mine or json.loads(t)["type"] != "premove"]
        return [t.replace(table_id, "TABLE") for t in sent]

    for seat in (plan["leader"], (plan["after"] + 1) % PLAYERS, None):
        assert texts(premoved, seat, True) == texts(by_hand, seat, True), seat
        assert len(premoved[seat].sent) > 30
    after = plan["after"]
    assert texts(premoved, after, False) == texts(by_hand, after, False)
    assert len(premoved[after].of_type("premove")) == 6 and not by_hand[after].of_type("premove")


def test_premove_messages_over_the_wire(client: Any, truth: Truth) -> None:
    """The message and its typed errors through the WebSocket: the seat is told its premove on connecting (none
    yet) and after each change, a spectator may not send one, bad input is ``malformed``."""
    table_id, tokens = create_joined(client, players=3, seats=seats("human", "human", "human"))
    with (
        Peer(client, table_id, tokens[0], 0, truth) as zero,
        Peer(client, table_id, tokens[1], 1, truth) as one,
        Peer(client, table_id, None, None, truth) as spectator,
    ):
        assert spectator.request({"type": "premove", "slot": 0})["code"] == "spectator"
        assert zero.request({"type": "premove", "slot": "x"})["code"] == "malformed"
        assert zero.request({"type": "premove", "card": 1})["code"] == "malformed"
        assert zero.request({"type": "premove", "slot": 1})["code"] == "not_now"  # bidding
        first = one.wait(lambda m: m["type"] == "premove")
        assert first == {"type": "premove", "game_no": 1, "deal": 1, "slot": None, "cancelled": False}
        assert [m for m in zero.check.messages if m["type"] == "premove"] == [first]  # on connecting
        assert zero.request({"type": "premove", "slot": None})["type"] == "ack"
        told = [m for m in zero.check.messages if m["type"] == "premove"]  # sent before the ack
        assert told == [first, first]
        one.request({"type": "ping"})  # after the change: seat 1 was told nothing of seat 0's choice
        assert [m for m in one.check.messages if m["type"] == "premove"] == [first]
