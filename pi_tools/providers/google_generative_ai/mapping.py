"""How a Gemini payload (the Gemini API's and Vertex's) maps back to messages: a run of tool results is one
user content of ``functionResponse`` parts, images of tool results follow as a "Tool result image:" content the
adapter adds, the system prompt is ``config.systemInstruction``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.mapping import (
    ASSISTANT,
    EXTRA,
    RESULT,
    USER,
    Fragment,
    blank,
    blocks,
    grouped,
    user_units_if_array_nonempty,
)


def _is_response(part: Any) -> bool:
    return isinstance(part, dict) and "functionResponse" in part


def item_kind(item: dict[str, Any], previous: str) -> str:
    if item.get("role") == "model":
        return ASSISTANT
    parts = item.get("parts") or []
    if any(_is_response(p) for p in parts):
        return RESULT
    if previous in (RESULT, EXTRA) and parts and isinstance(parts[0], dict) \
            and parts[0].get("text") == "Tool result image:":
        return EXTRA
    return USER


def result_parts(item: dict[str, Any], label: str) -> list[Fragment]:
    return grouped(label, item.get("parts") or [], _is_response, "parts")


def units(message: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        return user_units_if_array_nonempty(message)
    for block in blocks(message):
        kind = block.get("type")
        if kind == "toolCall":
            return 1
        if kind == "text" and (not blank(block.get("text")) or block.get("textSignature")):
            return 1
        if kind == "thinking" and (not blank(block.get("thinking")) or block.get("thinkingSignature")):
            return 1
    return 0


def system_fragments(payload: Mapping[str, Any]) -> list[Fragment]:
    config = payload.get("config")
    if isinstance(config, dict) and "systemInstruction" in config:
        return [("config.systemInstruction", config["systemInstruction"])]
    return []


def max_tokens_field(payload: Mapping[str, Any]) -> tuple[str, Any] | None:
    config = payload.get("config")
    if isinstance(config, dict) and "maxOutputTokens" in config:
        return "config.maxOutputTokens", config["maxOutputTokens"]
    return None
