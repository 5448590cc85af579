"""The entry tree Pi builds when it opens a session: id index, leaf, labels, name, and path walks.

Mirrors SessionManager._buildIndex and buildSessionPath, including their quirks (a junk value as the last
line leaves the leaf undefined; duplicate ids let the later entry win; a dangling parent silently ends a path).
Where Pi would loop until it crashes (a parent cycle) pi-tools stops at once with an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_tools.js.json_line import loads_line_lenient
from pi_tools.js.values import UNDEFINED, js_double, js_truthy
from pi_tools.messages.roles import default_registry
from pi_tools.session.diagnostics import Diagnostic, describe_value, diagnostic
from pi_tools.session.heads import SPAN
from pi_tools.session.line_format import ENTRY_TYPES
from pi_tools.session.migrations import JsArrayEntry

_NUMBER = (int, float)
_TEXT_OR_BLOCKS = (str, list)
# Fields Pi reads from each entry type / message role, with the JSON types it expects. A missing or mistyped
# field is reported (Pi reads it anyway and may produce "undefined" text or wrong settings).
ENTRY_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "thinking_level_change": {"thinkingLevel": (str,)},
    "model_change": {"provider": (str,), "modelId": (str,)},
    "compaction": {"summary": (str,), "firstKeptEntryId": (str,), "tokensBefore": _NUMBER},
    "branch_summary": {"fromId": (str,), "summary": (str,)},
    "custom": {"customType": (str,)},
    "custom_message": {"customType": (str,), "content": _TEXT_OR_BLOCKS, "display": (bool,)},
    "label": {"targetId": (str,)},
}
MESSAGE_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "user": {"content": _TEXT_OR_BLOCKS, "timestamp": _NUMBER},
    "assistant": {"content": (list,), "api": (str,), "provider": (str,), "model": (str,), "stopReason": (str,),
                  "timestamp": _NUMBER},
    "toolResult": {"toolCallId": (str,), "toolName": (str,), "content": (list,), "isError": (bool,),
                   "timestamp": _NUMBER},
    "bashExecution": {"command": (str,), "output": (str,), "timestamp": _NUMBER},
    "custom": {"customType": (str,), "content": _TEXT_OR_BLOCKS, "timestamp": _NUMBER},
}


@dataclass(frozen=True)
class Vocabulary:
    """The entry types and message roles a Pi version knows: an entry or role outside them is diagnosed as
    unknown (`unknown-entry-type`, `unknown-role`). Roles the role registry holds are known to every version;
    `roles` adds the message roles a version knows beside them. This default is Pi 0.85's; each version's rules
    (session/context.py, session/projection.py) name theirs."""

    entry_types: frozenset[str] = ENTRY_TYPES
    roles: frozenset[str] = frozenset()
    entry_fields: Mapping[str, dict[str, tuple[type, ...]]] = field(default_factory=lambda: ENTRY_FIELDS)
    """The fields checked per entry type (missing-field, bad-field), beside ENTRY_FIELDS'."""
    message_fields: Mapping[str, dict[str, tuple[type, ...]]] = field(default_factory=lambda: MESSAGE_FIELDS)
    """The fields checked per message role (MESSAGE_FIELDS', and those of the roles the version adds)."""


PI_085_VOCABULARY = Vocabulary()

_PI_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})")


class PathCycleError(Exception):
    """The walk from a leaf to the root meets an entry twice (Pi grows its array until it crashes)."""


