"""A helper process that builds the second part of large payloads, so that `payload` uses two cores.

The per-message work of a payload (parsing each message line, rewriting it for the target model, encoding it)
is most of its time on a large session and, in CPython, runs on one core. `pi_tools.providers.split` shows
when a conversation can be built in two parts with exactly the same result; this module runs the second part.

The helper is forked when the command starts: before any thread exists (forking a threaded process is unsafe)
and before the session is read, so it shares nothing large with the main process and the two processes'
memory adds up to what they each hold. Tasks and results travel as pickles over two pipes. The helper never
writes to stdout, ends when its task pipe closes, and any failure of a task comes back as None: the main
process then builds that payload whole.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import IO, Any

SPLIT_BYTES_VARIABLE = "PI_TOOLS_SPLIT_BYTES"
DEFAULT_SPLIT_BYTES = 8 << 20
"""Sessions (and contexts) smaller than this are built in one process: the helper would save less than it costs.
Larger ones are built in parts of a quarter of it (so PI_TOOLS_SPLIT_BYTES=0 cuts before every user message)."""


SHARE = 0.45
"""Where a conversation is cut: the main process, which also reads and indexes the session and writes the
result, builds this share of the message text; the helper builds the rest."""


def split_threshold() -> int | None:
    """The size from which payloads are built in two parts; None when PI_TOOLS_SPLIT_BYTES turns it off."""
    value = os.environ.get(SPLIT_BYTES_VARIABLE, "").strip()
    if not value:
        return DEFAULT_SPLIT_BYTES
    try:
        threshold = int(value)
    except ValueError:
        return None  # "off", or anything else that is not a size
    return threshold if threshold >= 0 else None


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _widen(fd: int) -> None:
    """A 1 MiB pipe buffer instead of 64 KiB: fewer switches between the processes while megabytes go through."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):
        pass


class PayloadWorker:
    """The main process's handle on the helper."""

    def __init__(self, pid: int, tasks: IO[bytes], results: IO[bytes], threshold: int) -> None:
        self._pid = pid
        self._tasks: IO[bytes] | None = tasks
        self._results = results
        self.threshold = threshold
        self.share = SHARE
        self.part_bytes = max(1, threshold // 4)

    @classmethod
    def start(cls, file_sizes: list[int]) -> PayloadWorker | None:
        """Fork the helper when it can pay off: two usable cores and a named file at least the threshold."""
        threshold = split_threshold()
        if threshold is None or not hasattr(os, "fork") or _usable_cpus() < 2:
            return None
        if not any(size >= threshold for size in file_sizes):
            return None
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        for fd in (task_write, result_write):
            _widen(fd)
        sys.stdout.flush()  # nothing buffered may be written twice
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(task_write)
            os.close(result_read)
            _serve(task_read, result_write)  # never returns
        os.close(task_read)
        os.close(result_write)
        return cls(pid, os.fdopen(task_write, "wb"), os.fdopen(result_read, "rb"), threshold)

    def build_parts(self, api: str, model: Any, options: dict[str, Any], context: dict[str, Any],
                    planned_parts: list[Any]) -> Callable[[], Any]:
        """Send one task (a stages.PartsBuilder); the returned function waits for its result, None if it failed.

        The task goes out before this process starts on its own parts: the helper reads it as fast as it is
        written (a few tens of milliseconds for a 100 MB session), and a thread writing it meanwhile would wait
        for the interpreter lock at every chunk.
        """
        tasks = self._tasks
        if tasks is None:
            return lambda: None
        try:
            pickle.dump((api, model, options, context, planned_parts), tasks, protocol=5)
            tasks.flush()
        except (OSError, ValueError, pickle.PicklingError):
            self._broken()
            return lambda: None

        def result() -> Any:
            try:
                return pickle.load(self._results)
            except (EOFError, OSError, pickle.UnpicklingError):
                self._broken()
                return None

        return result

    def _broken(self) -> None:
        """The helper is gone or unusable: no more tasks go to it."""
        self.close()

    def close(self) -> None:
        """Let the helper end (its task pipe closes) and collect it."""
        if self._tasks is None:
            return
        try:
            self._tasks.close()
        except OSError:
            pass
        self._tasks = None
        try:
            os.waitpid(self._pid, 0)
        except ChildProcessError:
            pass


def _serve(task_fd: int, result_fd: int) -> None:
    """The helper's life: build each task's parts until the task pipe closes, then end without any teardown."""
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the helper quietly with the command
        from pi_tools.stages import build_parts

        with os.fdopen(task_fd, "rb") as tasks, os.fdopen(result_fd, "wb") as results:
            while True:
                try:
                    task = pickle.load(tasks)
                except EOFError:
                    break
                try:
                    built = build_parts(*task)
                except Exception:  # noqa: BLE001 - the main process builds the payload whole and reports it
                    built = None
                del task
                pickle.dump(built, results, protocol=5)
                results.flush()
                del built
    except BaseException:  # noqa: BLE001 - whatever happens here, never run the parent's code in this process
        status = 1
    finally:
        os._exit(status)
