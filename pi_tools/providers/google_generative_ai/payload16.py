"""The Gemini request object (`{model, contents, config}`) as Pi 1.6's pi-ai builds it, for both Google APIs.

What changed since the 0.85 builder (``payload.py``, whose conversion this module reuses):
- the request comes from a transcript: system messages are folded into one leading prompt (the
  ``systemInstruction``), the tools are those the system messages leave declared;
- ``config.automaticContinuation: false`` (an SDK parameter the HTTP body never carries);
- a string or number ``const`` in a tool schema is sent as a one-value ``enum`` (Gemini ignores ``const``);
- a tool result whose text is only whitespace counts as having no text;
- thinking: the level-based control (Gemini 3 Pro/Flash, Gemini 4 and later, the flash aliases, Gemma 4) takes
  the model's mapped level as it is (no per-family table), for both APIs; "off" asks for the lowest level the
  model supports where it cannot switch thinking off;
- thinking from another model is dropped (transformMessages' 1.6 rules).
"""

from __future__ import annotations

import re
from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import missing_api_key
from pi_tools.providers.google_generative_ai.payload import (
    GEMINI_API,
    GoogleFlavor,
    _sanitize,
    _thinking_budget,
    convert_messages,
    function_calling_mode,
    resolve_google_thinking_level,
    supports_strict_tool_sampling,
)
from pi_tools.providers.google_generative_ai.payload import (
    convert_tools as convert_tools_085,
)
from pi_tools.providers.options import clamp_thinking_level
from pi_tools.providers.options16 import build_base_options
from pi_tools.providers.transcript import (
    collapse_system_messages,
    current_tools,
    leading_system_message,
    normalize_context,
    system_message_text,
    without_leading_system_message,
)
from pi_tools.providers.transform_messages import TRANSFORM_16

_LEVEL_MODELS = (
    re.compile(r"gemini-3(?:\.[0-9]+)?-(?:pro|flash)"),
    re.compile(r"gemini-(?:[4-9]|[1-9][0-9])"),
    re.compile(r"gemma-?4"),
)
_FLASH_ALIASES = frozenset({"gemini-flash-latest", "gemini-flash-lite-latest"})

_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                        "dependencies"})
"""Schema keywords whose values map names to subschemas (their keys are names, not keywords)."""
_SUBSCHEMAS = frozenset({"additionalProperties", "unevaluatedProperties", "propertyNames", "items", "prefixItems",
                         "additionalItems", "unevaluatedItems", "contains", "allOf", "anyOf", "oneOf", "not", "if",
                         "then", "else", "contentSchema"})
"""Schema keywords holding a subschema or a list of them (not literal data)."""


# --- thinking -------------------------------------------------------------------------------------------------


def uses_thinking_level(model_id: Any) -> bool:
    """Whether the model takes Gemini's discrete thinkingLevel (else a token budget)."""
    lowered = str(model_id).lower()
    return lowered in _FLASH_ALIASES or any(pattern.search(lowered) for pattern in _LEVEL_MODELS)


def disabled_thinking_config(model: Model) -> dict[str, Any]:
    """Thinking off: a zero budget, or the lowest level a level-based model supports when it cannot go off."""
    if not uses_thinking_level(model["id"]):
        return {"thinkingBudget": 0}
    fallback = clamp_thinking_level(model, "off")
    if fallback == "off":
        return {"thinkingBudget": 0}
    return {"thinkingLevel": resolve_google_thinking_level(model, fallback).upper()}


def thinking_config(model: Model, options: dict[str, Any], flavor: GoogleFlavor) -> dict[str, Any] | None:
    """``config.thinkingConfig`` (None for a model without reasoning)."""
    reasoning = options.get("reasoning")
    clamped = clamp_thinking_level(model, reasoning) if reasoning else "off"
    if clamped == "off":
        return disabled_thinking_config(model) if model.get("reasoning") else None
    effort = resolve_google_thinking_level(model, clamped)
    if not model.get("reasoning"):
        return None
    if uses_thinking_level(model["id"]):
        return {"includeThoughts": True, "thinkingLevel": effort.upper()}
    return {"includeThoughts": True,
            "thinkingBudget": _thinking_budget(model["id"], effort, options.get("thinkingBudgets"), flavor)}


