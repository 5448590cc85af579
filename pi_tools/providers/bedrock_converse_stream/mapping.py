"""How a Bedrock ConverseStream payload maps back to messages: a run of tool results is one user message of
``toolResult`` blocks; the system prompt is the top-level ``system`` field; every user message is sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.mapping import ASSISTANT, EXTRA, RESULT, USER, Fragment, blank, blocks, grouped


def _is_result(block: Any) -> bool:
    return isinstance(block, dict) and "toolResult" in block


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
        return 1
    for block in blocks(message):
        kind = block.get("type")
        if kind == "toolCall" or (kind == "text" and not blank(block.get("text"))):
            return 1
        if kind == "thinking" and ((block.get("redacted") and block.get("thinkingSignature"))
                                   or (not block.get("redacted") and not blank(block.get("thinking")))):
            return 1
    return 0
