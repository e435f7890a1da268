"""Ratings: OpenSkill (Plackett-Luce) ratings of the accounts that play at rated tables.

One rating per **pool**, an edition at one player count (``iello-2024`` at 4 players): the editions' decks and
the player count change the game (how many tricks there are, how often a bid is made), as a chess site rates
each speed on its own. A game updates the ratings of its human players from its final ranking, with the bots'
places taken out (bots play but are not rated); whoever abandoned (a bot was playing their seat at the end) is
placed last. A rated game that a player leaves, or loses to the clock, in its first deal is rated for nobody
(``domain.unrates``: it goes on as a friendly game), and so is one that fewer than two humans finished
(``domain.unrated_at_end``). Identities linked by a client or browser (links.py) exchange no rating: each player
is rated against its other opponents only. An established rating moves less against provisional players
(``weight``). The shown rating is ``60 × μ`` (a new player's 1500), provisional (shown with a ``?``) until
``PROVISIONAL_GAMES`` rated games in the pool.

A game's ratings are written in the transaction that stores its last action (``Store.append_action``): exactly
once, whichever process stores it; the ``rating_changes`` primary key (game, player) refuses a second write.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, case, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, aliased

from . import links
from .db import GameRow, PlayerRow, RatingChangeRow, RatingRow, SeatRow, TableRow, now
from .domain import SeatKind

if TYPE_CHECKING:
    from openskill.models import PlackettLuce


PROVISIONAL_GAMES = 10
"""Rated games in a pool before a rating is no longer provisional."""
PROVISIONAL_WEIGHT = 0.5
"""What a provisional opponent counts for in an established player's change (``weight``)."""
SCALE = 60
"""The shown rating is ``SCALE × μ``: OpenSkill's new player (μ 25, σ 25/3) shows 1500."""
LEADERBOARD_SIZE = 100


@cache
def model() -> PlackettLuce:
    from openskill.models import PlackettLuce  # on first use: keeps `luz` quick to start

    return PlackettLuce()


def shown(mu: float) -> int:
    """The rating players see."""
    return round(SCALE * mu)


def rating_json(mu: float, sigma: float, games: int) -> dict[str, Any]:
    return {"rating": shown(mu), "games": games, "provisional": games < PROVISIONAL_GAMES, "sigma": round(sigma, 3)}


def places_of(results: list[dict[str, Any]]) -> dict[str, int]:
    """Each rated player's place (1 first) in a finished game: the humans' ranks among themselves, whoever
    abandoned last (tied if several)."""
    humans = [r for r in results if r["kind"] == SeatKind.HUMAN and r["player_id"] is not None]
    staying = sorted((r for r in humans if not r["abandoned"]), key=lambda r: r["rank"])
    places: dict[str, int] = {}
    for result in staying:  # equal ranks (a shared place) keep equal places
        places[result["player_id"]] = 1 + sum(other["rank"] < result["rank"] for other in staying)
    last = len(staying) + 1
    for result in humans:
        if result["abandoned"]:
            places[result["player_id"]] = last
    return places


