"""The index's unit of work on the engine: one batch of files in, one Parquet partition per table out.

A batch is a few tens of megabytes of sessions. The task runs where the engine puts it (this process, a worker
process, a Dask worker), reads its files there (`sources.files.read_bytes`), and hands back each table's rows
already encoded as Parquet: compressed bytes are the smallest form rows can travel in, and the encoding then
runs in parallel on the workers instead of in the one process that writes the files. A file whose content hash
equals the one recorded in the manifest is not parsed at all; a file that is not a session becomes an error
for that file only.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pi_tools.corpus.rows import BASE_READING, Columns, FileRows, IndexInputError, file_rows, reading_of
from pi_tools.corpus.schema import BASE, ENTRY, FROM_ENTRIES, RESULT_ENTRY, Shape
from pi_tools.session.reader import paused_gc
from pi_tools.sources.files import read_bytes

if TYPE_CHECKING:
    import polars as pl

COMPRESSION: Final = "zstd"
COMPRESSION_LEVEL: Final = 1
"""zstd's fastest level: on the index's tables it writes half as fast again as polars' default level (3) and
files no larger (the text columns compress as well; measured on the generated 1 MB sessions)."""


@dataclass(frozen=True)
class BatchJob:
    """The files of one partition, each with the content hash the manifest holds for it (None: new file), and
    the Pi version they are read as (its name, resolved where the task runs; None: the code's default)."""

    part: str
    files: tuple[tuple[str, str | None], ...]
    pi: str | None = None


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


def content_hash(data: bytes, recorded: str | None = None) -> str:
    """SHA-256 of the file's content: with the SHA instructions of current x86-64 and ARM processors, hashlib
    computes it at twice blake2b's speed (0.7 against 1.6 ms for 1 MB here). A hash an index recorded before
    (blake2b, 32 hex digits) is computed again that way, so that a file whose content has not changed since
    still counts as unchanged (a changed one is then recorded with SHA-256)."""
    if recorded is not None and len(recorded) == 32:
        return hashlib.blake2b(data, digest_size=16).hexdigest()
    return hashlib.sha256(data).hexdigest()


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
    reading = BASE_READING
    if job.pi is not None:
        from pi_tools.pi import get

        reading = reading_of(get(job.pi))
    batch = RowsBatch(reading.shape)
    for name, previous in job.files:
        outcome = FileOutcome(name)
        outcomes.append(outcome)
        try:
            data = read_bytes(name)
        except OSError as exc:
            outcome.error = f"{name}: cannot read: {exc.strerror or exc}"
            continue
        outcome.hash = content_hash(data, previous)
        if previous is not None and previous == outcome.hash:
            outcome.unchanged = True
            continue
        if len(outcome.hash) != 64:  # changed since an earlier index recorded it: recorded as SHA-256 from now on
            outcome.hash = content_hash(data)
        try:
            rows = file_rows(name, data, reading)
        except IndexInputError as exc:
            outcome.error = str(exc)
            continue
        except RecursionError:
            outcome.error = f"{name}: cannot index: nesting too deep"
            continue
        except Exception as exc:  # a bug or an input shape nobody foresaw: reported for this file, the others go on
            outcome.error = f"{name}: cannot index ({type(exc).__name__}: {exc}); please report it"
            continue
        del data
        outcome.rows = batch.add(name, rows)
    tables = {table: parquet_bytes(data) for table, data in batch.frames().items()} if batch.files else {}
    return BatchResult(job.part, outcomes, tables)


class RowsBatch:
    """The rows of several files, table by table, as one set of columns (entry references made batch-wide).

    Each file's column lists are kept as they are and joined once, at the end, into lists allocated at their
    final length: appending them one file at a time (`list.extend`) reallocated and copied the growing lists
    again and again (1.3-1.4 against 1.0-1.2 ms per file for a batch of 40)."""

    def __init__(self, shape: Shape = BASE) -> None:
        self.shape = shape
        self.parts: dict[str, dict[str, list[list[Any]]]] = {}
        self.files: list[tuple[str, dict[str, int]]] = []
        self.entries = 0

    def add(self, name: str, rows: FileRows) -> dict[str, int]:
        """Append one file's rows; returns its row count per table."""
        offset = self.entries
        counts: dict[str, int] = {}
        for table, columns in rows.items():
            target = self.parts.setdefault(table, {column: [] for column in columns})
            for column, values in columns.items():
                if offset and column == ENTRY:
                    values = [at + offset for at in values]
                elif offset and column == RESULT_ENTRY:
                    values = [None if at is None else at + offset for at in values]
                target[column].append(values)
            counts[table] = len(next(iter(columns.values())))
        self.entries += counts.get("entries", 0)
        self.files.append((name, counts))
        return counts

    @property
    def columns(self) -> FileRows:
        return {table: {column: _joined(parts) for column, parts in columns.items()}
                for table, columns in self.parts.items()}

    def frames(self) -> dict[str, pl.DataFrame]:
        return frames(self.columns, self.files, self.shape)


def _joined(parts: list[list[Any]]) -> list[Any]:
    if len(parts) == 1:
        return parts[0]
    joined: list[Any] = [None] * sum(map(len, parts))
    at = 0
    for part in parts:
        joined[at:at + len(part)] = part
        at += len(part)
    return joined


def frames(rows: FileRows, files: list[tuple[str, dict[str, int]]], shape: Shape = BASE) -> dict[str, pl.DataFrame]:
    """Every table's rows (of the `files`, each with its row count per table) as frames of exactly the tables'
    schemas: times from epoch milliseconds to UTC timestamps, `file` from one name per file, and the columns
    other tables share with the entries table (schema.FROM_ENTRIES) taken from its frame at each row's entry."""
    import polars as pl

    names = _series("file", [name for name, _ in files], pl.String)
    entries = _frame("entries", rows["entries"], names, files, shape)
    built: dict[str, pl.DataFrame] = {}
    for table in shape.tables:
        if table == "entries":
            built[table] = entries
            continue
        columns = rows[table]
        shared: list[pl.Expr] = []
        if ENTRY in columns:
            at = pl.Series(columns[ENTRY], dtype=pl.Int64)
            shared = [pl.col(source).gather(at).alias(name) for name, source in FROM_ENTRIES[table]]
        if RESULT_ENTRY in columns:
            shared.append(pl.col("id").gather(pl.Series(columns[RESULT_ENTRY], dtype=pl.Int64))
                          .alias("resultEntryId"))
        own = _frame(table, columns, names, files, shape)
        if shared:
            own = own.hstack(entries.select(shared)).select(list(shape.polars_schema(table)))
        built[table] = own
    return built


def _frame(table: str, columns: Columns, names: pl.Series, files: list[tuple[str, dict[str, int]]],
           shape: Shape = BASE) -> pl.DataFrame:
    """The frame of a table's columns that `columns` holds, and `file` (in schema order)."""
    import polars as pl

    schema = shape.polars_schema(table)
    series: list[pl.Series] = []
    for name, kind in schema.items():
        if name == "file":
            series.append(_file_column(table, names, files))
        elif name not in columns:
            continue
        elif isinstance(kind, pl.Datetime):
            series.append(_time_series(name, columns[name]))
        else:
            series.append(_series(name, columns[name], kind))
    result = pl.DataFrame(series)
    # A time JavaScript cannot hold (|ms| > 8.64e15: Pi's `new Date` of it is Invalid Date) is written as null,
    # as JSON.stringify writes such a Date; past it, readers' own timestamp types overflow too.
    times = [pl.when(pl.col(name).abs() <= MAX_JS_TIME_MS).then(pl.col(name)).cast(kind).alias(name)
             for name, kind in schema.items() if isinstance(kind, pl.Datetime) and name in columns]
    return result.with_columns(times) if times else result


MAX_JS_TIME_MS = 8_640_000_000_000_000


def _file_column(table: str, names: pl.Series, files: list[tuple[str, dict[str, int]]]) -> pl.Series:
    """Each file's name once per row it has in `table`, repeated in polars in one call: a repeat and a concat
    per file cost 0.25-0.3 ms per file and table (more than converting a column); files without rows in the
    table are left out before repeating (an empty repeat would explode to a null row)."""
    import polars as pl

    counts = pl.Series("rows", [file_counts.get(table, 0) for _, file_counts in files], dtype=pl.UInt32)
    return (pl.DataFrame([names, counts]).filter(pl.col("rows") > 0)
            .select(pl.col("file").repeat_by("rows").explode()).to_series())


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
    joins to "" (no names, or one empty name) travels as a null and is written as [], as it always was. A
    name holding the separator itself shows as more separators than the rows' names account for: then the
    lists are built as they are."""
    import polars as pl

    column = _series(name, [_SEPARATOR.join(items) or None for items in values], pl.String)
    names = sum(map(len, values))
    separators = names - (len(values) - values.count([])) if names else 0
    if (column.str.count_matches(_SEPARATOR, literal=True).sum() if names else 0) != separators:
        return pl.Series(name, [_clean(items) for items in values], dtype=pl.List(pl.String))
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
