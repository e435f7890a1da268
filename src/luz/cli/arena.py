"""``luz arena``: bots against bots on duplicate deals, with a progress bar and JSON, Markdown and PNG reports."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from luz.arena import ArenaConfig, GameRecord, markdown, run_arena, summarise, write_reports
from luz.arena.field import FIELDS, FieldConfig, field_markdown, field_members, run_field, summarise_field
from luz.arena.levels import LevelsConfig, levels_markdown, run_levels, summarise_levels
from luz.bots import BOTS, REFERENCE_BOTS
from luz.engine import DEFAULT_EDITION, EDITIONS, LuzError

from .apps import app
from .extras import require

PLAIN_STEPS = 10
"""Without a terminal (a log file), the progress is one line each time another tenth of the games is done."""


@contextmanager
def games_progress(console: Console, total: int, quiet: bool) -> Iterator[Callable[[GameRecord], None]]:
    """A callable to call as each game ends: a progress bar on a terminal, else a plain line every tenth of
    ``total`` (with the time elapsed); nothing when ``quiet`` (``--json``)."""
    if quiet or console.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, TimeRemainingColumn(), console=console, disable=quiet) as progress:
            task = progress.add_task("games", total=total)
            yield lambda _: progress.advance(task)
        return
    start, done = time.monotonic(), 0

    def advance(_: GameRecord) -> None:
        nonlocal done
        done += 1
        if done * PLAIN_STEPS // total > (done - 1) * PLAIN_STEPS // total:
            minutes, seconds = divmod(int(time.monotonic() - start), 60)
            console.print(f"games {done}/{total} ({100 * done // total}%), {minutes}:{seconds:02d} elapsed")

    yield advance


def ray_backend(extra: list[str]) -> tuple[bool, str | None]:
    """``--ray [ADDRESS]`` among the command's extra arguments: whether to use Ray, and the cluster's address."""
    if not extra:
        return False, None
    if extra[0] != "--ray" or len(extra) > 2 or (len(extra) == 2 and extra[1].startswith("-")):
        raise typer.BadParameter(f"unexpected argument(s): {' '.join(extra)}")
    return True, extra[1] if len(extra) == 2 else None


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def arena(
    ctx: typer.Context,
    bots: Annotated[
        str,
        typer.Option(
            help=f"One bot spec per seat, comma-separated ({', '.join([*BOTS, *REFERENCE_BOTS])}; "
            "parameters like strong:iters=200 or strong:seconds=0.5)."
        ),
    ],
    edition: Annotated[str, typer.Option(help=f"One of {', '.join(EDITIONS)}.")] = DEFAULT_EDITION,
    players: Annotated[int | None, typer.Option(help="Players at the table (default: one per bot).")] = None,
    games: Annotated[int, typer.Option(min=1, help="Duplicate deal sets; each is played in every rotation.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the deals and of the bots' choices.")] = 0,
    workers: Annotated[int | None, typer.Option(min=1, help="Processes (default: one per CPU).")] = None,
    minutes: Annotated[
        float | None,
        typer.Option(min=0, help="Start no deal set after this long; report the deal sets played in full."),
    ] = None,
    out: Annotated[Path, typer.Option(help="Directory for report.json, report.md and report.png.")] = Path("arena"),
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON instead of tables.")] = False,
    seatings: Annotated[
        bool,
        typer.Option(help="Play every distinct order of the bots around the table, each in every rotation."),
    ] = False,
    field: Annotated[
        str | None,
        typer.Option(
            help=f"Play each bot of --bots against a field ({', '.join(FIELDS)}): one table per member; with "
            "several bots, the same members for each, and every bot and member rated on one scale."
        ),
    ] = None,
) -> None:
    """Play BOTS against each other on duplicate deals and report their strength.

    Every deal set is played with every rotation of the bots over the seats, so the luck of the cards cancels.
    Add --ray [ADDRESS] to play on a Ray cluster (a local Ray when no address is given): the results are the
    same as with processes for the same seed and iteration budgets.
    """
    use_ray, address = ray_backend(ctx.args)
    require("arena", "luz arena")
    if use_ray:
        require("ray", "luz arena --ray")
    specs = tuple(spec.strip() for spec in bots.split(",") if spec.strip())
    if field is not None:
        gauntlet(FieldRun(specs, field, edition, players or 4, games, seed, workers, minutes, out, as_json))
        return
    config = ArenaConfig(specs, edition, players or len(specs), games, seed, seatings)
    try:
        config.check()
    except LuzError as error:
        raise typer.BadParameter(str(error), param_hint="'--bots' / '--edition' / '--players'") from None
    console = Console(stderr=True)
    with games_progress(console, len(config.tasks()), as_json) as advance:
        records = run_arena(
            config, workers=workers, ray_address=address, use_ray=use_ray, progress=advance, minutes=minutes
        )
    played = len({r.deal_set for r in records})
    if played < config.deal_sets:
        console.print(f"time limit: {played} of {config.deal_sets} deal sets played (the same as --games {played})")
        config = dataclasses.replace(config, deal_sets=played)
    summary = summarise(config, records)
    paths = write_reports(summary, records, out)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(markdown(summary))
    console.print(f"reports: {', '.join(str(p) for p in paths.values())}")


@dataclasses.dataclass(frozen=True)
class FieldRun:
    """The options of ``luz arena --field``: the bots under test, the field's name, the table, the run."""

    specs: tuple[str, ...]
    name: str
    edition: str
    players: int
    games: int
    seed: int
    workers: int | None
    minutes: float | None
    out: Path
    as_json: bool


