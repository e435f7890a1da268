"""The bots' decisions and the fast core's outputs, bit for bit, on a few hundred seeded positions.

The golden file (``decisions_stable.json``, beside this file) was written from the code before the fast core was
split into modules; a refactoring that changes no behaviour leaves every decision and every kernel output the same.
Regenerate it only for a change meant to change behaviour: ``python tests/bots/test_decisions_stable.py --write``
(with ``PYTHONPATH=src:tests``), and say why in the commit.

Each position is a seat's view at a seeded random point of a seeded game of every table. At each one every bot
cheap enough (small budgets) decides with a generator seeded from the position, and the fast core's entry points
(rollouts plain, with the learned policy, truncated with the learned value, with variants; the opponent model's
likelihoods, plain and by variant; a whole deal played from the true world) run on worlds drawn from the seat's
beliefs; their outputs are kept as short digests (integers exactly, floats to 10 significant digits).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

from luz.bots import make_arena_bot
from luz.engine import Bid, Game, Phase, Play, View, view
from luz.engine.beliefs import Beliefs
from support import fastsim as fs

GOLDEN = Path(__file__).with_name("decisions_stable.json")
TABLES = (
    ("korokorodou-2014", 3),
    ("korokorodou-2014", 4),
    ("iello-2024", 3),
    ("iello-2024", 4),
    ("iello-2024", 5),
    ("standard-deck", 3),
    ("standard-deck", 4),
)
POSITIONS_PER_TABLE = 30
SPECS = (
    "random",
    "heuristic",
    "heuristic:bias=1",
    "heuristic:bias=-1",
    "heuristic:safety=-1",
    "heuristic:safety=1",
    "heuristic:greedy=1",
    "heuristic:noise=0.3",
    "strong:iters=4",
    "strong:iters=4:depth=2",
    "strong:iters=4:spite=0",
    "expert:iters=4",
    "expert:iters=4:depth=10",
    "learned:iters=4",
    "policy",
    "policy:step=1",
    "oracle",
)
WORLDS = 6


def positions() -> list[tuple[str, Game, View]]:
    """``(key, game, view of the player to act)`` at seeded random points of seeded games of every table."""
    found = []
    for edition, players in TABLES:
        for n in range(POSITIONS_PER_TABLE):
            rng = random.Random(f"stable:{edition}:{players}:{n}")
            game = Game.new(edition, players, seed=rng.getrandbits(32))
            steps = rng.randrange(players + 10 * players * rng.choice((1, 1, 2, 3)))
            for _ in range(steps):
                if game.phase not in (Phase.BID, Phase.PLAY) or game.current_player is None:
                    break
                game.apply(rng.choice(list(game.legal_actions())))
            if game.phase not in (Phase.BID, Phase.PLAY) or game.current_player is None:
                continue
            found.append((f"{edition}:{players}:{n}", game, view(game, game.current_player)))
    return found


def decisions(game: Game, seen: View, key: str) -> dict[str, str]:
    """Each bot's decision at ``seen``, from a generator seeded by the position and the bot."""
    out = {}
    for spec in SPECS:
        bot = make_arena_bot(spec)
        rng = random.Random(f"{key}:{spec}")
        if getattr(bot, "sees_own_cards", False):
            assert seen.seat is not None
            action = bot.choose_seeing(seen, game.deals[-1].hands[seen.seat], rng)
        else:
            action = bot.choose(seen, rng)
        out[spec] = str(action)
    return out


def _digest(*arrays: np.ndarray, exact: bool = False) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        if exact or a.dtype.kind in "iub":
            h.update(np.ascontiguousarray(a.astype(np.int64) if a.dtype.kind in "iub" else a).tobytes())
        else:
            h.update(" ".join(f"{x:.10g}" for x in a.ravel()).encode())
        h.update(str(a.shape).encode())
    return h.hexdigest()[:16]


