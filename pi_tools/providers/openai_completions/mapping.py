"""How a Chat Completions payload maps back to messages: a chat-style list (providers.mapping.chat_item_kind);
an assistant message is sent when it has text, tool calls, or thinking the model's compat sends as text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.mapping import blank, blocks, user_units_if_array_nonempty


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