@dataclass
class SessionTree:
    """A loaded session: header, entries in file order (Pi's getEntries()), and the index over them."""

    source: str
    header: dict[str, Any] | None
    entries: list[Any]
    line_numbers: list[int]
    by_id: dict[Any, Any]
    leaf_id: Any  # None = null (no entries), UNDEFINED = last entry has no id, else the id
    labels: dict[Any, Any]
    name: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    migrated_from: Any = None
    data: bytes | None = None  # the file's bytes when loaded lazily (heads point into it)
    _line_by_identity: dict[int, int] | None = None

    def materialize(self, entry: Any) -> Any:
        """The full entry for a head from lazy loading (parsed now); a migrated array line as its array (what
        JSON.stringify writes of it); any other entry as it is."""
        if self.data is not None and type(entry) is dict:
            span = entry.get(SPAN)
            if span is not None:
                return loads_line_lenient(memoryview(self.data)[span[0]:span[1]])
        if type(entry) is JsArrayEntry:
            return entry.array
        return entry

    def line_of(self, entry: Any) -> int | None:
        """File line number of an entry object (identity lookup; built on first use)."""
        if self._line_by_identity is None:
            self._line_by_identity = {id(e): n for e, n in zip(self.entries, self.line_numbers, strict=False)}
        return self._line_by_identity.get(id(entry))

    def _raise_cycle(self, leaf: Any) -> None:
        """The walk from `leaf` is longer than the session: find the repeated entry and explain."""
        seen: set[int] = set()
        current = leaf
        while id(current) not in seen:
            seen.add(id(current))
            parent = current.get("parentId") if isinstance(current, dict) else None
            current = self.by_id.get(id_key(parent)) if js_truthy(parent) else None
        entry_id = current.get("id") if isinstance(current, dict) else None
        raise PathCycleError(
            f"parentId cycle through entry {entry_id} (line {self.line_of(current)}) on the path to the "
            "leaf; Pi 0.85 fails here too (it loops until 'Invalid array length')"
        )

    def leaves(self) -> list[str]:
        """Ids of entries that no entry names as parent, in file order (string ids only)."""
        parents = {e["parentId"] for e in self.entries if isinstance(e, dict) and type(e.get("parentId")) is str}
        return [
            e["id"] for e in self.entries
            if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"] not in parents
        ]

    def children(self) -> dict[Any, list[Any]]:
        """parent id -> child entries (file order); roots under the key None, as Pi's getTree treats them."""
        result: dict[Any, list[Any]] = {}
        for entry in self.entries:
            if not isinstance(entry, dict):
                continue
            parent = entry.get("parentId")
            if parent is None or not _hashable(parent) or parent is entry.get("id") or id_key(parent) not in self.by_id \
                    or (type(parent) is str and parent == entry.get("id")):
                parent = None
            result.setdefault(parent, []).append(entry)
        return result

    def children_by_entry(self) -> dict[int | None, list[Any]]:
        """id(parent entry) -> children, resolving parents as Pi's index does (with duplicate ids the later
        entry is the parent); roots under None."""
        result: dict[int | None, list[Any]] = {}
        for entry in self.entries:
            if not isinstance(entry, dict):
                continue
            parent_id = entry.get("parentId")
            parent = self.by_id.get(id_key(parent_id)) if parent_id is not None else None
            key = id(parent) if parent is not None and parent is not entry else None
            result.setdefault(key, []).append(entry)
        return result

    def path(self, leaf_id: Any = UNDEFINED) -> list[Any]:
        """Root-to-leaf entries (buildSessionPath); a parent cycle raises PathCycleError instead of hanging."""
        if leaf_id is None:
            return []
        leaf = self.by_id.get(id_key(leaf_id)) if js_truthy(leaf_id) else None
        if leaf is None:
            if not self.entries:
                return []
            leaf = self.entries[-1]
        walked: list[Any] = []
        append = walked.append
        lookup = self.by_id.get
        limit = len(self.entries)
        current: Any = leaf
        while current is not None:
            append(current)
            if len(walked) > limit:
                self._raise_cycle(leaf)
            if type(current) is not dict and type(current) is not JsArrayEntry:
                break
            parent = current.get("parentId")
            if type(parent) is str:
                current = lookup(parent) if parent else None
            else:
                current = lookup(id_key(parent)) if js_truthy(parent) else None
        walked.reverse()
        return walked


def _hashable(value: Any) -> bool:
    return not isinstance(value, (dict, list))


_TRUE_KEY, _FALSE_KEY = ("boolean", True), ("boolean", False)


def id_key(value: Any) -> Any:
    """An entry id as a key of `SessionTree.by_id`, with the identity Pi's `Map` gives it (SameValueZero):
    `true` is not `1`, as Python's `True == 1` would have it, integers past 2**53 are doubles, and an object
    or array is only itself (its entry's own id finds it, no parentId ever does). Strings, the ids of every
    real session, are themselves."""
    if type(value) is str:
        return value
    if value is True:
        return _TRUE_KEY
    if value is False:
        return _FALSE_KEY
    if isinstance(value, (dict, list)):
        return ("object", id(value))
    if type(value) is int:
        return js_double(value)  # V8 parsed it to a double: 2**53 + 1 is the same key as 2**53
    return value


