"""Retry your mistakes: each decision a stored review (:mod:`luz.bots.review`) labelled a mistake or a blunder,
as a puzzle: the position as the reviewed seat saw it then, to choose again; the answer is checked here, from the
review, and only then are the options' values told.

A puzzle carries the seat's view at the decision (:func:`luz.engine.view`: never its own unplayed values nor the
cards set aside) and what it played; never an option's points, chance, loss or label, nor which was best. A
player's recent reviewed games give its puzzles and its accuracy (the mean of the games' accuracies).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from .db import ResultRow, ReviewRow, TableRow
from .history import NOT_DAILY, NOT_IN_A_ROUND_IN_PLAY

PUZZLE_LABELS = ("mistake", "blunder")
"""The labels that make a decision a puzzle."""
RECENT_REVIEWS = 10
"""How many of a player's newest reviewed games give its puzzles and its accuracy."""


def puzzle_entries(review: dict[str, Any]) -> list[dict[str, Any]]:
    """The review's decisions that are puzzles, in game order."""
    return [d for d in review["decisions"] if not d["forced"] and d["label"] in PUZZLE_LABELS]


def puzzles(record: Any, review: dict[str, Any]) -> list[dict[str, Any]]:
    """The puzzles of a stored review of a finished game ``record``: each its ``step``, ``deal`` (1-based),
    ``index``, ``kind``, the ``view`` of the seat then, its legal actions (``choices``, in engine notation, as an
    answer names one) and the action it ``played``."""
    from luz.bots.review import decisions  # the search's modules: loaded once a puzzle is asked for

    steps = {d["step"] for d in puzzle_entries(review)}
    found = []
    for decision in decisions(record, review["seat"]):
        if decision.step in steps:
            found.append({
                "step": decision.step,
                "deal": decision.deal + 1,
                "index": decision.index,
                "kind": decision.seen.phase.value,
                "view": decision.seen.to_json(),
                "choices": [str(action) for action in decision.seen.legal_actions],
                "played": str(decision.chosen),
            })  # fmt: skip
    return found


def answer(review: dict[str, Any], step: int, action: str) -> dict[str, Any]:
    """The verdict on ``action`` chosen at the puzzle of ``step``: whether it is within the noise of the best
    (its loss at most ``Z`` standard errors: the best, or indistinguishable from it), its label had it been
    played, and the option chosen, the one played and the best with their values; on an exact tie with the best
    (no loss, the same points), the choice is named best, as a review names the player's own. :class:`LookupError`
    when ``step`` is no puzzle, :class:`ValueError` when ``action`` is not one of its legal actions."""
    from luz.bots.review import Z, label_of

    entry = next((d for d in puzzle_entries(review) if d["step"] == step), None)
    if entry is None:
        raise LookupError(f"no puzzle at step {step}")
    options = {o["action"]: o for o in entry["options"]}
    if action not in options:
        raise ValueError(f"{action!r} is not a legal action there")
    chosen, best, played = options[action], options[entry["best"]], options[entry["action"]]
    if chosen["loss"] == 0 and chosen["points"] == best["points"]:
        best = chosen
    return {
        "step": step,
        "action": action,
        "within_noise": best is chosen or chosen["loss"] <= Z * chosen["se"],
        "label": label_of(chosen["loss"], chosen["se"], review["thresholds"]),
        "chosen": chosen,
        "best": best,
        "played": {**played, "label": entry["label"]},
    }


def recent_reviews(engine: Engine, player_id: str, limit: int = RECENT_REVIEWS) -> list[dict[str, Any]]:
    """``player_id``'s newest reviewed finished games (its own seat's review), newest first: ``table``,
    ``game``, ``seat``, ``edition``, ``finished_at`` and the ``review``."""
    with Session(engine) as session:
        rows = session.execute(
            select(ResultRow.table_id, ResultRow.game_no, ResultRow.seat, ResultRow.finished_at, ReviewRow.body)
            .join(
                ReviewRow,
                (ReviewRow.table_id == ResultRow.table_id)
                & (ReviewRow.game_no == ResultRow.game_no)
                & (ReviewRow.seat == ResultRow.seat),
            )
            .where(ResultRow.player_id == player_id, NOT_DAILY, NOT_IN_A_ROUND_IN_PLAY)
            .order_by(ResultRow.finished_at.desc(), ResultRow.table_id, ResultRow.game_no)
            .limit(limit)
        ).all()
        tables = {row[0] for row in rows}
        editions = dict(session.execute(select(TableRow.id, TableRow.edition).where(TableRow.id.in_(tables))).all())
    return [
        {
            "table": table_id,
            "game": game_no,
            "seat": seat,
            "edition": editions.get(table_id),
            "finished_at": finished_at.isoformat(),
            "review": json.loads(body),
        }
        for table_id, game_no, seat, finished_at, body in rows
    ]


def accuracy_of(reviewed: list[dict[str, Any]]) -> dict[str, Any]:
    """The mean accuracy of reviewed games (:func:`recent_reviews`) and how many it is over (a game without a
    reviewed decision has none and is not counted)."""
    values = [r["review"]["game"]["accuracy"] for r in reviewed if r["review"]["game"].get("accuracy") is not None]
    return {"accuracy": round(sum(values) / len(values), 1) if values else None, "games": len(values)}


def mistakes_to_retry(reviewed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The puzzles of reviewed games (:func:`recent_reviews`), newest game first: where each is, its kind and
    label (no value of any option) and the link that opens it."""
    found = []
    for game in reviewed:
        for entry in puzzle_entries(game["review"]):
            found.append({
                "table": game["table"],
                "game": game["game"],
                "seat": game["seat"],
                "edition": game["edition"],
                "finished_at": game["finished_at"],
                "step": entry["step"],
                "deal": entry["deal"],
                "kind": entry["kind"],
                "label": entry["label"],
                "url": f"/puzzle/{game['table']}?game={game['game']}&seat={game['seat']}&step={entry['step']}",
            })  # fmt: skip
    return found
