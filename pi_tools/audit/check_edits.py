"""Context edits (`context_edit` entries) of a Pi version whose context rules apply them (ContextRules.context_edits).

An edit replaces the content of its target's messages or (`replacement: null`) omits them, but only where Pi's
projection lets it: the target must give a message of an editable role, target and edit must stand on one path,
and the edit must be among the compaction-aware entries Pi builds the context from. Everything else does nothing,
silently; `context-edit-no-effect` says which and why. Which entries an edit omits also decides the tool pairing
Pi sends (`omitted_on_paths`, used by check_tools).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pi_tools.audit.check_context import is_ancestor
from pi_tools.audit.findings import FindingSink
from pi_tools.js.values import UNDEFINED
from pi_tools.session.context import ContextRules
from pi_tools.session.diagnostics import describe_value
from pi_tools.session.tree import PathCycleError, SessionTree

EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")


def _is_edit(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") == "context_edit"


def has_edits(tree: SessionTree) -> bool:
    return any(_is_edit(entry) for entry in tree.entries)


def latest_edits(entries: list[Any]) -> dict[str, dict[str, Any]]:
    """The latest edit of each (string) target id among `entries`, as buildSessionProjection fills its map."""
    edits: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if _is_edit(entry) and type(entry.get("targetId")) is str:
            edits[entry["targetId"]] = entry
    return edits


def what(entry: Any) -> str:
    """An entry as a finding names it: its message role or its entry type."""
    if not isinstance(entry, dict):
        return "a line that is no entry"
    if entry.get("type") == "message":
        message = entry.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        return f"{role} message" if type(role) is str else "message entry"
    return f"{entry.get('type')} entry" if type(entry.get("type")) is str else "entry"


def _editable(rules: ContextRules, entry: Any) -> bool:
    return any(isinstance(message, dict) and message.get("role") in EDITABLE_ROLES
               for message in rules.entry_messages(entry))


def check_edit_fields(sink: FindingSink, entry: dict[str, Any], line: int | None) -> None:
    """A replacement object's `content` (the reader checks `targetId` and that `replacement` is null or an object)."""
    replacement = entry.get("replacement")
    if not isinstance(replacement, dict):
        return
    content = replacement.get("content", UNDEFINED)
    if content is UNDEFINED:
        sink.add("required-fields", entry.get("id"), line,
                 "context_edit entry: replacement has no 'content'; Pi sends its target without content")
    elif not isinstance(content, (str, list)):
        sink.add("required-fields", entry.get("id"), line,
                 f"context_edit entry: replacement's 'content' is {describe_value(content)}, not a string or an "
                 "array; Pi sends it as the target's content")


def check_edits(sink: FindingSink, tree: SessionTree, rules: ContextRules) -> None:
    """context-edit-no-effect: per edit of the file (every branch), then the range rule at the leaf Pi resumes."""
    for entry, line in zip(tree.entries, tree.line_numbers, strict=False):
        if not _is_edit(entry):
            continue
        target_id = entry.get("targetId")
        if type(target_id) is not str:
            continue  # required-fields (reader)
        edit_id = entry.get("id")
        target = tree.by_id.get(target_id)
        if target is None:
            _no_effect(sink, edit_id, line, f"targets {target_id}, which names no entry")
            continue
        target_line = tree.line_of(target)
        named = f"{what(target)} {target_id} (line {target_line})"
        if target is not entry and not is_ancestor(tree, entry, target_id) and \
                not (type(edit_id) is str and is_ancestor(tree, target, edit_id)):
            _no_effect(sink, edit_id, line, f"targets {named}, which is not on this edit's branch")
            continue
        if "replacement" not in entry:
            continue  # context-error where Pi builds a context through it; required-fields in any case
        if entry.get("replacement") is None:
            if not rules.entry_messages(target):
                _no_effect(sink, edit_id, line, f"omits {named}, which gives the context no message")
        elif not _editable(rules, target):
            _no_effect(sink, edit_id, line,
                       f"replaces the content of {named}; Pi edits only user, assistant, toolResult and custom "
                       "messages")
    _check_range(sink, tree, rules)


def _no_effect(sink: FindingSink, edit_id: Any, line: int | None, why: str) -> None:
    sink.add("context-edit-no-effect", edit_id, line, f"context edit {why}; it changes nothing")


def _check_range(sink: FindingSink, tree: SessionTree, rules: ContextRules) -> None:
    """Edits that the latest compaction on the resumed path left before its kept range while their target is still
    sent (and no later edit of it is in the context)."""
    try:
        path = tree.path(tree.leaf_id)
    except PathCycleError:
        return  # context-error
    context = rules.context_entries(path)
    if len(context) == len(path):
        return
    in_context = {id(entry) for entry in context}
    counted, on_path = latest_edits(context), latest_edits(path)
    compaction = context[0]
    for entry in path:
        if not _is_edit(entry) or id(entry) in in_context:
            continue
        target_id, edit_id = entry.get("targetId"), entry.get("id")
        if type(target_id) is not str or target_id in counted or on_path.get(target_id) is not entry:
            continue
        target = tree.by_id.get(target_id)
        if target is None or id(target) not in in_context or target is compaction:
            continue
        sink.add("context-edit-no-effect", edit_id, tree.line_of(entry),
                 f"context edit stands before the kept range of compaction {compaction.get('id')} (line "
                 f"{tree.line_of(compaction)}), so Pi no longer applies it; its target {what(target)} {target_id} "
                 f"(line {tree.line_of(target)}) is sent as stored")


def omitted_on_paths(tree: SessionTree,
                     rules: ContextRules) -> Iterator[tuple[list[int], set[int], dict[int, Any]]]:
    """For each leaf of the tree: its path (positions in tree.entries), the positions a null edit omits from what
    Pi sends on it, and the content a replacement gives the others (UNDEFINED: none) (the edits among the
    compaction-aware entries decide for the entries among them; for an entry summarised away, the edits on its
    path, as when it was last sent)."""
    position_of = {id(entry): position for position, entry in enumerate(tree.entries)}
    leaves = list(tree.leaves())
    if tree.leaf_id not in leaves and type(tree.leaf_id) is str:
        leaves.append(tree.leaf_id)
    for leaf in leaves:
        try:
            path = tree.path(leaf)
        except PathCycleError:
            continue
        context = rules.context_entries(path)
        in_context = {id(entry) for entry in context}
        counted, on_path = latest_edits(context), latest_edits(path)
        omitted: set[int] = set()
        replaced: dict[int, Any] = {}
        for entry in path:
            entry_id = entry.get("id") if isinstance(entry, dict) else None
            if type(entry_id) is not str:
                continue
            edit = (counted if id(entry) in in_context else on_path).get(entry_id)
            if edit is None or "replacement" not in edit:
                continue
            replacement = edit["replacement"]
            if replacement is None:
                omitted.add(position_of[id(entry)])
            else:
                content = replacement.get("content", UNDEFINED) if isinstance(replacement, dict) else UNDEFINED
                replaced[position_of[id(entry)]] = content
        yield [position_of[id(entry)] for entry in path], omitted, replaced


__all__ = ["check_edit_fields", "check_edits", "has_edits", "latest_edits", "omitted_on_paths"]
