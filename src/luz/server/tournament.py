"""A duplicate Swiss tournament's rules, pure (no I/O): the standings, the pairing of a round into tables and
duplicate scoring (docs/TOURNAMENTS.md).

No maintained library fits: the Swiss pairing packages on PyPI (caissify-pairings, pairing-core, swisspair,
gambit-pairing, cardarena-tournament-core) pair two players per game (FIDE's Dutch system, Magic's matches); a
table here seats 3 to 5 players, so the pairing is a short greedy grouping over the standings, written here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

WINDOW = 3
"""How many tables' worth of the next players in the standings a table may draw from to avoid repeat opponents."""


@dataclass(frozen=True)
class Entry:
    """Who held one seat of one table in a round and the points they made: ``player`` is ``None`` for a bot."""

    table: int
    seat: int
    player: str | None
    points: int


@dataclass
class Standing:
    """A player's line in the standings."""

    player: str
    score: float = 0.0
    """The sum of their rounds' duplicate scores."""
    points: int = 0
    """The sum of their rounds' points."""
    best: float | None = None
    """Their best round's duplicate score."""
    rounds: list[float] = field(default_factory=list)


def duplicate_scores(entries: Iterable[Entry]) -> dict[str, float]:
    """Each player's duplicate score in one round: their points minus the mean points of everyone (bots included)
    who held the same seat, the same cards, at the round's tables; rounded to 2 decimals."""
    entries = list(entries)
    by_seat: dict[int, list[int]] = {}
    for entry in entries:
        by_seat.setdefault(entry.seat, []).append(entry.points)
    means = {seat: sum(points) / len(points) for seat, points in by_seat.items()}
    return {e.player: round(e.points - means[e.seat], 2) for e in entries if e.player is not None}


def standings(players: Sequence[str], rounds: Iterable[Sequence[Entry]]) -> list[Standing]:
    """The standings after ``rounds`` (each a finished round's entries): by duplicate score, then points, then
    best round, then the order of ``players`` (the tournament's draw). Bots are not ranked."""
    lines = {player: Standing(player) for player in players}
    for entries in rounds:
        for player, score in duplicate_scores(entries).items():
            line = lines.get(player)
            if line is None:
                continue
            line.score = round(line.score + score, 2)
            line.rounds.append(score)
            line.best = score if line.best is None else max(line.best, score)
        for entry in entries:
            if entry.player in lines:
                lines[entry.player].points += entry.points
    draw = {player: n for n, player in enumerate(players)}
    return sorted(
        lines.values(),
        key=lambda s: (-s.score, -s.points, -(s.best if s.best is not None else 0.0), draw[s.player]),
    )


def meetings(rounds: Iterable[Sequence[Entry]]) -> Counter[frozenset[str]]:
    """How many times each pair of players sat at the same table."""
    met: Counter[frozenset[str]] = Counter()
    for entries in rounds:
        tables: dict[int, list[str]] = {}
        for entry in entries:
            if entry.player is not None:
                tables.setdefault(entry.table, []).append(entry.player)
        for seated in tables.values():
            for n, one in enumerate(seated):
                for other in seated[n + 1 :]:
                    met[frozenset((one, other))] += 1
    return met


def seats_held(rounds: Iterable[Sequence[Entry]]) -> Counter[tuple[str, int]]:
    """How many times each player held each seat."""
    return Counter((e.player, e.seat) for entries in rounds for e in entries if e.player is not None)


def pair(
    order: Sequence[str],
    size: int,
    met: Mapping[frozenset[str], int] | None = None,
    held: Mapping[tuple[str, int], int] | None = None,
) -> list[list[str | None]]:
    """The tables of the next round, each a list of ``size`` seats (``None``: a bot), from the players in
    standings order ``order``.

    Tables are filled from the top of the standings: the best remaining player opens a table, and each further
    seat goes to whichever of the next ``WINDOW * size`` remaining players has met those already at the table the
    fewest times (the higher in the standings on a tie), so players of similar scores sit together and repeat
    opponents are avoided where the window allows. The last table's empty seats are bots'. Within a table, seat
    0, 1, ... go in turn to the player who has held that seat the fewest times (the higher in the standings on a
    tie), so the seats rotate over the rounds."""
    if size < 2:
        raise ValueError("a table seats at least 2 players")
    met = met or {}
    held = held or {}
    rank = {player: n for n, player in enumerate(order)}
    left = list(order)
    groups: list[list[str]] = []
    while left:
        group = [left.pop(0)]
        while len(group) < size and left:
            window = left[: WINDOW * size]
            chosen = min(window, key=lambda p: (sum(met.get(frozenset((p, g)), 0) for g in group), rank[p]))
            left.remove(chosen)
            group.append(chosen)
        groups.append(group)
    return [_seated(group, size, held, rank) for group in groups]


def _seated(
    group: list[str], size: int, held: Mapping[tuple[str, int], int], rank: Mapping[str, int]
) -> list[str | None]:
    """The group's seats: each seat in turn to the player who held it least (the higher ranked on a tie); the
    seats left over are bots'."""
    seats: list[str | None] = []
    waiting = sorted(group, key=rank.__getitem__)
    for seat in range(size):
        if not waiting:
            seats.append(None)
            continue
        player = min(waiting, key=lambda p: (held.get((p, seat), 0), rank[p]))
        waiting.remove(player)
        seats.append(player)
    return seats
