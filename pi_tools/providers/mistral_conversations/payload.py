"""The Mistral chat-completions payload pi-ai's ``mistral-conversations`` adapter hands to ``onPayload``.

The payload is camelCase (the shape of Mistral's TypeScript SDK types); ``wire.py`` renames it for the HTTP body.
Mistral accepts only 9-character alphanumeric tool-call ids, so foreign ids are rewritten by a per-request,
collision-avoiding normaliser, and reasoning models are switched on with ``promptMode`` or ``reasoningEffort``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pi_tools.js.access import (
    block_type,
    content_array,
    copy_defined,
    js_prop,
    string_field,
    string_receiver,
)
from pi_tools.js.json_stringify import clone_json, js_stringify
from pi_tools.js.strings import js_trim
from pi_tools.js.values import js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import json_schema_tool_parameters, resolve_json_schema_strict
from pi_tools.providers.data_url import image_data_url
from pi_tools.providers.errors import PayloadError, malformed_input_guard, require_api_key
from pi_tools.providers.hashing import short_hash, short_hashes
from pi_tools.providers.options import build_base_options, clamp_thinking_level
from pi_tools.providers.sanitize import sanitize_surrogates
from pi_tools.providers.transform_messages import transform_messages

TOOL_CALL_ID_LENGTH = 9
REASONING_EFFORT_MODELS = frozenset({"mistral-small-2603", "mistral-small-latest", "mistral-medium-3.5"})
"""Models that take ``reasoningEffort``; every other reasoning model is switched on with ``promptMode``."""

USER_IMAGE_OMITTED = "(image omitted: model does not support images)"
TOOL_IMAGE_OMITTED = "(tool image omitted: model does not support images)"
TOOL_ERROR_PREFIX = "[tool error] "
_TOOL_CHOICES = frozenset({"auto", "none", "any", "required"})

_NON_ALPHANUMERIC = re.compile(r"[^a-zA-Z0-9]")

# --- tool-call ids ---------------------------------------------------------------------------------------------


def _alphanumerics(text: str) -> str:
    """``text.replace(/[^a-zA-Z0-9]/g, "")``; ids are mostly letters and digits with ``_`` or ``-`` between,
    which str methods drop without the regex."""
    stripped = text.replace("_", "").replace("-", "")
    if stripped.isascii() and stripped.isalnum():
        return stripped
    return _NON_ALPHANUMERIC.sub("", text)


def derive_tool_call_id(tool_call_id: str, attempt: int) -> str:
    """Candidate ``attempt`` for an id: the id itself when it already is 9 alphanumerics, else a hash prefix."""
    normalized = _alphanumerics(tool_call_id)
    if attempt == 0 and len(normalized) == TOOL_CALL_ID_LENGTH:
        return normalized
    seed_base = normalized or tool_call_id
    seed = seed_base if attempt == 0 else f"{seed_base}:{attempt}"
    return _NON_ALPHANUMERIC.sub("", short_hash(seed))[:TOOL_CALL_ID_LENGTH]


def first_candidates(messages: list[Any], model: Model) -> dict[str, str]:
    """derive_tool_call_id(id, 0) of every tool-call id the request will normalise, the hashes made at once.

    transform_messages normalises the ids of tool calls from other models one at a time; hashing each id alone
    is a Python loop over its characters (most of a large Mistral payload's time), hashing them together takes
    milliseconds (hashing.short_hashes). The normaliser looks an id's first candidate up here and derives
    anything else (a later attempt, an id not found ahead) as before, so the ids are the same.
    """
    identity = (model.get("provider"), model.get("api"), model.get("id"))
    candidates: dict[str, str] = {}
    seeds: dict[str, str] = {}  # id -> the seed its first candidate is hashed from
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if not isinstance(content, list) or (
                (message.get("provider"), message.get("api"), message.get("model")) == identity):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                tool_call_id = block.get("id")
                if type(tool_call_id) is str and tool_call_id not in candidates and tool_call_id not in seeds:
                    normalized = _alphanumerics(tool_call_id)
                    if len(normalized) == TOOL_CALL_ID_LENGTH:
                        candidates[tool_call_id] = normalized
                    else:
                        seeds[tool_call_id] = normalized or tool_call_id
    # A base-36 hash is alphanumeric already: derive_tool_call_id's clean-up of it changes nothing.
    for tool_call_id, digest in zip(seeds, short_hashes(list(seeds.values())), strict=True):
        candidates[tool_call_id] = digest[:TOOL_CALL_ID_LENGTH]
    return candidates


def make_tool_call_id_normalizer(assigned: dict[str, str] | None = None,
                                 first: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """A fresh normaliser for one request: stable per original id, and never maps two ids to the same result.
    `assigned`, when given (empty), receives every id it normalised (original -> result); `first` holds ids'
    first candidates derived ahead (first_candidates)."""
    if assigned is None:
        assigned = {}
    if first is None:
        first = {}
    owners: dict[str, str] = {}

    def normalize(tool_call_id: str) -> str:
        string_receiver(tool_call_id, "id", "replace")
        existing = assigned.get(tool_call_id)
        if existing:
            return existing
        attempt = 0
        while True:
            candidate = first.get(tool_call_id) if attempt == 0 else None
            if candidate is None:
                candidate = derive_tool_call_id(tool_call_id, attempt)
            owner = owners.get(candidate)
            if not owner or owner == tool_call_id:
                assigned[tool_call_id] = candidate
                owners[candidate] = tool_call_id
                return candidate
            attempt += 1

    return normalize


def normalize_tool_call_id(tool_call_id: str, model: Model, source: Mapping[str, Any]) -> str:
    """Stateless view of the normaliser (one id in isolation); requests use ``make_tool_call_id_normalizer``."""
    return make_tool_call_id_normalizer()(tool_call_id)


# --- messages --------------------------------------------------------------------------------------------------


def _image_chunk(block: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "image_url", "imageUrl": image_data_url(block)}


def _user_message(message: Mapping[str, Any], supports_images: bool) -> dict[str, Any] | None:
    content = message.get("content")
    if isinstance(content, str):
        return {"role": "user", "content": sanitize_surrogates(content)}
    blocks = content_array(message, "msg.content.some")
    had_images = any(block_type(block) == "image" for block in blocks)
    chunks = [
        {"type": "text", "text": sanitize_surrogates(string_field(block, "text"))}
        if block_type(block) == "text"
        else _image_chunk(block)
        for block in blocks
        if block_type(block) == "text" or supports_images
    ]
    if chunks:
        return {"role": "user", "content": chunks}
    if had_images and not supports_images:
        return {"role": "user", "content": USER_IMAGE_OMITTED}
    return None


def _assistant_message(message: Mapping[str, Any]) -> dict[str, Any] | None:
    chunks: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    for block in message.get("content") or ():
        kind = block_type(block)
        if kind == "text":
            text = string_receiver(js_prop(block, "text"), "block.text", "trim")
            if js_trim(text):
                chunks.append({"type": "text", "text": sanitize_surrogates(text)})
        elif kind == "thinking":
            thinking = string_receiver(js_prop(block, "thinking"), "block.thinking", "trim")
            if js_trim(thinking):
                chunks.append(
                    {
                        "type": "thinking",
                        "thinking": [{"type": "text", "text": sanitize_surrogates(thinking)}],
                    }
                )
        else:
            fields = block if isinstance(block, dict) else {}
            function: dict[str, Any] = {}
            if "name" in fields:
                function["name"] = fields["name"]
            arguments = fields.get("arguments")
            function["arguments"] = js_stringify(arguments if js_truthy(arguments) else {})
            call: dict[str, Any] = {}
            if "id" in fields:
                call["id"] = fields["id"]
            call.update({"type": "function", "function": function, "index": 0})
            tool_calls.append(call)
    if not chunks and not tool_calls:
        return None
    result: dict[str, Any] = {"role": "assistant", "prefix": False}
    if chunks:
        result["content"] = chunks
    if tool_calls:
        result["toolCalls"] = tool_calls
    return result


def tool_result_text(text: str, has_images: bool, supports_images: bool, is_error: bool) -> str:
    """The single text chunk of a tool message; Mistral has no error flag, so errors are marked in the text."""
    trimmed = js_trim(text)
    prefix = TOOL_ERROR_PREFIX if is_error else ""
    if trimmed:
        suffix = f"\n{TOOL_IMAGE_OMITTED}" if has_images and not supports_images else ""
        return f"{prefix}{trimmed}{suffix}"
    if has_images:
        return f"{prefix}(see attached image)" if supports_images else f"{prefix}{USER_IMAGE_OMITTED}"
    return f"{prefix}(no tool output)"


def _tool_message(message: Mapping[str, Any], supports_images: bool) -> dict[str, Any]:
    blocks = content_array(message, "msg.content.filter")
    if len(blocks) == 1 and type(only := blocks[0]) is dict and only.get("type") == "text" and type(
            only.get("text")) is str:  # most results: one text block and no image
        text, has_images = sanitize_surrogates(only["text"]), False
    else:
        text = "\n".join(
            sanitize_surrogates(string_field(block, "text")) for block in blocks if block_type(block) == "text"
        )
        has_images = any(block_type(block) == "image" for block in blocks)
    chunks: list[dict[str, Any]] = [
        {
            "type": "text",
            "text": tool_result_text(text, has_images, supports_images, js_truthy(message.get("isError"))),
        }
    ]
    if supports_images:
        chunks.extend(_image_chunk(block) for block in blocks if block_type(block) == "image")
    result: dict[str, Any] = {"role": "tool"}
    if "toolCallId" in message:
        result["toolCallId"] = message["toolCallId"]
    if "toolName" in message:
        result["name"] = message["toolName"]
    result["content"] = chunks
    return result


def convert_messages(messages: list[dict[str, Any]], supports_images: bool) -> list[dict[str, Any]]:
    """Chat messages for already-transformed pi messages (no system prompt, no merging of tool results)."""
    result: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        converted: dict[str, Any] | None
        if role == "user":
            converted = _user_message(message, supports_images)
        elif role == "assistant":
            converted = _assistant_message(message)
        else:
            converted = _tool_message(message, supports_images)
        if converted is not None:
            result.append(converted)
    return result


# --- tools and options -----------------------------------------------------------------------------------------


def convert_tools(tools: list[Any], supports_strict: bool = True) -> list[dict[str, Any]]:
    """Function tools; ``strict`` is always sent, true only for constrained tools whose schema converts (and only
    where `supports_strict`: Pi 1.6 asks the model's compat)."""
    result: list[dict[str, Any]] = []
    for tool in tools:
        strict = resolve_json_schema_strict(tool, supports_strict)
        function = copy_defined({}, tool, "name", "description")
        parameters = json_schema_tool_parameters(tool, strict)
        if parameters is not None or "parameters" in tool:
            function["parameters"] = clone_json(parameters)  # pi-ai rebuilds the schema (to strip symbol keys)
        function["strict"] = bool(strict)
        result.append({"type": "function", "function": function})
    return result


def map_tool_choice(choice: Any) -> Any:
    """Named choices pass through; a specific function is reduced to ``{type, function: {name}}``."""
    if not choice:
        return None
    if isinstance(choice, str) and choice in _TOOL_CHOICES:
        return choice
    function = choice.get("function") if isinstance(choice, dict) else None
    if not isinstance(function, dict):
        raise PayloadError("Cannot read properties of undefined (reading 'name')")
    mapped: dict[str, Any] = {}
    if "name" in function:
        mapped["name"] = function["name"]
    return {"type": "function", "function": mapped}


def reasoning_options(model: Model, options: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(promptMode, reasoningEffort) for the requested thinking level; both ``None`` when reasoning is off."""
    level = options.get("reasoning")
    clamped = clamp_thinking_level(model, level) if level else None
    reasoning = None if clamped == "off" else clamped
    if not model.get("reasoning") or reasoning is None:
        return None, None
    if model.get("id") in REASONING_EFFORT_MODELS:
        mapped = (model.get("thinkingLevelMap") or {}).get(reasoning)
        return None, "high" if mapped is None else mapped
    return "reasoning", None


def uses_prompt_caching(options: Mapping[str, Any]) -> bool:
    """Caching (``promptCacheKey`` and the ``x-affinity`` header) needs a session id and retention other than none.

    Unlike the other adapters this reads the option only: ``PI_CACHE_RETENTION`` is not consulted.
    """
    return options.get("cacheRetention") != "none" and bool(options.get("sessionId"))



@malformed_input_guard
def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The camelCase payload ``streamSimple`` passes to ``onPayload`` for a ``mistral-conversations`` model."""
    return _build_payload(model, context, options, {}, None)


def _build_payload(model: Model, context: dict[str, Any], options: dict[str, Any], assigned: dict[str, str],
                   renamed: dict[str, str] | None, history_only: bool = False) -> dict[str, Any]:
    """build_payload, the normaliser's ids going to `assigned` and the renamed ones to `renamed`;
    `history_only` stops at the conversation's messages (no system prompt, no other fields)."""
    require_api_key(model, options)
    source = context.get("messages") or []
    if not isinstance(source, list):
        source = list(source)
    normalizer = make_tool_call_id_normalizer(assigned, first_candidates(source, model))
    if history_only:
        messages = transform_messages(
            source, model, lambda tool_call_id, _m, _s: normalizer(tool_call_id), id_map=renamed,
        )
        return {"messages": convert_messages(messages, "image" in (model.get("input") or ()))}
    base = build_base_options(model, context, options)
    prompt_mode, reasoning_effort = reasoning_options(model, options)

    messages = transform_messages(
        source, model, lambda tool_call_id, _m, _s: normalizer(tool_call_id), id_map=renamed
    )
    payload: dict[str, Any] = {
        "model": model.get("id"),
        "stream": True,
        "messages": convert_messages(messages, "image" in (model.get("input") or ())),
    }
    tools = context.get("tools")
    if tools:
        payload["tools"] = convert_tools(tools)
    if "temperature" in base:
        payload["temperature"] = base["temperature"]
    if base.get("maxTokens") is not None:
        payload["maxTokens"] = base["maxTokens"]
    tool_choice = map_tool_choice(options.get("toolChoice"))
    if tool_choice is not None:
        payload["toolChoice"] = tool_choice
    if prompt_mode:
        payload["promptMode"] = prompt_mode
    if reasoning_effort:
        payload["reasoningEffort"] = reasoning_effort
    if uses_prompt_caching(base):
        payload["promptCacheKey"] = base["sessionId"]
    system_prompt = context.get("systemPrompt")
    if system_prompt:
        payload["messages"].insert(0, {"role": "system", "content": sanitize_surrogates(system_prompt)})
    return payload


# --- in parts (see pi_tools.providers.split) -------------------------------------------------------------------
#
# One request's normaliser gives each foreign tool-call id the first candidate no other id holds yet, so the id a
# part gives depends on the ids the parts before it gave. Each part reports every id it normalised; the parts
# join only where those tables agree (one result per id, one id per result), and then the whole conversation's
# normaliser gives every id the same result: an id seen before gets what it got, and a new id's first free
# candidate in its own part is free in the whole conversation too (else two ids would share a result).


def build_history(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, str]]:
    """The messages of a conversation's first part, the tool-call ids it renamed, and every id its normaliser
    gave (the carry)."""
    assigned: dict[str, str] = {}
    renamed: dict[str, str] = {}
    payload = _build_payload(model, context, options, assigned, renamed, history_only=True)
    return payload["messages"], renamed, assigned


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of a conversation's last part, every id its normaliser gave, and whether its messages open
    with the system prompt (1) or not (0)."""
    assigned: dict[str, str] = {}
    payload = _build_payload(model, context, options, assigned, None)
    return payload, assigned, 1 if context.get("systemPrompt") else 0


def join_parts(parts: list[Any], tail: Any) -> list[Any] | None:
    """The parts' messages in order, or None where two parts' normalisers disagree on an id or a result."""
    results: dict[str, str] = {}
    owners: dict[str, str] = {}
    for part in [*parts, tail]:
        for original, result in part.carry.items():
            if results.setdefault(original, result) != result or owners.setdefault(result, original) != original:
                return None
    return [*(part.messages for part in parts), tail.messages]
