"""The arena on Ray: the same games as the process pool, played by Ray tasks (``pip install 'luz-game[ray]'``)."""

from __future__ import annotations

from collections.abc import Iterator

from .core import ArenaConfig, ArenaError, GameRecord, Schedule, play_game


def run_on_ray(config: ArenaConfig, schedule: Schedule, workers: int, address: str | None) -> Iterator[GameRecord]:
    """Play the scheduled games as Ray tasks, yielding records as they end: on the cluster at ``address`` (as many
    at once as it has CPUs), or on a local Ray of ``workers`` CPUs started for the run and stopped after it."""
    try:
        import ray
    except ImportError:
        raise ArenaError("--ray needs Ray: pip install 'luz-game[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1)(play_game)
        # ray.cluster_resources() has no annotations (Ray 2.x): a dict of resource name to amount
        cpus = ray.cluster_resources().get("CPU", workers)  # type: ignore[no-untyped-call]
        ahead = 2 * max(1, int(cpus))
        pending: list[ray.ObjectRef[GameRecord]] = []
        while True:
            while len(pending) < ahead and (task := schedule.next()) is not None:
                pending.append(remote.remote(config, *task))
            if not pending:
                return
            done, pending = ray.wait(pending, num_returns=1)
            yield from ray.get(done)
    finally:
        if started:
            ray.shutdown()
