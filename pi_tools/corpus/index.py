"""`pi-tools index`: the corpus as Parquet tables, brought up to date incrementally.

A run compares every input with the manifest: a file whose size and mtime are as recorded is not read at all;
any other is read and hashed where the engine runs it, and parsed only when its content differs. Files that
changed, appeared or became unreadable go into new partitions; partitions holding rows of files that changed
or disappeared are rewritten without those rows; every other partition is carried over untouched. The tables
are then the same rows a full index of the same inputs would write (in another partition layout).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_tools.corpus.schema import Shape, shape_of
from pi_tools.corpus.store import Generation, Store, StoreError
from pi_tools.sources.files import expand, is_url, size_of

if TYPE_CHECKING:
    from pi_tools.corpus.task import BatchJob, BatchResult
    from pi_tools.engine import Engine
    from pi_tools.pi import PiVersion

# The reading and writing machinery (session readers, polars) is imported only when some file must be read:
# a run that finds nothing changed costs little more than the interpreter's start and a stat per file.

BATCH_MIN_BYTES = 4 << 20
BATCH_MAX_BYTES = 64 << 20
BATCH_MAX_FILES = 1000
BATCH_SHARE = 16
RACY_NS = 2_000_000_000
"""A file modified this close to (or after) the start of the run that recorded it may have changed again within
the same mtime tick; it is hashed on the next run rather than trusted by its size and mtime (as git does)."""

__all__ = ["IndexReport", "StoreError", "index_corpus"]


@dataclass
class IndexReport:
    """What a run did: files in the index, how many were parsed, found unchanged or removed, and the errors
    (one message per input that could not be indexed: file, line where known, problem)."""

    out: str
    files: int = 0
    parsed: int = 0
    hashed: int = 0
    unchanged: int = 0
    removed: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


@dataclass
class _Input:
    name: str
    size: int
    mtime_ns: int | None


def _stat(name: str) -> _Input | str:
    """Size and mtime of a local file (URLs: size only, so they are hashed on every run), or an error."""
    if is_url(name):
        return _Input(name, size_of(name), None)
    try:
        stat = os.stat(name)
    except FileNotFoundError:
        return f"{name}: no such file"
    except OSError as exc:
        return f"{name}: cannot read: {exc.strerror or exc}"
    if not os.path.isfile(name):
        return f"{name}: is a directory, not a session file" if os.path.isdir(name) else f"{name}: not a file"
    return _Input(name, stat.st_size, stat.st_mtime_ns)


def _batches(todo: list[tuple[_Input, str | None]], generation: int, pi: str | None = None) -> list[BatchJob]:
    """Consecutive files in batches that shrink toward the end: each holds about a sixteenth of the input not
    yet batched (at least BATCH_MIN_BYTES, at most BATCH_MAX_BYTES). The first tasks are large, so scheduling
    and the Parquet footers are noise; the last are small, so the workers finish within a small task of each
    other (with batches of 64 MB to the end, over the 2,000 x 1 MB corpus, one worker sat idle for the last
    3.8 s, a batch's time, of a 175 s run under load)."""
    from pi_tools.corpus.task import BatchJob

    remaining = sum(item.size for item, _ in todo)
    jobs: list[BatchJob] = []
    current: list[tuple[str, str | None]] = []
    size = target = 0
    for item, previous in todo:
        if not current:
            target = min(BATCH_MAX_BYTES, max(BATCH_MIN_BYTES, remaining // BATCH_SHARE))
        current.append((item.name, previous))
        size += item.size
        remaining -= item.size
        if size >= target or len(current) >= BATCH_MAX_FILES:
            jobs.append(BatchJob(f"p{generation:06d}-{len(jobs):05d}", tuple(current), pi))
            current, size = [], 0
    if current:
        jobs.append(BatchJob(f"p{generation:06d}-{len(jobs):05d}", tuple(current), pi))
    return jobs


def index_corpus(paths: list[str], out: str, engine: Engine | None = None,
                 version: PiVersion | None = None) -> IndexReport:
    """Index every session file below `paths` into the tables under `out` (created, or brought up to date), read
    as `version` reads them, into its tables (None: `pi.resolve()`: PI_TOOLS_PI, else the default). An index
    written for another version's tables is rebuilt."""
    from pi_tools.pi import resolve

    if version is None:
        version = resolve()
    started_ns = time.time_ns()
    report = IndexReport(out)
    store = Store(out, shape_of(version))
    try:
        store.open()
        return _run(paths, store, engine, report, started_ns, version.name)
    finally:
        store.close()


def _run(paths: list[str], store: Store, engine: Engine | None, report: IndexReport,
         started_ns: int, pi: str) -> IndexReport:
    old: dict[str, dict[str, Any]] = store.manifest["files"]
    previous_start = int(store.manifest.get("startedNs") or 0)
    inputs: list[_Input] = []
    seen: set[str] = set()
    for name, error in expand(paths):
        if error is not None:
            report.errors.append(error)
            continue
        if name in seen:
            continue
        seen.add(name)
        found = _stat(name)
        if isinstance(found, str):
            report.errors.append(found)
        else:
            inputs.append(found)
    keep: dict[str, dict[str, Any]] = {}
    todo: list[tuple[_Input, str | None]] = []
    for item in inputs:
        record = old.get(item.name)
        if record is not None and item.mtime_ns is not None and record["size"] == item.size \
                and record["mtimeNs"] == item.mtime_ns and item.mtime_ns < previous_start - RACY_NS:
            keep[item.name] = record
        else:
            todo.append((item, record["hash"] if record is not None else None))
    stale = {name for name in old if name not in keep}  # changed, removed or unreadable (decided below)
    report.removed = sum(1 for name in old if name not in seen)
    if not todo and not stale and store.manifest["generation"] and not store.rebuilt:
        return _finish(report, keep, store.manifest, store.shape)  # nothing to do: the tables stay as they are

    from pi_tools.corpus.task import index_batch
    from pi_tools.engine import map_ordered

    generation = store.begin()
    jobs = _batches(todo, generation.number, pi)
    by_name = {item.name: item for item, _ in todo}
    results = map_ordered(index_batch, jobs, engine, weights=[sum(by_name[n].size for n, _ in job.files)
                                                             for job in jobs])
    for result in results:
        _take(result, generation, by_name, old, keep, stale, report)
    # Files found unchanged by their hash keep their rows where they are; a parsed file's old rows are stale
    # (its new rows are in this generation's partitions).
    stale = {name for name in stale if name not in keep or keep[name]["part"] != old[name]["part"]}
    manifest = {**store.manifest, "startedNs": started_ns, "files": dict(sorted(keep.items()))}
    if not report.parsed and not stale and store.manifest["generation"] and not store.rebuilt:
        # Only hashes were checked (touched files, inputs that are still no sessions): the tables stand.
        store.discard(generation, manifest)
        return _finish(report, keep, manifest, store.shape)
    _carry_over(generation, store, old, keep, stale)
    _ensure_tables(generation, store.shape)
    store.commit(generation, manifest)
    return _finish(report, keep, manifest, store.shape)


def _take(result: BatchResult, generation: Generation, by_name: dict[str, _Input],
          old: dict[str, dict[str, Any]], keep: dict[str, dict[str, Any]], stale: set[str],
          report: IndexReport) -> None:
    for table, data in result.tables.items():
        generation.write(table, result.part, data)
    for outcome in result.files:
        item = by_name[outcome.name]
        report.hashed += outcome.hash is not None
        if outcome.error is not None:
            report.errors.append(outcome.error)
            continue
        record = {"size": item.size, "mtimeNs": item.mtime_ns, "hash": outcome.hash}
        if outcome.unchanged:
            keep[outcome.name] = {**old[outcome.name], **record}
            continue
        report.parsed += 1
        keep[outcome.name] = {**record, "part": result.part, "rows": outcome.rows}


def _carry_over(generation: Generation, store: Store, old: dict[str, dict[str, Any]],
                keep: dict[str, dict[str, Any]], stale: set[str]) -> None:
    """Link every old partition that holds no stale rows; rewrite the others without them."""
    parts: dict[str, list[str]] = {}
    for name, record in old.items():
        parts.setdefault(record["part"], []).append(name)
    dirty = {record["part"] for name, record in old.items() if name in stale}
    for part, names in sorted(parts.items()):
        survivors = [name for name in names if name in keep and keep[name]["part"] == part]
        if not survivors:
            continue
        if part not in dirty:
            for table in store.tables:
                generation.keep(table, part)
            continue
        import polars as pl

        from pi_tools.corpus.task import parquet_bytes

        for table in store.tables:
            frame = pl.read_parquet(store.current_part(table, part))
            frame = frame.filter(pl.col("file").is_in(survivors))
            generation.write(table, part, parquet_bytes(frame))


def _ensure_tables(generation: Generation, shape: Shape) -> None:
    """A table with no partition at all still gets one (empty, with the schema), so that readers find it."""
    from pi_tools.corpus.task import parquet_bytes

    for table in shape.tables:
        if next(generation.parts(table), None) is None:
            generation.write(table, "empty", parquet_bytes(shape.empty_frame(table)))


def _finish(report: IndexReport, files: dict[str, dict[str, Any]], manifest: dict[str, Any],
            shape: Shape) -> IndexReport:
    report.files = len(files)
    report.unchanged = report.files - report.parsed
    report.rows = {table: sum(record["rows"].get(table, 0) for record in files.values()) for table in shape.tables}
    return report
