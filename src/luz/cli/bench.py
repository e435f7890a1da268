"""``luz bench ...``: speed figures; ``--json`` prints them as one JSON object."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from luz.bench.beliefs import bench_beliefs
from luz.bench.engine import bench_engine
from luz.engine import DEFAULT_EDITION

from .apps import bench_app
from .extras import install_hint, require


def progress_line(message: str) -> None:
    """A bench's progress, dimmed, on stderr (so that ``--json`` output stays one object on stdout)."""
    Console(stderr=True).print(f"[dim]{message}[/dim]")


def check_table(edition: str, players: int) -> None:
    """A usage error (one line, exit 2) for an unknown edition or a player count it does not have."""
    from luz.engine import LuzError, get_edition

    try:
        get_edition(edition).check_players(players)
    except LuzError as error:
        raise typer.BadParameter(str(error)) from None


@bench_app.command("engine")
def engine(
    seconds: float = typer.Option(10.0, min=1.0, help="Measuring time in all."),
    seed: int = typer.Option(0, help="Seed of the random games."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Random complete deals per second, and the reference table against OpenSpiel's oh_hell driven from Python and
    run in C++ (when open_spiel is installed), with luz's fast core beside them."""
    report = bench_engine(seconds, seed, progress=None if as_json else progress_line)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"{report['unit']}: the engine driven from Python")
    table.add_column("table")
    table.add_column("deals/s", justify="right")
    for name, rate in report["luz"].items():
        table.add_row(f"luz {name}", f"{rate:,.0f}")
    Console().print(table)
    head = Table(title=f"{report['reference']} against oh_hell (4 players, 10 tricks)")
    head.add_column("runner")
    head.add_column("what it counts")
    head.add_column("deals/s", justify="right")
    for name, rate in report["head_to_head"].items():
        head.add_row(name, report["counts"][name], f"{rate:,.0f}")
    if report["openspiel_oh_hell"] is None:
        head.add_row("oh_hell", escape(f"not installed ({install_hint('research')})"), "-")
    Console().print(head)
    if report["ratio"] is not None:
        Console().print(
            f"luz engine / oh_hell driven from Python: [bold]{report['ratio']:.2f}[/bold]; "
            f"luz engine / oh_hell in C++: [bold]{report['ratio_to_oh_hell_cpp']:.3f}[/bold]; "
            f"fast core / oh_hell in C++: [bold]{report['fast_core_ratio_to_oh_hell_cpp']:.2f}[/bold]"
        )


@bench_app.command("beliefs")
def beliefs(
    seconds: float = typer.Option(8.0, min=1.0, help="Measuring time in all."),
    seed: int = typer.Option(0, help="Seed of the random positions."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Hidden worlds sampled per second and per-slot probability tables per second, on positions of random games."""
    report = bench_beliefs(seconds, seed)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"beliefs over {report['positions']} positions of random games (one core)")
    table.add_column("figure")
    table.add_column("per second", justify="right")
    labels = {
        "worlds_per_s_batch": "worlds sampled (vectorised, 1,000 a call)",
        "worlds_per_s_single": "worlds sampled (one at a time)",
        "tables_per_s": "probability tables (floats)",
        "exact_tables_per_s": "probability tables (exact fractions)",
        "reference_shuffles_per_s": "reference: shuffles of the unseen values",
    }
    for key, label in labels.items():
        table.add_row(label, f"{report[key]:,.0f}")
    Console().print(table)


@bench_app.command("bots")
def bots(
    seconds: float = typer.Option(10.0, min=1.0, help="Measuring time of the playouts in all."),
    seed: int = typer.Option(0, help="Seed of the games and worlds."),
    bot: str = typer.Option("strong", help="Bot spec whose decision times are measured (e.g. strong:iters=200)."),
    decisions: int = typer.Option(40, min=1, help="Decisions timed."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Whole-deal playouts per second in the fast core against the engine (same policy, same worlds), and a bot's
    decision times in games against the heuristic."""
    from luz.bench.bots import bench_bots  # compiles the fast core: only for this command

    report = bench_bots(seconds, seed, bot, decisions)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=report["unit"])
    table.add_column("simulation")
    table.add_column("playouts/s", justify="right")
    table.add_row("fast core (numba)", f"{report['fast_core_playouts_per_s']:,.0f}")
    table.add_row("engine + heuristic bot", f"{report['engine_playouts_per_s']:,.0f}")
    Console().print(table)
    Console().print(f"ratio fast core / engine: [bold]{report['ratio']:.1f}[/bold]")
    times = report["decisions"]
    Console().print(
        f"{times['bot']}: {times['count']} decisions, median {times['median_ms']:.1f} ms, "
        f"p95 {times['p95_ms']:.1f} ms, max {times['max_ms']:.1f} ms"
    )


@bench_app.command("server")
def server(
    tables: int = typer.Option(200, min=1, help="Tables played at once."),
    clients_per_table: int = typer.Option(4, min=3, max=5, help="Seats per table, each a WebSocket client."),
    seconds: float | None = typer.Option(
        None, min=1.0, help="Measuring time (setup and teardown come on top); default 30, with --turn-based 60."
    ),
    processes: int = typer.Option(1, min=1, help="Server processes; more than one needs PostgreSQL and Redis."),
    database_url: str | None = typer.Option(
        None,
        help="PostgreSQL URL of a throwaway database (the bench writes tables there); default: SQLite in a temp dir.",
    ),
    redis_url: str | None = typer.Option(None, help="Redis URL for events between processes."),
    think: float = typer.Option(0.0, min=0.0, help="Mean think time of a client before each action, in seconds."),
    seed: int = typer.Option(0, help="Seed of the clients' random choices."),
    compression: bool = typer.Option(
        True, help="Clients offer permessage-deflate, as browsers do (--no-compression: the server sends plain)."
    ),
    pin: bool = typer.Option(
        True,
        help="Run the server processes on cores of their own, apart from the clients, where the machine has enough.",
    ),
    attack: str | None = typer.Option(
        None,
        help="Measure again while one attacker of this kind runs: connections, churn (new connections on one seat, "
        "from eight addresses), tables, tutorials, bots, or all (one after the other). The server then keeps its "
        "per-client limits; each honest table comes from its own loopback address.",
    ),
    clock: str | None = typer.Option(
        None, help="Time every table with this clock preset (minutes + seconds per move): 1+5, 3+10 or 5+15."
    ),
    rolling_restart: bool = typer.Option(
        False,
        "--rolling-restart",
        help="Stop each of the --processes in turn with SIGTERM and replace it while the tables play (the clients "
        "reconnect to a live process and resync); reports lost actions, reconnections and the longest disconnection.",
    ),
    floor: bool = typer.Option(
        True,
        help="Then the same load on the floor, a bare server on the same stack (luz.bench.floor), and luz's server "
        "CPU per action as a ratio to it (not with --attack, --clock or --rolling-restart).",
    ),
    split_tables: bool = typer.Option(
        True,
        help="With --processes > 1, each table's seats on different processes (--no-split-tables: all on one, so "
        "that each process holds only its own tables; its `broker` figure then shows what the others cost it).",
    ),
    turn_based: bool = typer.Option(
        False,
        "--turn-based",
        help="The turn-based load instead (luz.bench.turnbased): --stored-tables seeded in the database, "
        "--active-tables of them getting a move a minute, pushes, --deadlines fired, start-up time and memory.",
    ),
    stored_tables: int = typer.Option(100_000, min=1, help="--turn-based: turn-based tables seeded."),
    active_tables: int = typer.Option(1000, min=1, help="--turn-based: tables getting a move a minute."),
    deadlines: int = typer.Option(2000, min=0, help="--turn-based: tables whose deadline is made to pass."),
    idle_seconds: float = typer.Option(5.0, min=0.1, help="--turn-based: the server's LUZ_IDLE_TABLE_SECONDS."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Load the game server: tables x clients-per-table WebSocket clients playing random legal actions.

    Reports action-to-broadcast latency (to the acting client, and to the other seats), actions per second,
    errors, actions lost against the database log, and games finished; with --attack, the honest clients' figures
    without and with each attacker, in the same run.
    """
    require("server", "luz bench server")
    from luz.bench.attacks import KINDS

    if attack is not None and attack not in (*KINDS, "all"):
        raise typer.BadParameter(f"--attack must be one of {', '.join(KINDS)}, all")
    attacks = KINDS if attack == "all" else (attack,) if attack else ()
    from luz.server.timecontrol import PRESETS

    if clock is not None and clock not in PRESETS:
        raise typer.BadParameter(f"--clock must be one of {', '.join(PRESETS)}")
    if processes > 1 and not (database_url and database_url.startswith("postgresql") and redis_url):
        raise typer.BadParameter("--processes > 1 needs --database-url postgresql://... and --redis-url redis://...")
    if rolling_restart and (processes < 2 or attacks):
        raise typer.BadParameter("--rolling-restart needs --processes 2 or more, and no --attack")
    if turn_based:
        from luz.bench.turnbased import bench_turn_based  # imports the server stack: only for this command

        figures = bench_turn_based(
            tables=stored_tables,
            active=active_tables,
            seconds=60.0 if seconds is None else seconds,
            deadlines=deadlines,
            processes=processes,
            database_url=database_url,
            redis_url=redis_url,
            idle_seconds=idle_seconds,
            seed=seed,
            progress=None if as_json else progress_line,
        )
        if as_json:
            typer.echo(json.dumps(figures))
        else:
            print_turn_based(figures)
        return
    from luz.bench.server import bench_server  # imports the server stack: only for this command

    report = bench_server(
        tables=tables,
        clients_per_table=clients_per_table,
        seconds=30.0 if seconds is None else seconds,
        processes=processes,
        database_url=database_url,
        redis_url=redis_url,
        think=think,
        seed=seed,
        compression=compression,
        progress=None if as_json else progress_line,
        pin=pin,
        attacks=attacks,
        clock=clock,
        rolling_restart=rolling_restart,
        floor=floor,
        split_tables=split_tables,
    )
    if as_json:
        typer.echo(json.dumps(report))
        return
    title = (
        f"{report['tables']} tables x {report['clients_per_table']} clients = {report['clients']} WebSocket clients, "
        f"{report['processes']} process(es), {report['database']}{' + redis' if report['redis'] else ''}, "
        f"{report['seconds']:g} s, think {report['think_s']:g} s" + (f", clock {clock}" if clock else "")
    )
    latency = Table(title=title)
    latency.add_column("action -> state (ms)")
    for column in ("count", "p50", "p95", "p99", "max"):
        latency.add_column(column, justify="right")
    for name, label in (("self", "to the acting client"), ("others", "to the other seats")):
        figures = report["latency_ms"][name]
        latency.add_row(
            label, *("-" if figures[c] is None else f"{figures[c]:,}" for c in ("count", "p50", "p95", "p99", "max"))
        )
    Console().print(latency)
    totals = Table(show_header=False)
    totals.add_column("figure")
    totals.add_column("value", justify="right")
    errors = report["errors"]
    per_action = report["server_cpu_ms_per_action"]
    kinds = ", ".join(f"{k} {v}" for k, v in report["error_kinds"].items())
    rows = [
        ("actions/s", f"{report['actions_per_s']:,.1f} ({report['actions']:,} acknowledged)"),
        ("errors", f"{errors}" + (f" ({kinds})" if kinds else "")),
        ("stale refusals (benign)", str(report["stale_refusals"])),
        ("lost actions", str(report["lost_actions"])),
        ("stored, never acknowledged (cut off at the end)", str(report["unacknowledged_actions"])),
        ("games finished", str(report["games_finished"])),
        ("server log errors", str(report["server_errors"])),
        ("CPU % over the window", ", ".join(f"{k} {v:g}" for k, v in report["cpu_percent"].items())),
        ("server CPU per action (ms)", "-" if per_action is None else f"{per_action:.2f}"),
        ("pinned cores", ", ".join(f"{k} {v}" for k, v in report["pinned_cores"].items()) or "no"),
    ]
    stalls = report["stalls"]
    rows.append(
        (
            f"event loop stalls >= {stalls['threshold_ms']} ms (of luz's own CPU)",
            f"{stalls['stalls']}, longest {stalls['max_stall_ms']:g} ms ({stalls['own_work_stalls']}, longest "
            f"{stalls['max_own_cpu_ms']:g} ms); collections over it {stalls['long_collections']}",
        )
    )
    if report["floor"] is not None:
        floor_ms = report["floor"]["server_cpu_ms_per_action"]
        rows.append(("the floor's CPU per action (ms)", "-" if floor_ms is None else f"{floor_ms:.2f}"))
        rows.append(("luz's CPU per action / the floor's", str(report["ratio_to_floor"] or "-")))
    for label, value in rows:
        totals.add_row(label, value)
    Console().print(totals)
    if attacks:
        print_phases(report["phases"])
    if report["rolling_restart"]:
        print_rolling_restart(report["rolling_restart"])


def print_rolling_restart(rolling: dict[str, Any]) -> None:
    """Each restart's steps, the reconnections and how long seats were without a connection."""
    steps = Table(title="rolling restart")
    for column in ("process", "exit code", "SIGTERM -> exited (s)", "exited -> replacement healthy (s)"):
        steps.add_column(column, justify="right")
    for step in rolling["steps"]:
        steps.add_row(*(str(step[k]) for k in ("process", "exit_code", "stop_s", "replacement_healthy_s")))
    Console().print(steps)
    gaps = rolling["disconnected_ms"]
    Console().print(
        f"{rolling['reconnections']} reconnections; a seat without a connection p50 {gaps['p50']} ms, "
        f"p99 {gaps['p99']} ms, longest {rolling['longest_disconnected_s']} s; in-flight actions found stored by "
        f"the resync {rolling['settled_by_resync']}, sent again {rolling['sent_again_after_resync']}; tables "
        f"acknowledging actions after the restart: {rolling['tables_acknowledged_after']}"
    )


def print_turn_based(report: dict[str, Any]) -> None:
    """The turn-based bench's figures: latencies in one table, the rest in another."""
    title = (
        f"{report['tables']:,} stored turn-based tables, {report['active_tables']:,} active, "
        f"{report['processes']} process(es), {report['database']}{' + redis' if report['redis'] else ''}, "
        f"{report['window_s']:g} s"
    )
    latency = Table(title=title)
    latency.add_column("latency (ms)")
    for column in ("count", "p50", "p95", "p99", "max"):
        latency.add_column(column, justify="right")
    for name, label in (
        ("cold_connect_to_ack_ms", "cold table: connect -> ack"),
        ("cold_connect_to_state_ms", "cold table: connect -> state"),
        ("cold_act_to_ack_ms", "cold table: act -> ack"),
        ("turn_passed_to_push_received_ms", "turn passed -> push received"),
        ("deadline_to_timeout_move_stored_ms", "deadline passed -> timeout stored"),
    ):
        figures = report[name]
        latency.add_row(
            label, *("-" if figures[c] is None else f"{figures[c]:,}" for c in ("count", "p50", "p95", "p99", "max"))
        )
    Console().print(latency)
    totals = Table(show_header=False)
    totals.add_column("figure")
    totals.add_column("value", justify="right")
    skip = {name for name in report if name.endswith("_ms")} | {"benchmark", "server_error_lines", "crashed_servers"}
    for name, value in report.items():
        if name not in skip:
            totals.add_row(name, str(value))
    Console().print(totals)


def print_phases(phases: list[dict[str, Any]]) -> None:
    """The honest clients' figures without and with each attacker, and what each attacker got."""
    table = Table(title="honest clients without and with an attacker (action -> state to the acting client)")
    for column in ("attacker", "actions/s", "p50 ms", "p99 ms", "attacker got"):
        table.add_column(column, justify="left" if column in ("attacker", "attacker got") else "right")
    for phase in phases:
        latency = phase["latency_ms"]["self"]
        seen = phase.get("attacker", {})
        got = seen.get("codes") or seen.get("statuses") or {}
        table.add_row(
            phase["attack"] or "none",
            f"{phase['actions_per_s']:,.1f}",
            *("-" if latency[c] is None else f"{latency[c]:,}" for c in ("p50", "p99")),
            ", ".join(f"{k}: {v}" for k, v in got.items()),
        )
    Console().print(table)


@bench_app.command("players")
def players(
    database_url: str | None = typer.Option(
        None, help="PostgreSQL URL of a throwaway database (the bench writes there); default: SQLite in a temp dir."
    ),
    accounts: int = typer.Option(20, min=1, help="Accounts registered, then logged in (Argon2: ~0.1-1 s each)."),
    games: int = typer.Option(10_000, min=1, help="Finished games stored before the profile and leaderboard reads."),
    rated_games: int = typer.Option(200, min=1, help="Rating updates timed (4 players each)."),
    reads: int = typer.Option(50, min=1, help="Profile and leaderboard answers timed."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Register and login latency, the rating update of a game, and the profile and leaderboard answers with
    many games stored (p50/p99 in ms; the server in this process)."""
    require("server", "luz bench players")
    from luz.bench.players import bench_players  # imports the server stack: only for this command

    report = bench_players(database_url, accounts, games, rated_games, reads, progress=progress_line)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"players on {report['database']}, {report['games']:,} games stored")
    table.add_column("figure")
    table.add_column("p50 ms", justify="right")
    table.add_column("p99 ms", justify="right")
    table.add_column("count", justify="right")
    labels = {
        "register_ms": "register (Argon2 hash)",
        "login_ms": "login (Argon2 verify)",
        "rating_update_ms": "rating update of a game (own transaction)",
        "profile_ms": "GET /api/players/{id} (all games one player's)",
        "leaderboard_ms": "GET /api/leaderboard",
    }
    for key, label in labels.items():
        figures = report[key]
        table.add_row(label, f"{figures['p50']:.1f}", f"{figures['p99']:.1f}", str(figures["count"]))
    Console().print(table)
    Console().print(f"rating update CPU: {report['rating_update_cpu_ms_mean']:.2f} ms a game (mean)")


@bench_app.command("adapters")
def adapters(
    seconds: float = typer.Option(10.0, min=1.0, help="Measuring time in all."),
    seed: int = typer.Option(0, help="Seed of the random games."),
    edition: str = typer.Option(DEFAULT_EDITION, help="Edition of the table measured."),
    players: int = typer.Option(4, help="Players at the table measured."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Random complete games per second through OpenSpiel, PettingZoo and Gymnasium against the engine directly, and
    ISMCTS simulations per second through OpenSpiel (needs pip install 'luz-game[research]')."""
    from luz.bench.adapters import bench_adapters  # imports the frameworks: only for this command

    check_table(edition, players)
    report = bench_adapters(seconds, seed, edition, players, progress=None if as_json else progress_line)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"{report['unit']}, {report['table']}")
    table.add_column("through")
    table.add_column("games/s", justify="right")
    table.add_column("vs engine", justify="right")
    for name, rate in report["games_per_s"].items():
        table.add_row(name.replace("_", " "), f"{rate:,.1f}", f"{report['ratio_to_engine'][name]:.3f}")
    Console().print(table)
    if "missing" in report:
        Console().print(f"adapters not measured: missing {report['missing']}", markup=False)
    if report["ismcts"] is not None:
        sims = report["ismcts"]["simulations_per_s"]
        Console().print(
            f"ISMCTS ({report['ismcts']['simulations_per_search']} simulations a search): "
            f"{sims['deal_rollouts']:,.0f} simulations/s with rollouts to the end of the deal, "
            f"{sims['game_rollouts']:,.0f} with rollouts to the end of the game"
        )


@bench_app.command("vector")
def vector(
    seconds: float = typer.Option(20.0, min=2.0, help="Measuring time in all."),
    seed: int = typer.Option(0, help="Seed of the random games."),
    edition: str = typer.Option(DEFAULT_EDITION, help="Edition of the table measured."),
    players: int = typer.Option(4, help="Players at the table measured."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Steps per second of the batched environment (N = 1, 64, 1,024, 4,096) against luz's own PettingZoo wrapper,
    OpenSpiel adapter and engine in the same run, one core each, N = 4,096 on every core, and the JAX environment
    (N = 4,096, one jitted call a step, on JAX's default device; its compile time reported apart), and a learning
    seat's steps through the JAX and the numba VectorEnv (random opponents)."""
    from luz.bench.vector import bench_vector  # compiles the batched core: only for this command

    check_table(edition, players)
    report = bench_vector(seconds, seed, edition, players, progress=None if as_json else progress_line)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"{report['unit']}, {report['table']}")
    table.add_column("through")
    table.add_column("steps/s", justify="right")
    table.add_column("vs luz_v0 (PettingZoo)", justify="right")
    table.add_column("vs engine", justify="right")
    for name, rate in report["steps_per_s"].items():
        versus = report["ratio_to_pettingzoo"].get(name)
        table.add_row(
            name.replace("_", " "),
            f"{rate:,.0f}",
            "-" if versus is None else f"{versus:,.2f}",
            "-" if name not in report["ratio_to_engine"] else f"{report['ratio_to_engine'][name]:,.2f}",
        )
    Console().print(table)
    Console().print(report["agent_steps"], markup=False)
    for name, what in report["references"].items():
        Console().print(f"{name}: {what}", markup=False)
    if "missing" in report:
        Console().print(f"not measured: missing {report['missing']}", markup=False)
    if "jax" in report:
        jax = report["jax"]
        Console().print(
            f"JAX on {jax['platform']} ({jax['device']}): {jax['steps_per_cpu_s']:,.0f} steps per second of CPU time; "
            f"compiled in {jax['compile_s']} s, not counted"
        )
    if "missing_jax" in report:
        Console().print(f"JAX not measured: missing {report['missing_jax']}", markup=False)


@bench_app.command("review")
def review(
    games: int = typer.Option(250, min=1, help="Games played by the field."),
    worlds: int | None = typer.Option(
        None, min=2, max=100_000, help="Worlds per reviewed bid (default: the review's, 400)."
    ),
    seed: int = typer.Option(0, help="Seed of the games."),
    edition: str = typer.Option(DEFAULT_EDITION, help="Edition of the games."),
    players: int = typer.Option(4, help="Players at each game."),
    full_games: int = typer.Option(
        4, min=0, help="Games of which every seat is fully reviewed, every decision (timed, labels counted)."
    ),
    full_worlds: int | None = typer.Option(
        None, min=2, max=100_000, help="Worlds per decision of the full reviews (default: the review's, 400)."
    ),
    field: str = typer.Option(
        "random,heuristic,strong,expert,pimc,counter",
        help="Bot specs of the field (and the outside-style pimc, counter), comma-separated, rotated over the seats.",
    ),
    server_games: int = typer.Option(
        0, min=0, help="Also time this many reviews through a server (POST to ready, one bot process, seat 0)."
    ),
    cards_every: int = typer.Option(3, min=1, help="Review one card decision in this many (every bid is)."),
    rows: Path | None = typer.Option(None, "--rows", help="Also write each reviewed decision's row (JSON lines)."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """The review's calibration: the stated chance of making the chosen bid against the made frequency (deciles,
    expected calibration error), expected points against points scored, and full reviews' times and labels."""
    if server_games:
        require("server", "luz bench review --server-games")
    from luz.bench.review import bench_review, server_review_times  # compiles the fast core: only for this command

    check_table(edition, players)
    from luz.bots import make_arena_bot
    from luz.engine import LuzError

    kinds = tuple(spec.strip() for spec in field.split(","))
    try:
        for spec in kinds:
            make_arena_bot(spec)
    except LuzError as error:
        raise typer.BadParameter(f"--field: {error}") from None
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(rows.open("w")) if rows else None
        report = bench_review(
            games,
            worlds,
            seed,
            edition,
            players,
            min(full_games, games),
            full_worlds,
            kinds,
            progress=None if as_json else progress_line,
            cards_every=cards_every,
            rows_out=(lambda row: print(json.dumps(row), file=out, flush=True)) if out else None,
        )
    if server_games:
        report["server_reviews"] = server_review_times(server_games, full_worlds, players)
    if as_json:
        typer.echo(json.dumps(report))
        return
    print_review_bench(report)


def print_review_bench(report: dict[str, Any]) -> None:
    """The calibration tables: deciles, figures by kind, full reviews."""
    console = Console()
    points = report["points"]
    title = (
        f"{report['edition']} {report['players']}p, {report['games']} games, {report['deals']} deals, "
        f"{report['bids']} bids reviewed ({report['forced_bids']} forced left out), "
        f"{report['settings']['worlds']} worlds a bid"
    )
    table = Table(title=title)
    for column in ("stated chance", "bids", "mean stated", "made frequency"):
        table.add_column(column, justify="right")
    for row in report["deciles"]:
        low, high = row["range"]
        stated, made = row["mean_stated"], row["made_frequency"]
        table.add_row(
            f"{low:.1f}-{high:.1f}",
            str(row["count"]),
            "-" if stated is None else f"{stated:.3f}",
            "-" if made is None else f"{made:.3f}",
        )
    console.print(table)
    ece = report["ece"]
    console.print(f"expected calibration error: {'-' if ece is None else f'{ece:.3f}'}")
    console.print(_points_line("all bids", points))
    console.print(_calibration_line(f"bids (map: {report['calibration']})", report))
    console.print(_calibration_line("bids, raw (no map)", report["raw"]["bids"]))
    console.print(_calibration_line("cards' chance of taking the trick", report["cards"]))
    console.print(_calibration_line("cards, raw (no map)", report["raw"]["cards"]))
    console.print(_points_line("cards", report["cards"]["points"]))
    kinds = Table(title="by bot kind")
    for column in ("kind", "bids", "mean stated", "made frequency", "ECE", "expected", "scored", "scored - expected"):
        kinds.add_column(column, justify="left" if column == "kind" else "right")
    for kind, figures in report["by_kind"].items():
        if not figures["bids"]:
            continue
        p = figures["points"]
        ci = p["ci95"]
        kinds.add_row(
            kind,
            str(figures["bids"]),
            f"{figures['mean_stated']:.3f}",
            f"{figures['made_frequency']:.3f}",
            f"{figures['ece']:.3f}",
            f"{p['expected']:.2f}",
            f"{p['scored']:.2f}",
            f"{p['difference']:+.2f}" + ("" if ci is None else f" [{ci[0]:+.2f}, {ci[1]:+.2f}]"),
        )
    console.print(kinds)
    full = report["full_reviews"]
    if full["reviews"]:
        console.print(
            f"full reviews of one seat ({full['worlds']} worlds a decision): {full['reviews']}, "
            f"p50 {full['seconds_p50']:.2f} s, p95 {full['seconds_p95']:.2f} s"
        )
        labels = Table(title="full reviews: share of the decisions (forced left out)")
        for column in ("kind", "games", "decisions", "best within noise", "inaccuracy", "mistake", "blunder"):
            labels.add_column(column, justify="left" if column == "kind" else "right")
        for kind, figures in full["by_kind"].items():
            shares = figures["labels"]
            labels.add_row(
                kind,
                str(figures["games"]),
                str(figures["decisions"]),
                f"{figures['best_within_noise']:.3f}",
                *(f"{shares[label]:.3f}" for label in ("inaccuracy", "mistake", "blunder")),
            )
        console.print(labels)
    if served := report.get("server_reviews"):
        console.print(
            f"reviews through a server ({served['worlds']} worlds a decision): {served['reviews']}, "
            f"p50 {served['seconds_p50']:.2f} s, p95 {served['seconds_p95']:.2f} s"
        )
    console.print(f"{report['seconds']:.0f} s in all")


def _calibration_line(label: str, figures: dict[str, Any]) -> str:
    """A set of rows' calibration: count, ECE, bias with its interval, Brier score against the base rate's."""
    if not figures["bids"]:
        return f"{label}: none"
    ci = figures["bias_ci95"]
    interval = "" if ci is None else f" [{ci[0]:+.3f}, {ci[1]:+.3f}]"
    return (
        f"{label}: {figures['bids']}, ECE {figures['ece']:.3f}, bias {figures['bias']:+.3f}{interval}, "
        f"Brier {figures['brier']:.3f} (base rate {figures['base_rate_brier']:.3f})"
    )


@bench_app.command("review-fit")
def review_fit(
    rows: list[Path] = typer.Argument(..., help="Rows written by luz bench review --rows (JSON lines)."),
    out: Path | None = typer.Option(None, "--out", help="Where to write the map (default: the shipped one)."),
) -> None:
    """Fit the review's calibration map on bench rows (docs/REVIEW.md) and write it as JSON."""
    require("arena", "luz bench review-fit")
    from luz.bots.review_calibration import SHIPPED, fit

    loaded = _load_rows(rows)
    label = f"{len(loaded)} rows of " + ", ".join(path.name for path in rows) + " (luz bench review-fit)"
    calibration = fit(loaded, label)
    target = out or SHIPPED
    target.write_text(json.dumps(calibration.to_json()) + "\n")
    typer.echo(f"{target}: {label}")


@bench_app.command("review-score")
def review_score(
    rows: list[Path] = typer.Argument(..., help="Rows written by luz bench review --rows (JSON lines)."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """The review's calibration figures on bench rows through the shipped map (measure it on held-out games)."""
    from luz.bench.review import score_rows

    loaded = _load_rows(rows)
    field = tuple(dict.fromkeys(row["bot"] for row in loaded))
    report = score_rows(loaded, field)
    if as_json:
        typer.echo(json.dumps(report))
        return
    console = Console()
    console.print(_points_line("bids", report["points"]))
    console.print(_calibration_line(f"bids (map: {report['calibration']})", report))
    console.print(_calibration_line("bids, raw (no map)", report["raw"]["bids"]))
    console.print(_calibration_line("cards' chance of taking the trick", report["cards"]))
    console.print(_calibration_line("cards, raw (no map)", report["raw"]["cards"]))
    console.print(_points_line("cards", report["cards"]["points"]))
    for kind, figures in report["validity"].items():
        if figures["decisions"]:
            ci = figures["ci95"]
            interval = "" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]"
            console.print(
                f"{kind}: {figures['decisions']} decisions, mean loss {figures['mean_loss']:.2f}{interval}, "
                f"accuracy {figures['accuracy']:.1f}"
            )


def _load_rows(paths: list[Path]) -> list[dict[str, Any]]:
    """Bench rows from JSON-lines files (one line and exit 2 when unreadable)."""
    try:
        return [json.loads(line) for path in paths for line in path.read_text().splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as error:
        raise typer.BadParameter(f"rows: {error}") from None


def _points_line(label: str, points: dict[str, Any]) -> str:
    """Expected points against scored, and the difference's 95% interval over games."""
    if points["expected"] is None:
        return f"{label}: no bids"
    ci = points["ci95"]
    interval = "" if ci is None else f", 95% CI over games [{ci[0]:+.2f}, {ci[1]:+.2f}]"
    return (
        f"{label}: expected points {points['expected']:.2f}, scored {points['scored']:.2f}, "
        f"scored - expected {points['difference']:+.2f}{interval}"
    )


@bench_app.command("metrics")
def metrics(
    tables: int = typer.Option(200, min=0, max=10_000, help="Live tables the server holds while it is scraped."),
    scrapes: int = typer.Option(200, min=1, help="Scrapes of /metrics (and as many GET /healthz, the reference)."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """The cost of a Prometheus scrape of a real ``luz serve`` (SQLite) holding ``--tables`` live tables: time and
    size of the answer and the server's CPU per scrape, against ``GET /healthz`` in the same run."""
    from luz.bench.metrics import bench_metrics

    report = bench_metrics(tables, scrapes, progress=None if as_json else progress_line)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"{report['live_tables_reported']:.0f} live tables")
    for column in ("GET", "p50 ms", "p95 ms", "bytes", "server CPU ms"):
        table.add_column(column, justify="right")
    for path in ("metrics", "healthz"):
        figures = report[path]
        ms = figures["ms"]
        cpu = figures["server_cpu_ms_per_request"]
        table.add_row(
            f"/{path}", f"{ms['p50']}", f"{ms['p95']}", f"{figures['bytes']:,}", "-" if cpu is None else f"{cpu}"
        )
    Console().print(table)
    Console().print(f"p50 /metrics / /healthz: [bold]{report['ratio_p50_metrics_over_healthz']}[/bold]")


@bench_app.command("daily")
def daily(
    results: int = typer.Option(100_000, min=1, max=1_000_000, help="Finished attempts of the day stored."),
    reads: int = typer.Option(200, min=1, help="Reads of the day's results (and as many of one attempt by key)."),
    database_url: str | None = typer.Option(None, help="An empty database to fill (default: a new SQLite file)."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """A day's daily results (histogram, best players, guests, bids, your rank and percentile) read with
    ``--results`` attempts stored, against one attempt read by its key in the same run."""
    require("server", "luz bench daily")
    from luz.bench.daily import bench_daily

    report = bench_daily(results, reads, database_url)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"{report['results']:,} results of one day ({report['database']})")
    for column in ("read", "p50 ms", "p95 ms", "p99 ms", "max ms"):
        table.add_column(column, justify="right")
    for name, key in (("the day's results", "leaderboard_ms"), ("one attempt (reference)", "reference_ms")):
        ms = report[key]
        table.add_row(name, f"{ms['p50']}", f"{ms['p95']}", f"{ms['p99']}", f"{ms['max']}")
    Console().print(table)
    Console().print(f"p99 results / reference: [bold]{report['ratio_p99_leaderboard_over_reference']}[/bold]")


@bench_app.command("daily-play")
def daily_play(
    players: int = typer.Option(1000, min=1, max=20_000, help="Players, each a guest playing today's daily deal."),
    seconds: float = typer.Option(60.0, min=1.0, help="Measuring time of each phase (setup comes on top)."),
    think_min: float = typer.Option(2.0, min=0.0, help="Least think time of a player before each action, in seconds."),
    think_max: float = typer.Option(4.0, min=0.0, help="Most think time of a player before each action, in seconds."),
    database_url: str | None = typer.Option(
        None, help="PostgreSQL URL of a throwaway database (both phases write there); default: SQLite in a temp dir."
    ),
    seed: int = typer.Option(0, help="Seed of the players' think times and choices."),
    reference: bool = typer.Option(
        True, help="Then the same players at ordinary private tables with the same bots, on a fresh server process."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Players playing today's daily deal at once on one server process, each over its WebSocket with a think
    time: the acks' latency, errors and server CPU per action, against ordinary tables in the same run."""
    require("server", "luz bench daily-play")
    if think_max < think_min:
        raise typer.BadParameter(f"must be at least --think-min ({think_min:g})", param_hint="--think-max")
    from luz.bench.dailyplay import bench_daily_play

    report = bench_daily_play(
        players,
        seconds,
        (think_min, think_max),
        database_url,
        seed,
        reference,
        progress=None if as_json else progress_line,
    )
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"{players:,} players, daily deal {report['edition']} ({report['database']}, one process)")
    for column in ("phase", "actions/s", "ack p50", "p95", "p99", "max ms", "errors", "server CPU ms/action"):
        table.add_column(column, justify="right")
    for name, phase in (("daily", report), ("ordinary tables", report["reference"])):
        if phase is None:
            continue
        ms = phase["ack_ms"]
        table.add_row(
            name,
            f"{phase['actions_per_s']}",
            f"{ms['p50']}",
            f"{ms['p95']}",
            f"{ms['p99']}",
            f"{ms['max']}",
            f"{phase['errors']}",
            f"{phase['server_cpu_ms_per_action']}",
        )
    Console().print(table)
    Console().print(f"load average {report['load_average']['before']} before, {report['load_average']['after']} after")


@bench_app.command("coldstart")
def coldstart(
    parts: str = typer.Option("play,vector,server", help="Parts measured, comma-separated: play, vector, server."),
    games: int = typer.Option(64, min=1, help="Games of the batched environment (numba's threads from 256)."),
    timeout: float = typer.Option(1800.0, min=1.0, help="Seconds any one process may take at most."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """The first use's compile time with numba's cache empty, against the same use warm, each in a fresh process:
    a strong bot's first decision, the batched environment's first reset and step, the server's start."""
    from luz.bench.coldstart import PARTS, bench_coldstart

    chosen = tuple(part.strip() for part in parts.split(",") if part.strip())
    if not chosen or any(part not in PARTS for part in chosen):
        raise typer.BadParameter(f"parts are among {', '.join(PARTS)}, not {parts!r}", param_hint="--parts")
    report = bench_coldstart(chosen, games, timeout, progress=None if as_json else progress_line)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"cold start, seconds from a fresh process's start ({report['cpus']} CPUs)")
    for column in ("part", "milestone", "cold", "warm", "cold / warm"):
        table.add_column(column, justify="left" if column in ("part", "milestone") else "right")
    for part, figures in report["parts"].items():
        for milestone, cold in figures["cold"].items():
            warm, ratio = figures["warm"][milestone], figures["ratio"][milestone]
            table.add_row(part, milestone.replace("_", " "), f"{cold:.1f}", f"{warm:.1f}", f"{ratio:.1f}")
    Console().print(table)
    Console().print(f"load average {report['load_average']} before, {report['load_average_after']} after")


@bench_app.command("tournament")
def tournament(
    tables: int = typer.Option(64, min=1, max=10_000, help="Tables of the round formed."),
    size: int = typer.Option(4, min=3, max=5, help="Players per table."),
    rounds: int = typer.Option(8, min=0, max=50, help="Rounds finished before the one formed."),
    repeats: int = typer.Option(20, min=1, max=10_000, help="Times each is timed (the median is shown)."),
    door: bool = typer.Option(False, help="Also time round 1 formed through the server's door (SQLite, in process)."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Forming a duplicate Swiss round (standings, pairing, seats) against sorting by points and cutting into
    tables, in the same run (ms, median)."""
    require("server", "luz bench tournament")
    from luz.bench.tournament import bench_door, bench_tournament  # imports luz.server: only for this command

    report = bench_tournament(tables, size, rounds, repeats)
    if door:
        report |= bench_door(tables, size)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"forming round {rounds + 1}: {report['tables']} tables of {size}, {report['players']} players")
    table.add_column("runner")
    table.add_column("ms (median)", justify="right")
    table.add_column("pairs who met before", justify="right")
    table.add_row("luz pairing", f"{report['form_ms']:.2f}", str(report["repeat_pairs"]))
    table.add_row("reference: sort and cut", f"{report['reference_ms']:.2f}", str(report["reference_repeat_pairs"]))
    Console().print(table)
    Console().print(f"pairing / reference: [bold]{report['ratio']}[/bold]; under 1 s: {report['under_1s']}")
    if door:
        Console().print(
            f"through the door (create, seat, start {report['door_tables']} tables): {report['door_seconds']} s"
        )
