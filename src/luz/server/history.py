"""Players' memory: each finished game's results (written with its last action, so exactly once, whichever
process stores it), profiles with their games and statistics, and the export of finished games as JSON Lines of
records (docs/RECORD.md), in pages: the games after a given one, oldest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, exists, func, or_, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from luz.engine import Game
from luz.engine.record import to_record

from .db import (
    ActionRow,
    DailyAttemptRow,
    DealSetRow,
    GameRow,
    NameChangeRow,
    PlayerRow,
    ResultRow,
    TableRow,
    TournamentRoundRow,
    TournamentTableRow,
)
from .domain import SeatKind, Status, TableState, build_game
from .ratings import changes_of, ratings_of

PROFILE_GAMES = 50
"""Games listed on a profile page (the newest); the statistics count every game."""

NOT_DAILY = ~exists().where(DailyAttemptRow.table_id == ResultRow.table_id)
"""A game that is no daily deal's attempt: those are shown by the daily's results alone, to the players whose own
attempt is over (a profile or the export would show the day's deal to those still to play it)."""

NOT_IN_A_ROUND_IN_PLAY = ~exists().where(
    TournamentTableRow.table_id == ResultRow.table_id,
    TournamentRoundRow.tournament_id == TournamentTableRow.tournament_id,
    TournamentRoundRow.round_no == TournamentTableRow.round_no,
    ~TournamentRoundRow.over,
)
"""A game that is no table of a tournament round still being played: every table of a round has the same cards,
so a profile shows none of its games (nor counts them) before the round ends."""

GameKey = tuple[str, int, datetime]
"""A finished game: its table, its number at the table, when it finished."""


def results_of(game: Game, state: TableState, names: list[str], bots: set[int]) -> list[dict[str, Any]]:
    """One result per seat of a finished ``game``: rank, points, deals, exact bids, safeties used, and whether
    the seat was abandoned (a human seat a bot was playing at the end: its player left, or was away past the
    grace period). ``bots``: the seats a bot played (a bot seat, or a player's seat taken over)."""
    outcome = game.outcome()
    assert outcome is not None
    deals = game.sheet.deals
    results = []
    for seat in range(game.players):
        spec = state.seats[seat]
        results.append(
            {
                "seat": seat,
                "player_id": spec.player if spec.kind == SeatKind.HUMAN else None,
                "kind": spec.kind,
                "name": names[seat][:40],
                "rank": outcome.ranking.index(seat) + 1,
                "points": outcome.totals[seat],
                "deals": len(deals),
                "exact_bids": sum(d.bids[seat] == d.tricks[seat] for d in deals),
                "safeties": sum(d.safety[seat] for d in deals),
                "against_bots": bool(bots - {seat}),
                "abandoned": spec.kind == SeatKind.HUMAN and (seat in bots or not spec.joined),
            }
        )
    return results


def _stats(games: int, wins: int, deals: int, points: int, exact: int, safeties: int) -> dict[str, Any]:
    return {
        "games": games,
        "wins": wins,
        "win_rate": wins / games if games else None,
        "points_per_deal": points / deals if deals else None,
        "exact_bid_rate": exact / deals if deals else None,
        "safety_rate": safeties / deals if deals else None,
    }


def _totals(session: Session, player_id: str) -> dict[bool, tuple[int, ...]]:
    """Sums of a player's results, by whether a bot played in the game (computed by the database); a round's
    games count once it is over."""
    rows = session.execute(
        select(
            ResultRow.against_bots,
            func.count(),
            func.sum(case((ResultRow.rank == 1, 1), else_=0)),
            func.sum(ResultRow.deals),
            func.sum(ResultRow.points),
            func.sum(ResultRow.exact_bids),
            func.sum(ResultRow.safeties),
        )
        .where(ResultRow.player_id == player_id, NOT_IN_A_ROUND_IN_PLAY)
        .group_by(ResultRow.against_bots)
    ).all()
    return {bool(row[0]): tuple(int(x or 0) for x in row[1:]) for row in rows}


def profile(engine: Engine, player_id: str, limit: int = PROFILE_GAMES) -> dict[str, Any] | None:
    """A player's public profile: name, whether an account, ratings, the newest games (with everyone's names,
    results and the player's rating change), and statistics against humans only and against bots."""
    with Session(engine) as session:
        player = session.get(PlayerRow, player_id)
        if player is None:
            return None
        totals = _totals(session, player_id)
        newest = session.scalars(
            select(ResultRow)
            .where(ResultRow.player_id == player_id, NOT_DAILY, NOT_IN_A_ROUND_IN_PLAY)
            .order_by(ResultRow.finished_at.desc(), ResultRow.table_id, ResultRow.game_no)
            .limit(limit)
        ).all()
        keys = [(r.table_id, r.game_no) for r in newest]
        others: dict[tuple[str, int], list[ResultRow]] = {key: [] for key in keys}
        editions: dict[str, str] = {}
        if keys:
            table_ids = {t for t, _ in keys}
            for row in session.scalars(
                select(ResultRow).where(ResultRow.table_id.in_(table_ids)).order_by(ResultRow.seat)
            ):
                if (row.table_id, row.game_no) in others:
                    others[(row.table_id, row.game_no)].append(row)
            editions = {
                row.id: row.edition
                for row in session.execute(select(TableRow.id, TableRow.edition).where(TableRow.id.in_(table_ids)))
            }
        changes = changes_of(session, player_id, keys)
        ratings = ratings_of(session, player_id)
        people = {o.player_id for rows in others.values() for o in rows if o.player_id is not None}
        current = {
            row.id: (row.name, row.username is None)
            for row in session.execute(
                select(PlayerRow.id, PlayerRow.name, PlayerRow.username).where(PlayerRow.id.in_(people))
            )
        }
        former = former_names(session, player_id, player.name)
    games = [
        {
            "table": r.table_id,
            "game": r.game_no,
            "finished_at": r.finished_at.isoformat(),
            "edition": editions.get(r.table_id),
            "seat": r.seat,
            "rank": r.rank,
            "points": r.points,
            "abandoned": r.abandoned,
            "rating_change": (changes.get((r.table_id, r.game_no)) or {}).get("change"),
            "rating": changes.get((r.table_id, r.game_no)),
            "players": [
                {
                    # Each person under their name of now (the one they are known by), with their guest mark.
                    "name": current[o.player_id][0] if o.player_id in current else o.name,
                    "guest": current[o.player_id][1] if o.player_id in current else False,
                    "kind": o.kind,
                    "player": o.player_id,
                    "rank": o.rank,
                    "points": o.points,
                }
                for o in others[(r.table_id, r.game_no)]
            ],
            "replay": f"/replay/{r.table_id}?game={r.game_no}",
        }
        for r in newest
    ]
    return {
        "id": player.id,
        "name": player.name,
        "account": player.username is not None,
        "guest": player.username is None,
        "former_names": former,
        "since": player.created_at.isoformat(),
        "ratings": ratings,
        "stats": {
            "all": _stats(*(sum(t[k] for t in totals.values()) for k in range(6))),
            "against_humans": _stats(*totals.get(False, (0,) * 6)),
            "against_bots": _stats(*totals.get(True, (0,) * 6)),
        },
        "games": games,
    }


def former_names(session: Session, player_id: str, name: str) -> list[dict[str, Any]]:
    """The names ``player_id`` was known by before ``name`` (its name now), newest first, each once, with when it
    was left (``{"name", "until"}``): a rename cannot hide a record."""
    rows = session.execute(
        select(NameChangeRow.old_name, NameChangeRow.changed_at)
        .where(NameChangeRow.player_id == player_id)
        .order_by(NameChangeRow.changed_at.desc(), NameChangeRow.id.desc())
    ).all()
    seen, names = {name}, []
    for old, until in rows:
        if old not in seen:
            seen.add(old)
            names.append({"name": old, "until": until.isoformat()})
    return names


def finished_games(engine: Engine, since: datetime) -> Iterator[dict[str, Any]]:
    """The record (docs/RECORD.md) of every game finished at or after ``since``, oldest first, with each seat's
    name as its player chose it."""
    return records_of(engine, finished_keys(engine, since))


def finished_keys(
    engine: Engine,
    since: datetime,
    after: tuple[str, int] | None = None,
    limit: int | None = None,
    listed_only: bool = False,
) -> list[GameKey]:
    """The games finished at or after ``since``, oldest first (then by table and number), only those after the
    game ``after`` (its table and number) when given, at most ``limit``; with ``listed_only``, only those of
    listed tables (an unlisted table's id is the key to watch its later games). :class:`LookupError` when
    ``after`` is no such finished game."""
    query = select(ResultRow.table_id, ResultRow.game_no, ResultRow.finished_at).where(
        ResultRow.seat == 0, ResultRow.finished_at >= since, NOT_DAILY
    )
    if listed_only:
        query = query.join(TableRow, TableRow.id == ResultRow.table_id).where(TableRow.public)
    with Session(engine) as session:
        if after is not None:
            table_id, game_no = after
            found = select(ResultRow.finished_at).where(
                ResultRow.table_id == table_id, ResultRow.game_no == game_no, ResultRow.seat == 0
            )
            if listed_only:
                found = found.join(TableRow, TableRow.id == ResultRow.table_id).where(TableRow.public)
            at = session.scalar(found)
            if at is None:
                raise LookupError(f"no finished game {table_id}:{game_no}")
            later = or_(
                ResultRow.table_id > table_id, and_(ResultRow.table_id == table_id, ResultRow.game_no > game_no)
            )
            query = query.where(
                ResultRow.finished_at >= at,  # the index's range; the ties then in the order of the pages
                or_(ResultRow.finished_at > at, later),
            )
        query = query.order_by(ResultRow.finished_at, ResultRow.table_id, ResultRow.game_no).limit(limit)
        return [(row.table_id, row.game_no, row.finished_at) for row in session.execute(query)]


def records_of(engine: Engine, keys: Iterable[GameKey]) -> Iterator[dict[str, Any]]:
    """The record of each finished game of ``keys``, in their order, with each seat's name as its player chose
    it (a game that cannot be replayed any more is left out)."""
    for table_id, game_no, finished_at in keys:
        with Session(engine) as session:
            table = session.get(TableRow, table_id)
            game_row = session.get(GameRow, (table_id, game_no))
            if table is None or game_row is None:
                continue
            if game_no == 1 and table.deal_set is not None:
                named = session.get(DealSetRow, table.deal_set)
                if named is not None and not named.closed:
                    continue  # its deal set is open: another of its tables may still be playing these cards
            names = list(
                session.scalars(
                    select(ResultRow.name)
                    .where(ResultRow.table_id == table_id, ResultRow.game_no == game_no)
                    .order_by(ResultRow.seat)
                )
            )
            actions = list(
                session.scalars(
                    select(ActionRow.action)
                    .where(ActionRow.table_id == table_id, ActionRow.game_no == game_no)
                    .order_by(ActionRow.seq)
                )
            )
            edition, players, options, seed = table.edition, table.players, dict(table.options), game_row.seed

        state = TableState(
            id=table_id,
            name="",
            edition=edition,
            players=players,
            options=options,
            public=False,
            grace_seconds=0,
            status=Status.OVER,
            game_no=game_no,
            version=0,
            seats=[],
            seed=seed,
            actions=actions,
        )
        game = build_game(state)
        if game is None or game.outcome() is None:
            continue
        record = to_record(game, names)
        record["site"] = {"table": table_id, "game": game_no, "finished_at": finished_at.isoformat()}
        yield record


SAME_DEAL_LISTED = 100
"""The most other games on one deal listed (the first finished first)."""


def same_deal(engine: Engine, table_id: str, game_no: int, viewer: str | None) -> list[dict[str, Any]] | None:
    """The other finished games dealt the same cards as game ``game_no`` of ``table_id`` (the same seed, edition,
    players and options), each with its seats' results and its replay; ``None`` when that game is not finished.

    A game is listed when its table is public, when it was itself made to play the deal again (its players were
    told that its results are compared), when it is the game the deal of ``table_id`` was taken from (whoever
    made the table had its link), or when ``viewer`` played in it: an unlisted table's game is shown to nobody
    else, as its players chose."""
    with Session(engine) as session:
        table = session.get(TableRow, table_id)
        game = session.get(GameRow, (table_id, game_no))
        if table is None or game is None:
            return None
        finished = session.scalar(
            select(func.count())
            .select_from(ResultRow)
            .where(ResultRow.table_id == table_id, ResultRow.game_no == game_no)
        )
        if not finished:
            return None
        rows = session.execute(
            select(GameRow.table_id, GameRow.game_no, TableRow.options, TableRow.public, TableRow.deal_seed)
            .join(TableRow, TableRow.id == GameRow.table_id)
            .where(
                GameRow.seed == game.seed,
                TableRow.edition == table.edition,
                TableRow.players == table.players,
                or_(GameRow.table_id != table_id, GameRow.game_no != game_no),
            )
        ).all()
        source = (table.deal_table, table.deal_game)
        candidates = {
            (row.table_id, row.game_no): bool(row.public or row.deal_seed is not None)
            or (row.table_id, row.game_no) == source
            for row in rows
            if dict(row.options) == dict(table.options)
        }
        if not candidates:
            return []
        results: dict[tuple[str, int], list[ResultRow]] = {}
        for result in session.scalars(
            select(ResultRow)
            .where(ResultRow.table_id.in_({key[0] for key in candidates}))
            .order_by(ResultRow.finished_at, ResultRow.table_id, ResultRow.game_no, ResultRow.seat)
        ):
            key = (result.table_id, result.game_no)
            if key in candidates:
                results.setdefault(key, []).append(result)
    listed = [
        (key, seats)
        for key, seats in results.items()
        if candidates[key] or (viewer is not None and any(seat.player_id == viewer for seat in seats))
    ]
    return [
        {
            "table": table_key,
            "game": number,
            "finished_at": seats[0].finished_at.isoformat(),
            "players": [
                {"seat": s.seat, "name": s.name, "kind": s.kind, "rank": s.rank, "points": s.points} for s in seats
            ],
            "replay": f"/replay/{table_key}?game={number}",
        }
        for (table_key, number), seats in listed[:SAME_DEAL_LISTED]
    ]


def deal_set_results(engine: Engine, set_id: str, closed: bool) -> dict[str, Any]:
    """The tables of a deal set: the results of each finished first game (every table made on the set agreed to
    be compared on its page), the first finished first; the tables and their replays named only once the set is
    ``closed`` (until then another table may still be playing its cards); and how many have not finished yet."""
    with Session(engine) as session:
        tables = session.scalars(select(TableRow.id).where(TableRow.deal_set == set_id)).all()
        results: dict[str, list[ResultRow]] = {}
        if tables:
            for row in session.scalars(
                select(ResultRow)
                .where(ResultRow.table_id.in_(tables), ResultRow.game_no == 1)
                .order_by(ResultRow.finished_at, ResultRow.table_id, ResultRow.seat)
            ):
                results.setdefault(row.table_id, []).append(row)
    games = []
    for table_id, seats in results.items():
        game: dict[str, Any] = {
            "finished_at": seats[0].finished_at.isoformat(),
            "players": [
                {"seat": s.seat, "name": s.name, "kind": s.kind, "rank": s.rank, "points": s.points} for s in seats
            ],
        }
        if closed:
            game |= {"table": table_id, "game": 1, "replay": f"/replay/{table_id}?game=1"}
        games.append(game)
    return {"games": games, "unfinished": len(tables) - len(results)}
