"""Locates, in a built payload, the item(s) that came from each transformed message.

The payload builders do not report provenance, and each API shapes messages differently (Anthropic, Bedrock and
Google put a run of tool results into one user turn; the Responses API spreads one assistant turn over several
input items; adapters silently leave out messages with nothing to send and add items of their own). So the
preview walks the transformed messages and the payload items side by side: every item is classified by the
kind of message it can come from, every message knows how many items it should produce (the adapters' skip
rules, mirrored here), and a message whose expected item is not where it should be is reported as not located
rather than guessed. Adapter-made items (bridge messages, tool-image turns, effort markers) are attached to the
message they follow; anything left over is listed as unmatched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_tools.js.strings import js_is_blank

Fragment = tuple[str, Any]  # (location in the payload, value)

USER, ASSISTANT, RESULT, SYSTEM, EXTRA = "U", "A", "R", "S", "X"

ITEM_LISTS = {
    "anthropic-messages": "messages",
    "openai-completions": "messages",
    "openai-responses": "input",
    "google-generative-ai": "contents",
    "google-vertex": "contents",
    "mistral-conversations": "messages",
    "bedrock-converse-stream": "messages",
}


@dataclass
class Placement:
    """Where one transformed message went: its fragments, or why there are none."""

    fragments: list[Fragment] = field(default_factory=list)
    status: str = "sent"  # sent | skipped | lost
    group_size: int = 1
    group_label: str = ""
    extras: list[Fragment] = field(default_factory=list)


@dataclass
class PayloadMap:
    placements: list[Placement]
    system: list[Fragment]
    unmatched: list[Fragment]


@dataclass
class _Slot:
    kind: str
    label: str
    value: Any
    parts: list[Fragment]


def _blank(value: Any) -> bool:
    return not isinstance(value, str) or js_is_blank(value)


def _blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _kind_of_message(message: Mapping[str, Any]) -> str:
    role = message.get("role")
    return {"user": USER, "assistant": ASSISTANT, "toolResult": RESULT}.get(role, EXTRA)  # type: ignore[arg-type]


# --- expected item counts (the adapters' skip rules) ----------------------------------------------------------


def _user_units_if_array_nonempty(message: Mapping[str, Any]) -> int:
    content = message.get("content")
    return 1 if isinstance(content, str) or (isinstance(content, list) and content) else 0


def _anthropic_units(message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        content = message.get("content")
        if isinstance(content, str):
            return 0 if js_is_blank(content) else 1
        return int(any(b.get("type") != "text" or not _blank(b.get("text")) for b in _blocks(message)))
    for block in _blocks(message):
        kind = block.get("type")
        if kind == "text" and not _blank(block.get("text")):
            return 1
        if kind == "thinking" and (block.get("redacted") or not _blank(block.get("thinking"))
                                   or not _blank(block.get("thinkingSignature"))):
            return 1
        if kind == "toolCall":
            return 1
    return 0


def _completions_units(message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        return _user_units_if_array_nonempty(message)
    from pi_tools.providers.openai_completions.compat import resolve_compat

    thinking_as_text = bool(resolve_compat(dict(model)).get("requiresThinkingAsText"))
    for block in _blocks(message):
        kind = block.get("type")
        if kind == "toolCall" or (kind == "text" and not _blank(block.get("text"))):
            return 1
        if kind == "thinking" and thinking_as_text and not _blank(block.get("thinking")):
            return 1
    return 0


def _responses_units(message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        return _user_units_if_array_nonempty(message)
    count = 0
    for block in _blocks(message):
        kind = block.get("type")
        if kind == "thinking":
            count += 1 if block.get("thinkingSignature") else 0
        elif kind in ("text", "toolCall"):
            count += 1
    return count


def _google_units(message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        return _user_units_if_array_nonempty(message)
    for block in _blocks(message):
        kind = block.get("type")
        if kind == "toolCall":
            return 1
        if kind == "text" and (not _blank(block.get("text")) or block.get("textSignature")):
            return 1
        if kind == "thinking" and (not _blank(block.get("thinking")) or block.get("thinkingSignature")):
            return 1
    return 0


def _mistral_units(message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        content = message.get("content")
        if isinstance(content, str):
            return 1
        return int(any(b.get("type") in ("text", "image") for b in _blocks(message)))
    for block in _blocks(message):
        kind = block.get("type")
        if kind == "text":
            if not _blank(block.get("text")):
                return 1
        elif kind == "thinking":
            if not _blank(block.get("thinking")):
                return 1
        else:
            return 1
    return 0


def _bedrock_units(message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
    if message.get("role") == "user":
        return 1
    for block in _blocks(message):
        kind = block.get("type")
        if kind == "toolCall" or (kind == "text" and not _blank(block.get("text"))):
            return 1
        if kind == "thinking" and ((block.get("redacted") and block.get("thinkingSignature"))
                                   or (not block.get("redacted") and not _blank(block.get("thinking")))):
            return 1
    return 0


_UNITS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], int]] = {
    "anthropic-messages": _anthropic_units,
    "openai-completions": _completions_units,
    "openai-responses": _responses_units,
    "google-generative-ai": _google_units,
    "google-vertex": _google_units,
    "mistral-conversations": _mistral_units,
    "bedrock-converse-stream": _bedrock_units,
}


# --- payload item classification -------------------------------------------------------------------------------


def _grouped(label: str, items: Sequence[Any], test: Callable[[Any], bool], key: str) -> list[Fragment]:
    return [(f"{label}.{key}[{i}]", part) for i, part in enumerate(items) if test(part)]


def _classify(api: str, items: list[Any], label: str, has_system: bool) -> list[_Slot]:
    slots: list[_Slot] = []
    previous = ""
    for index, item in enumerate(items):
        here = f"{label}[{index}]"
        kind = _item_kind(api, item, index, has_system, previous)
        parts: list[Fragment] = [(here, item)]
        if kind == RESULT and api in ("anthropic-messages", "bedrock-converse-stream"):
            content = item.get("content") if isinstance(item, dict) else None
            if api == "anthropic-messages":
                parts = _grouped(here, content or [], lambda b: isinstance(b, dict)
                                 and b.get("type") == "tool_result", "content")
            else:
                parts = _grouped(here, content or [], lambda b: isinstance(b, dict) and "toolResult" in b,
                                 "content")
        elif kind == RESULT and api in ("google-generative-ai", "google-vertex"):
            parts = _grouped(here, item.get("parts") or [], lambda p: isinstance(p, dict)
                             and "functionResponse" in p, "parts")
        slots.append(_Slot(kind, here, item, parts))
        previous = kind
    return slots


def _item_kind(api: str, item: Any, index: int, has_system: bool, previous: str) -> str:
    if not isinstance(item, dict):
        return EXTRA
    role = item.get("role")
    if api == "anthropic-messages":
        if role == "assistant":
            return ASSISTANT
        if role == "user":
            content = item.get("content")
            if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                                 for b in content):
                return RESULT
            return USER
        return EXTRA
    if api == "bedrock-converse-stream":
        if role == "assistant":
            return ASSISTANT
        if role == "user":
            content = item.get("content")
            if isinstance(content, list) and any(isinstance(b, dict) and "toolResult" in b for b in content):
                return RESULT
            return USER
        return EXTRA
    if api in ("google-generative-ai", "google-vertex"):
        if role == "model":
            return ASSISTANT
        parts = item.get("parts") or []
        if any(isinstance(p, dict) and "functionResponse" in p for p in parts):
            return RESULT
        if previous in (RESULT, EXTRA) and parts and isinstance(parts[0], dict) \
                and parts[0].get("text") == "Tool result image:":
            return EXTRA
        return USER
    if api == "openai-responses":
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
    # Chat-style lists: openai-completions, mistral-conversations
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


def _system_fragments(api: str, payload: Mapping[str, Any]) -> list[Fragment]:
    if api in ("anthropic-messages", "bedrock-converse-stream") and "system" in payload:
        return [("system", payload["system"])]
    if api in ("google-generative-ai", "google-vertex"):
        config = payload.get("config")
        if isinstance(config, dict) and "systemInstruction" in config:
            return [("config.systemInstruction", config["systemInstruction"])]
    return []


# --- the walk -------------------------------------------------------------------------------------------------


def map_payload(api: str, payload: Mapping[str, Any], transformed: Sequence[Any], model: Mapping[str, Any],
                has_system_prompt: bool) -> PayloadMap:
    """Pair every transformed message with the payload fragments built from it."""
    label = ITEM_LISTS.get(api, "messages")
    items = payload.get(label)
    slots = _classify(api, items if isinstance(items, list) else [], label, has_system_prompt)
    units = _UNITS.get(api)
    system = _system_fragments(api, payload)
    position = 0
    if slots and slots[0].kind == SYSTEM:
        system.append((slots[0].label, slots[0].value))
        position = 1
    part_index = 0  # within a grouped tool-result slot
    placements: list[Placement] = []
    unmatched: list[Fragment] = []
    last: Placement | None = None

    def take_extras() -> None:
        nonlocal position
        while position < len(slots) and slots[position].kind in (EXTRA, SYSTEM) and part_index == 0:
            fragment = (slots[position].label, slots[position].value)
            if last is not None:
                last.extras.append(fragment)
            else:
                unmatched.append(fragment)
            position += 1

    for message in transformed:
        placement = Placement()
        placements.append(placement)
        if not isinstance(message, dict):
            placement.status = "skipped"
            continue
        kind = _kind_of_message(message)
        if kind == RESULT:
            take_extras()
            if position < len(slots) and slots[position].kind == RESULT and part_index < len(slots[position].parts):
                slot = slots[position]
                placement.fragments.append(slot.parts[part_index])
                placement.group_size = len(slot.parts)
                placement.group_label = slot.label
                part_index += 1
                if part_index >= len(slot.parts):
                    position += 1
                    part_index = 0
            else:
                placement.status = "lost"
            last = placement
            continue
        if part_index:
            # A grouped slot holds more results than the transcript has: leave the rest to the unmatched list.
            unmatched.extend(slots[position].parts[part_index:])
            position += 1
            part_index = 0
        take_extras()
        expected = units(message, model) if units is not None and kind != EXTRA else 0
        if expected == 0:
            placement.status = "skipped"
            continue
        taken = 0
        while taken < expected and position < len(slots) and slots[position].kind == kind:
            placement.fragments.append((slots[position].label, slots[position].value))
            position += 1
            taken += 1
        if taken == 0:
            placement.status = "lost"
        last = placement
    if part_index:
        unmatched.extend(slots[position].parts[part_index:])
        position += 1
    take_extras()
    unmatched.extend((slot.label, slot.value) for slot in slots[position:])
    return PayloadMap(placements, system, unmatched)
