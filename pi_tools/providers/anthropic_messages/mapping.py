"""How an Anthropic Messages payload maps back to messages: a run of tool results is one user message of
``tool_result`` blocks; the system prompt is the top-level ``system`` field; blank text and empty thinking are
left out (the adapter's skip rules, mirrored by `units`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.js.strings import js_is_blank
from pi_tools.providers.mapping import ASSISTANT, EXTRA, RESULT, USER, Fragment, blank, blocks, grouped


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