def kernel_outputs(game: Game, seen: View, key: str, exact: bool = False) -> dict[str, Any]:
    """The fast core's entry points at ``seen``, on worlds drawn from the seat's beliefs: digests of their outputs
    (``exact``: the raw floats hashed as bytes, and the likelihoods themselves)."""
    from luz.bots.adaptive import VARIANTS
    from luz.bots.learned import policy_of_step
    from luz.bots.strong import NOISE_BID, NOISE_PLAY, Position
    from luz.bots.value_weights import shipped_value

    p = Position.from_view(seen)
    seat, players = p.seat, len(p.won)
    beliefs = Beliefs(seen)
    generator = np.random.default_rng(int(hashlib.sha256(key.encode()).hexdigest()[:8], 16))
    vals = np.repeat(p.val[None], WORLDS, axis=0)
    vals[:, seat, list(beliefs.slots)] = beliefs.sample_values(WORLDS, generator)
    if seen.phase is Phase.BID:
        top = max(a.tricks for a in seen.legal_actions if isinstance(a, Bid))
        firsts = np.arange(top + 1, dtype=np.int64) * 2
    else:
        firsts = np.array([a.slot for a in seen.legal_actions if isinstance(a, Play)], dtype=np.int64)
    state = (p.col, p.played, p.st, p.trick, p.won, p.bids, p.safe, p.rules)
    out: dict[str, Any] = {}

    def run(name: str, policy: np.ndarray, stop: int, value: np.ndarray, kinds: np.ndarray | None = None) -> None:
        floating = value.shape[0] > 0
        scores = np.zeros((len(firsts), WORLDS, players), dtype=np.float64 if floating else np.int64)
        tricks = np.zeros((len(firsts), WORLDS, players), dtype=np.int64)
        if kinds is None:
            fs.rollouts(vals, *state, seat, False, firsts, policy, stop, value, scores, tricks)
        else:
            fs.rollouts_variants(vals, kinds, *state, seat, False, firsts, 11, stop, value, scores, tricks)
        out[name] = _digest(scores, tricks, exact=exact)

    stop = fs.H if p.st[fs.PHASE] == fs.BIDDING else min(int(p.st[fs.TRICKS]) + 2, fs.H)
    run("rollouts", fs.NO_POLICY, fs.H, fs.NO_VALUE)
    run("rollouts_policy", policy_of_step(None), fs.H, fs.NO_VALUE)
    run("rollouts_value", fs.NO_POLICY, stop, shipped_value())
    kinds = VARIANTS[generator.integers(0, len(VARIANTS), size=(WORLDS, players))]
    kinds[:, seat] = 0
    run("rollouts_variants", fs.NO_POLICY, fs.H, fs.NO_VALUE, kinds)
    run("rollouts_variants_value", fs.NO_POLICY, stop, shipped_value(), kinds)
    first = int(p.st[fs.FIRST])
    weights = np.empty(WORLDS)
    fs.likelihoods(vals, p.col, p.rules, seat, first, p.bids, p.safe, p.observed, NOISE_BID, NOISE_PLAY, weights)
    by_variant = np.empty((WORLDS, players, len(VARIANTS)))
    args = (vals, p.col, p.rules, seat, first, p.bids, p.safe, p.observed, VARIANTS, NOISE_BID, NOISE_PLAY)
    fs.likelihoods_by_variant(*args, by_variant)
    out["likelihoods"] = _digest(weights, exact=exact)
    out["likelihoods_by_variant"] = _digest(by_variant, exact=exact)
    if exact:
        out["likelihoods_raw"] = [float(x).hex() for x in weights]
        out["likelihoods_by_variant_raw"] = [float(x).hex() for x in by_variant.ravel()]
    truth = np.array([[c.value for c in hand] for hand in game.deals[-1].hands], dtype=np.int64)
    played, st, trick, won, bids, safe = (a.copy() for a in (p.played, p.st, p.trick, p.won, p.bids, p.safe))
    gt = np.zeros((players, fs.H, int(p.rules[fs.HIGH]) + 2))
    fs.world_beliefs(truth, p.col, played, p.rules, -1, False, gt)
    fs.play_deal(truth, p.col, played, st, trick, won, bids, safe, p.rules, gt, -1, False, -1, fs.NO_POLICY, fs.H)
    out["play_deal"] = _digest(won, bids, safe)
    return out


def record(exact: bool = False) -> dict[str, dict[str, Any]]:
    """Every position's decisions (by bot spec) and kernel outputs (by entry point)."""
    return {
        key: {**decisions(game, seen, key), **kernel_outputs(game, seen, key, exact)} for key, game, seen in positions()
    }


def dump(recorded: dict[str, dict[str, Any]]) -> str:
    """The golden file's text: the names of the outputs, then one line per position with its outputs in that order."""
    names = sorted(next(iter(recorded.values())))
    lines = [f"{json.dumps(key)}: {json.dumps([value[n] for n in names])}" for key, value in recorded.items()]
    return f'{{"names": {json.dumps(names)},\n"positions": {{\n' + ",\n".join(lines) + "\n}}\n"


def load() -> dict[str, dict[str, Any]]:
    """The golden file's outputs, by position and name."""
    golden = json.loads(GOLDEN.read_text())
    return {key: dict(zip(golden["names"], row, strict=True)) for key, row in golden["positions"].items()}


def test_decisions_and_kernel_outputs_are_those_recorded() -> None:
    golden, now = load(), record()
    assert len(now) >= 200
    assert now.keys() == golden.keys()
    differ = [(key, name) for key in golden for name in golden[key] if golden[key][name] != now[key].get(name)]
    assert not differ, f"{len(differ)} outputs differ, e.g. {differ[:5]}"


if __name__ == "__main__":
    if "--write" in sys.argv:
        GOLDEN.write_text(dump(record()))
    elif len(sys.argv) > 2 and sys.argv[1] == "--exact":
        Path(sys.argv[2]).write_text(dump(record(exact=True)))
    else:
        print(__doc__)
