"""Per-entry checks the reader does not make: content blocks, stop reasons, visibility splits.

The reader already reports unknown roles and missing message-level fields; this module looks one level deeper
(invariant 1 for blocks) and at the fields that decide what the model and the TUI get (invariants 4, 5, 7).
"""

from __future__ import annotations

from typing import Any

from pi_tools.audit.findings import FindingSink
from pi_tools.js.values import UNDEFINED, js_truthy
from pi_tools.session.context import PI_085_RULES, ContextRules
from pi_tools.session.diagnostics import describe_value
from pi_tools.session.tree import SessionTree

STOP_REASONS = frozenset({"pending", "stop", "length", "toolUse", "error", "aborted", "deferred"})
NEVER_REPLAYED = ("error", "aborted")  # a tuple: a stored stopReason may be any JSON value, an object too


def never_replayed(stop: Any) -> bool:
    """Whether a stored stopReason is one Pi never replays to a model ("error" or "aborted"; any other JSON
    value is not)."""
    return stop in NEVER_REPLAYED

_USER_BLOCKS = ("text", "image")
ALLOWED_BLOCKS: dict[str, tuple[str, ...]] = {
    "user": _USER_BLOCKS, "toolResult": _USER_BLOCKS, "custom": _USER_BLOCKS,
    "assistant": ("text", "thinking", "toolCall"),
}
# Per block type: required fields and optional ones, each with the JSON types Pi's types allow.
_STR = (str,)
BLOCK_FIELDS: dict[str, tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]] = {
    "text": ({"text": _STR}, {"textSignature": _STR}),
    "thinking": ({"thinking": _STR}, {"thinkingSignature": _STR, "redacted": (bool,)}),
    "image": ({"data": _STR, "mimeType": _STR}, {}),
    "toolCall": ({"id": _STR, "name": _STR, "arguments": (dict,)}, {"thoughtSignature": _STR, "namespace": _STR}),
}
_MISSING = UNDEFINED
describe = describe_value  # one wording for value descriptions across reader diagnostics and audit findings


def _type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def check_blocks(sink: FindingSink, where: str, role: str, content: Any, entry_id: Any, line: int | None,
                 allowed: tuple[str, ...] | None = None) -> None:
    """Discriminants and fields of every block in one message's content list (`allowed`: the block types of a role
    ALLOWED_BLOCKS does not hold)."""
    if not isinstance(content, list):
        return
    if allowed is None:
        allowed = ALLOWED_BLOCKS[role]
    for index, block in enumerate(content):
        label = f"{where} content[{index}]"
        if not isinstance(block, dict):
            sink.add("block-type", entry_id, line, f"{label} is {describe(block)}, not a content block")
            continue
        block_type = block.get("type", _MISSING)
        if block_type not in allowed:
            shown = describe(block_type) if not isinstance(block_type, str) else repr(block_type)
            sink.add("block-type", entry_id, line,
                     f"{label} has type {shown}; {role} content allows only {', '.join(allowed)}")
            continue
        required, optional = BLOCK_FIELDS[block_type]
        for name, types in required.items():
            value = block.get(name, _MISSING)
            if value is _MISSING or not _type_ok(value, types):
                sink.add("required-fields", entry_id, line,
                         f"{label} ({block_type}): {name!r} is {describe(value)}")
        for name, types in optional.items():
            value = block.get(name, _MISSING)
            if value is not _MISSING and not _type_ok(value, types):
                sink.add("required-fields", entry_id, line,
                         f"{label} ({block_type}): {name!r} is {describe(value)}")


def check_entries(sink: FindingSink, tree: SessionTree, rules: ContextRules = PI_085_RULES) -> None:
    """One pass over every entry of the file (every branch: storage is what CI audits); `rules`, the Pi version's,
    add the checks of what it alone stores (system messages, context edits)."""
    from pi_tools.audit.check_edits import check_edit_fields
    from pi_tools.audit.check_system import check_compaction_snapshot, check_system_fields

    system_fields, edit_fields = rules.declares_tools, rules.context_edits
    for entry, line in zip(tree.entries, tree.line_numbers, strict=False):
        if isinstance(entry, dict):
            check_entry_content(sink, entry, line)
            entry_type = entry.get("type")
            if system_fields and entry_type == "message":
                message = entry.get("message")
                if isinstance(message, dict) and message.get("role") == "system":
                    check_system_fields(sink, message, entry.get("id"), line)
            elif system_fields and entry_type == "compaction" and "systemMessage" in entry:
                check_compaction_snapshot(sink, entry, line)
            elif edit_fields and entry_type == "context_edit":
                check_edit_fields(sink, entry, line)


def check_entry_content(sink: FindingSink, entry: dict[str, Any], line: int | None) -> None:
    """The blocks, stop reason and visibility fields of one entry."""
    entry_type = entry.get("type")
    entry_id = entry.get("id")
    if entry_type == "custom_message":
        check_blocks(sink, "custom_message", "custom", entry.get("content"), entry_id, line)
        if "display" in entry and not js_truthy(entry.get("display")):
            sink.add("visibility-split", entry_id, line,
                     f"custom message {entry.get('customType')!r} is sent to the model but hidden in the TUI "
                     "(display: false)")
        return
    if entry_type != "message":
        return
    message = entry.get("message")
    if not isinstance(message, dict):
        return
    role = message.get("role")
    if type(role) is str and role in ALLOWED_BLOCKS:  # a list or object role is unhashable
        check_blocks(sink, f"{role} message", role, message.get("content"), entry_id, line)
    if role == "assistant":
        _check_stop_reason(sink, message, entry_id, line)
    elif role == "bashExecution" and js_truthy(message.get("excludeFromContext")):
        sink.add("visibility-split", entry_id, line,
                 f"bash output of `{str(message.get('command'))[:60]}` is shown in the TUI but never sent to the "
                 "model (excludeFromContext)")
    elif role == "custom" and "display" in message and not js_truthy(message.get("display")):
        sink.add("visibility-split", entry_id, line,
                 f"custom message {message.get('customType')!r} is sent to the model but hidden in the TUI "
                 "(display: false)")


def _check_stop_reason(sink: FindingSink, message: dict[str, Any], entry_id: Any, line: int | None) -> None:
    stop = message.get("stopReason", _MISSING)
    if stop is _MISSING:
        return  # the reader's missing-field diagnostic already says so
    if stop == "pending":
        sink.add("partial-message", entry_id, line,
                 "assistant message with stopReason 'pending' is a streaming partial; only settled messages are "
                 "stored")
    elif never_replayed(stop):  # non-strings: the reader's bad-field
        error = message.get("errorMessage")
        detail = f" ({' '.join(error.split())[:120]})" if isinstance(error, str) and error.strip() else ""
        sink.add("errored-turn", entry_id, line,
                 f"assistant turn ended with stopReason {stop!r}{detail}; Pi stores it but never replays it")
    elif isinstance(stop, str) and stop not in STOP_REASONS:
        sink.add("required-fields", entry_id, line, f"assistant stopReason {stop!r} is not a StopReason")
