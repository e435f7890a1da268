"""The review of one seat's game: every decision of that seat valued from what it knew then, by the expert's search.

At each of the seat's decisions (a bid with its safety choice, or a card), the review sees exactly what a bot would
be given, the seat's view at that moment, and nothing else. It draws ``worlds`` hidden worlds from the seat's exact
beliefs, weighed by an opponent model fitted to this table (:class:`luz.bots.adaptive.AdaptiveSearch`: each other
seat a mixture of the heuristic's variants, from the deals scored so far and this deal's bids and plays), and
plays the deal out in each of them once per legal action, each other seat then playing its drawn variant and the
seat the heuristic, on their own beliefs. Every action is thus valued on the same worlds, so that the difference
between two actions is measured world by world; the playouts' figures go through the calibration map
(:mod:`luz.bots.review_calibration`, fitted on games of a mixed field):

- a bid's **expected points** for the deal, and its chance of being **made**;
- a card's expected points for the deal, and its chance of taking the current **trick**;
- the chosen action's **loss**: the best option's expected points minus its own (the chosen one is the best on an
  exact tie), with the standard error of that difference over the worlds; a **label** when the loss is beyond the
  noise (over :data:`Z` standard errors) and at least a threshold of :data:`LABELS`, counted in the edition's
  penalty per trick missed; its **accuracy**; for a bid, what seeing its own cards would have been worth;
- per deal, its points split exactly into the deal's worth at the seat's first decision, what its decisions lost
  (at most the deal's range of points) and luck.

A decision with one legal action (the last card, a forced follow) is marked ``forced`` and counted in no figure.
The review of the same record, seat and settings is the same (each decision's generator is seeded from the
settings' seed and the decision's place). The JSON schema is in ``docs/REVIEW.md``.

>>> from luz.engine import Game, to_record
>>> from luz.bots import make_bot, play_out
>>> game = Game.new("iello-2024", players=3, seed=2)
>>> import random
>>> play_out(game, [make_bot("heuristic")] * 3, random.Random(2))
>>> review = review_game(to_record(game), seat=0, settings=ReviewSettings(worlds=8))
>>> review["format"], review["seat"], len(review["deals"]) == len(to_record(game)["deals"])
('luz-review', 0, True)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from luz.engine import Action, Bid, Edition, Game, Phase, Play, TableOptions, View, replay, view
from luz.engine.beliefs import Beliefs

from .adaptive import AdaptiveSearch, variant_prior
from .fast.rollouts import rollouts_variants
from .fast.rules import TRICKS, H
from .fast.value import NO_VALUE
from .review_calibration import Calibration, shipped_calibration
from .strong import OVERSAMPLE, Position

FORMAT = "luz-review"
VERSION = 2
GRAIN = 64
"""A deal's start value, decision loss and luck are multiples of ``1 / GRAIN`` (exact in binary floating point), so
that ``points = start_value - decision_loss + luck`` holds exactly in the JSON."""
DEFAULT_WORLDS = 400
"""Worlds per decision by default: about 5 s for one seat of a 4-player IELLO game on one core (docs/BOTS.md,
"Review", with the calibration of the review's figures)."""
BATCH = 50
"""Worlds played out per computation: a decision's worlds come in batches, each drawn with a generator of its own,
so that the server's bot processes take a review in short turns (tens of milliseconds) between bot moves."""
Z = 2.0
"""A loss is beyond the noise when it is over ``Z`` standard errors of the difference."""
LABELS: tuple[tuple[str, float], ...] = (("blunder", 2.0), ("mistake", 1.0), ("inaccuracy", 0.5))
"""The labels, worst first, with the least loss each needs, in the edition's penalty per trick missed
(IELLO 2024: 5 points, so a blunder loses at least 10 expected points)."""


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """The search's settings for a review (named in its JSON)."""

    worlds: int = DEFAULT_WORLDS
    oversample: int = OVERSAMPLE
    seed: str = "review"

    def __post_init__(self) -> None:
        if isinstance(self.worlds, bool) or not isinstance(self.worlds, int) or not 2 <= self.worlds <= 100_000:
            raise ValueError(f"worlds must be a whole number in 2..100000, not {self.worlds!r}")
        if isinstance(self.oversample, bool) or not isinstance(self.oversample, int) or not self.oversample >= 1:
            raise ValueError(f"oversample must be a whole number >= 1, not {self.oversample!r}")


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the reviewed seat: where it was (deal and action index, both 0-based; ``step``, the number
    of actions of the game before it), what the seat saw, and what it chose."""

    deal: int
    index: int
    step: int
    seen: View
    chosen: Action

    @property
    def key(self) -> str:
        """Its place as its generators' seeds read it."""
        return f"{self.deal}:{self.index}"


def decisions(record: Any, seat: int) -> Iterator[Decision]:
    """The decisions of ``seat`` in a game record (any :func:`luz.engine.replay` accepts), with its views then."""
    final = replay(record)
    if not 0 <= seat < final.players:
        raise ValueError(f"seat must be 0..{final.players - 1}, not {seat!r}")
    game = replay(record, upto=0)
    step = 0
    for number, actions in enumerate(final.actions):
        for index, action in enumerate(actions):
            if game.phase is Phase.DEAL:  # a record without a seed: its deals are given, not drawn
                game.deal(final.deals[number].hands, final.deals[number].aside)
            if game.current_player == seat:
                yield Decision(number, index, step, view(game, seat), action)
            game.apply(action)
            step += 1


def decision_list(record: Any, seat: int) -> list[Decision]:
    """:func:`decisions` as a list (what a bot process hands back)."""
    return list(decisions(record, seat))


def thresholds(edition: Edition) -> dict[str, float]:
    """Each label's least loss in points for ``edition``."""
    return {label: share * edition.miss_penalty for label, share in LABELS}


Values = tuple[list[Action], np.ndarray, np.ndarray]
"""One batch of worlds' values of a decision: its options, points ``[option, world]`` and chance ``[option, world]``
(made, or takes the trick: 0 or 1 in each world)."""


def batch_count(settings: ReviewSettings) -> int:
    """How many batches of :data:`BATCH` worlds (the last one smaller) a decision's review plays out."""
    return -(-settings.worlds // BATCH)


def is_forced(seen: View) -> bool:
    """Whether the seat had one legal action (nothing to review)."""
    return len(seen.legal_actions) == 1


def review_decision(
    seen: View, chosen: Action, settings: ReviewSettings, key: str = "", calibration: Calibration | None = None
) -> dict[str, Any]:
    """The review of one decision from the seat's view ``seen`` only (``key``: the decision's place, which seeds
    each batch's generator with the settings' seed)."""
    batches = [] if is_forced(seen) else [values_batch(seen, settings, key, b) for b in range(batch_count(settings))]
    return judge(seen, chosen, batches, calibration)


def values_batch(seen: View, settings: ReviewSettings, key: str, batch: int) -> Values:
    """The values of every option of the decision at ``seen`` in batch ``batch`` of its worlds: drawn from the
    seat's beliefs with a generator of its own, weighed by the opponent model fitted to this table (each other
    seat a mixture of the heuristic's variants, its prior from the deals scored so far this game, its posterior
    from its bids and plays in this deal), played out once per option, each other seat playing its variant."""
    count = min(BATCH, settings.worlds - batch * BATCH)
    position = Position.from_view(seen)
    rng = np.random.default_rng(_seed(settings.seed, f"{key}/{batch}"))
    search = AdaptiveSearch(position, Beliefs(seen), variant_prior(seen), rng, settings.oversample)
    worlds, kinds = search.worlds_and_variants(count)
    seed = int(rng.integers(2**31))
    if seen.phase is Phase.BID:
        return _bid_values(seen, position, worlds, kinds, seed)
    return _play_values(seen, position, worlds, kinds, seed)


def raw_values(batches: list[Values]) -> tuple[list[Action], np.ndarray, np.ndarray]:
    """A decision's batches joined: its options, points ``[option, world]`` and chance ``[option, world]``, as the
    playouts gave them (before the calibration)."""
    actions = batches[0][0]
    return actions, np.concatenate([b[1] for b in batches], axis=1), np.concatenate([b[2] for b in batches], axis=1)


def judge(seen: View, chosen: Action, batches: list[Values], calibration: Calibration | None = None) -> dict[str, Any]:
    """A decision's review from its batches of values (none for a forced decision): each legal option's expected
    points, chance, loss and its standard error (paired, world by world), the best option (the chosen one on an
    exact tie), the label, the decision's accuracy, and for a bid what seeing its own cards would have been worth;
    points and chances through the ``calibration`` (default: the shipped one)."""
    if chosen not in seen.legal_actions:
        raise ValueError(f"{chosen} is not a legal action of that view")
    kind = "bid" if isinstance(chosen, Bid) else "play"
    scale = seen.edition.miss_penalty
    calibration = calibration or shipped_calibration()
    if is_forced(seen):
        option = {"action": str(chosen), "points": None, "chance": None, "loss": 0.0, "se": 0.0}
        return {"kind": kind, "action": str(chosen), "forced": True, "options": [option], "best": str(chosen),
                "loss": 0.0, "se": 0.0, "label": None, "best_within_noise": True, "value": None, "accuracy": None,
                "information_value": None}  # fmt: skip
    actions, raw_points, raw_chances = raw_values(batches)
    points = calibration.points(kind, raw_points, scale)
    chances = calibration.chance(kind, raw_chances.mean(axis=1))
    means = points.mean(axis=1)
    legal_index = [actions.index(a) for a in seen.legal_actions]
    mine = actions.index(chosen)
    top = max(means[a] for a in legal_index)
    best = mine if means[mine] == top else next(a for a in legal_index if means[a] == top)
    count = points.shape[1]
    options: list[dict[str, Any]] = []
    for a in sorted(legal_index, key=lambda a: (a != best, -means[a])):
        difference = points[best] - points[a]
        options.append({
            "action": str(actions[a]),
            "points": _round(means[a]),
            "chance": _round(chances[a]),
            "loss": _round(difference.mean()),
            "se": _round(difference.std(ddof=1) / math.sqrt(count)),
        })  # fmt: skip
    chosen_option = next(o for o in options if o["action"] == str(chosen))
    loss, se = chosen_option["loss"], chosen_option["se"]
    informed = points[legal_index].max(axis=0).mean() - top if kind == "bid" else None
    return {
        "kind": kind,
        "action": str(chosen),
        "forced": False,
        "options": options,
        "best": str(actions[best]),
        "loss": loss,
        "se": se,
        "label": label_of(loss, se, thresholds(seen.edition)),
        "best_within_noise": mine == best or loss <= Z * se,
        "value": _round(top),
        "accuracy": _round(calibration.accuracy(loss, scale)),
        "information_value": None if informed is None else _round(informed),
    }


def label_of(loss: float, se: float, least: dict[str, float]) -> str | None:
    """The worst label whose threshold ``loss`` reaches, if the loss is beyond the noise."""
    if loss <= Z * se:
        return None
    return next((label for label, _ in LABELS if loss >= least[label]), None)


def _bid_values(seen: View, position: Position, worlds: np.ndarray, kinds: np.ndarray, seed: int) -> Values:
    """Every bid and safety up to the highest legal bid: points ``[option, world]`` and made (0 or 1)."""
    top = max(a.tricks for a in seen.legal_actions if isinstance(a, Bid))
    firsts = np.arange(top + 1, dtype=np.int64) * 2
    _, tricks = _playouts(position, worlds, kinds, seed, firsts, H)
    taken = tricks[:, :, position.seat]
    edition, options, number = seen.edition, seen.options, seen.deal_number
    actions: list[Action] = []
    points, made = [], []
    for a in range(top + 1):
        for safety in (False, True):
            actions.append(Bid(a, safety))
            score = np.array([edition.score(a, safety, t, number, options) for t in range(H + 1)], dtype=np.float64)
            points.append(score[taken[a]])
            made.append(np.array([edition.made(a, safety, t) for t in range(H + 1)], dtype=np.float64)[taken[a]])
    return actions, np.array(points), np.array(made)


def _play_values(seen: View, position: Position, worlds: np.ndarray, kinds: np.ndarray, seed: int) -> Values:
    """Every legal card: the deal's points ``[option, world]`` and whether it takes the current trick."""
    slots = [a.slot for a in seen.legal_actions if isinstance(a, Play)]
    firsts = np.array(slots, dtype=np.int64)
    scores, _ = _playouts(position, worlds, kinds, seed, firsts, H)
    _, after_trick = _playouts(position, worlds, kinds, seed, firsts, int(position.st[TRICKS]) + 1)
    taken = after_trick[:, :, position.seat] > position.won[position.seat]
    return [Play(slot) for slot in slots], scores[:, :, position.seat], taken.astype(np.float64)


def _playouts(
    position: Position, worlds: np.ndarray, kinds: np.ndarray, seed: int, firsts: np.ndarray, stop: int
) -> tuple[np.ndarray, np.ndarray]:
    """Points and tricks ``[action, world, seat]`` after each first action, played out in ``worlds`` (each seat of
    world ``k`` playing its variant ``kinds[k, seat]``, numba's generator seeded with ``seed``) until ``stop``
    tricks are played."""
    p = position
    scores = np.zeros((len(firsts), len(worlds), len(p.won)))
    tricks = np.zeros(scores.shape, dtype=np.int64)
    state = (p.col, p.played, p.st, p.trick, p.won, p.bids, p.safe, p.rules)
    rollouts_variants(worlds, kinds, *state, p.seat, False, firsts, seed, stop, NO_VALUE, scores, tricks)
    return scores, tricks


def review_game(record: Any, seat: int, settings: ReviewSettings | None = None) -> dict[str, Any]:
    """The review of ``seat``'s decisions in a finished game ``record``: each decision, each deal's summary (its
    expected points lost, the share of decisions best within the noise, the best bid: "what you could have bid"),
    and the game's."""
    settings = settings or ReviewSettings()
    check_finished(record)
    return summarise(record, seat, settings, [review_entry(d, settings) for d in decisions(record, seat)])


def check_finished(record: Any) -> Game:
    """The game of ``record``, if it is over (:class:`ValueError` otherwise: only a finished game is reviewed)."""
    game = replay(record)
    if game.phase is not Phase.GAME_OVER:
        raise ValueError("only a finished game is reviewed")
    return game


def review_entry(decision: Decision, settings: ReviewSettings) -> dict[str, Any]:
    """One decision's review with its place."""
    return placed(decision, review_decision(decision.seen, decision.chosen, settings, decision.key))


def placed(decision: Decision, judged: dict[str, Any]) -> dict[str, Any]:
    """A decision's review (:func:`judge`) with its place: ``deal`` (1-based), ``index``, ``step``."""
    return {"deal": decision.deal + 1, "index": decision.index, "step": decision.step, **judged}


def summarise(record: Any, seat: int, settings: ReviewSettings, reviewed: list[dict[str, Any]]) -> dict[str, Any]:
    """The review's JSON from its decisions' entries (:func:`review_entry`, in order)."""
    game = check_finished(record)
    calibration = shipped_calibration()
    deals = [
        _deal_summary(game, seat, number, [d for d in reviewed if d["deal"] == number])
        for number in range(1, len(game.sheet.deals) + 1)
    ]
    totals = {key: sum(d[key] for d in deals) for key in ("start_value", "decision_loss", "luck")}
    return {
        "format": FORMAT,
        "version": VERSION,
        "seat": seat,
        "indexing": "seat, index, step and slots (play:SLOT) from 0; deal numbers from 1",
        "edition": game.edition.key,
        "players": game.players,
        "settings": {"search": "adaptive", **asdict(settings), "batch": BATCH, "depth": None, "z": Z},
        "calibration": {
            "fitted_on": calibration.fitted_on,
            "bid_line": list(calibration.bid_line),
            "play_line": list(calibration.play_line),
            "accuracy_scale": calibration.accuracy_scale,
        },
        "thresholds": thresholds(game.edition),
        "decisions": reviewed,
        "deals": deals,
        "game": {"points": game.sheet.totals[seat], **_totals(reviewed), **totals},
    }


def summarise_deal(record: Any, seat: int, number: int, mine: list[dict[str, Any]]) -> dict[str, Any]:
    """Deal ``number``'s summary (1-based) in the review's JSON from its decisions' entries ``mine``, in order: the
    same as :func:`summarise` gives once every deal is reviewed."""
    return _deal_summary(check_finished(record), seat, number, mine)


def _deal_summary(game: Game, seat: int, number: int, mine: list[dict[str, Any]]) -> dict[str, Any]:
    result = game.sheet.deals[number - 1]
    bid = next((d for d in mine if d["kind"] == "bid"), None)
    return {
        "deal": number,
        "bid": bid["action"] if bid else None,
        "could_bid": bid["best"] if bid else None,
        "bid_tricks": result.bids[seat],
        "tricks": result.tricks[seat],
        "points": result.scores[seat],
        **_totals(mine),
        **_luck(mine, result.scores[seat], _points_range(game.edition, number, game.options)),
        "information_value": bid["information_value"] if bid else None,
    }


def _points_range(edition: Edition, number: int, options: TableOptions) -> float:
    """The range of points a seat could score in deal ``number``: its best score less its worst, over every bid,
    safety and number of tricks."""
    scores = [
        edition.score(b, s, t, number, options) for b in range(H + 1) for s in (False, True) for t in range(H + 1)
    ]
    return float(max(scores) - min(scores))


def _luck(reviewed: list[dict[str, Any]], points: int, allowed: float) -> dict[str, Any]:
    """A deal's points split: ``start_value`` (the expected points of the best option at the seat's first reviewed
    decision of the deal; the points scored when none was reviewed), ``decision_loss`` (its decisions' losses,
    at most ``allowed``, the range of points the deal allowed) and ``luck`` (the rest), multiples of
    ``1 / GRAIN`` such that ``points = start_value - decision_loss + luck`` exactly."""
    counted = [d for d in reviewed if not d["forced"]]
    start = _grain(counted[0]["value"]) if counted else float(points)
    lost = _grain(min(sum(d["loss"] for d in counted), allowed))
    return {"start_value": start, "decision_loss": lost, "luck": points - start + lost, "range": allowed}


def _totals(reviewed: list[dict[str, Any]]) -> dict[str, Any]:
    """Expected points lost, decisions counted (not forced), the share best within the noise, each label's count,
    and the accuracy (the mean of the decisions')."""
    counted = [d for d in reviewed if not d["forced"]]
    labels = {label: sum(d["label"] == label for d in counted) for label, _ in reversed(LABELS)}
    best = sum(d["best_within_noise"] for d in counted)
    return {
        "expected_lost": _round(sum(d["loss"] for d in counted)),
        "decisions": len(counted),
        "best_share": _round(best / len(counted)) if counted else None,
        "labels": labels,
        "accuracy": _round(sum(d["accuracy"] for d in counted) / len(counted)) if counted else None,
    }


def _grain(value: float) -> float:
    """``value`` to the nearest multiple of ``1 / GRAIN``."""
    return round(value * GRAIN) / GRAIN


def _seed(seed: str, key: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}/{key}".encode()).digest()[:8], "big")


def _round(value: float) -> float:
    return round(float(value), 4)


__all__ = [
    "DEFAULT_WORLDS",
    "FORMAT",
    "LABELS",
    "VERSION",
    "Decision",
    "ReviewSettings",
    "batch_count",
    "decision_list",
    "decisions",
    "is_forced",
    "judge",
    "placed",
    "review_decision",
    "review_game",
    "summarise",
    "summarise_deal",
    "thresholds",
    "values_batch",
]
