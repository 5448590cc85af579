"""The tables `pi-tools index` writes: their names, columns and column types, in one place.

Every partition of a table is written with exactly this schema (an empty partition too), so DuckDB and polars
can read a table's files as one without guessing or widening types. Types are named here as strings and turned
into polars types only where a table is written, so that importing this module costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from pi_tools.pi import PiVersion

SCHEMA_VERSION = 1
"""Bumped whenever a column of the base tables changes; an index written with another version is rebuilt from
scratch (as is one written for another Pi version's tables: `Shape.marker`)."""

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
    "usage_entries": (("line", "line"), ("entryId", "id"), ("timestamp", "timestamp"),
                      ("onActivePath", "onActivePath")),
    "context_edits": (("line", "line"), ("entryId", "id"), ("timestamp", "timestamp"),
                      ("onActivePath", "onActivePath")),
    "system_sections": (("line", "line"), ("entryId", "id"), ("onActivePath", "onActivePath"),
                        ("inContext", "inContext")),
    "system_tools": (("line", "line"), ("entryId", "id"), ("onActivePath", "onActivePath"),
                     ("inContext", "inContext")),
}
"""Table -> (its column, the entries column it equals at the row's entry)."""

USAGE_ENTRIES: tuple[tuple[str, str], ...] = (
    ("file", "str"), ("line", "int"), ("entryId", "str"), ("kind", "str"), ("provider", "str"), ("model", "str"),
    ("note", "str"), ("timestamp", "time"), ("input", "int"), ("output", "int"), ("cacheRead", "int"),
    ("cacheWrite", "int"), ("totalTokens", "int"), ("cost", "float"), ("costSource", "str"), ("counted", "bool"),
    ("onActivePath", "bool"),
)
"""One row per spending entry that is no message (a version whose spending rules count them: Pi 1.6's `usage`
entries), counted by `usage`'s counter as the usage table's rows are."""
CONTEXT_EDITS: tuple[tuple[str, str], ...] = (
    ("file", "str"), ("line", "int"), ("entryId", "str"), ("timestamp", "time"), ("targetId", "str"),
    ("targetLine", "int"), ("action", "str"), ("text", "str"), ("onActivePath", "bool"), ("applied", "bool"),
)
"""One row per `context_edit` entry (a version whose context rules apply them)."""
SYSTEM_SECTIONS: tuple[tuple[str, str], ...] = (
    ("file", "str"), ("line", "int"), ("entryId", "str"), ("position", "int"), ("section", "str"), ("text", "str"),
    ("onActivePath", "bool"), ("inContext", "bool"),
)
"""One row per prompt section of a system message (a version with prompt roles), or of a compaction's
`systemMessage`."""
SYSTEM_TOOLS: tuple[tuple[str, str], ...] = (
    ("file", "str"), ("line", "int"), ("entryId", "str"), ("change", "str"), ("position", "int"), ("name", "str"),
    ("description", "str"), ("parameters", "str"), ("onActivePath", "bool"), ("inContext", "bool"),
)
"""One row per tool a system message (or a compaction's `systemMessage`) adds or removes."""


@dataclass(frozen=True)
class Shape:
    """The tables an index holds for one Pi version: the base tables (`TABLES`) and what the version's rules add,
    told by what those rules do, never by the version's name (`shape_of`). An index of another shape is rebuilt
    (the manifest records `marker`)."""

    tables: dict[str, tuple[tuple[str, str], ...]]
    role_counts: dict[str, str]
    """Message role -> the sessions column counting it (the rest count as `otherMessages`)."""
    prompt_roles: frozenset[str] = frozenset()
    """Roles whose messages are the prompt (their sections and tools: `system_sections`, `system_tools`)."""
    usage_entries: bool = False
    """Spending entries that are no message are counted (`usage_entries`, and in the sessions' sums)."""
    context_edits: bool = False
    """`context_edit` entries change the context (`context_edits`)."""
    marker: str | None = None
    """What the manifest records as `pi` (None: nothing, the base shape's manifests stay as they were)."""

    def own_columns(self, table: str) -> dict[str, list[Any]]:
        return own_columns(table, self)

    def polars_schema(self, table: str) -> dict[str, Any]:
        return polars_schema(table, self)

    def empty_frame(self, table: str) -> pl.DataFrame:
        return empty_frame(table, self)


