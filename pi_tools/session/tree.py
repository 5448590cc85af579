"""The entry tree Pi builds when it opens a session: id index, leaf, labels, name, and path walks.

Mirrors SessionManager._buildIndex and buildSessionPath, including their quirks (a junk value as the last
line leaves the leaf undefined; duplicate ids let the later entry win; a dangling parent silently ends a path).
Where Pi would loop forever (a parent cycle) pi-tools stops and reports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pi_tools.messages.jsvalues import UNDEFINED, js_truthy
from pi_tools.session.diagnostics import Diagnostic, diagnostic

ENTRY_TYPES = frozenset({
    "message", "thinking_level_change", "model_change", "compaction", "branch_summary", "custom",
    "custom_message", "label", "session_info",
})
_PI_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})")


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
    _line_by_identity: dict[int, int] | None = None

    def line_of(self, entry: Any) -> int | None:
        """File line number of an entry object (identity lookup; built on first use)."""
        if self._line_by_identity is None:
            self._line_by_identity = {id(e): n for e, n in zip(self.entries, self.line_numbers, strict=False)}
        return self._line_by_identity.get(id(entry))

    def leaves(self) -> list[str]:
        """Ids of entries that no entry names as parent, in file order (string ids only)."""
        parents = {e.get("parentId") for e in self.entries if isinstance(e, dict) and e.get("parentId") is not None}
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
            if parent is None or parent == entry.get("id") or parent not in self.by_id:
                parent = None
            result.setdefault(parent, []).append(entry)
        return result

    def path(self, leaf_id: Any = UNDEFINED, report: list[Diagnostic] | None = None) -> list[Any]:
        """Root-to-leaf entries (buildSessionPath); a cycle stops the walk and is reported."""
        if leaf_id is None:
            return []
        leaf = self.by_id.get(leaf_id) if js_truthy(leaf_id) and _hashable(leaf_id) else None
        if leaf is None:
            if not self.entries:
                return []
            leaf = self.entries[-1]
        walked: list[Any] = []
        seen: set[int] = set()
        current: Any = leaf
        while current is not None:
            if id(current) in seen:
                if report is not None:
                    entry_id = current.get("id") if isinstance(current, dict) else None
                    report.append(diagnostic(
                        "parent-cycle",
                        f"entry {entry_id} is its own ancestor (parentId cycle); Pi would loop forever here, "
                        "pi-tools stops the path at the repeat",
                        self.line_of(current), "error", entry_id))
                break
            seen.add(id(current))
            walked.append(current)
            parent = current.get("parentId") if isinstance(current, dict) else None
            current = self.by_id.get(parent) if js_truthy(parent) and _hashable(parent) else None
        walked.reverse()
        return walked


def _hashable(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def build_tree(source: str, file_entries: list[Any], line_numbers: list[int],
               diagnostics: list[Diagnostic]) -> SessionTree:
    """Index the (already migrated) file entries the way Pi's _buildIndex does, noting structural damage."""
    header = file_entries[0] if file_entries and isinstance(file_entries[0], dict) else None
    entries: list[Any] = []
    lines: list[int] = []
    by_id: dict[Any, Any] = {}
    labels: dict[Any, Any] = {}
    name: str | None = None
    leaf_id: Any = None
    seen_ids: set[Any] = set()
    timestamp_match = _PI_TIMESTAMP.fullmatch
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
        entries.append(entry)
        lines.append(line)
        entry_id = entry.get("id", UNDEFINED)
        if _hashable(entry_id):
            if entry_id in seen_ids and entry_id is not UNDEFINED:
                diagnostics.append(diagnostic(
                    "duplicate-id", f"id {entry_id} is used again; the later entry wins in Pi's index",
                    line, "error", entry_id))
            seen_ids.add(entry_id)
            by_id[entry_id] = entry
        leaf_id = entry_id
        _check_entry(entry, entry_type, entry_id, line, diagnostics, timestamp_match)
        if entry_type == "label":
            target = entry.get("targetId")
            if _hashable(target):
                if js_truthy(entry.get("label")):
                    labels[target] = entry.get("label")
                else:
                    labels.pop(target, None)
        elif entry_type == "session_info":
            raw_name = entry.get("name")
            name = raw_name.strip() or None if isinstance(raw_name, str) else None
    tree = SessionTree(source, header, entries, lines, by_id, leaf_id, labels, name, diagnostics)
    _check_parents(tree)
    return tree


def _check_entry(entry: dict[str, Any], entry_type: Any, entry_id: Any, line: int,
                 diagnostics: list[Diagnostic], timestamp_match: Any) -> None:
    """Cheap per-entry checks whose failures change or threaten what Pi builds."""
    if entry_type not in ENTRY_TYPES:
        diagnostics.append(diagnostic(
            "unknown-entry-type", f"unknown entry type {entry_type!r}; Pi keeps it in the tree but ignores it",
            line, "warning", _id_or_none(entry_id)))
    if not isinstance(entry_id, str):
        diagnostics.append(diagnostic(
            "bad-id", f"entry id is {_describe(entry_id)}, not a string", line, "error", None))
    parent = entry.get("parentId", UNDEFINED)
    if parent is not None and not isinstance(parent, str):
        diagnostics.append(diagnostic(
            "bad-parent-id", f"parentId is {_describe(parent)}, not a string or null", line, "error",
            _id_or_none(entry_id)))
    stamp = entry.get("timestamp")
    if not (isinstance(stamp, str) and timestamp_match(stamp)):
        diagnostics.append(diagnostic(
            "bad-timestamp", f"entry timestamp {_describe(stamp)} is not an ISO-8601 date-time",
            line, "warning", _id_or_none(entry_id)))
    if entry_type == "message":
        message = entry.get("message", UNDEFINED)
        if not isinstance(message, dict):
            diagnostics.append(diagnostic(
                "bad-message", f"message entry holds {_describe(message)} instead of a message object",
                line, "error", _id_or_none(entry_id)))


def _check_parents(tree: SessionTree) -> None:
    """Dangling parents, self-parents and cycles, found without recursion in one pass over the entries."""
    state: dict[int, int] = {}  # id(entry) -> 1 visiting, 2 done
    by_id = tree.by_id
    for start in tree.entries:
        if not isinstance(start, dict) or id(start) in state:
            continue
        chain: list[Any] = []
        current: Any = start
        while isinstance(current, dict) and id(current) not in state:
            state[id(current)] = 1
            chain.append(current)
            parent = current.get("parentId")
            if not js_truthy(parent) or not _hashable(parent):
                current = None
                break
            nxt = by_id.get(parent)
            if nxt is None:
                tree.diagnostics.append(diagnostic(
                    "dangling-parent", f"parentId {parent} names no entry; Pi's path stops here",
                    tree.line_of(current), "warning", _id_or_none(current.get("id"))))
            current = nxt
        if isinstance(current, dict) and state.get(id(current)) == 1:
            entry_id = _id_or_none(current.get("id"))
            kind = "self-parent" if current.get("parentId") == current.get("id") else "parent-cycle"
            what = "is its own parent" if kind == "self-parent" else "is its own ancestor (parentId cycle)"
            tree.diagnostics.append(diagnostic(
                kind, f"entry {entry_id} {what}; Pi would loop forever on a path through it",
                tree.line_of(current), "error", entry_id))
        for node in chain:
            state[id(node)] = 2


def _id_or_none(value: Any) -> Any:
    return value if isinstance(value, (str, int, float)) else None


def _describe(value: Any) -> str:
    if value is UNDEFINED:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return f"a {'list' if isinstance(value, list) else 'object'}"
