"""The arena on Ray: the same games as the process pool, played by Ray tasks (``pip install 'luz[ray]'``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .core import ArenaConfig, ArenaError, GameRecord, play_game


def run_on_ray(
    config: ArenaConfig, tasks: Sequence[tuple[int, int]], workers: int, address: str | None
) -> Iterator[GameRecord]:
    """Play ``tasks`` as Ray tasks, yielding records as they end: on the cluster at ``address``, or on a local Ray
    of ``workers`` CPUs started for the run and stopped after it."""
    try:
        import ray
    except ImportError:
        raise ArenaError("--ray needs Ray: pip install 'luz[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1)(play_game)
        pending = [remote.remote(config, deal_set, rotation) for deal_set, rotation in tasks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield from ray.get(done)
    finally:
        if started:
            ray.shutdown()