def build_tree(source: str, file_entries: list[Any], line_numbers: list[int],
               diagnostics: list[Diagnostic], vocabulary: Vocabulary = PI_085_VOCABULARY) -> SessionTree:
    """Index the (already migrated) file entries the way Pi's _buildIndex does, noting structural damage."""
    header = file_entries[0] if file_entries and isinstance(file_entries[0], dict) else None
    entries: list[Any] = []
    lines: list[int] = []
    by_id: dict[Any, Any] = {}
    labels: dict[Any, Any] = {}
    name: str | None = None
    leaf_id: Any = None
    index_of: dict[Any, int] = {}  # id -> position in `entries` of the entry Pi's index keeps (the last)
    timestamp_match = _PI_TIMESTAMP.fullmatch
    append_entry = entries.append
    append_line = lines.append
    for position, entry in enumerate(file_entries):
        line = line_numbers[position]
        if position == 0 and entry is header:
            continue
        if not isinstance(entry, dict):
            entries.append(entry)
            lines.append(line)
            leaf_id = UNDEFINED
            continue
        entry_type = entry.get("type")
        if entry_type == "session":
            diagnostics.append(diagnostic(
                "extra-header", "a second session header line; Pi keeps it in the file but not in the tree", line))
            continue
        entry_id = entry.get("id", UNDEFINED)
        key = id_key(entry_id)
        if key in by_id and entry_id is not UNDEFINED:
            diagnostics.append(diagnostic(
                "duplicate-id", f"id {entry_id} is used again; the later entry wins in Pi's index",
                line, "error", entry_id if _hashable(entry_id) else None))
        index_of[key] = len(entries)
        by_id[key] = entry
        append_entry(entry)
        append_line(line)
        leaf_id = entry_id
        if SPAN in entry or type(entry) is JsArrayEntry:
            continue  # a message head, validated while decoding, or an array line (its own finding)
        check_entry(entry, entry_type, entry_id, line, diagnostics, timestamp_match, vocabulary=vocabulary)
        if entry_type == "label":
            target = entry.get("targetId")
            if js_truthy(entry.get("label")):
                labels[id_key(target)] = entry.get("label")
            else:
                labels.pop(id_key(target), None)
        elif entry_type == "session_info":
            raw_name = entry.get("name")
            name = raw_name.strip() or None if isinstance(raw_name, str) else None
    tree = SessionTree(source, header, entries, lines, by_id, leaf_id, labels, name, diagnostics)
    _check_parents(tree, index_of)
    return tree


def check_entry(entry: dict[str, Any], entry_type: Any, entry_id: Any, line: int,
                diagnostics: list[Diagnostic], timestamp_match: Any = _PI_TIMESTAMP.fullmatch,
                known_roles: Any = None, vocabulary: Vocabulary = PI_085_VOCABULARY) -> None:
    """Cheap per-entry checks whose failures change or threaten what Pi builds.

    The role registry is looked up only for a role outside Pi's own: building it reads every installed
    package's entry points (importing importlib.metadata, about 30 ms), which a session of Pi's roles never needs.
    """
    if type(entry_type) is not str or entry_type not in vocabulary.entry_types:
        diagnostics.append(diagnostic(
            "unknown-entry-type", f"unknown entry type {_shown(entry_type)}; Pi keeps it in the tree but ignores it",
            line, "warning", _id_or_none(entry_id)))
    if not isinstance(entry_id, str):
        diagnostics.append(diagnostic(
            "bad-id", f"entry id is {describe_value(entry_id)}, not a string", line, "error", None))
    parent = entry.get("parentId", UNDEFINED)
    if parent is not None and not isinstance(parent, str):
        diagnostics.append(diagnostic(
            "bad-parent-id", f"parentId is {describe_value(parent)}, not a string or null", line, "error",
            _id_or_none(entry_id)))
    stamp = entry.get("timestamp", UNDEFINED)
    if not (isinstance(stamp, str) and timestamp_match(stamp) and _plausible_date(stamp)):
        problem = _timestamp_problem(stamp)
        if problem:
            diagnostics.append(diagnostic("bad-timestamp", problem, line, "warning", _id_or_none(entry_id)))
    if entry_type == "message":
        message = entry.get("message", UNDEFINED)
        if not isinstance(message, dict):
            diagnostics.append(diagnostic(
                "bad-message", f"message entry holds {describe_value(message)} instead of a message object",
                line, "error", _id_or_none(entry_id)))
            return
        role = message.get("role")
        fields = vocabulary.message_fields.get(role) if isinstance(role, str) else None
        if fields is None:
            if not (type(role) is str and role in vocabulary.roles) and role not in (known_roles or default_registry()):
                diagnostics.append(diagnostic(
                    "unknown-role", f"unknown message role {_shown(role)}; Pi's convertToLlm drops it",
                    line, "warning", _id_or_none(entry_id)))
            return
        _check_fields(message, fields, f"{role} message", line, entry_id, diagnostics)
    elif type(entry_type) is str and entry_type in vocabulary.entry_fields:
        _check_fields(entry, vocabulary.entry_fields[entry_type], f"{entry_type} entry", line, entry_id, diagnostics)


