"""How a Chat Completions payload maps back to messages: a chat-style list (providers.mapping.chat_item_kind);
an assistant message is sent when it has text, tool calls, or thinking the model's compat sends as text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.js.values import js_truthy
from pi_tools.providers.mapping import (
    SYSTEM,
    blank,
    blocks,
    chat_item_kind,
    instruction_units,
    system_messages,
    user_units_if_array_nonempty,
)


def units(message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        return user_units_if_array_nonempty(message)
    from pi_tools.providers.openai_completions.compat import resolve_compat

    thinking_as_text = bool(resolve_compat(dict(model)).get("requiresThinkingAsText"))
    for block in blocks(message):
        kind = block.get("type")
        if kind == "toolCall" or (kind == "text" and not blank(block.get("text"))):
            return 1
        if kind == "thinking" and thinking_as_text and not blank(block.get("thinking")):
            return 1
    return 0


def user_units16(message: Mapping[str, Any]) -> int:
    """Pi 1.6's user turn: text parts with no characters are left out, and a message left with no part is not
    sent."""
    content = message.get("content")
    if isinstance(content, str):
        return 1
    return int(any(block.get("type") != "text" or (isinstance(block.get("text"), str) and len(block["text"]) > 0)
                   for block in blocks(message)))


def max_tokens_field(payload: Mapping[str, Any]) -> tuple[str, Any] | None:
    for key in ("max_completion_tokens", "max_tokens"):
        if key in payload:
            return key, payload[key]
    return None


def item_kind16(item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
    """Pi 1.6's items: every instruction message (role ``system`` or ``developer``, a tool declaration
    ``{role: "system", tools}`` included) is made of a system message."""
    if item.get("role") in ("system", "developer"):
        return SYSTEM
    return chat_item_kind(item, index, has_system, previous)


def system_units16(messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
    """Pi 1.6: on a model keeping system messages in place, each makes a tool declaration where it adds tools
    past those the top-level list holds, then an instruction message where it has text (the leading one the
    prompt); a model that does not folds them into the leading prompt."""
    from pi_tools.providers.openai_completions.compat16 import resolve_compat16
    from pi_tools.providers.openai_completions.payload16 import tool_support
    from pi_tools.providers.transcript import resolve_transcript_tools

    found = system_messages(messages)
    compat = resolve_compat16(dict(model))
    if not js_truthy(compat["supportsMidConvoSystemMessages"]):
        return [None] * len(found)
    folded = resolve_transcript_tools(list(messages), tool_support(compat))[1]  # type: ignore[arg-type]
    return [(1 if index >= folded and len(message.get("toolsAdded") or ()) > 0 else 0)
            + instruction_units(position, message) for index, (position, message) in enumerate(found)]
