"""Routes about games rather than live tables: the tutorial's table, a finished game's notes and chat (for its
replay), a replay's steps, and the score-keeper's report for a game played with the real box. The rules stay in
the engine: the report comes from its score sheet, and a replay's steps are views it computes."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request, Response

from luz.engine import (
    DEFAULT_EDITION,
    HAND_SIZE,
    MAX_BID,
    LuzError,
    Phase,
    face_up_view,
    get_edition,
    replay,
    sheet_from_json,
)

from ..domain import SeatKind
from ..lesson import lesson_json
from ..tables import QUICK_BOT
from ..tables.chat import PLAYERS, SPECTATORS
from ..tables.commands import Created, Join, Start
from .deps import chat_of, client_of, finished_game, guards_of, identities_of, tables_of
from .identity import set_name
from .schemas import TutorialRequest

router = APIRouter()

LESSON = lesson_json()
"""The deduction lesson's answer: the same for everyone, so computed once."""

TUTORIAL_SEED = 1
"""The tutorial's deal (IELLO 2024, 4 players, you bid first): a hand of all five colours, a lone red card (you
must play it when red is led) and two trumps."""


@router.post("/api/tutorial", status_code=201)
async def tutorial(request: Request, response: Response, body: TutorialRequest) -> dict[str, Any]:
    """A private table for the tutorial: you at seat 0, bidding first, against three heuristic bots, on the prepared
    deal (the real engine and server play it). The seat is your identity's (a new guest's when the request has
    none); the answer holds its token, as a join would. Your unfinished tutorial, if you have one, is answered
    instead (``200``, ``"resumed": true``, no token: open it with your identity, ``?me=1``). Created like any
    table: ``tables_per_minute`` per client, and counted among the client's ``bot_tables_per_client`` (its bots
    play on alone once you have gone); 429 with ``Retry-After`` beyond."""
    identities, tables = identities_of(request), tables_of(request)
    identity, by_cookie = await identities.current(request)
    if identity is not None:
        if by_cookie:
            identities.check_same_site(request)
        held = await asyncio.to_thread(tables.store.unfinished_tutorial, identity.player_id)
        if held is not None:
            response.status_code = 200
            return {"table_id": held, "seat": 0, "token": None, "resumed": True}
    # The limits first, before anything is stored for the request (a flood's guests included).
    client, guards = client_of(request), guards_of(request)
    await guards.check_creation_rate(client)
    edition = get_edition(DEFAULT_EDITION)
    with guards.bot_table_place(tables, client, bots_only=True):
        identity = await identities.require(request, response, create=True, changes=True)
        if body.name.strip():  # your name, everywhere (the same rules as POST /api/me/name)
            identity = await set_name(request, identity, body.name)
        table_id, tokens = await asyncio.to_thread(
            tables.store.create_table,
            name="Tutorial",
            edition=edition.key,
            players=4,
            options=edition.options(4, first_player=0).to_json(),
            public=False,
            grace_seconds=300,
            tutorial=True,
            seats=[{"kind": SeatKind.HUMAN, "bot": None, "name": None}]
            + [{"kind": SeatKind.BOT, "bot": QUICK_BOT, "name": None} for _ in range(3)],
        )
        table = await tables.get(table_id)
        assert table is not None  # just created
        await tables.submit(table, Created(client))  # counted among the client's tables of bots; their bots share
        joined = await tables.submit(table, Join(0, identity.name, tokens[0], identity.player_id))
    await tables.submit(table, Start(seed=TUTORIAL_SEED))
    return {"table_id": table_id, "seat": 0, "token": joined.token, "resumed": False}


@router.get("/api/tutorial/lesson")
async def tutorial_lesson() -> dict[str, Any]:
    """The tutorial's deduction lesson: a prepared position as its learner sees it, the question ("what is your
    3rd card?"), each candidate value's verdict (``seen`` in another hand, ruled out by the hand's ``order``,
    ``possible``, the ``likeliest``) and the exact marginal of each hidden slot, from the engine's beliefs. A
    prepared position, never a live game's: its probabilities hide nothing."""
    return LESSON


@router.get("/api/tables/{table_id}/notes")
async def game_notes(request: Request, table_id: str, game: int | None = None) -> dict[str, Any]:
    """The players' notes on their own cards in a finished game, for its replay (while a game runs, each seat's
    notes go to that seat alone, over its WebSocket)."""
    _, number = await finished_game(request, table_id, game, "notes are")
    return {"notes": await asyncio.to_thread(tables_of(request).store.notes, table_id, number)}


@router.get("/api/tables/{table_id}/chat")
async def game_chat(request: Request, table_id: str, game: int | None = None) -> dict[str, Any]:
    """The chat of a finished game, both channels, for its replay: ``409`` while it is being played. The words of
    players the caller blocked are left out."""
    table, number = await finished_game(request, table_id, game, "chat is")
    chat = chat_of(request)
    messages = await asyncio.to_thread(chat.store.messages, table.id, (PLAYERS, SPECTATORS), number)
    reader, _ = await identities_of(request).current(request)
    if reader is not None:
        blocked = await asyncio.to_thread(chat.friends.blocked_by, reader.player_id)
        messages = [m for m in messages if m["player"] not in blocked]
    return {"game_no": number, "messages": messages}


@router.post("/api/score")
async def score(document: Annotated[Any, Body()], quiet: bool = False) -> dict[str, Any]:
    """The score-keeper's report for a game played with the real box: the same document as ``luz score -``.

    The report of ``luz score`` plus what the page needs: the number of deals, the highest bid and the tricks of
    a deal (for the entry form), how the leader was decided (``tie_break``), and whether the next deal's first
    player is the leader on score rather than the usual rotation (3 players, last deal). A sheet the rules refuse
    is a 422 with the reason, or with ``quiet=true`` a 200 answer ``{"refused": reason}`` (the page's entry form:
    a refused deal is an answer to show, not an error in the browser's console).
    """
    try:
        sheet = sheet_from_json(document)
    except LuzError as error:
        reason = " ".join(str(error).split())
        if quiet:
            return {"refused": reason}
        raise HTTPException(422, reason) from None
    report = sheet.to_json()
    upcoming = sheet.next_first_player()
    report["deal_count"] = sheet.deal_count
    report["max_bid"], report["tricks_per_deal"] = MAX_BID, HAND_SIZE
    report["tie_break"] = sheet.standings().to_json()["tie_break"]
    report["next_first_is_leader"] = upcoming is not None and upcoming != sheet.usual_first_player(len(sheet.deals))
    return report


@router.post("/api/replay")
async def replay_steps(record: Annotated[Any, Body()]) -> dict[str, Any]:
    """A game record (docs/RECORD.md) replayed step by step: the view with every hand face up before the first
    action and after each one (assumption A4: a finished game's replay may show everything)."""
    try:
        final = replay(record)
    except LuzError as error:
        raise HTTPException(422, " ".join(str(error).split())) from None
    game = replay(record, upto=0)
    steps: list[dict[str, Any]] = [{"action": None, "seat": None, "view": face_up_view(game).to_json()}]
    for number, deal_actions in enumerate(final.actions):
        for action in deal_actions:
            if game.phase is Phase.DEAL:  # a record without a seed: its deals are given, not drawn
                game.deal(final.deals[number].hands, final.deals[number].aside)
            seat = game.current_player
            game.apply(action)
            steps.append({"action": str(action), "seat": seat, "view": face_up_view(game).to_json()})
    names = record.get("names")
    if not (isinstance(names, list) and len(names) == final.players and all(isinstance(n, str) for n in names)):
        names = None
    return {"names": names, "steps": steps}
