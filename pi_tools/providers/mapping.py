"""What the payload mapping of every API is made of: the kinds of payload items, fragments and notes.

Render's preview, visibility and preflight's provenance pair each message with the payload item(s) built from
it (render.payload_map walks both lists). How an API shapes its items is the API's own knowledge, so each API
folder says it through its adapter (`contract.ApiAdapter`: `item_kind`, `result_parts`, `units`,
`system_fragments`, `max_tokens_field`, `adapter_notes`); this module holds the vocabulary they share and the
chat-style classification that OpenAI Chat Completions, Mistral and plug-in APIs with role-tagged lists use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pi_tools.js.strings import js_is_blank

Fragment = tuple[str, Any]
"""(location in the payload, value)."""

Note = dict[str, str]
"""A note naming one change: `{code, label, detail}` (render.annotate's shape)."""

USER, ASSISTANT, RESULT, SYSTEM, EXTRA = "U", "A", "R", "S", "X"
"""Item kinds: the kind of message an item comes from; SYSTEM the system prompt's item, EXTRA an item the
adapter adds of its own (a bridge message, a tool-image turn)."""


def note(code: str, label: str, detail: str) -> Note:
    return {"code": code, "label": label, "detail": detail}


def blank(value: Any) -> bool:
    """Not a string, or a blank one (a block the adapters skip)."""
    return not isinstance(value, str) or js_is_blank(value)


def blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The object blocks of a message's content (damaged sessions hold anything there)."""
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def user_units_if_array_nonempty(message: Mapping[str, Any]) -> int:
    """One item for a user message with text content or a non-empty list (the OpenAI and Gemini encoders)."""
    content = message.get("content")
    return 1 if isinstance(content, str) or (isinstance(content, list) and content) else 0


def grouped(label: str, items: Sequence[Any], test: Callable[[Any], bool], key: str) -> list[Fragment]:
    """The parts of a grouped item (`label`.`key`[i]) that pass `test`: one tool result each."""
    return [(f"{label}.{key}[{i}]", part) for i, part in enumerate(items) if test(part)]


def chat_item_kind(item: Any, index: int, has_system: bool, previous: str) -> str:
    """The kind of one item of a chat-style list (roles system/developer, user, assistant, tool), with the
    bridge messages the OpenAI-compatible adapters insert after tool results recognised as EXTRA."""
    if not isinstance(item, dict):
        return EXTRA
    role = item.get("role")
    if role in ("system", "developer"):
        return SYSTEM if index == 0 and has_system and "tools" not in item else EXTRA
    if role == "tool":
        return RESULT
    if role == "assistant":
        if previous in (RESULT, EXTRA) and item.get("content") == "I have processed the tool results." \
                and "tool_calls" not in item:
            return EXTRA
        return ASSISTANT
    if role == "user":
        content = item.get("content")
        if previous in (RESULT, EXTRA) and isinstance(content, list) and content \
                and isinstance(content[0], dict) and content[0].get("text") == "Attached image(s) from tool result:":
            return EXTRA
        return USER
    return EXTRA


def system_messages(messages: Sequence[Any]) -> list[tuple[int, dict[str, Any]]]:
    """(position, message) of every system message of a transformed transcript (Pi 1.x), in order."""
    return [(index, message) for index, message in enumerate(messages)
            if isinstance(message, dict) and message.get("role") == "system"]


def instruction_units(position: int, message: Mapping[str, Any]) -> int:
    """One item for a system message whose text is not empty, as the APIs that send each one as an instruction
    message write it: the leading one (position 0) as the whole prompt, a later one as a rendered update."""
    from pi_tools.providers.transcript import render_system_message_update, system_message_text

    text = system_message_text(message) if position == 0 else render_system_message_update(message)
    return 1 if len(text) > 0 else 0
