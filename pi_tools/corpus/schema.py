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


def empty_columns(table: str) -> dict[str, list[Any]]:
    """A table's columns with no rows, as the lists rows are appended to."""
    return {name: [] for name, _ in TABLES[table]}


def empty_frame(table: str) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(schema=polars_schema(table))