# --- tools ----------------------------------------------------------------------------------------------------


def rewrite_const_as_enum(schema: Any, names: bool = False) -> Any:
    """A tool schema with each string or number ``const`` as a one-value ``enum`` (where no enum is set)."""
    if isinstance(schema, list):
        return [rewrite_const_as_enum(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if names or key in _SUBSCHEMAS:
            result[key] = rewrite_const_as_enum(value)
        elif key in _NAME_MAPS:
            result[key] = rewrite_const_as_enum(value, True)
        else:
            result[key] = value
    if not names and "const" in result and "enum" not in result:
        value = result["const"]
        if isinstance(value, str) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            del result["const"]
            result["enum"] = [value]
    return result


def convert_tools(tools: list[dict[str, Any]], supports_strict: bool) -> list[dict[str, Any]]:
    """``config.tools``: 0.85's function declarations, their schemas' constants as enums."""
    converted = convert_tools_085(tools, supports_strict)
    for declaration in converted[0]["functionDeclarations"]:
        if "parametersJsonSchema" in declaration:
            declaration["parametersJsonSchema"] = rewrite_const_as_enum(declaration["parametersJsonSchema"])
    return converted


# --- request --------------------------------------------------------------------------------------------------


def build_request(model: Model, context: dict[str, Any], options: dict[str, Any],
                  flavor: GoogleFlavor) -> dict[str, Any]:
    """Pi 1.6's streamSimple -> buildParams for either Google API."""
    options = options or {}
    if flavor.requires_api_key and not options.get("apiKey"):
        raise missing_api_key(model)
    transcript = normalize_context(context)
    base = build_base_options(model, transcript, options)
    thinking = thinking_config(model, options, flavor)

    messages = collapse_system_messages(transcript)
    contents = convert_messages(model, {"messages": without_leading_system_message(messages)},
                                rules=TRANSFORM_16, blank_is_empty=True)
    initial = leading_system_message(messages)
    tools = current_tools(messages)

    config: dict[str, Any] = {}
    if base.get("temperature") is not None:
        config["temperature"] = base["temperature"]
    if base.get("maxTokens") is not None:
        config["maxOutputTokens"] = base["maxTokens"]
    system_text = system_message_text(initial) if initial is not None else ""
    if system_text:
        config["systemInstruction"] = _sanitize(system_text)
    supports_strict = supports_strict_tool_sampling(model["id"])
    if tools:
        config["tools"] = convert_tools(tools, supports_strict)
        mode = function_calling_mode(tools, options.get("toolChoice"), supports_strict)
        if mode is not None:
            config["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    config["automaticContinuation"] = False
    if thinking is not None:
        config["thinkingConfig"] = thinking
    return {"model": model["id"], "contents": contents, "config": config}


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The ``{model, contents, config}`` object google-generative-ai hands to ``onPayload`` in Pi 1.6."""
    return build_request(model, context, options, GEMINI_API)


def build_history(model: Model, context: dict[str, Any], options: dict[str, Any],
                  trace: Any = None) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The ``contents`` of a part of the transcript before its last (providers.split), holding no system message:
    the leading one is the ``systemInstruction`` and the tools, outside ``contents``, which the last part's
    request carries. With the tool-call ids the part renamed; with `trace` (a split.ContentTrace), where each
    transformed message went (payload.build_history_traced)."""
    renamed: dict[str, str] = {}
    contents = convert_messages(model, {"messages": context.get("messages") or []}, renamed, trace,
                                rules=TRANSFORM_16, blank_is_empty=True)
    return contents, renamed
