"""Run the audit over many paths: expand directories, spread files over the cores, keep input order.

A process pool costs about a tenth of a second to start, more than auditing one small session takes, so it is
used only when there are several files and enough bytes to win that back. Results always come back in input
order (CI output must not depend on scheduling). The progress bar goes to stderr, and only when stderr is a
terminal, so redirected output and CI logs stay clean.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TextIO

from pi_tools.audit.checks import AuditResult, audit_file
from pi_tools.session.listing import find_session_files

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# Below this many bytes in total (about 0.3 s of auditing) one process beats starting workers.
POOL_MIN_BYTES = 8 << 20


def expand_paths(paths: list[str]) -> list[tuple[str, str | None]]:
    """(path, error) per input: directories become their *.jsonl files (recursively, sorted)."""
    out: list[tuple[str, str | None]] = []
    for path in paths:
        if os.path.isdir(path):
            found = list(find_session_files(path))
            if not found:
                out.append((path, f"{path}: no session files (*.jsonl) under this directory"))
            out.extend((name, None) for name in found)
        else:
            out.append((path, None))
    return out


def _audit_one(job: tuple[str, frozenset[str] | None]) -> AuditResult:
    path, enabled = job
    return audit_file(path, enabled)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def worker_count(files: list[str]) -> int:
    """How many processes help: 1 for few or small files, else up to one per core."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if len(files) < 2 or cores < 2 or sum(_size(name) for name in files) < POOL_MIN_BYTES:
        return 1
    return min(cores, len(files))


def run_audit(paths: list[str], enabled: frozenset[str] | None = None, jobs: int | None = None,
              progress: Callable[[int, int], None] | None = None) -> Iterator[AuditResult]:
    """Audit every input; yields one AuditResult per file (or unusable input) in input order."""
    inputs = expand_paths(paths)
    files = [path for path, error in inputs if error is None]
    workers = jobs if jobs is not None else worker_count(files)
    total = len(inputs)
    done = 0
    pool: ProcessPoolExecutor | None = None
    if workers <= 1 or len(files) < 2:
        results: Iterator[AuditResult] = (_audit_one((path, enabled)) for path in files)
    else:
        from concurrent.futures import ProcessPoolExecutor  # imported only when a pool is used

        pool = ProcessPoolExecutor(max_workers=workers)
        chunk = max(1, len(files) // (workers * 8))
        results = pool.map(_audit_one, [(path, enabled) for path in files], chunksize=chunk)
    try:
        for path, error in inputs:
            result = AuditResult(path, error=error) if error is not None else next(results)
            done += 1
            if progress is not None:
                progress(done, total)
            yield result
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


class ProgressBar:
    """A one-line bar on a terminal stream; does nothing when the stream is not a terminal."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.width = width

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        filled = self.width * done // total
        self.stream.write(f"\raudit [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} files")
        if done == total:
            self.stream.write("\r" + " " * (self.width + 30) + "\r")
        self.stream.flush()
