"""Dask: the same tasks on a cluster (a scheduler's address) or on an embedded LocalCluster.

Why it is shaped this way:
- Only a bounded window of batches is in flight, so a million inputs never become a million futures in the
  client (nor a million results buffered while one slow early file holds up the ordered output).
- Items are grouped into small batches by weight (bytes): a Dask task costs the scheduler about a millisecond,
  which is noise beside a 1 MB session but not beside a 2 KB one.
- A worker that dies (SIGKILL, out of memory) loses its tasks; the scheduler runs them again on another worker
  (its `allowed-failures`), and `retries` covers a task that raised on a worker that then recovered. Tasks are
  expected to turn their own item's failure into a result; an exception that still escapes ends the run with
  the item named.
- Nothing here may hang: connecting has a bounded timeout, and a cluster left without workers ends the run.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pi_tools.engine import cancel
from pi_tools.engine.options import Engine, EngineError, EngineUnavailable

if TYPE_CHECKING:
    from distributed import Client, Future

T = TypeVar("T")
R = TypeVar("R")

INSTALL_HINT = "--engine dask needs the dask extra: pip install 'pi-tools[dask]'"

CONNECT_TIMEOUT = float(os.environ.get("PI_TOOLS_DASK_CONNECT_TIMEOUT", "5"))
"""Seconds to wait for a scheduler to answer (distributed's own default is 30 s of silent retrying)."""

NO_WORKERS_TIMEOUT = float(os.environ.get("PI_TOOLS_DASK_NO_WORKERS_TIMEOUT", "60"))
"""Seconds a run waits while the cluster has no worker at all before giving up rather than hanging."""

RETRIES = 2
BATCHES_PER_THREAD = 8
"""Items go out in about this many batches per worker thread: a task costs a round trip through the scheduler
(measured at 0.3 s a task on this machine under a load of 16, against 25 ms of CPU to audit a 1 MB session),
and enough batches are left to even out uneven files at the end."""
BATCH_WEIGHT = 32 << 20
"""A batch holds at most this many bytes of input, so that its results (a payload is as large as its session)
stay a modest message between worker, scheduler and client."""
BATCH_MAX = 1000
WINDOW_PER_THREAD = 4
"""Batches in flight per worker thread: enough that no worker waits for the client between two batches."""


QUIET_LOOPS = {
    "distributed.admin.tick.interval": "500ms",  # event-loop health (a warning we silence anyway)
    "distributed.admin.tick.cycle": "5s",
    "distributed.admin.system-monitor.interval": "5s",  # CPU, memory, network and disk figures for a dashboard
    "distributed.worker.memory.monitor-interval": "1s",  # the spill/pause/terminate thresholds
}
"""The embedded cluster's periodic housekeeping, made rarer (distributed's defaults: 20 ms, 1 s, 500 ms, 100 ms)."""


class TaskFailed(Exception):
    """A task raised on a worker; the message names the item (the exception itself may not unpickle)."""


def item_name(item: object) -> str:
    """How an item is named in an error: the path or URL it carries (items are usually (name, options))."""
    if isinstance(item, str):
        return item
    if isinstance(item, (tuple, list)) and item and isinstance(item[0], str):
        return item[0]
    text = repr(item)
    return text if len(text) <= 200 else text[:197] + "..."


def run_batch(task: Callable[[T], R], batch: Sequence[T]) -> list[R]:
    """Worker side: the task over one batch, in order."""
    out: list[R] = []
    for item in batch:
        try:
            out.append(task(item))
        except Exception as exc:  # noqa: BLE001 - sent back with the item named, as one line
            raise TaskFailed(f"{item_name(item)}: {type(exc).__name__}: {exc}") from None
    return out


def batches(count: int, weights: Sequence[int] | None, threads: int) -> list[range]:
    """Consecutive index ranges: about BATCHES_PER_THREAD per worker thread, each at most BATCH_MAX items and
    BATCH_WEIGHT bytes (a larger item is a batch of its own)."""
    limit = max(1, min(BATCH_MAX, -(-count // (threads * BATCHES_PER_THREAD))))
    out: list[range] = []
    start = 0
    weight = 0
    for index in range(count):
        size = weights[index] if weights is not None else 0
        if index > start and (index - start >= limit or weight + size > BATCH_WEIGHT):
            out.append(range(start, index))
            start, weight = index, 0
        weight += size
    if start < count:
        out.append(range(start, count))
    return out


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise EngineUnavailable(INSTALL_HINT) from None
    return distributed


def _quiet_logs() -> None:
    """distributed logs a lost worker, a rescheduled key or a slow event loop at warning level, each on a logger
    of its own with its own level; a run's stderr carries only what the run reports (its EngineError)."""
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name == "distributed" or name.startswith("distributed."):
            logger = logging.getLogger(name)
            if logger.getEffectiveLevel() < logging.ERROR:
                logger.setLevel(logging.ERROR)


def _hold_interrupts() -> Callable[[], None]:
    """Ignore SIGINT until the returned function is called (it puts back the handler there was).

    A terminal's Ctrl-C reaches the whole process group, the LocalCluster's worker processes too, and each would
    print a KeyboardInterrupt traceback from wherever it was importing. A signal ignored at exec stays ignored in
    the new interpreter (blocking it would not do: the child's mask is reset), so workers started now leave
    Ctrl-C to this process, which cancels the run and closes the cluster. The price: a Ctrl-C while the cluster
    starts (seconds) is not seen; one once it runs is.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)

    def release() -> None:
        signal.signal(signal.SIGINT, previous)

    return release


def _connect(distributed: Any, engine: Engine) -> tuple[Client, Any]:
    """A client to the scheduler asked for, or to a LocalCluster started here (returned to be closed).

    For a LocalCluster SIGINT is left ignored (see _hold_interrupts): the caller restores it with _release once
    it can clean up after a Ctrl-C."""
    _quiet_logs()
    if engine.scheduler is not None:
        _probe(engine.scheduler)
        try:
            client = distributed.Client(engine.scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise EngineError(f"--scheduler {engine.scheduler}: no Dask scheduler answered "
                              f"({_reason(exc)})") from None
        return client, None
    from pi_tools.engine.run import cores

    global _release_interrupts
    _release_interrupts = _hold_interrupts()
    import dask

    sys.stdout.flush()  # nothing buffered may be written twice by a forked worker
    sys.stderr.flush()
    try:
        # Its workers: no statistical profiler (a fifth more CPU per audited file, measured), every task sent
        # to them at once (the scheduler's queueing would cost a round trip per batch), and forked rather than
        # spawned: a spawned worker imports Python, distributed and pi_tools again (about 1.5 s of the 2.5 s a
        # cluster took to start, and its first task another 0.2 s), a forked one has them already. As for the
        # local pool, polars' thread pool could deadlock a fork: once polars is loaded, workers are spawned.
        # Its event loops (the scheduler's and nannies' in this process, each worker's beside its task thread)
        # wake less often: every 20 ms to time themselves, every 100 ms to poll memory, every 500 ms for the
        # dashboard's system metrics. Each wake-up takes the GIL from the audit running beside it.
        method = "spawn" if "polars" in sys.modules else "fork"
        with dask.config.set({"distributed.worker.profile.enabled": False,
                              "distributed.scheduler.worker-saturation": "inf",
                              "distributed.worker.multiprocessing-method": method,
                              **QUIET_LOOPS}):
            cluster = distributed.LocalCluster(
                n_workers=engine.jobs or cores(), threads_per_worker=1, processes=True, host="127.0.0.1",
                dashboard_address=None, worker_dashboard_address=None, silence_logs=logging.ERROR,
                # Without a dashboard the scheduler still serves health checks over HTTP: on a free loopback port,
                # not on 8787 (taken by any other cluster, with a warning).
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                preload=["pi_tools.engine.dask_worker"],  # Ctrl-C is the main process's to handle
            )
    except Exception as exc:  # noqa: BLE001 - any start failure is reported as one line
        _release()
        raise EngineError(f"--engine dask: could not start a local Dask cluster: {exc}") from None
    try:
        client = distributed.Client(cluster, set_as_default=False)
    except Exception as exc:  # noqa: BLE001
        cluster.close()
        _release()
        raise EngineError(f"--engine dask: could not connect to the local Dask cluster: {exc}") from None
    return client, cluster


_release_interrupts: Callable[[], None] = lambda: None  # noqa: E731


def _release() -> None:
    """Restore the SIGINT handler if _connect left the signal ignored."""
    global _release_interrupts
    release, _release_interrupts = _release_interrupts, lambda: None
    release()


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text or type(exc).__name__


def _probe(address: str) -> None:
    """EngineError unless something accepts a TCP connection at `address` within CONNECT_TIMEOUT.

    distributed's Client retries a refused connection for its whole timeout and, having failed, spends another
    ten seconds closing itself; one plain connection attempt first fails at once and quietly. Addresses of other
    transports (inproc://, ucx://) are left to the Client's own timeout.
    """
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise EngineError(f"--scheduler {address}: not a scheduler address ({_reason(exc)})") from None
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise EngineError(f"--scheduler {address}: no Dask scheduler there ({_reason(exc)})") from None


def _threads(client: Client, engine: Engine) -> int:
    """Worker threads the cluster has now, waiting (bounded) for a first worker to join."""
    deadline = time.monotonic() + NO_WORKERS_TIMEOUT
    while True:
        threads = sum(client.nthreads().values())
        if threads:
            return threads
        if time.monotonic() > deadline:
            raise EngineError(f"--scheduler {engine.scheduler}: the scheduler has no workers "
                              f"(waited {NO_WORKERS_TIMEOUT:g} s)")
        time.sleep(0.2)


def map_ordered_dask(task: Callable[[T], R], items: Sequence[T], engine: Engine, *,
                     weights: Sequence[int] | None = None) -> Iterator[R]:
    """task(item) for every item on Dask, yielded in input order (EngineError for what stops the run)."""
    distributed = _import_distributed()
    if not items:
        return
    client, cluster = _connect(distributed, engine)
    pending: dict[Future, int] = {}

    def abandon() -> None:
        """Ctrl-C (engine.cancel) while the caller is outside this generator: cancel, disconnect, stop."""
        _close(client, cluster, list(pending))

    key = cancel.register(abandon)
    try:
        _release()  # from here a Ctrl-C finds the clean-up registered
        threads = _threads(client, engine)
        plan = batches(len(items), weights, threads)
        window = max(2, threads * WINDOW_PER_THREAD)
        done: dict[int, list[R]] = {}
        submitted = 0
        emitted = 0
        idle_since: float | None = None
        while emitted < len(plan):
            # Submit up to `window` batches past the first one not yet emitted: memory stays bounded.
            while submitted < len(plan) and submitted < emitted + window:
                chunk = [items[index] for index in plan[submitted]]
                future = client.submit(run_batch, task, chunk, pure=False, retries=RETRIES)
                pending[future] = submitted
                submitted += 1
            finished = _wait_some(distributed, client, pending)
            if not finished:
                if client.nthreads():
                    idle_since = None
                elif idle_since is None:
                    idle_since = time.monotonic()
                elif time.monotonic() - idle_since > NO_WORKERS_TIMEOUT:
                    raise EngineError(f"--engine dask: the cluster lost all its workers "
                                      f"(none for {NO_WORKERS_TIMEOUT:g} s)")
                continue
            for future, values in _results(client, finished, pending, plan, items):
                done[pending.pop(future)] = values
            while emitted in done:
                yield from done.pop(emitted)
                emitted += 1
    finally:
        cancel.forget(key)
        _close(client, cluster, list(pending))


def _close(client: Client, cluster: Any, pending: list[Future]) -> None:
    """Cancel what is still pending, disconnect, and stop the LocalCluster if this run started one."""
    try:
        if pending:
            client.cancel(pending, force=True)
    except Exception:  # noqa: BLE001 - ending anyway: closing the client releases the rest
        pass
    try:
        client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _wait_some(distributed: Any, client: Client, pending: dict[Future, int]) -> list[Future]:
    """The futures that have finished (done, failed or cancelled), waiting at most a second for the first."""
    try:
        with client.as_current():  # wait() asks for the default client; this run's client is not made global
            distributed.wait(list(pending), timeout=1, return_when="FIRST_COMPLETED")
    except TimeoutError:
        return []
    return [future for future in pending if future.done()]


def _results(client: Client, finished: list[Future], pending: dict[Future, int], plan: list[range],
             items: Sequence[T]) -> list[tuple[Future, list[Any]]]:
    """Each finished future's results; EngineError for a batch that failed."""
    good = []
    for future in finished:
        if future.status == "finished":
            good.append(future)
            continue
        first = items[plan[pending[future]][0]]
        if future.status == "cancelled":
            raise EngineError(f"--engine dask: the cluster dropped the task for {item_name(first)}")
        exc = future.exception()
        if isinstance(exc, TaskFailed):
            raise EngineError(str(exc))
        text = str(exc).splitlines()[0] if str(exc) else ""
        raise EngineError(f"{item_name(first)}: {type(exc).__name__}{': ' + text if text else ''}")
    values = client.gather(good)
    return list(zip(good, values, strict=True))
