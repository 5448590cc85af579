"""The tables `pi-tools index` writes: their names, columns and column types, in one place.

Every partition of a table is written with exactly this schema (an empty partition too), so DuckDB and polars
can read a table's files as one without guessing or widening types. Types are named here as strings and turned
into polars types only where a table is written, so that importing this module costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

SCHEMA_VERSION = 1
"""Bumped whenever a column changes; an index written with another version is rebuilt from scratch."""

TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "sessions": (
        ("file", "str"), ("id", "str"), ("cwd", "str"), ("name", "str"), ("parentSession", "str"),
        ("created", "time"), ("modified", "time"), ("bytes", "int"), ("entries", "int"), ("messages", "int"),
        ("userMessages", "int"), ("assistantMessages", "int"), ("toolResultMessages", "int"),
        ("bashExecutionMessages", "int"), ("customMessages", "int"), ("branchSummaryMessages", "int"),
        ("compactionSummaryMessages", "int"), ("otherMessages", "int"), ("contextMessages", "int"),
        ("toolCalls", "int"), ("models", "strs"), ("leaf", "str"), ("branches", "int"), ("diagnostics", "int"),
        ("contextError", "str"), ("input", "int"), ("output", "int"), ("cacheRead", "int"), ("cacheWrite", "int"),
        ("totalTokens", "int"), ("cost", "float"),
    ),
    "entries": (
        ("file", "str"), ("line", "int"), ("id", "str"), ("parentId", "str"), ("type", "str"), ("role", "str"),
        ("timestamp", "time"), ("onActivePath", "bool"), ("inContext", "bool"), ("bytes", "int"),
    ),
    "messages": (
        ("file", "str"), ("line", "int"), ("entryId", "str"), ("role", "str"), ("provider", "str"),
        ("model", "str"), ("text", "str"), ("thinking", "str"), ("toolNames", "strs"), ("isError", "bool"),
        ("onActivePath", "bool"), ("inContext", "bool"), ("timestamp", "time"),
    ),
    "tool_calls": (
        ("file", "str"), ("line", "int"), ("entryId", "str"), ("toolCallId", "str"), ("name", "str"),
        ("arguments", "str"), ("result", "str"), ("resultLine", "int"), ("resultEntryId", "str"),
        ("isError", "bool"), ("onActivePath", "bool"), ("msToResult", "int"),
    ),
    "usage": (
        ("file", "str"), ("line", "int"), ("entryId", "str"), ("provider", "str"), ("model", "str"),
        ("api", "str"), ("timestamp", "time"), ("input", "int"), ("output", "int"), ("cacheRead", "int"),
        ("cacheWrite", "int"), ("totalTokens", "int"), ("cost", "float"), ("costSource", "str"),
        ("counted", "bool"), ("onActivePath", "bool"),
    ),
}

ENTRY = "_entry"
"""The column of a file's messages, tool calls and usage rows that holds each row's entry (its index among the
file's entries rows): the columns they share with the entries table (`FROM_ENTRIES`) are taken from it when the
frames are built, rather than built and converted once per table."""
RESULT_ENTRY = "_resultEntry"
"""A tool call's result entry (its index among the entries rows, or None): gives `resultEntryId`."""
FROM_ENTRIES: dict[str, tuple[tuple[str, str], ...]] = {
    "messages": (("line", "line"), ("entryId", "id"), ("role", "role"), ("onActivePath", "onActivePath"),
                 ("inContext", "inContext"), ("timestamp", "timestamp")),
    "tool_calls": (("line", "line"), ("entryId", "id"), ("onActivePath", "onActivePath")),
    "usage": (("line", "line"), ("entryId", "id"), ("timestamp", "timestamp"), ("onActivePath", "onActivePath")),
}
"""Table -> (its column, the entries column it equals at the row's entry)."""


def own_columns(table: str) -> dict[str, list[Any]]:
    """The columns a file's rows of `table` are built with: the schema's, less `file` (one name per file) and
    the `FROM_ENTRIES` columns, plus `ENTRY` (and `RESULT_ENTRY` for tool calls) in their place."""
    shared = {name for name, _ in FROM_ENTRIES.get(table, ())}
    columns: dict[str, list[Any]] = {ENTRY: []} if shared else {}
    columns.update((name, []) for name, _ in TABLES[table] if name != "file" and name not in shared)
    if table == "tool_calls":
        del columns["resultEntryId"]
        columns[RESULT_ENTRY] = []
    return columns


TIME_COLUMNS = frozenset((table, name) for table, columns in TABLES.items()
                         for name, kind in columns if kind == "time")
"""Columns held as epoch milliseconds while rows are built, written as UTC timestamps."""


def polars_schema(table: str) -> dict[str, Any]:
    """The polars schema of a table (timestamps as UTC milliseconds, lists of strings as List(String))."""
    import polars as pl

    kinds: dict[str, Any] = {
        "str": pl.String, "int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean,
        "time": pl.Datetime("ms", "UTC"), "strs": pl.List(pl.String),
    }
    return {name: kinds[kind] for name, kind in TABLES[table]}


def empty_frame(table: str) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(schema=polars_schema(table))
