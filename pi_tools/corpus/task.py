"""The index's unit of work on the engine: one batch of files in, one Parquet partition per table out.

A batch is a few tens of megabytes of sessions. The task runs where the engine puts it (this process, a worker
process, a Dask worker), reads its files there (`engine.inputs.read_bytes`), and hands back each table's rows
already encoded as Parquet: compressed bytes are the smallest form rows can travel in, and the encoding then
runs in parallel on the workers instead of in the one process that writes the files. A file whose content hash
equals the one recorded in the manifest is not parsed at all; a file that is not a session becomes an error
for that file only.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Any, Final

from pi_tools.corpus.rows import Columns, IndexInputError, file_rows
from pi_tools.corpus.schema import TABLES, polars_schema
from pi_tools.engine.inputs import read_bytes
from pi_tools.session.reader import paused_gc

if TYPE_CHECKING:
    import polars as pl

COMPRESSION: Final = "zstd"
COMPRESSION_LEVEL: Final = 1
"""zstd's fastest level: on the index's tables it writes half as fast again as polars' default level (3) and
files no larger (the text columns compress as well; measured on the generated 1 MB sessions)."""


@dataclass(frozen=True)
class BatchJob:
    """The files of one partition, each with the content hash the manifest holds for it (None: new file)."""

    part: str
    files: tuple[tuple[str, str | None], ...]


@dataclass
class FileOutcome:
    name: str
    hash: str | None = None
    unchanged: bool = False  # same content as recorded: not parsed, its rows stay where they are
    error: str | None = None
    rows: dict[str, int] = field(default_factory=dict)


@dataclass
class BatchResult:
    part: str
    files: list[FileOutcome]
    tables: dict[str, bytes]  # table -> Parquet bytes; empty when no file of the batch was indexed


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def index_batch(job: BatchJob) -> BatchResult:
    """Engine task: read, hash and (when changed) index every file of the batch; one partition per table.

    The cyclic GC is paused for the batch: its parsed entries and row lists are millions of acyclic objects
    that the collector would otherwise rescan again and again (10-15% of the batch's time); what the batch
    leaves is freed by reference counting when it returns.
    """
    with paused_gc():
        return _index_batch(job)


def _index_batch(job: BatchJob) -> BatchResult:
    outcomes: list[FileOutcome] = []
    merged: dict[str, Columns] = {table: {name: [] for name, _ in columns} for table, columns in TABLES.items()}
    indexed = 0
    for name, previous in job.files:
        outcome = FileOutcome(name)
        outcomes.append(outcome)
        try:
            data = read_bytes(name)
        except OSError as exc:
            outcome.error = f"{name}: cannot read: {exc.strerror or exc}"
            continue
        outcome.hash = content_hash(data)
        if previous is not None and previous == outcome.hash:
            outcome.unchanged = True
            continue
        try:
            rows = file_rows(name, data)
        except IndexInputError as exc:
            outcome.error = str(exc)
            continue
        except RecursionError:
            outcome.error = f"{name}: cannot index: nesting too deep"
            continue
        del data
        indexed += 1
        for table, columns in rows.items():
            target = merged[table]
            for column, values in columns.items():
                target[column].extend(values)
            outcome.rows[table] = len(columns["file"])
    tables = {table: parquet_bytes(frame(table, columns)) for table, columns in merged.items()} if indexed else {}
    return BatchResult(job.part, outcomes, tables)


def frame(table: str, columns: Columns) -> pl.DataFrame:
    """A table's rows as a frame of exactly its schema (times from epoch milliseconds to UTC timestamps)."""
    import polars as pl

    schema = polars_schema(table)
    build = {name: (pl.Int64 if isinstance(kind, pl.Datetime) else kind) for name, kind in schema.items()}
    series = [_time_series(name, columns[name]) if isinstance(schema[name], pl.Datetime)
              else _series(name, columns[name], kind) for name, kind in build.items()]
    result = pl.DataFrame(series)
    # A time JavaScript cannot hold (|ms| > 8.64e15: Pi's `new Date` of it is Invalid Date) is written as null,
    # as JSON.stringify writes such a Date; past it, readers' own timestamp types overflow too.
    times = [pl.when(pl.col(name).abs() <= MAX_JS_TIME_MS).then(pl.col(name)).cast(kind).alias(name)
             for name, kind in schema.items() if isinstance(kind, pl.Datetime)]
    return result.with_columns(times) if times else result


MAX_JS_TIME_MS = 8_640_000_000_000_000


def _time_series(name: str, values: list[Any]) -> pl.Series:
    """Epoch milliseconds as Int64; a value past Int64 (a session may store any number) is out of JavaScript's
    range anyway, so it becomes null before polars sees it."""
    import polars as pl

    try:
        return pl.Series(name, values, dtype=pl.Int64)
    except (OverflowError, TypeError):
        return pl.Series(name, [None if value is None or abs(value) > MAX_JS_TIME_MS else value
                                for value in values], dtype=pl.Int64)


def _series(name: str, values: list[Any], kind: Any) -> pl.Series:
    import polars as pl

    if kind == pl.List(pl.String):
        return _string_lists(name, values)
    try:
        return pl.Series(name, values, dtype=kind)
    except UnicodeEncodeError:
        # Session text may hold lone UTF-16 surrogates (a JSON "\ud83d" escape); Parquet strings are UTF-8,
        # so they are written as the escape's text, as the CLI prints them.
        return pl.Series(name, [_clean(value) for value in values], dtype=kind)


_SEPARATOR = "\x1f"


def _string_lists(name: str, values: list[list[str]]) -> pl.Series:
    """A List(String) column, built from one joined string per row: polars builds a list column from Python
    lists an object at a time (10 ms for a 1 MB session's messages), a string column in one copy. A row that
    joins to "" (no names, or one empty name) travels as a null and is written as [], as it always was."""
    import polars as pl

    if _SEPARATOR in "".join(chain.from_iterable(values)):
        return pl.Series(name, [_clean(items) for items in values], dtype=pl.List(pl.String))
    column = _series(name, [_SEPARATOR.join(items) or None for items in values], pl.String)
    return pl.select(column.str.split(_SEPARATOR).fill_null(pl.lit([], dtype=pl.List(pl.String)))
                     .alias(name)).to_series()


def _clean(value: Any) -> Any:
    if type(value) is str:
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if type(value) is list:
        return [_clean(item) for item in value]
    return value


def parquet_bytes(data: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    data.write_parquet(buffer, compression=COMPRESSION, compression_level=COMPRESSION_LEVEL, statistics=True)
    return buffer.getvalue()
