"""`search --index OUT`: the same search over the Parquet tables `pi-tools index` writes, instead of the files.

Two tables are read, lazily and only in the columns a search needs: `messages` (file, line, entryId, role,
text, toolNames, onActivePath) for message text, and `tool_calls` (file, line, entryId, name, arguments,
onActivePath) for tool-call arguments; under a Pi version whose system messages carry the prompt (1.6), also
`system_sections` and `system_tools`, searched after a system message's text in the order the file search
takes them (corpus/searchable.system_texts: its sections in order, then the tools it adds, then those it
removes, each by name and description). polars narrows the rows (role, branch, tool, and for a case-sensitive
literal the text itself, in Rust); every remaining row is then matched in Python by the very matcher the file
search uses, so both give the same hits as long as the index's `text` is pi_tools.corpus.text.message_text of
the entry and `arguments` the calls' JSON. Hits come per file in the index's order, by line, one per entry.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from typing import Any

import orjson

from pi_tools.corpus.match import hit_text
from pi_tools.corpus.search import FileHits, SearchSpec, hit_document
from pi_tools.corpus.searchable import arguments_text
from pi_tools.pi import resolve
from pi_tools.sources.files import expand

MESSAGE_COLUMNS = ("file", "line", "entryId", "role", "text", "thinking", "toolNames", "onActivePath")
CALL_COLUMNS = ("file", "line", "entryId", "name", "arguments", "onActivePath")
SECTION_COLUMNS = ("file", "line", "entryId", "position", "text", "onActivePath")
TOOL_COLUMNS = ("file", "line", "entryId", "change", "position", "name", "description", "onActivePath")
_CHANGES = ("added", "removed")  # the order the file search takes a system message's tools in


class IndexError_(Exception):  # noqa: N801 - IndexError is Python's own
    """The index cannot be searched (no such folder, a table missing or without the columns search reads)."""


def _table(index_dir: str, name: str, columns: tuple[str, ...], pi: str | None = None) -> Any:
    import polars as pl

    files = sorted(glob.glob(os.path.join(index_dir, name, "**", "*.parquet"), recursive=True))
    if not files:
        option = f" --pi {pi}" if pi is not None else ""
        written = f" (it was written for another Pi version than {pi})" if pi is not None else ""
        raise IndexError_(f"--index {index_dir}: no {name} table ({name}/*.parquet){written}; "
                          f"write one with pi-tools index{option} PATH... -o {index_dir}")
    frame = pl.scan_parquet(files)
    try:
        present = frame.collect_schema().names()
    except Exception as exc:  # noqa: BLE001 - polars raises its own errors for unreadable Parquet files
        raise IndexError_(f"--index {index_dir}: cannot read the {name} table: {exc}") from None
    missing = [column for column in columns if column not in present]
    if missing:
        raise IndexError_(f"--index {index_dir}: the {name} table has no column {', '.join(missing)}")
    return frame.select(columns)


def _literal_filter(spec: SearchSpec, column: str) -> Any:
    """A polars condition every matching row meets (None: no narrowing by text): a case-sensitive literal
    without characters JSON escapes is a substring of the text and of the arguments' JSON."""
    import polars as pl

    matcher = spec.matcher
    if matcher.regex or matcher.ignore_case or matcher.prefilter is None:
        return None
    return pl.col(column).str.contains(matcher.pattern, literal=True)


def search_index(index_dir: str, paths: list[str], spec: SearchSpec) -> Iterator[FileHits]:
    """The hits of the indexed sessions (only those named by `paths`, when given), per file in the index's order,
    as the search of the files finds them for the Pi version `spec.pi` (resolved here).

    An index that cannot be searched raises IndexError_ here, before any result is asked for (an index without
    the tables of the version's system messages too: it was written for another version)."""
    if not os.path.isdir(index_dir):
        raise IndexError_(f"--index {index_dir}: no such folder")
    version = resolve(spec.pi)
    messages = _table(index_dir, "messages", MESSAGE_COLUMNS)
    calls = _table(index_dir, "tool_calls", CALL_COLUMNS)
    system = None
    roles = version.context.vocabulary.roles
    if roles:  # system messages, searched by their sections and tools too
        system = _System(roles, _table(index_dir, "system_sections", SECTION_COLUMNS, version.name),
                         _table(index_dir, "system_tools", TOOL_COLUMNS, version.name))
    try:  # every indexed file, those without messages too (their order is the index's)
        files = _table(index_dir, "sessions", ("file",))
    except IndexError_:
        files = messages.select("file")
    return _search(files, messages, calls, paths, spec, system, version.name)


class _System:
    """The roles whose messages a version searches by their prompt (`system_texts`), and the tables of it."""

    def __init__(self, roles: frozenset[str], sections: Any, tools: Any) -> None:
        self.roles, self.sections, self.tools = roles, sections, tools


