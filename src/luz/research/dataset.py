"""Imitation-learning data from played games: a ``luz export`` (JSON Lines of records, docs/RECORD.md) as arrays.

Every decision of every game becomes one row: the acting seat's observation (the encoder's tensor of that seat's
engine ``View``, so never its own unplayed values, nor the aside), its legal mask, the action id it took, and the
outcome (the points that seat scored in the deal, its final total, whether it won the game). docs/DATASET.md
describes the format.

>>> from luz.engine import Game, to_record
>>> game = Game.new("standard-deck", 3, seed=1)
>>> while game.current_player is not None:
...     game.apply(game.legal_actions()[0])
>>> record = to_record(game, ["Ana", "Bo", "Cy"])
>>> data = build([record])
>>> data["observations"].shape[0] == len(data["actions"]) == sum(len(d["actions"]) for d in record["deals"])
True

Command line: ``python -m luz.research.dataset EXPORT.jsonl OUT.npz [--view-only]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from luz.engine import Game, InvalidRecord, LuzError, Phase, get_edition, parse_action, replay

from .encoding import ACTION_COUNT, Encoder, Table, action_id

Arrays = dict[str, npt.NDArray[Any]]


def read_export(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a ``luz export`` file, one JSON object a line (blank lines skipped); :class:`InvalidRecord`
    naming the line for one that is not JSON."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InvalidRecord(f"line {number}: not JSON: {error.msg}") from None
            if not isinstance(record, dict):
                raise InvalidRecord(f"line {number}: a record is a JSON object")
            yield record


def _decisions(record: dict[str, Any], encoder: Encoder) -> Iterator[tuple[int, int, Any, Any, int]]:
    """Replay ``record`` (one that replays: checked before) and give each decision: its deal (0-based), the seat
    to act, that seat's observation and mask before acting, and the action id it took."""
    game: Game = replay(record, upto=0)
    edition, players = game.edition, game.players
    table = Table(game)
    for number, deal in enumerate(record["deals"]):
        if game.phase is Phase.DEAL:  # a record without a seed: its hands are authoritative
            game.deal(
                [[edition.parse_card(c, players) for c in hand] for hand in deal["hands"]],
                [edition.parse_card(c, players) for c in deal["aside"]],
            )
        for text in deal["actions"]:
            seat = game.current_player
            assert seat is not None
            seen = table.observation(encoder, seat)
            move = action_id(parse_action(text))
            table.apply_id(move)
            yield number, seat, seen["observation"], seen["action_mask"], move


def build(records: Iterable[dict[str, Any]], perfect_recall: bool = True) -> Arrays:
    """The decisions of ``records`` (all of one edition and player count: the first record's) as arrays.

    Rows, one per decision: ``observations`` (``float32[n, size]``), ``masks`` (``int8[n, 32]``), ``actions``
    (``int64[n]``), ``games`` (the record's index among those kept), ``seats``, ``deals`` (0-based),
    ``deal_points`` (the acting seat's points in that deal), ``totals`` (its final total), ``won`` (it is the
    game's winner). Per game: ``names`` (``str[games, players]``, empty where the record has none).
    ``perfect_recall=False`` gives the view-only tensor. :class:`InvalidRecord` for a record of another table, or
    one that does not replay."""
    rows: dict[str, list[Any]] = {key: [] for key in ("observations", "masks", "actions", "games", "seats", "deals")}
    outcomes: dict[str, list[Any]] = {"deal_points": [], "totals": [], "won": []}
    names: list[list[str]] = []
    table: tuple[str, int] | None = None
    encoder: Encoder | None = None
    for index, record in enumerate(records):
        try:
            edition, players = get_edition(record.get("edition", "")).key, record.get("players")
            final = replay(record)
        except LuzError as error:
            raise InvalidRecord(f"game {index}: {error}") from None
        if table is None:
            table = (edition, players)  # type: ignore[assignment]
        elif (edition, players) != table:
            raise InvalidRecord(f"game {index}: a {edition}/{players} game among {table[0]}/{table[1]} games")
        outcome = final.outcome()
        if outcome is None:
            raise InvalidRecord(f"game {index}: not finished (an export holds finished games)")
        encoder = Encoder(final.edition, final.players, final.options, perfect_recall)
        scores = [result.scores for result in final.results]
        totals, winner = final.sheet.totals, outcome.winner
        game_number = len(names)
        names.append([str(name) for name in record.get("names") or [""] * final.players])
        for deal, seat, observation, mask, move in _decisions(record, encoder):
            for key, value in zip(rows, (observation, mask, move, game_number, seat, deal), strict=True):
                rows[key].append(value)
            outcomes["deal_points"].append(scores[deal][seat])
            outcomes["totals"].append(totals[seat])
            outcomes["won"].append(seat == winner)
    size = 0 if encoder is None else encoder.size
    return {
        "observations": np.array(rows["observations"], dtype=np.float32).reshape(-1, size),
        "masks": np.array(rows["masks"], dtype=np.int8).reshape(-1, ACTION_COUNT),
        "actions": np.array(rows["actions"], dtype=np.int64),
        "games": np.array(rows["games"], dtype=np.int64),
        "seats": np.array(rows["seats"], dtype=np.int64),
        "deals": np.array(rows["deals"], dtype=np.int64),
        "deal_points": np.array(outcomes["deal_points"], dtype=np.float32),
        "totals": np.array(outcomes["totals"], dtype=np.float32),
        "won": np.array(outcomes["won"], dtype=np.bool_),
        "names": np.array(names, dtype=np.str_).reshape(len(names), -1),
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m luz.research.dataset EXPORT OUT.npz``: write the arrays of :func:`build` with ``numpy.savez``."""
    parser = argparse.ArgumentParser(prog="python -m luz.research.dataset", description=__doc__.split("\n")[0])
    parser.add_argument("export", type=Path, help="a luz export: JSON Lines of finished games' records")
    parser.add_argument("out", type=Path, help="the .npz file to write")
    parser.add_argument("--view-only", action="store_true", help="the view-only tensor (no remembered plays)")
    arguments = parser.parse_args(argv)
    try:
        data = build(read_export(arguments.export), perfect_recall=not arguments.view_only)
        np.savez_compressed(arguments.out, **data)  # type: ignore[arg-type]
    except (OSError, LuzError) as error:
        print(f"error: {' '.join(str(error).split())[:300]}", file=sys.stderr)
        return 2
    games = len(data["names"])
    print(f"{len(data['actions'])} decisions of {games} games written to {arguments.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