def _shown(value: Any) -> str:
    """A type or role for a message: a string quoted, anything else described (never a whole nested value)."""
    return repr(value) if type(value) is str else describe_value(value)


def _plausible_date(stamp: str) -> bool:
    """Field ranges of an ISO timestamp that already has the right shape (2025-13-45 has it, but is no date)."""
    return "01" <= stamp[5:7] <= "12" and "01" <= stamp[8:10] <= "31" and stamp[11:13] <= "24" \
        and stamp[14:16] <= "59" and stamp[17:19] <= "59"


def _timestamp_problem(stamp: Any) -> str | None:
    """Why an entry timestamp is suspect, or None; derived messages get `new Date(timestamp)` from it."""
    from pi_tools.js.date import js_date_ms

    if stamp is UNDEFINED:
        return "entry has no timestamp; messages derived from it get a null timestamp"
    if js_date_ms(stamp) is None:
        return f"entry timestamp {describe_value(stamp)} cannot be parsed; messages derived from it get a null timestamp"
    if isinstance(stamp, str):
        return f"entry timestamp {stamp!r} is not ISO-8601; JavaScript still parses it (with its own rules)"
    return f"entry timestamp is {describe_value(stamp)}, not an ISO-8601 string"


def _check_fields(obj: dict[str, Any], fields: dict[str, tuple[type, ...]], what: str, line: int,
                  entry_id: Any, diagnostics: list[Diagnostic]) -> None:
    for name, types in fields.items():
        value = obj.get(name, UNDEFINED)
        if value is UNDEFINED:
            diagnostics.append(diagnostic(
                "missing-field", f"{what} has no {name!r}", line, "warning", _id_or_none(entry_id)))
        elif not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            diagnostics.append(diagnostic(
                "bad-field", f"{what}: {name!r} is {describe_value(value)}", line, "warning", _id_or_none(entry_id)))


def _check_parents(tree: SessionTree, index_of: dict[Any, int]) -> None:
    """Dangling parents, self-parents and cycles, in one pass without recursion.

    Pi appends children after their parents, so a parent that stands earlier in the file cannot close a cycle;
    only the rare entries whose parent is later in the file (or themselves) need the chain walk.
    """
    by_id = tree.by_id
    suspects: list[Any] = []
    lookup = index_of.get
    for index, entry in enumerate(tree.entries):
        if type(entry) is not dict:
            continue
        parent = entry.get("parentId")
        if not js_truthy(parent):
            continue
        target_index = lookup(id_key(parent))
        if target_index is None:
            tree.diagnostics.append(diagnostic(
                "dangling-parent", f"parentId {parent if type(parent) is str else describe_value(parent)} names no "
                "entry; Pi's path stops here",
                tree.line_numbers[index], "warning", _id_or_none(entry.get("id"))))
        elif target_index >= index:
            suspects.append(entry)
    reported: set[int] = set()
    for start in suspects:
        seen: set[int] = set()
        current: Any = start
        while isinstance(current, dict) and id(current) not in seen:
            seen.add(id(current))
            parent = current.get("parentId")
            current = by_id.get(id_key(parent)) if js_truthy(parent) else None
        if isinstance(current, dict) and id(current) not in reported:
            # `current` is on a cycle; report it once, as a self-parent or as a cycle.
            cycle_ids = {id(current)}
            node = by_id.get(id_key(current.get("parentId")))
            while isinstance(node, dict) and id(node) not in cycle_ids:
                cycle_ids.add(id(node))
                node = by_id.get(id_key(node.get("parentId")))
            if cycle_ids & reported:
                continue
            reported |= cycle_ids
            entry_id = _id_or_none(current.get("id"))
            self_parent = current.get("parentId") == current.get("id")
            kind = "self-parent" if self_parent else "parent-cycle"
            what = "is its own parent" if self_parent else "is its own ancestor (parentId cycle)"
            tree.diagnostics.append(diagnostic(
                kind, f"entry {entry_id} {what}; Pi would loop forever on a path through it",
                tree.line_of(current), "error", entry_id))


def _id_or_none(value: Any) -> Any:
    return value if isinstance(value, (str, int, float)) else None
