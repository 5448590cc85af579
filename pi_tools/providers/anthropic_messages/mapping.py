"""How an Anthropic Messages payload maps back to messages: a run of tool results is one user message of
``tool_result`` blocks; the system prompt is the top-level ``system`` field; blank text and empty thinking are
left out (the adapter's skip rules, mirrored by `units`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.js.strings import js_is_blank
from pi_tools.providers.mapping import (
    ASSISTANT,
    EXTRA,
    RESULT,
    SYSTEM,
    USER,
    Fragment,
    blank,
    blocks,
    grouped,
    system_messages,
)


def _is_result(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_result"


def item_kind(item: dict[str, Any]) -> str:
    role = item.get("role")
    if role == "assistant":
        return ASSISTANT
    if role == "user":
        content = item.get("content")
        if isinstance(content, list) and any(_is_result(b) for b in content):
            return RESULT
        return USER
    return EXTRA


def result_parts(item: dict[str, Any], label: str) -> list[Fragment]:
    return grouped(label, item.get("content") or [], _is_result, "content")


def units(message: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        content = message.get("content")
        if isinstance(content, str):
            return 0 if js_is_blank(content) else 1
        return int(any(b.get("type") != "text" or not blank(b.get("text")) for b in blocks(message)))
    for block in blocks(message):
        kind = block.get("type")
        if kind == "text" and not blank(block.get("text")):
            return 1
        if kind == "thinking" and (block.get("redacted") or not blank(block.get("thinking"))
                                   or not blank(block.get("thinkingSignature"))):
            return 1
        if kind == "toolCall":
            return 1
    return 0


def item_kind16(item: dict[str, Any]) -> str:
    """Pi 1.6's items: a system message kept in place (a ``system`` role item) is a system item; the effort
    markers of managed-effort models (``system`` items with an ``output_config``) are the adapter's own."""
    if item.get("role") == "system":
        return EXTRA if "output_config" in item else SYSTEM
    return item_kind(item)


def system_units16(messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
    """Pi 1.6: the leading system message is the ``system`` field; a model that keeps later ones sends each as a
    ``system`` item (held until just before the next assistant message) where it renders to text or, on a model
    taking native tool changes, declares tool changes; a model that does not folds them into the prompt."""
    from pi_tools.providers.anthropic_messages.payload import _compat_flag
    from pi_tools.providers.anthropic_messages.payload16 import keeps_system_messages
    from pi_tools.providers.transcript import render_system_message_update

    found = system_messages(messages)
    if not keeps_system_messages(dict(model)):
        return [None] * len(found)
    leading = found[0][1] if found and found[0][0] == 0 else None
    native = _compat_flag(dict(model), "supportsMidConvoToolChanges", False) and leading is not None \
        and len(leading.get("toolsAdded") or ()) > 0
    counts: list[int | None] = []
    for position, message in found:
        if position == 0:
            counts.append(0)
            continue
        added = list(message.get("toolsAdded") or ())
        redefined = {tool.get("name") for tool in added if isinstance(tool, dict)}
        removed = [tool for tool in message.get("toolsRemoved") or ()
                   if not isinstance(tool, dict) or tool.get("name") not in redefined]
        changes = native and (len(added) > 0 or len(removed) > 0)
        counts.append(1 if len(render_system_message_update(message)) > 0 or changes else 0)
    return counts