ROLE_COUNTS = {
    "user": "userMessages", "assistant": "assistantMessages", "toolResult": "toolResultMessages",
    "bashExecution": "bashExecutionMessages", "custom": "customMessages",
    "branchSummary": "branchSummaryMessages", "compactionSummary": "compactionSummaryMessages",
}
"""The roles Pi 0.85 knows and the sessions columns counting them."""

BASE: Shape
_SHAPES: dict[str | None, Shape] = {}


def make_shape(roles: frozenset[str] = frozenset(), prompt_roles: frozenset[str] = frozenset(),
               usage_entries: bool = False, context_edits: bool = False, marker: str | None = None) -> Shape:
    """The tables for rules that know message `roles` beside the base ones (each counted in a sessions column
    `<role>Messages` before `otherMessages`), whose `prompt_roles` carry prompt sections and tools, and that count
    usage entries or apply context edits (their counts follow `toolCalls`)."""
    role_counts = {**ROLE_COUNTS, **{role: f"{role}Messages" for role in sorted(roles) if role not in ROLE_COUNTS}}
    sessions: list[tuple[str, str]] = []
    for column in TABLES["sessions"]:
        if column[0] == "otherMessages":
            sessions.extend((name, "int") for name in list(role_counts.values())[len(ROLE_COUNTS):])
        sessions.append(column)
        if column[0] == "toolCalls":
            sessions.extend([("usageEntries", "int")] if usage_entries else [])
            sessions.extend([("contextEdits", "int")] if context_edits else [])
    tables = {**TABLES, "sessions": tuple(sessions)}
    if usage_entries:
        tables["usage_entries"] = USAGE_ENTRIES
    if context_edits:
        tables["context_edits"] = CONTEXT_EDITS
    if prompt_roles:
        tables["system_sections"] = SYSTEM_SECTIONS
        tables["system_tools"] = SYSTEM_TOOLS
    return Shape(tables, role_counts, prompt_roles, usage_entries, context_edits, marker)


def shape_of(version: PiVersion | None) -> Shape:
    """The tables of `version`'s index (None: the base tables), from what its rules do: the roles its vocabulary
    adds, its prompt roles, whether its spending rules count usage entries and its context rules apply edits. The
    version is recorded in the manifest (an index of another version, or of none, is rebuilt)."""
    if version is None:
        return BASE
    key = version.name
    found = _SHAPES.get(key)
    if found is None:
        found = make_shape(version.context.vocabulary.roles, version.prompt_roles, version.spending.usage_entries,
                           version.context.context_edits, version.name)
        if found.tables == BASE.tables and found.marker is None:
            found = BASE
        _SHAPES[key] = found
    return found


def own_columns(table: str, shape: Shape | None = None) -> dict[str, list[Any]]:
    """The columns a file's rows of `table` are built with: the schema's, less `file` (one name per file) and
    the `FROM_ENTRIES` columns, plus `ENTRY` (and `RESULT_ENTRY` for tool calls) in their place."""
    shared = {name for name, _ in FROM_ENTRIES.get(table, ())}
    columns: dict[str, list[Any]] = {ENTRY: []} if shared else {}
    columns.update((name, []) for name, _ in (shape or BASE).tables[table] if name != "file" and name not in shared)
    if table == "tool_calls":
        del columns["resultEntryId"]
        columns[RESULT_ENTRY] = []
    return columns


def polars_schema(table: str, shape: Shape | None = None) -> dict[str, Any]:
    """The polars schema of a table (timestamps as UTC milliseconds, lists of strings as List(String))."""
    import polars as pl

    kinds: dict[str, Any] = {
        "str": pl.String, "int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean,
        "time": pl.Datetime("ms", "UTC"), "strs": pl.List(pl.String),
    }
    return {name: kinds[kind] for name, kind in (shape or BASE).tables[table]}


def empty_frame(table: str, shape: Shape | None = None) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(schema=polars_schema(table, shape))


BASE = make_shape()
"""Pi 0.85's tables (`TABLES`), the code's default."""
