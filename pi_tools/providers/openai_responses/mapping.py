"""How an OpenAI Responses payload (OpenAI's and Azure's) maps back to messages: one assistant turn spreads
over several input items (reasoning, message, function_call), a tool result is a ``function_call_output``, the
system prompt is the first item."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.providers.mapping import (
    ASSISTANT,
    EXTRA,
    RESULT,
    SYSTEM,
    USER,
    blocks,
    instruction_units,
    system_messages,
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


SYSTEM_ITEM_TYPES = ("additional_tools", "tool_search_call", "tool_search_output")
"""Items Pi 1.6 makes of a system message besides its instruction message: the tools it declares in place."""


def item_kind16(item: dict[str, Any]) -> str:
    """Pi 1.6's items: instruction messages (role ``developer`` or ``system``) and the tool declarations in place
    are made of system messages; a ``configuration_update`` is the adapter's own (the thinking level before a
    reply, and at the end)."""
    role = item.get("role")
    kind = item.get("type")
    if (role in ("developer", "system") and kind is None) or kind in SYSTEM_ITEM_TYPES:
        return SYSTEM
    if kind == "configuration_update":
        return EXTRA
    return item_kind(item, 1, False)


def system_units16(messages: Sequence[Any], keeps: Any, additional_tools: Any, tool_search: Any) -> list[int | None]:
    """Pi 1.6 (convert16.convert_messages): on a model keeping system messages in place, each makes the tools it
    declares past those the top-level list holds (an ``additional_tools`` item, after a notice from the second
    one on; or a tool search call and its output), then an instruction message where it has text or removes
    tools (the leading one the prompt); a model that does not folds them into the leading prompt."""
    from pi_tools.js.values import js_truthy
    from pi_tools.providers.openai_responses.convert16 import responses_tool_support
    from pi_tools.providers.transcript import resolve_transcript_tools

    found = system_messages(messages)
    if not js_truthy(keeps):
        return [None] * len(found)
    support = responses_tool_support(keeps, additional_tools, tool_search)
    folded = resolve_transcript_tools(list(messages), support)[1]
    declared = False
    counts: list[int | None] = []
    for index, (position, message) in enumerate(found):
        anchors = index >= folded
        count = 0
        added = list(message.get("toolsAdded") or ())
        if anchors and added:
            if support == "changes":
                count += 2 if declared else 1
                declared = True
            elif support == "additions":
                count += 2
        text = instruction_units(position, message)
        if not text and anchors:
            names = {tool.get("name") for tool in added if isinstance(tool, dict)}
            text = int(any(not isinstance(tool, dict) or tool.get("name") not in names
                           for tool in message.get("toolsRemoved") or ()))
        counts.append(count + text)
    return counts
