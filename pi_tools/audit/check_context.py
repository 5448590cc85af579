"""Checks that need the tree's references or the context Pi rebuilds for the session's leaf.

Compaction and branch-summary references are checked on every entry of the file. The context checks
(`context-error`, `pi-cannot-load`, `foreign-signature`) concern what `pi --session FILE` does on resume: it
opens the leaf (the last entry in file order) and replays that context to the session's current model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pi_tools.audit.check_blocks import never_replayed
from pi_tools.audit.findings import FindingSink
from pi_tools.js.values import js_truthy
from pi_tools.session.context import PI_085_RULES, ContextError, ContextRules, build_session_context
from pi_tools.session.tree import SessionTree


def _is_ancestor(tree: SessionTree, entry: dict[str, Any], target: str) -> bool:
    """Whether `target` names an entry above `entry` on its path (stops at the first match; cycle-safe)."""
    seen: set[int] = {id(entry)}
    parent = entry.get("parentId")
    while js_truthy(parent) and isinstance(parent, str):
        current = tree.by_id.get(parent)
        if not isinstance(current, dict) or id(current) in seen:
            return False
        if current.get("id") == target:
            return True
        seen.add(id(current))
        parent = current.get("parentId")
    return False


is_ancestor = _is_ancestor


def check_references(sink: FindingSink, tree: SessionTree, rules: ContextRules = PI_085_RULES) -> None:
    """compaction.firstKeptEntryId and branch_summary.fromId must name entries (the former an ancestor)."""
    if rules.own_id_keeps_nothing and sink.wants("compaction-keeps-nothing"):
        for entry, line in zip(tree.entries, tree.line_numbers, strict=False):
            if isinstance(entry, dict) and entry.get("type") == "compaction" and \
                    type(entry.get("id")) is str and entry.get("firstKeptEntryId") == entry.get("id"):
                keeps_nothing_finding(sink, entry["id"], line)
    want_compaction = sink.wants("compaction-first-kept")
    want_branch = sink.wants("branch-summary-from")
    for entry, line in zip(tree.entries, tree.line_numbers, strict=False):
        if not isinstance(entry, dict):
            continue
        entry_type = entry.get("type")
        entry_id = entry.get("id")
        if entry_type == "compaction" and want_compaction:
            first_kept = entry.get("firstKeptEntryId")
            if not isinstance(first_kept, str):
                continue  # missing or mistyped: required-fields (reader)
            if _is_ancestor(tree, entry, first_kept) or (rules.own_id_keeps_nothing and first_kept == entry_id):
                continue
            named = tree.by_id[first_kept] if first_kept in tree.by_id else None
            first_kept_finding(sink, entry_id, line, first_kept, None if named is None else tree.line_of(named),
                               named is not None)
        elif entry_type == "branch_summary" and want_branch:
            from_id = entry.get("fromId")
            if isinstance(from_id, str) and from_id != "root" and from_id not in tree.by_id:
                branch_summary_finding(sink, entry_id, line, from_id)


def first_kept_finding(sink: FindingSink, entry_id: Any, line: int | None, first_kept: str,
                       named_line: int | None, names_entry: bool) -> None:
    """A compaction whose firstKeptEntryId is not one of its ancestors (`names_entry`: some entry has that id)."""
    if first_kept == entry_id:
        where = "names the compaction itself"
    elif names_entry:
        where = f"names entry {first_kept} (line {named_line}), which is not an ancestor of this compaction"
    else:
        where = f"{first_kept} names no entry"
    sink.add("compaction-first-kept", entry_id, line,
             f"compaction firstKeptEntryId {where}; Pi keeps nothing from before the compaction")


def keeps_nothing_finding(sink: FindingSink, entry_id: Any, line: int | None) -> None:
    """A compaction whose firstKeptEntryId is its own id, the form Pi writes to keep nothing."""
    sink.add("compaction-keeps-nothing", entry_id, line,
             "compaction firstKeptEntryId is its own id: Pi keeps nothing from before the compaction, whose summary "
             "alone replaces the history")


def branch_summary_finding(sink: FindingSink, entry_id: Any, line: int | None, from_id: str) -> None:
    sink.add("branch-summary-from", entry_id, line, f"branch summary fromId {from_id} names no entry (nor 'root')")


def check_context(sink: FindingSink, tree: SessionTree, rules: ContextRules = PI_085_RULES) -> None:
    """Build the leaf's context as Pi does on resume (by the Pi version's `rules`) and report what fails or gets
    lost there."""
    try:
        context = build_session_context(tree, rules=rules)
    except ContextError as exc:
        edit = _failing_edit(tree, rules) if "reading 'content'" in str(exc) else None
        if edit is not None:
            entry, target = edit
            sink.add("context-error", entry.get("id"), tree.line_of(entry),
                     f"Pi cannot build the context for the leaf: {exc} (context edit of {target} has no "
                     "'replacement')")
            return
        line, entry_id = _failing_entry(tree, str(exc))
        sink.add("context-error", entry_id, line, f"Pi cannot build the context for the leaf: {exc}")
        return
    for diag in context.diagnostics:
        if diag.get("code") == "pi-cannot-load":
            sink.add("pi-cannot-load", diag.get("entryId"), diag.get("line"), str(diag.get("message")))
    if sink.wants("foreign-signature") and context.model:
        _check_signatures(sink, tree, context.messages, context.model)


def _failing_edit(tree: SessionTree, rules: ContextRules) -> tuple[dict[str, Any], str] | None:
    """The context edit without a `replacement` Pi throws on (its target gives a message of an editable role), and
    the target as a finding names it."""
    from pi_tools.audit.check_edits import EDITABLE_ROLES, latest_edits, what

    context = rules.context_entries(tree.path(tree.leaf_id))
    edits = latest_edits(context)
    for index, entry in enumerate(context):
        entry_id = entry.get("id") if isinstance(entry, dict) else None
        edit = edits.get(entry_id) if type(entry_id) is str else None
        if edit is None or "replacement" in edit or (index > 0 and entry.get("type") == "compaction"):
            continue
        if any(isinstance(m, dict) and m.get("role") in EDITABLE_ROLES for m in rules.entry_messages(entry)):
            return edit, f"{what(entry)} {entry_id} (line {tree.line_of(entry)})"
    return None


def _failing_entry(tree: SessionTree, error: str) -> tuple[int | None, Any]:
    """Where a context error shows: the message entry without a message, else the leaf Pi starts from."""
    if "reading 'role'" not in error:
        leaf = tree.by_id.get(tree.leaf_id) if isinstance(tree.leaf_id, str) else None
        if leaf is None and tree.entries:
            leaf = tree.entries[-1]
        return (tree.line_of(leaf), leaf.get("id")) if isinstance(leaf, dict) else (None, None)
    try:
        path = tree.path(tree.leaf_id)
    except Exception:  # noqa: BLE001 - a second failure only loses the line number
        return None, None
    for entry in path:
        if isinstance(entry, dict) and entry.get("type") == "message" and entry.get("message") is None:
            return tree.line_of(entry), entry.get("id")
    return None, None


def signatures(message: dict[str, Any]) -> Counter[str]:
    """The signature fields (and redacted thinking) a message's blocks carry, counted by kind."""
    found: Counter[str] = Counter()
    content = message.get("content")
    if not isinstance(content, list):
        return found
    for block in content:
        if not isinstance(block, dict):
            continue
        for name in SIGNATURE_FIELDS:
            if js_truthy(block.get(name)):
                found[name] += 1
        if block.get("type") == "thinking" and js_truthy(block.get("redacted")):
            found["redacted thinking"] += 1
    return found


