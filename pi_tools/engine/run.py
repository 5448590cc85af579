"""Run a task over items and give the results back in input order, on the engine the caller chose.

Locally, a batch too small to win back the start of a pool (about a tenth of a second) runs in this process;
otherwise a ProcessPoolExecutor with one worker per usable core runs it, chunk by chunk, with only a few chunks
handed out at a time. Workers are forked (cheap: they share
the modules already imported) unless polars is loaded, whose thread pool a fork could deadlock. The pool is
started, and all work handed to it, when map_ordered is called: before any progress bar starts a thread, and
while the caller does something else.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from pi_tools.engine import cancel
from pi_tools.engine.options import Engine

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

POOL_MIN_WEIGHT = 8 << 20
"""Below this much input in total (bytes, as weights usually are) one process finishes before a pool started."""

CHUNKS_PER_WORKER = 8
"""Items go to workers in chunks (fewer round trips), about this many per worker: enough for the last chunks
to even out uneven files."""

CHUNK_MAX_WEIGHT = 32 << 20
"""A chunk holds at most about this much input (bytes): a large file is a chunk of its own."""

IN_FLIGHT = 2
"""Chunks handed to the pool per worker at a time: one running, one waiting, so no worker idles between two."""


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
    (an error document); an exception it raises ends the run. With `engine.progress`, a bar labelled so counts
    the results on stderr when it is a terminal. Ctrl-C (see engine.cancel) abandons the pool: pending items
    are cancelled and its processes ended.
    """
    engine = engine or Engine()
    results: Iterator[R]
    if engine.kind == "dask":
        from pi_tools.engine.dask_backend import map_ordered_dask

        results = map_ordered_dask(task, items, engine, weights=weights)
    else:
        workers = local_workers(engine, weights, len(items))
        results = _in_process(task, items) if workers <= 1 else _pooled(task, items, workers, weights)
    if engine.progress is None:
        return results
    from pi_tools.engine.progress import with_progress

    return with_progress(results, engine.progress, len(items))


def _in_process(task: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
    for item in items:
        yield task(item)


def _pooled(task: Callable[[T], R], items: Sequence[T], workers: int,
            weights: Sequence[int] | None = None) -> Iterator[R]:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    # Forking while polars' thread pool runs can deadlock; spawn workers once polars is loaded.
    method = "spawn" if "polars" in sys.modules else "fork"
    sys.stdout.flush()  # nothing buffered may be written twice by a forked worker
    sys.stderr.flush()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context(method),
                               initializer=_worker_started)
    key = cancel.register(lambda: abandon(pool))
    chunks = iter(chunked(items, weights, workers))
    pending: deque[tuple[Future[list[R]], list[T]]] = deque()
    try:  # the first chunks go out now: the workers start (all forked at the first submit) before any bar
        for chunk in islice(chunks, workers * IN_FLIGHT):
            pending.append((pool.submit(_run_chunk, task, chunk), chunk))
    except BaseException:
        cancel.forget(key)
        abandon(pool)
        raise
    return _collected(pool, task, chunks, pending, key)


def _worker_started() -> None:
    """A pool worker's first act: leave SIGINT to the main process (engine.cancel), and take the recursion limit
    of every process that runs stages (engine.depth; a spawned worker does not inherit it)."""
    from pi_tools.engine.depth import allow_deep_values

    cancel.ignore_interrupts()
    allow_deep_values()


def chunked(items: Sequence[T], weights: Sequence[int] | None, workers: int) -> list[list[T]]:
    """The items in consecutive chunks of about 1/CHUNKS_PER_WORKER of a worker's share (by weight when
    given, at most CHUNK_MAX_WEIGHT each, so that a large file travels alone and little waits in memory)."""
    if weights is None or len(weights) != len(items):
        size = max(1, len(items) // (workers * CHUNKS_PER_WORKER))
        return [list(items[start:start + size]) for start in range(0, len(items), size)]
    target = max(1, min(sum(weights) // (workers * CHUNKS_PER_WORKER), CHUNK_MAX_WEIGHT))
    out: list[list[T]] = []
    current: list[T] = []
    weight = 0
    for item, item_weight in zip(items, weights, strict=True):
        current.append(item)
        weight += item_weight
        if weight >= target:
            out.append(current)
            current, weight = [], 0
    if current:
        out.append(current)
    return out


def _run_chunk(task: Callable[[T], R], chunk: list[T]) -> list[R]:
    """A worker's call: one chunk of items in turn."""
    return [task(item) for item in chunk]


def _collected(pool: ProcessPoolExecutor, task: Callable[[T], R], chunks: Iterator[list[T]],
               pending: deque[tuple[Future[list[R]], list[T]]], key: int) -> Iterator[R]:
    """The chunks' results in order, one more chunk handed out as each one is taken (a bounded window: results
    that came back early wait in memory, never the whole batch's).

    A chunk the pool cannot hand back runs again in this process: its results may nest deeper than pickle
    recurses (a damaged session's values nest a thousand levels), or its worker died. Tasks are deterministic
    and turn their own failures into results, so the chunk gives here what it would have given there; an
    exception the task itself raises is raised here as it would have been in one process."""
    finished = False
    try:
        while pending:
            future, done = pending.popleft()
            try:
                results = future.result()
            except Exception:  # noqa: BLE001 - pickling or a lost worker; the task's own errors recur below
                results = _run_chunk(task, done)
            chunk = next(chunks, None)
            if chunk is not None:
                pending.append((_submitted(pool, task, chunk), chunk))
            yield from results
        finished = True
    finally:
        cancel.forget(key)
        if finished:
            pool.shutdown()
        else:  # an exception, Ctrl-C, or a caller that stopped reading: nothing more is wanted
            abandon(pool)


def _submitted(pool: ProcessPoolExecutor, task: Callable[[T], R], chunk: list[T]) -> Future[list[R]]:
    """The chunk handed to the pool, or, when the pool can take no more (a worker was killed: it is broken), a
    future that fails at once, so that `_collected` runs the chunk in this process."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    try:
        return pool.submit(_run_chunk, task, chunk)
    except BrokenProcessPool as exc:
        failed: Future[list[R]] = Future()
        failed.set_exception(exc)
        return failed


def abandon(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the workers now (a chunk of files may take seconds to finish)."""
    processes: dict[int, Any] = dict(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        try:
            process.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    for process in processes.values():
        try:
            process.join(5)
        except (OSError, ValueError, AssertionError, AttributeError):
            pass


def map_inputs(task: Callable[[tuple[str, Any]], R], inputs: Sequence[tuple[str, str | None]], options: Any,
               engine: Engine | None, failed: Callable[[str, str], R]) -> Iterator[R]:
    """For expanded inputs (inputs.expand: (name, error) pairs): task((name, options)) for each usable one, on
    the engine and weighted by size, failed(name, error) for the others; in input order."""
    from pi_tools.sources.files import size_of

    names = [name for name, error in inputs if error is None]
    results = map_ordered(task, [(name, options) for name in names], engine, weights=[size_of(name) for name in names])
    for name, error in inputs:
        yield failed(name, error) if error is not None else next(results)
    next(results, None)  # run the engine's generator to its end: a cluster it started closes now, not when collected