def rate_game(
    connection: Connection, table_id: str, game_no: int, edition: str, players: int, results: list[dict[str, Any]]
) -> str | None:
    """Update the ratings of a rated game's players (in the caller's transaction, the one that stores the game's
    last action). Each player is rated against the opponents it is not linked to (links.py: one client or browser)
    and only if one of them finished; an established player's change is weighted by its opponents
    (:func:`weight`). Fewer than two humans who finished at their seats: nothing to rate (one who left made the
    game ``alone`` before: ``domain.unrated_at_end``). ``"linked"`` when the links leave nobody to rate."""
    places = places_of(results)
    finished = {r["player_id"] for r in results if r["player_id"] in places and not r["abandoned"]}
    if len(finished) < 2:
        return None
    ids = sorted(places)  # every transaction locks ratings in the same order: no deadlock between two games
    linked = links.linked_pairs(connection, table_id, ids)
    opponents = {p: [q for q in ids if q != p and frozenset((p, q)) not in linked] for p in ids}
    rated = [p for p in ids if finished.intersection(opponents[p])]
    if not rated:
        return "linked"
    initial = model().rating()
    insert_new = postgresql_insert if connection.dialect.name == "postgresql" else sqlite_insert
    connection.execute(
        insert_new(RatingRow)
        .values(
            [
                {
                    "player_id": player,
                    "edition": edition,
                    "players": players,
                    "mu": initial.mu,
                    "sigma": initial.sigma,
                    "games": 0,
                    "updated_at": now(),
                }
                for player in ids
            ]
        )
        .on_conflict_do_nothing()
    )
    query = (
        select(RatingRow.player_id, RatingRow.mu, RatingRow.sigma, RatingRow.games)
        .where(RatingRow.player_id.in_(ids), RatingRow.edition == edition, RatingRow.players == players)
        .order_by(RatingRow.player_id)
    )
    if connection.dialect.name == "postgresql":  # another table's game may rate the same player right now
        query = query.with_for_update()
    before = {player: (mu, sigma, games) for player, mu, sigma, games in connection.execute(query)}
    after = {p: updated(p, opponents[p], before, places) for p in rated}
    stamp = now()
    for player, (mu, sigma) in after.items():
        connection.execute(
            update(RatingRow)
            .where(RatingRow.player_id == player, RatingRow.edition == edition, RatingRow.players == players)
            .values(mu=mu, sigma=sigma, games=RatingRow.games + 1, updated_at=stamp)
        )
    connection.execute(
        insert(RatingChangeRow),
        [
            {
                "table_id": table_id,
                "game_no": game_no,
                "player_id": player,
                "edition": edition,
                "players": players,
                "place": places[player],
                "mu_before": before[player][0],
                "sigma_before": before[player][1],
                "mu_after": mu,
                "sigma_after": sigma,
                "created_at": stamp,
            }
            for player, (mu, sigma) in after.items()
        ],
    )
    return None


def weight(games: int, opponents_games: list[int]) -> float:
    """How much of its OpenSkill change a player takes from a game: a provisional player all of it; an
    established one the mean of its opponents' weights, an established opponent 1, a provisional one
    :data:`PROVISIONAL_WEIGHT` (an established rating moves less against new players)."""
    if games < PROVISIONAL_GAMES:
        return 1.0
    shares = [1.0 if n >= PROVISIONAL_GAMES else PROVISIONAL_WEIGHT for n in opponents_games]
    return sum(shares) / len(shares)


def updated(
    player: str, opponents: list[str], before: dict[str, tuple[float, float, int]], places: dict[str, int]
) -> tuple[float, float]:
    """``player``'s new (μ, σ): OpenSkill's Plackett-Luce over ``player`` and ``opponents`` alone, at their
    places, the change weighted (:func:`weight`)."""
    group = [player, *opponents]
    teams = [[model().rating(mu=before[p][0], sigma=before[p][1])] for p in group]
    new = model().rate(teams, ranks=[places[p] for p in group])[0][0]
    mu, sigma, games = before[player]
    share = weight(games, [before[q][2] for q in opponents])
    return mu + share * (new.mu - mu), sigma + share * (new.sigma - sigma)


def change_json(mu_before: float, mu_after: float, rated_games: int) -> dict[str, Any]:
    """A rating change as players see it: ``{"before": 1500, "after": 1512, "change": 12, "provisional": true}``
    (``rated_games``: the player's rated games in the pool, this one included; provisional below
    ``PROVISIONAL_GAMES``)."""
    before, after = shown(mu_before), shown(mu_after)
    return {"before": before, "after": after, "change": after - before, "provisional": rated_games < PROVISIONAL_GAMES}


def _rated_games() -> Any:
    """The number of rated games of a change's player in its pool up to it, this one included (a column)."""
    earlier = aliased(RatingChangeRow)
    return (
        select(func.count())
        .where(
            earlier.player_id == RatingChangeRow.player_id,
            earlier.edition == RatingChangeRow.edition,
            earlier.players == RatingChangeRow.players,
            earlier.created_at <= RatingChangeRow.created_at,
        )
        .scalar_subquery()
    )


def changes_of(session: Session, player_id: str, games: list[tuple[str, int]]) -> dict[tuple[str, int], dict[str, Any]]:
    """``player_id``'s shown rating before and after each of ``games`` that was rated (``change_json``)."""
    if not games:
        return {}
    rows = session.execute(
        select(
            RatingChangeRow.table_id,
            RatingChangeRow.game_no,
            RatingChangeRow.mu_before,
            RatingChangeRow.mu_after,
            _rated_games(),
        ).where(RatingChangeRow.player_id == player_id, RatingChangeRow.table_id.in_({t for t, _ in games}))
    ).all()
    wanted = set(games)
    return {(t, g): change_json(before, after, n) for t, g, before, after, n in rows if (t, g) in wanted}


