"""The fast reading of a clean session for `--content none`: only the fields a trace without content uses.

A trace without content needs ids, parents, times, roles, models, usage and tool call ids, never the text
that makes a session large (tool output, file contents, prompts). msgspec decodes each line into a dict of the
declared fields alone and skips the rest without building it, which is most of what reading a session costs.

It takes only files whose reading is plain: every line a JSON object of the declared shapes, a current (version
3) header, and every entry with a string id of its own. Anything else (damaged lines, older formats that need
migrating, duplicate or missing ids) returns None and is read by the session loader, whose reading of such
files is Pi's (tests/trace/test_trace_fast.py checks that both give the same trace wherever this one applies).
"""

from __future__ import annotations

from typing import Any, TypedDict

import msgspec

CURRENT_VERSION = 3


class _Block(TypedDict, total=False):
    type: Any
    id: Any
    name: Any


class _Message(TypedDict, total=False):
    role: Any
    content: str | list[_Block]
    provider: Any
    model: Any
    api: Any
    responseModel: Any
    responseId: Any
    stopReason: Any
    timestamp: Any
    usage: Any
    thinkingLevel: Any
    toolCallId: Any
    isError: Any
    sections: dict[str, msgspec.Raw]


class _Entry(TypedDict, total=False):
    type: Any
    id: Any
    parentId: Any
    timestamp: Any
    version: Any
    message: _Message
    provider: Any
    modelId: Any
    model: Any
    thinkingLevel: Any
    firstKeptEntryId: Any
    tokensBefore: Any
    fromId: Any
    targetId: Any
    kind: Any
    usage: Any


_DECODER = msgspec.json.Decoder(_Entry)


class FastTree:
    """What the trace mapping reads of a SessionTree (session/tree.py), for a file read the fast way."""

    def __init__(self, source: str, header: dict[str, Any], entries: list[dict[str, Any]],
                 by_id: dict[str, dict[str, Any]]) -> None:
        self.source = source
        self.header = header
        self.entries = entries
        self.by_id = by_id
        self.leaf_id: Any = entries[-1]["id"] if entries else None

    def path(self, leaf_id: Any = None) -> list[dict[str, Any]]:
        """Root-to-leaf entries (a dangling parent ends the path, as in Pi; a cycle cannot pass `fast_tree`)."""
        walked: list[dict[str, Any]] = []
        current = self.by_id.get(leaf_id) if isinstance(leaf_id, str) else None
        lookup = self.by_id.get
        while current is not None:
            walked.append(current)
            parent = current.get("parentId")
            current = lookup(parent) if type(parent) is str and parent else None
        walked.reverse()
        return walked


def fast_tree(data: bytes, source: str) -> FastTree | None:
    """The session's FastTree, or None when the file is not plain enough for this reading (see the module)."""
    try:
        values: list[Any] = _DECODER.decode_lines(data)  # TypedDicts: plain dicts at run time
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # (a deeply nested value: the loader reads it as Pi does)
    # One value per line, as Pi reads lines (msgspec would also take two objects on one line; a blank line is
    # left to the loader too).
    if not values or len(values) != data.count(b"\n") + (not data.endswith(b"\n")):
        return None
    header = values[0]
    if header.get("type") != "session" or type(header.get("id")) is not str \
            or header.get("version") != CURRENT_VERSION:
        return None
    entries = values[1:]
    by_id: dict[str, dict[str, Any]] = {}
    for entry in entries:
        entry_id = entry.get("id")
        if type(entry_id) is not str or entry_id in by_id or entry.get("type") == "session":
            return None
        parent = entry.get("parentId")
        if parent is not None and (type(parent) is not str or (parent and parent not in by_id)):
            return None  # a parent later in the file (a possible cycle) or dangling: the loader's reading
        by_id[entry_id] = entry
    return FastTree(source, header, entries, by_id)