def _search(files: Any, messages: Any, calls: Any, paths: list[str], spec: SearchSpec,
            system: _System | None = None, pi: str | None = None) -> Iterator[FileHits]:
    import polars as pl

    if paths:
        names = [name for name, error in expand(paths) if error is None]
        wanted = [*names, *map(os.path.abspath, names)]
        files = files.filter(pl.col("file").is_in(wanted))
        messages = messages.filter(pl.col("file").is_in(wanted))
        calls = calls.filter(pl.col("file").is_in(wanted))
        if system is not None:
            system.sections = system.sections.filter(pl.col("file").is_in(wanted))
            system.tools = system.tools.filter(pl.col("file").is_in(wanted))
    order = files.unique(maintain_order=True).collect()["file"].to_list()
    if paths:
        rank = {name: position for position, name in enumerate(names)}
        order.sort(key=lambda name: rank.get(name, rank.get(os.path.relpath(name), len(rank))))
    if spec.branch == "active":
        messages = messages.filter(pl.col("onActivePath"))
        calls = calls.filter(pl.col("onActivePath"))
    roles = messages.select("file", "line", "role")
    calls = calls.join(roles, on=["file", "line"], how="left")
    sections = tools = None
    if system is not None and spec.tool is None:  # (with --tool, the file search looks at no system message)
        prompt_roles = sorted(system.roles)
        sections, tools = (
            table.join(roles, on=["file", "line"], how="inner").filter(pl.col("role").is_in(prompt_roles))
            for table in (system.sections, system.tools))
        if spec.branch == "active":
            sections, tools = sections.filter(pl.col("onActivePath")), tools.filter(pl.col("onActivePath"))
        if spec.roles is not None:
            sections = sections.filter(pl.col("role").is_in(sorted(spec.roles)))
            tools = tools.filter(pl.col("role").is_in(sorted(spec.roles)))
    if spec.roles is not None:
        wanted_roles = sorted(spec.roles)
        messages = messages.filter(pl.col("role").is_in(wanted_roles))
        calls = calls.filter(pl.col("role").is_in(wanted_roles))
    if spec.tool is not None:
        messages = messages.filter((pl.col("role") == "toolResult") & pl.col("toolNames").list.contains(spec.tool))
        calls = calls.filter(pl.col("name") == spec.tool)
    text_filter = _literal_filter(spec, "text")
    if text_filter is not None:
        messages = messages.filter(text_filter.fill_null(False) | _literal_filter(spec, "thinking").fill_null(False))
        calls = calls.filter(_literal_filter(spec, "arguments"))
        if sections is not None and tools is not None:
            sections = sections.filter(text_filter.fill_null(False))
            tools = tools.filter(_literal_filter(spec, "name").fill_null(False)
                                 | _literal_filter(spec, "description").fill_null(False))
    found: dict[tuple[str, int], dict[str, Any]] = {}  # (file, line) -> its hit: one per entry
    find = spec.matcher.find
    for row in messages.collect().iter_rows(named=True):
        texts = [row["text"]]
        if spec.tool is None and row["role"] == "assistant":
            texts.append(row["thinking"])
        for text in texts:
            span = find(text) if text else None
            if span is not None:
                found[(row["file"], row["line"])] = hit_document(
                    row["file"], row["line"], row["entryId"], row["role"], bool(row["onActivePath"]),
                    hit_text(text, *span), pi)
                break
    if sections is not None and tools is not None:
        # A system message's sections come after its text, then the tools it adds, then those it removes.
        change_rank = pl.col("change").replace_strict(list(_CHANGES), [1, 2], default=3, return_dtype=pl.Int64)
        prompt = [sections.select("file", "line", "entryId", pl.lit(0, dtype=pl.Int64).alias("change"), "position",
                                  "text", pl.lit(None, dtype=pl.String).alias("description"), "role",
                                  "onActivePath"),
                  tools.select("file", "line", "entryId", change_rank.alias("change"), "position", pl.col("name").alias("text"),
                               "description", "role", "onActivePath")]
        rows = pl.concat(prompt).sort("file", "line", "change", "position").collect()
        for row in rows.iter_rows(named=True):
            key = (row["file"], row["line"])
            if key in found:
                continue
            for text in (row["text"], row["description"]):
                span = find(text) if text else None
                if span is not None:
                    found[key] = hit_document(row["file"], row["line"], row["entryId"], row["role"],
                                              bool(row["onActivePath"]), hit_text(text, *span), pi)
                    break
    for row in calls.collect().iter_rows(named=True):
        key = (row["file"], row["line"])
        if key in found:
            continue  # the message text came first, or an earlier call of the same message matched
        try:
            arguments = orjson.loads(row["arguments"]) if row["arguments"] is not None else None
        except orjson.JSONDecodeError:
            arguments = row["arguments"]
        text = arguments_text(arguments)
        span = find(text) if text else None
        if span is not None:
            found[key] = hit_document(row["file"], row["line"], row["entryId"], row["role"],
                                      bool(row["onActivePath"]), hit_text(text, *span), pi)
    by_file: dict[str, list[dict[str, Any]]] = {name: [] for name in order}
    for (name, _), hit in found.items():
        by_file.setdefault(name, []).append(hit)
    for name, hits in by_file.items():
        hits.sort(key=lambda hit: hit["line"])
        yield FileHits(name, hits)
