"""Running an arena: its games played in this process, in processes, or on Ray, in report order."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context

from .core import ArenaConfig, ArenaError, GameRecord, Schedule, play_game, play_task


def run_arena(
    config: ArenaConfig,
    workers: int | None = None,
    ray_address: str | None = None,
    use_ray: bool = False,
    progress: Callable[[GameRecord], None] | None = None,
    minutes: float | None = None,
) -> list[GameRecord]:
    """The arena's games, in report order (``config.tasks()``), whatever the backend.

    ``workers``: processes (default: one per CPU; 1 plays in this process). ``use_ray``: play on Ray instead, at
    ``ray_address`` or on a local Ray started for the run. ``progress`` is called as each game ends. ``minutes``:
    start no deal set after that time; the games are then those of the first deal sets played in full, the same
    as an arena of that many deal sets.
    """
    config.check()
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise ArenaError(f"workers must be at least 1, not {workers}")
    schedule = Schedule(config.tasks(), minutes)
    if use_ray:
        from .ray_backend import run_on_ray

        games = run_on_ray(config, schedule, workers, ray_address)
    elif workers == 1:
        games = (play_game(config, *task) for task in iter(schedule.next, None))
    else:
        games = _run_in_processes(config, schedule, workers)
    records = []
    for record in games:
        records.append(record)
        if progress is not None:
            progress(record)
    finished = {d: sum(r.deal_set == d for r in records) for d in range(config.deal_sets)}
    complete = next((d for d, count in finished.items() if count < config.games_per_set()), config.deal_sets)
    return sorted((r for r in records if r.deal_set < complete), key=lambda r: (r.deal_set, r.rotation))


def _run_in_processes(config: ArenaConfig, schedule: Schedule, workers: int) -> Iterator[GameRecord]:
    """Play the scheduled games in ``workers`` processes, a few games ahead of them, yielding each as it ends."""
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        running: set[Future[GameRecord]] = set()
        while True:
            while len(running) < 2 * workers and (task := schedule.next()) is not None:
                running.add(pool.submit(play_task, config, task))
            if not running:
                return
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