def game_changes(engine: Engine, table_id: str) -> dict[str, Any]:
    """The rating changes of a table's current game, seat by seat (``None``: a bot, a guest, or not rated), and
    why it is unrated, if it is (the game-over panel)."""
    with Session(engine) as session:
        game_no = session.scalar(select(TableRow.game_no).where(TableRow.id == table_id)) or 0
        players = dict(
            session.execute(select(SeatRow.seat, SeatRow.player_id).where(SeatRow.table_id == table_id)).all()
        )
        found = {
            player: change_json(before, after, n)
            for player, before, after, n in session.execute(
                select(
                    RatingChangeRow.player_id, RatingChangeRow.mu_before, RatingChangeRow.mu_after, _rated_games()
                ).where(RatingChangeRow.table_id == table_id, RatingChangeRow.game_no == game_no)
            )
        }
        game = session.get(GameRow, (table_id, game_no)) if game_no else None
    unrated = {"reason": game.unrated, "seat": game.unrated_seat} if game is not None and game.unrated else None
    changes = [found.get(player) if player is not None else None for _, player in sorted(players.items())]
    return {"game": game_no, "unrated": unrated, "changes": changes}


def ratings_of(session: Session, player_id: str) -> list[dict[str, Any]]:
    """A player's ratings, one per pool played, the most played first."""
    rows = session.scalars(
        select(RatingRow)
        .where(RatingRow.player_id == player_id, RatingRow.games > 0)
        .order_by(RatingRow.games.desc(), RatingRow.edition, RatingRow.players)
    ).all()
    return [{"edition": r.edition, "players": r.players, **rating_json(r.mu, r.sigma, r.games)} for r in rows]


def leaderboard(engine: Engine, edition: str, players: int, limit: int = LEADERBOARD_SIZE) -> dict[str, Any]:
    """A pool's best players (established ratings first, then provisional ones), and every pool with its size."""
    provisional = case((RatingRow.games < PROVISIONAL_GAMES, 1), else_=0)
    with Session(engine) as session:
        rows = session.execute(
            select(
                RatingRow.player_id, PlayerRow.name, PlayerRow.username, RatingRow.mu, RatingRow.sigma, RatingRow.games
            )
            .join(PlayerRow, PlayerRow.id == RatingRow.player_id)
            .where(RatingRow.edition == edition, RatingRow.players == players, RatingRow.games > 0)
            .order_by(provisional, RatingRow.mu.desc(), RatingRow.player_id)
            .limit(limit)
        ).all()
        pools = session.execute(
            select(RatingRow.edition, RatingRow.players, func.count())
            .where(RatingRow.games > 0)
            .group_by(RatingRow.edition, RatingRow.players)
            .order_by(RatingRow.edition, RatingRow.players)
        ).all()
    return {
        "edition": edition,
        "players": players,
        "provisional_games": PROVISIONAL_GAMES,
        "pools": [{"edition": e, "players": p, "rated": n} for e, p, n in pools],
        "ranking": [
            {"rank": n, "player": player, "name": name, "guest": username is None, **rating_json(mu, sigma, games)}
            for n, (player, name, username, mu, sigma, games) in enumerate(rows, 1)
        ],
    }


def table_ratings(engine: Engine, table_id: str) -> list[dict[str, Any] | None] | None:
    """The rating of each seat's account in the table's pool (``None``: a bot, a guest or an open seat); a new
    account shows the starting rating."""
    with Session(engine) as session:
        table = session.get(TableRow, table_id)
        if table is None:
            return None
        seats = session.execute(
            select(SeatRow.seat, SeatRow.player_id, PlayerRow.username)
            .outerjoin(PlayerRow, PlayerRow.id == SeatRow.player_id)
            .where(SeatRow.table_id == table_id)
            .order_by(SeatRow.seat)
        ).all()
        accounts = [player for _, player, username in seats if player is not None and username is not None]
        found = {
            r.player_id: r
            for r in session.scalars(
                select(RatingRow).where(
                    RatingRow.player_id.in_(accounts),
                    RatingRow.edition == table.edition,
                    RatingRow.players == table.players,
                )
            )
        }
    initial = model().rating()
    answer: list[dict[str, Any] | None] = []
    for _, player, username in seats:
        if player is None or username is None:
            answer.append(None)
            continue
        row = found.get(player)
        answer.append(rating_json(row.mu, row.sigma, row.games) if row else rating_json(initial.mu, initial.sigma, 0))
    return answer
