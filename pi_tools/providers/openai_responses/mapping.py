"""How an OpenAI Responses payload (OpenAI's and Azure's) maps back to messages: one assistant turn spreads
over several input items (reasoning, message, function_call), a tool result is a ``function_call_output``, the
system prompt is the first item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.mapping import (
    ASSISTANT,
    EXTRA,
    RESULT,
    SYSTEM,
    USER,
    blocks,
    user_units_if_array_nonempty,
)


def item_kind(item: dict[str, Any], index: int, has_system: bool) -> str:
    role = item.get("role")
    kind = item.get("type")
    if role in ("developer", "system") and kind is None:
        return SYSTEM if index == 0 and has_system else EXTRA
    if kind in ("function_call_output", "custom_tool_call_output"):
        return RESULT
    if kind in ("additional_tools", "tool_search_call", "tool_search_output"):
        return EXTRA
    if role == "user" and kind is None:
        return USER
    return ASSISTANT


def units(message: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        return user_units_if_array_nonempty(message)
    count = 0
    for block in blocks(message):
        kind = block.get("type")
        if kind == "thinking":
            count += 1 if block.get("thinkingSignature") else 0
        elif kind in ("text", "toolCall"):
            count += 1
    return count