SIGNATURE_FIELDS = ("thinkingSignature", "textSignature", "thoughtSignature")


def _check_signatures(sink: FindingSink, tree: SessionTree, messages: list[Any], model: dict[str, Any]) -> None:
    current = (model.get("provider"), model.get("modelId"))
    entry_of = {
        id(entry["message"]): entry for entry in tree.entries
        if isinstance(entry, dict) and entry.get("type") == "message" and isinstance(entry.get("message"), dict)
    }
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        if never_replayed(message.get("stopReason")) or (message.get("provider"), message.get("model")) == current:
            continue
        found = signatures(message)
        if not found:
            continue
        entry = entry_of.get(id(message))
        foreign_signature_finding(sink, entry.get("id") if entry else None, tree.line_of(entry) if entry else None,
                                  (message.get("provider"), message.get("model")), found, current)


def foreign_signature_finding(sink: FindingSink, entry_id: Any, line: int | None, origin: tuple[Any, Any],
                              found: Mapping[str, int], current: tuple[Any, Any]) -> None:
    """An assistant message from `origin` (provider, model) whose signatures `current` will not get."""
    parts = ", ".join(f"{name} x{count}" for name, count in sorted(found.items()))
    sink.add("foreign-signature", entry_id, line,
             f"assistant message from {origin[0]}/{origin[1]} carries signatures ({parts}) that are dropped when "
             f"the session continues with {current[0]}/{current[1]}")