def gauntlet(run: FieldRun) -> None:
    """``luz arena --field NAME``: one bot against each member of a field, on the same deal sets (several bots:
    :func:`levels`)."""
    if len(run.specs) > 1:
        levels(run)
        return
    if len(run.specs) != 1:
        raise typer.BadParameter("with --field, give the bot or bots under test", param_hint="'--bots'")
    try:
        bot = run.specs[0]
        config = FieldConfig(bot, field_members(run.name, bot), run.edition, run.players, run.games, run.seed)
        config.check()
    except LuzError as error:
        raise typer.BadParameter(str(error), param_hint="'--bots' / '--field' / '--edition' / '--players'") from None
    console = Console(stderr=True)
    with games_progress(console, run.games * run.players * len(config.members), run.as_json) as advance:
        records = run_field(config, run.workers, advance, run.minutes)
    summary = summarise_field(config, records)
    if summary["config"]["deal_sets"] < run.games:
        played = summary["config"]["deal_sets"]
        console.print(f"time limit: {played} of {run.games} deal sets played against every member")
    out = run.out
    out.mkdir(parents=True, exist_ok=True)
    games_json = {config.members[m].kind: [r.to_json() for r in rs] for m, rs in records.items()}
    (out / "field.json").write_text(json.dumps({**summary, "games": games_json}, indent=1) + "\n")
    (out / "field.md").write_text(field_markdown(summary))
    if run.as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(field_markdown(summary))
    console.print(f"reports: {out / 'field.json'}, {out / 'field.md'}")


def levels(run: FieldRun) -> None:
    """``luz arena --bots A,B,... --field NAME``: each bot against the same members of a field, on the same deal
    sets, and every bot and member rated on one OpenSkill scale."""
    try:
        members = field_members(run.name, *run.specs)
        config = LevelsConfig(run.specs, members, run.edition, run.players, run.games, run.seed, run.name)
        config.check()
    except LuzError as error:
        raise typer.BadParameter(str(error), param_hint="'--bots' / '--field' / '--edition' / '--players'") from None
    console = Console(stderr=True)
    with games_progress(console, len(config.tasks()), run.as_json) as advance:
        records = run_levels(config, run.workers, advance, run.minutes)
    summary = summarise_levels(config, records)
    if summary["config"]["deal_sets"] < run.games:
        played = summary["config"]["deal_sets"]
        console.print(f"time limit: {played} of {run.games} deal sets played by every bot against every member")
    out = run.out
    out.mkdir(parents=True, exist_ok=True)
    games_json = {
        bot: {config.members[m].kind: [r.to_json() for r in rs] for m, rs in by_member.items()}
        for bot, by_member in zip(run.specs, records, strict=True)
    }
    (out / "levels.json").write_text(json.dumps({**summary, "games": games_json}, indent=1) + "\n")
    (out / "levels.md").write_text(levels_markdown(summary))
    if run.as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(levels_markdown(summary))
    console.print(f"reports: {out / 'levels.json'}, {out / 'levels.md'}")
