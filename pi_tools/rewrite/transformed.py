"""`pi-tools transform FILE ... --to-session OUT`: the transforms that make sense on stored history, written back
as a session file (through the session writer) instead of context documents.

Two kinds, because a session is a tree of entries and a context is one path of messages:

- content transforms (`--redact`, `--block-images`) change what messages say: they are applied to every entry
  of the file (every branch, custom messages, branch and compaction summaries), each entry on its own, and a
  changed entry is written as Pi writes entries; other lines are copied byte for byte.
- selecting transforms (`--drop-role`, `--keep-last`) choose messages of the context: the output holds the
  active path (or `--leaf`'s) with the entries whose messages were dropped taken out and the rest re-parented
  into one chain (entries that carry no message, such as model or thinking changes, stay). Every other line goes
  to `OUT.rejected`. A path with a compaction is refused: what the compaction keeps would change.

Plugins and registered transforms (`--plugin`, `--use`) return messages that have no entries, so they are refused.
The context of OUT is the transformed context of FILE as the Pi `version` builds it (tests/rewrite/
test_transform_session.py checks it with Pi 0.85, tests/rewrite/test_rewrite16.py with Pi 1.6): entries give the
messages the version gives them (Pi 1.6: a compaction its `systemMessage` too, each message with its latest
context edit applied), so a content transform also rewrites the replacement of an edit (the content its target
sends) and a compaction's system message; a selecting transform keeps the edits whose target it keeps (an edit of
an entry it drops goes to OUT.rejected with it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_tools.js.json_line import loads_line
from pi_tools.rewrite.repair import with_parent
from pi_tools.rewrite.writer import (
    Change,
    Rewrite,
    WriteError,
    commit,
    entry_line,
    plan_targets,
    read_snapshot,
)

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion
    from pi_tools.session.context import ContextRules

Transform = Callable[[list[Any]], list[Any]]
CONTENT, SELECTING = frozenset({"redact", "block-images"}), frozenset({"drop-role", "keep-last"})


class TransformSessionError(Exception):
    """The transform cannot be written as a session (the message says which and why)."""


@dataclass(frozen=True)
class Step:
    name: str  # the registry name (redact, block-images, drop-role, keep-last)
    label: str  # as the transform command names it (drop-role=user, keep-last=3)
    apply: Transform


def _transformed_entry(entry: dict[str, Any], steps: list[Step], rules: ContextRules,
                       by_id: dict[Any, Any]) -> dict[str, Any] | None:
    """The entry with the content transforms applied to its message, or None when they change nothing."""
    produced = rules.entry_messages(entry)
    entry_type = entry.get("type")
    if entry_type == "compaction" and len(produced) == 2 and "systemMessage" in entry:
        return _transformed_compaction(entry, produced, steps)
    if entry_type == "context_edit" and rules.context_edits:
        return _transformed_edit(entry, steps, rules, by_id)
    if len(produced) != 1 or not isinstance(produced[0], dict):
        return None
    message = produced[0]
    result = [message]
    for step in steps:
        result = step.apply(result)
    if len(result) != 1 or result[0] == message:
        return None
    new = result[0]
    entry_type = entry.get("type")
    if entry_type == "message":
        return {**entry, "message": new}
    if entry_type == "custom_message":
        return {**entry, **{key: new[key] for key in ("content", "details") if key in new and key in entry}}
    if entry_type in ("branch_summary", "compaction") and "summary" in new:
        return {**entry, "summary": new["summary"]}
    return None


def _applied(message: Any, steps: list[Step]) -> Any:
    """The one message the content transforms make of `message` (None when they change nothing)."""
    result = [message]
    for step in steps:
        result = step.apply(result)
    return None if len(result) != 1 or result[0] == message else result[0]


def _transformed_compaction(entry: dict[str, Any], produced: list[Any], steps: list[Step]) -> dict[str, Any] | None:
    """A compaction that gives its `systemMessage` and its summary: each transformed in its own field."""
    system, summary = (_applied(message, steps) if isinstance(message, dict) else None for message in produced)
    if system is None and (summary is None or "summary" not in summary):
        return None
    new = dict(entry)
    if system is not None:
        new["systemMessage"] = system
    if summary is not None and "summary" in summary:
        new["summary"] = summary["summary"]
    return new


def _transformed_edit(entry: dict[str, Any], steps: list[Step], rules: ContextRules,
                      by_id: dict[Any, Any]) -> dict[str, Any] | None:
    """A context edit whose replacement is content of the context: the content its target's message sends,
    transformed as that message is, written back as the replacement (a string stays a string when the message's
    one text block is all it became)."""
    replacement = entry.get("replacement")
    target = by_id.get(entry.get("targetId")) if type(entry.get("targetId")) is str else None
    if not isinstance(replacement, dict) or "content" not in replacement or not isinstance(target, dict):
        return None
    projected = [messages for _, messages in rules.entry_projections([target, entry])][0]
    if len(projected) != 1 or not isinstance(projected[0], dict) \
            or projected[0].get("role") not in ("user", "assistant", "toolResult", "custom"):
        return None
    new = _applied(projected[0], steps)
    if new is None or "content" not in new:
        return None
    content = new["content"]
    if isinstance(replacement["content"], str) and isinstance(content, list) and len(content) == 1 \
            and isinstance(content[0], dict) and content[0].get("type") == "text" \
            and isinstance(content[0].get("text"), str):
        content = content[0]["text"]
    if content == replacement["content"]:
        return None
    return {**entry, "replacement": {**replacement, "content": content}}


def transform_session(source: str, out: str | None, steps: list[Step], *, leaf: str | None = None,
                      force: bool = False, dry_run: bool = False, version: PiVersion | None = None) -> Rewrite:
    """Apply `steps` (in the transform command's order) to `source`'s stored history, written to `out`, as the Pi
    `version` reads it (None: pi.resolve()'s)."""
    from pi_tools.rewrite.repair import chosen_version
    from pi_tools.session.load import tree_from_raw

    version = chosen_version(version)
    rules = version.context
    from pi_tools.session.reader import SessionReadError, parse_session_bytes, validate_header

    try:
        targets = None if dry_run and out is None else plan_targets(source, out, force=force)
        snapshot = read_snapshot(source)
    except WriteError as exc:
        raise TransformSessionError(str(exc)) from None
    try:
        raw = parse_session_bytes(snapshot.data, source)
        validate_header(raw, len(snapshot.data))
        tree = tree_from_raw(raw, rules.vocabulary)
    except SessionReadError as exc:
        raise TransformSessionError(str(exc)) from None
    if tree.migrated_from is not None:
        raise TransformSessionError(f"{source}: --to-session needs a version 3 session file (this one is version "
                                    f"{tree.migrated_from}; Pi migrates it when it next opens it)")
    physical = snapshot.data.split(b"\n")
    if physical and physical[-1] == b"":
        physical.pop()
    content = [s for s in steps if s.name in CONTENT]
    selecting = [s for s in steps if s.name in SELECTING]
    if leaf is not None and not selecting:
        raise TransformSessionError("--leaf with --to-session needs --keep-last or --drop-role (the other "
                                    "transforms rewrite every entry of the file)")
    changes: list[Change] = []
    lines = list(physical)
    line_of_entry: dict[int, int] = {}
    for entry, number in zip(tree.entries, tree.line_numbers, strict=False):
        if not isinstance(entry, dict):
            continue
        line_of_entry[id(entry)] = number
        new = _transformed_entry(entry, content, rules, tree.by_id) if content else None
        if new is not None:
            lines[number - 1] = entry_line(new)
            changes.append(Change(number, f"entry {entry.get('id')}: {', '.join(s.label for s in content)} changed "
                                          "its message", entry.get("id")))
    rejected: list[tuple[int, bytes]] = []
    if selecting:
        kept = _select(tree, selecting, leaf, source, rules)
        kept_numbers = [line_of_entry[id(e)] for e in kept]
        keep = set(kept_numbers)
        parent: str | None = None
        for entry, number in zip(kept, kept_numbers, strict=True):
            old = entry.get("parentId")
            if old != parent:
                lines[number - 1] = with_parent(lines[number - 1], old, parent) if isinstance(old, str) and parent \
                    else _set_parent(lines[number - 1], parent)
                changes.append(Change(number, f"entry {entry.get('id')}: parentId {old} -> {parent}", entry.get("id")))
            parent = entry.get("id")
        header = _header_number(lines)
        for number, line in enumerate(lines, start=1):
            if number != header and number not in keep:
                rejected.append((number, line))
                changes.append(Change(number, f"{_what(line)} is not kept by "
                                              f"{', '.join(s.label for s in selecting)}; moved to the .rejected file"))
        in_file = sorted(kept_numbers)
        if in_file and in_file[-1] != kept_numbers[-1]:
            in_file.remove(kept_numbers[-1])
            in_file.append(kept_numbers[-1])
            changes.append(Change(kept_numbers[-1], f"moved the line of entry {kept[-1].get('id')} to the end of the "
                                                    "file, so that it is Pi's leaf (the last line)", kept[-1].get("id")))
        body = [lines[header - 1], *(lines[n - 1] for n in in_file)]
    else:
        body = lines
    changes.sort(key=lambda change: change.line)
    result = Rewrite(body, rejected, changes)
    if targets is not None and not dry_run:
        try:
            commit(snapshot, targets, result.data(), result.rejected_data())
        except WriteError as exc:
            raise TransformSessionError(str(exc)) from None
    return result


def _header_number(lines: list[bytes]) -> int:
    """The line of the session header: the first line that parses as one (validate_header made sure it exists)."""
    for number, line in enumerate(lines, start=1):
        try:
            value = loads_line(line)
        except Exception:  # noqa: BLE001 - lines before the header that Pi cannot parse are skipped, as Pi does
            continue
        if isinstance(value, dict):
            return number
    return 1


def _what(line: bytes) -> str:
    try:
        entry = loads_line(line)
    except Exception:  # noqa: BLE001 - any line Pi cannot read is still only moved
        return "a line that is not an entry"
    return f"entry {entry.get('id')}" if isinstance(entry, dict) else "a line that is not an entry"


def _set_parent(line: bytes, parent: str | None) -> bytes:
    entry = loads_line(line)
    entry["parentId"] = parent
    return entry_line(entry)


def _select(tree: Any, steps: list[Step], leaf: str | None, source: str, rules: ContextRules) -> list[Any]:
    """The path's entries whose messages the selecting transforms keep, and those that carry no message."""
    from pi_tools.js.values import UNDEFINED
    from pi_tools.session.tree import PathCycleError

    if leaf is not None and leaf not in tree.by_id:
        raise TransformSessionError(f"{source}: --leaf {leaf}: no entry has this id")
    try:
        path = tree.path(UNDEFINED if leaf is None else leaf)
    except PathCycleError as exc:
        raise TransformSessionError(f"{source}: {exc}") from None
    compaction = next((e for e in path if isinstance(e, dict) and e.get("type") == "compaction"), None)
    if compaction is not None:
        raise TransformSessionError(f"{source}: --keep-last/--drop-role --to-session: the path has a compaction "
                                    f"(entry {compaction.get('id')}); what it keeps would change, so it is not "
                                    "rewritten")
    if any(not isinstance(e, dict) or not isinstance(e.get("id"), str) for e in path):
        raise TransformSessionError(f"{source}: --to-session needs string ids on the path (pi-tools repair first)")
    messages: list[Any] = []
    owner: dict[int, Any] = {}
    gives: dict[int, bool] = {}
    from pi_tools.session.context import ContextError

    try:
        projected = list(rules.entry_projections(path))
    except ContextError as exc:
        raise TransformSessionError(f"{source}: Pi cannot build the context of this path: {exc}") from None
    for entry, produced in projected:
        gives[id(entry)] = bool(produced)
        for message in produced:
            messages.append(message)
            owner[id(message)] = entry
    kept_messages = messages
    for step in steps:
        kept_messages = step.apply(kept_messages)
    # The chain follows the transformed messages' order (split_units keeps a batch's results with its calls, so a
    # damaged session's order can change); entries without a message stay just before the entry that followed
    # them on the path (or the next one kept).
    order: list[Any] = []
    seen: set[int] = set()
    for message in kept_messages:
        entry = owner.get(id(message))
        if entry is not None and id(entry) not in seen:
            seen.add(id(entry))
            order.append(entry)
    rank = {id(entry): index for index, entry in enumerate(order)}
    pending: list[Any] = []
    before: dict[int, list[Any]] = {}
    for entry in path:
        if not gives[id(entry)]:
            pending.append(entry)
        elif id(entry) in rank and pending:
            before.setdefault(id(entry), []).extend(pending)
            pending = []
    kept = [*(e for entry in order for e in [*before.get(id(entry), []), entry]), *pending]
    if not rules.context_edits:
        return kept
    # An edit of an entry the transforms dropped would point at nothing: it goes to OUT.rejected with its target.
    on_path = {entry["id"] for entry in path}
    stays = {entry["id"] for entry in kept}
    return [entry for entry in kept if not (entry.get("type") == "context_edit" and entry.get("targetId") in on_path
                                            and entry.get("targetId") not in stays)]
