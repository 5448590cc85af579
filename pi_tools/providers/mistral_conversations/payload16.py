"""The Mistral chat payload Pi 1.6's ``mistral-conversations`` adapter hands to ``onPayload``.

What changed since 0.85 (``payload.py``, whose conversion this module reuses):
- the request comes from a transcript: system messages stay in place where the model's compat says
  `supportsMidConvoSystemMessages` (a later one rendered as an update), else they are folded into one leading
  prompt; each becomes a `system` message (none when its text is empty); the tools are those the system
  messages leave declared;
- reasoning follows the model's `thinkingLevelMap` wherever it has one (`reasoningEffort`: the mapped level, "high"
  when unmapped, the map's `off` value when thinking is off), `promptMode: "reasoning"` only for reasoning models
  without a map;
- `strict` is true only where the model's compat says `supportsStrictMode`;
- thinking from another model is dropped (transformMessages' 1.6 rules).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import malformed_input_guard, require_api_key
from pi_tools.providers.mistral_conversations.payload import (
    convert_messages,
    convert_tools,
    first_candidates,
    make_tool_call_id_normalizer,
    map_tool_choice,
    uses_prompt_caching,
)
from pi_tools.providers.options import clamp_thinking_level
from pi_tools.providers.options16 import build_base_options
from pi_tools.providers.sanitize import sanitize_surrogates
from pi_tools.providers.transcript import (
    current_tools,
    normalize_context,
    render_system_message_update,
    resolve_transcript,
    system_message_text,
)
from pi_tools.providers.transform_messages import TRANSFORM_16, transform_messages


def _compat(model: Model) -> Mapping[str, Any]:
    compat = model.get("compat")
    return compat if isinstance(compat, Mapping) else {}


def reasoning_options(model: Model, options: Mapping[str, Any]) -> tuple[str | None, Any]:
    """(promptMode, reasoningEffort) for the requested thinking level."""
    level = options.get("reasoning")
    clamped = clamp_thinking_level(model, level) if level else None
    reasoning = None if clamped == "off" else clamped
    effort_map = model.get("thinkingLevelMap") if model.get("reasoning") else None
    effort: Any = None
    if effort_map is not None:
        effort = effort_map.get(reasoning if reasoning else "off")
        if reasoning and effort is None:
            effort = "high"
    prompt_mode = "reasoning" if model.get("reasoning") and effort_map is None and reasoning else None
    return prompt_mode, effort


def convert_transcript(messages: list[dict[str, Any]], supports_images: bool) -> list[dict[str, Any]]:
    """Chat messages for transformed transcript messages: system messages as `system` messages (the first one as
    the whole prompt, later ones as updates), the rest as in 0.85."""
    result: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if message.get("role") != "system":
            run.append(message)
            continue
        if run:
            result.extend(convert_messages(run, supports_images))
            run = []
        text = system_message_text(message) if index == 0 else render_system_message_update(message)
        if len(text) > 0:
            result.append({"role": "system", "content": sanitize_surrogates(text)})
    if run:
        result.extend(convert_messages(run, supports_images))
    return result


@malformed_input_guard
def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The camelCase payload Pi 1.6's ``streamSimple`` passes to ``onPayload`` for a Mistral model."""
    return _build_payload(model, context, options, {})


def _transformed(model: Model, messages: list[dict[str, Any]], assigned: dict[str, str],
                 renamed: dict[str, str] | None) -> list[dict[str, Any]]:
    """transformMessages with one request's tool-call id normaliser, its ids going to `assigned` and the renamed
    ones to `renamed`."""
    normalizer = make_tool_call_id_normalizer(assigned, first_candidates(messages, model))
    return transform_messages(messages, model, lambda tool_call_id, _m, _s: normalizer(tool_call_id), id_map=renamed,
                              rules=TRANSFORM_16)


def _build_payload(model: Model, context: dict[str, Any], options: dict[str, Any],
                   assigned: dict[str, str]) -> dict[str, Any]:
    """build_payload, the normaliser's ids going to `assigned`."""
    require_api_key(model, options)
    transcript = normalize_context(context)
    base = build_base_options(model, transcript, options)
    prompt_mode, reasoning_effort = reasoning_options(model, options)
    compat = _compat(model)
    messages = resolve_transcript(transcript, compat.get("supportsMidConvoSystemMessages"))
    transformed = _transformed(model, messages, assigned, None)
    payload: dict[str, Any] = {
        "model": model.get("id"),
        "stream": True,
        "messages": convert_transcript(transformed, "image" in (model.get("input") or ())),
    }
    tools = current_tools(messages)
    if tools:
        payload["tools"] = convert_tools(tools, bool(compat.get("supportsStrictMode") or False))
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
    return payload


# --- in parts (see pi_tools.providers.split; the normaliser's ids are carried and checked as in 0.85: payload.py) --


def build_history(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[list[dict[str, Any]],
                                                                                        dict[str, str], dict[str, str]]:
    """The messages of a part of the transcript before its last, holding no system message (the leading one,
    made of the context's systemPrompt and tools, opens the last part), the tool-call ids it renamed, and every
    id its normaliser gave (the carry)."""
    require_api_key(model, options)
    assigned: dict[str, str] = {}
    renamed: dict[str, str] = {}
    transformed = _transformed(model, list(context.get("messages") or []), assigned, renamed)
    return convert_messages(transformed, "image" in (model.get("input") or ())), renamed, assigned


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of the transcript's last part, every id its normaliser gave, and how many of its messages the
    leading system message made (one where its text is not empty; the part itself holds no system message)."""
    assigned: dict[str, str] = {}
    payload = _build_payload(model, context, options, assigned)
    messages = payload["messages"]
    return payload, assigned, 1 if messages and messages[0].get("role") == "system" else 0
