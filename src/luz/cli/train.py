"""``luz train``: the learned play policy by expert iteration, written as the ``.npz`` the bots load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from luz.engine import DEFAULT_EDITION, EDITIONS, LuzError, get_edition

from .apps import app
from .extras import require


@app.command()
def train(
    out: Annotated[
        Path, typer.Option(help="The weights file to write (the package ships src/luz/bots/learned_policy.npz).")
    ],
    edition: Annotated[str, typer.Option(help=f"One of {', '.join(EDITIONS)}.")] = DEFAULT_EDITION,
    players: Annotated[int, typer.Option(min=2, help="Players at the self-play table.")] = 4,
    steps: Annotated[int, typer.Option(min=1, max=50, help="Expert-iteration steps.")] = 3,
    games: Annotated[int, typer.Option(min=1, help="Self-play games per step.")] = 8,
    label_rate: Annotated[
        float, typer.Option(min=0.01, max=1, help="Share of card decisions the expert labels.")
    ] = 0.5,
    iters: Annotated[int, typer.Option(min=1, help="The expert search's worlds per decision.")] = 64,
    temperature: Annotated[
        float, typer.Option(min=0.01, help="Points of search value per e-fold of the target distribution.")
    ] = 3.0,
    l2: Annotated[float, typer.Option(min=0, help="L2 penalty of the softmax regression.")] = 0.001,
    seed: Annotated[int, typer.Option(help="Seed of the games and of the bots' choices.")] = 0,
) -> None:
    """Train the play policy by expert iteration: the policy plays, the search labels, the policy is refit.

    Reproducible: the same options give the same weights. Prints one JSON line per step (examples, log-loss,
    agreement of the policy and of the heuristic with the expert's best card, CPU seconds) and writes OUT with
    every step's weights, the log and the options.
    """
    require("arena", "luz train")
    from luz.bots.training import TrainConfig
    from luz.bots.training import train as run_training

    check_table(edition, players)
    config = TrainConfig(edition, players, steps, games, label_rate, iters, temperature, l2, seed)
    steps_weights, log = run_training(config, lambda line: typer.echo(json.dumps(line)))
    out.parent.mkdir(parents=True, exist_ok=True)
    options = json.dumps({"command": "luz train", **{k: getattr(config, k) for k in config.__slots__}})
    np.savez_compressed(out, steps=steps_weights, log=json.dumps(log), options=options)
    typer.echo(f"weights: {out}")


@app.command("train-value")
def train_value(
    out: Annotated[
        Path, typer.Option(help="The weights file to write (the package ships src/luz/bots/learned_value.npz).")
    ],
    steps: Annotated[int, typer.Option(min=1, max=50, help="Training steps, each with fresh deals.")] = 4,
    deals: Annotated[int, typer.Option(min=1, help="Self-play deals per step (the tables in turn).")] = 500,
    held_out: Annotated[int, typer.Option(min=1, help="Held-out deals each step is measured on.")] = 500,
    l2: Annotated[float, typer.Option(min=0, help="L2 penalty of the logistic regression.")] = 0.001,
    seed: Annotated[int, typer.Option(help="Seed of the deals.")] = 0,
    search_steps: Annotated[
        int, typer.Option(min=0, max=50, help="Expert-iteration steps after those: deals played by the expert.")
    ] = 0,
    search_deals: Annotated[int, typer.Option(min=1, help="Deals the expert plays per search step.")] = 200,
    iters: Annotated[int, typer.Option(min=1, help="The expert's worlds per decision in those deals.")] = 64,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Processes playing the expert's deals (default: one per core).")
    ] = None,
) -> None:
    """Train the value that scores the rest of a deal (``expert``, ``strong:depth=4``): each card's chance of a
    trick.

    Self-play deals of every edition and player count, played by the heuristic; then, with --search-steps,
    expert iteration: deals played by the expert using the value so far, the value refit on them. Reproducible:
    the same options give the same weights, whatever --workers. Prints one JSON line per step (deals, cards,
    held-out log-loss and error in tricks still to take, next to the even chance's, CPU and wall seconds) and
    writes OUT with every step's weights, the log and the options.
    """
    require("arena", "luz train-value")
    from luz.bots.value import ValueConfig
    from luz.bots.value import train_value as run_training

    config = ValueConfig(steps, deals, held_out, l2, seed, search_steps, search_deals, iters)
    steps_weights, log = run_training(config, lambda line: typer.echo(json.dumps(line)), workers)
    out.parent.mkdir(parents=True, exist_ok=True)
    options = json.dumps({"command": "luz train-value", **{k: getattr(config, k) for k in config.__slots__}})
    np.savez_compressed(out, steps=steps_weights, log=json.dumps(log), options=options)
    typer.echo(f"weights: {out}")


@app.command("train-ppo")
def train_ppo(
    out: Annotated[
        Path, typer.Option(help="The folder for the checkpoints (ppo-STEPS.zip), curve.json and curve.png.")
    ],
    checkpoints: Annotated[
        str, typer.Option(help="Training step counts to save and evaluate at, comma-separated (0: untrained).")
    ] = "0,50000,100000,200000",
    edition: Annotated[str, typer.Option(help=f"One of {', '.join(EDITIONS)}.")] = DEFAULT_EDITION,
    players: Annotated[int, typer.Option(min=2, help="Players at the table.")] = 4,
    opponents: Annotated[str, typer.Option(help="The opponents trained against: heuristic or random.")] = "heuristic",
    games: Annotated[int, typer.Option(min=1, help="Independent games per evaluation, against each opponent.")] = 500,
    envs: Annotated[int, typer.Option(min=1, help="Games stepped side by side in training.")] = 64,
    rollout: Annotated[int, typer.Option(min=2, help="Decisions per game slot between two updates.")] = 128,
    batch_size: Annotated[int, typer.Option(min=2, help="Minibatch size of an update.")] = 1024,
    epochs: Annotated[int, typer.Option(min=1, help="Passes over each rollout.")] = 4,
    learning_rate: Annotated[float, typer.Option(min=0, help="Adam's learning rate.")] = 1e-3,
    hidden: Annotated[
        str, typer.Option(help="Sizes of the policy's and the value's hidden layers, comma-separated.")
    ] = "256,256",
    seed: Annotated[int, typer.Option(help="Seed of the training games and of the network.")] = 0,
    threads: Annotated[int, typer.Option(min=1, help="Torch's threads.")] = 1,
    plot: Annotated[bool, typer.Option(help="Draw curve.png (needs matplotlib).")] = True,
) -> None:
    """Train sb3-contrib's MaskablePPO on the batched environment and measure its learning curve.

    At each step count of --checkpoints the policy is saved and plays --games independent games against random
    and against heuristic opponents; luz's random and heuristic players at the same seat of the same games are
    the references. Prints one JSON line per evaluation (mean points per game and 95% interval, one game a
    unit); OUT/curve.json is rewritten after each (a stopped run keeps its curve).
    """
    require("research", "luz train-ppo")
    from luz.research.ppo import OPPONENTS, PPOConfig
    from luz.research.ppo import plot as plot_curve
    from luz.research.ppo import train as run_training

    check_table(edition, players)
    if opponents not in OPPONENTS:
        raise typer.BadParameter(f"one of {', '.join(OPPONENTS)}, not {opponents!r}", param_hint="'--opponents'")
    try:
        counts = sorted({int(count) for count in checkpoints.split(",")})
    except ValueError:
        raise typer.BadParameter("whole step counts, comma-separated", param_hint="'--checkpoints'") from None
    if counts[0] < 0:
        raise typer.BadParameter("step counts are 0 or more", param_hint="'--checkpoints'")
    try:
        layers = tuple(int(size) for size in hidden.split(","))
    except ValueError:
        raise typer.BadParameter("whole layer sizes, comma-separated", param_hint="'--hidden'") from None
    if min(layers) < 1:
        raise typer.BadParameter("layer sizes are 1 or more", param_hint="'--hidden'")
    if plot:
        require("arena", "luz train-ppo without --no-plot")
    config = PPOConfig(
        edition, players, opponents, envs, rollout, batch_size, epochs, learning_rate, hidden=layers, seed=seed,
        threads=threads,
    )  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    run = run_training(config, counts, games, out, lambda line: typer.echo(json.dumps(line)))
    if plot:
        plot_curve(run.to_json(), out / "curve.png")
    typer.echo(f"curve: {out / 'curve.json'}")


@app.command("train-selfplay")
def train_selfplay(
    out: Annotated[
        Path,
        typer.Option(help="The weights to write (the package ships src/luz/bots/selfplay.npz); OUT.json: the run."),
    ],
    minutes: Annotated[float, typer.Option(min=0, help="Wall-clock minutes of training in all (both phases).")] = 36,
    imitation_share: Annotated[
        float, typer.Option(min=0, max=1, help="Share of the minutes spent imitating the heuristic first.")
    ] = 0.35,
    games: Annotated[int, typer.Option(min=1, help="Games stepped side by side per table (7 tables).")] = 32,
    hidden: Annotated[int, typer.Option(min=1, help="Width of the two hidden layers.")] = 128,
    eval_games: Annotated[int, typer.Option(min=1, help="Fixed games per table of each point of the curve.")] = 32,
    evaluate_every: Annotated[int, typer.Option(min=1, help="Updates between two points of the curve.")] = 5,
    imitation_updates: Annotated[
        int, typer.Option(min=0, help="At least this many imitation updates (with --minutes 0: exactly).")
    ] = 0,
    selfplay_updates: Annotated[
        int, typer.Option(min=0, help="At least this many self-play updates (with --minutes 0: exactly).")
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the training games, the network and the sampling.")] = 1,
) -> None:
    """Train the self-play baseline (``selfplay``): imitation of the heuristic, then every seat learning by PPO.

    Prints one JSON line per update and per point of the curve (decisions, CPU seconds, margin against the
    heuristic on fixed games with its 95% interval); OUT and OUT.json are rewritten at each point, so a stopped
    run keeps its curve. A budget in minutes is wall-clock time, so it depends on the machine's load; the update
    counts reached are in the curve, and ``--minutes 0`` with both update counts reproduces a run exactly.
    """
    require("research", "luz train-selfplay")
    from luz.research.selfplay import SelfPlayConfig
    from luz.research.selfplay import train as run_training

    config = SelfPlayConfig(
        games=games, hidden=hidden, imitation_updates=imitation_updates, selfplay_updates=selfplay_updates,
        minutes=minutes, imitation_share=imitation_share, seed=seed,
        evaluate_every=evaluate_every,
    )  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    run_training(config, eval_games, out, lambda line: typer.echo(json.dumps(line)))
    typer.echo(f"weights: {out}")


def check_table(edition: str, players: int) -> None:
    """Refuse (one line, exit 2) an unknown edition or a player count the edition is not for."""
    try:
        table = get_edition(edition)
    except LuzError:
        raise typer.BadParameter(f"unknown edition {edition!r}", param_hint="'--edition'") from None
    if players not in table.values:
        raise typer.BadParameter(
            f"{edition} is for {', '.join(map(str, table.values))} players", param_hint="'--players'"
        )
