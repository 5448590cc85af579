"""Run a task over items and give the results back in input order, on the engine the caller chose."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from pi_tools.engine.options import Engine

T = TypeVar("T")
R = TypeVar("R")

POOL_MIN_WEIGHT = 8 << 20
"""Below this much input in total (bytes, as weights usually are) one process finishes before a pool started."""


def cores() -> int:
    """The cores this process may run on (the affinity mask, not the machine's count, under taskset or cgroups)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def local_workers(engine: Engine, weights: Sequence[int] | None, count: int) -> int:
    """How many processes a local run uses: the caller's --jobs, else one per core when the input is large."""
    if count < 2:
        return 1
    if engine.jobs is not None:
        return min(engine.jobs, count)
    if cores() < 2 or (weights is not None and sum(weights) < POOL_MIN_WEIGHT):
        return 1
    return min(cores(), count)


def map_ordered(task: Callable[[T], R], items: Sequence[T], engine: Engine | None = None, *,
                weights: Sequence[int] | None = None) -> Iterator[R]:
    """task(item) for every item, yielded in the order of `items`.

    `task` must be a module-level function and the items picklable, so that either may cross to a worker
    process or a Dask worker. `weights` (usually file sizes) let the local engine stay in this process when the
    whole batch is too small for a pool to pay. A task should turn a failure of its own item into a result
    (an error document); an exception it raises ends the run.
    """
    engine = engine or Engine()
    if engine.kind == "dask":
        from pi_tools.engine.dask_backend import map_ordered_dask

        return map_ordered_dask(task, items, engine, weights=weights)
    workers = local_workers(engine, weights, len(items))
    if workers <= 1:
        return (task(item) for item in items)
    return _pooled(task, items, workers)


def _pooled(task: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    # Forking while polars' thread pool runs can deadlock; spawn workers once polars is loaded.
    method = "spawn" if "polars" in sys.modules else "fork"
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context(method))
    try:
        chunk = max(1, len(items) // (workers * 8))
        yield from pool.map(task, items, chunksize=chunk)
    finally:
        pool.shutdown(cancel_futures=True)
