"""Context → Gemini request object (`{model, contents, config}`) as pi-ai builds it for @google/genai.

pi-ai hands this object to ``onPayload`` before the SDK reshapes it into the HTTP body (see ``wire.py``), so it
is what Pi's ``before_provider_request`` hook sees. The message conversion is shared with google-vertex; the
thinking rules differ slightly per API, so they are parameterised by ``GoogleFlavor``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from pi_tools.js.access import block_type, copy_defined, js_join_piece, require_string, string_receiver
from pi_tools.js.strings import js_is_blank, js_trim
from pi_tools.js.values import UNDEFINED, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import json_schema_tool_parameters, resolve_json_schema_strict
from pi_tools.providers.errors import PayloadError, missing_api_key
from pi_tools.providers.options import build_base_options, clamp_thinking_level
from pi_tools.providers.sanitize import sanitize_id_chars, sanitize_surrogates
from pi_tools.providers.transform_messages import TRANSFORM_085, TransformRules, transform_messages

if TYPE_CHECKING:
    from pi_tools.providers.split import ContentTrace

GOOGLE_LEVELS = ("minimal", "low", "medium", "high")

_GEMINI_MAJOR = re.compile(r"^gemini(?:-live)?-([0-9]+)")
_GEMINI3_PRO = re.compile(r"gemini-3(?:\.[0-9]+)?-pro")
_GEMINI3_FLASH = re.compile(r"gemini-3(?:\.[0-9]+)?-flash")
_GEMMA4 = re.compile(r"gemma-?4")
_MISSING = object()
_FLASH_ALIASES = frozenset({"gemini-flash-latest", "gemini-flash-lite-latest"})
_BASE64_SIGNATURE = re.compile(r"[A-Za-z0-9+/]+={0,2}")
@dataclass(frozen=True)
class GoogleFlavor:
    """What google-generative-ai and google-vertex do differently when building the same request."""

    api: str
    gemma4_levels: bool  # only the Gemini API adapter knows Gemma 4's level-based thinking
    flash_lite_budgets: bool  # only the Gemini API adapter has a 2.5-flash-lite budget table
    requires_api_key: bool


GEMINI_API = GoogleFlavor(
    "google-generative-ai", gemma4_levels=True, flash_lite_budgets=True, requires_api_key=True
)


# --- model families -------------------------------------------------------------------------------------------


def gemini_major_version(model_id: str) -> int | None:
    match = _GEMINI_MAJOR.match(model_id.lower())
    return int(match.group(1)) if match else None


def requires_tool_call_id(model_id: str) -> bool:
    """Gemini 3+ (and Claude / gpt-oss behind Google endpoints) reject function calls without ids."""
    major = gemini_major_version(model_id)
    return (
        model_id.startswith("claude-")
        or model_id.startswith("gpt-oss-")
        or (major is not None and major >= 3)
    )


_requires_tool_call_id_of = cache(requires_tool_call_id)
"""requires_tool_call_id of a string id, asked for every tool call of a conversation (one regex match each)."""


def supports_strict_tool_sampling(model_id: str) -> bool:
    major = gemini_major_version(model_id)
    return major is not None and major >= 3


def _supports_multimodal_function_response(model_id: str) -> bool:
    major = gemini_major_version(model_id)
    return major >= 3 if major is not None else True


def is_gemini3_pro(model_id: str) -> bool:
    return _GEMINI3_PRO.search(model_id.lower()) is not None


def is_gemini3_flash(model_id: str) -> bool:
    lowered = model_id.lower()
    return _GEMINI3_FLASH.search(lowered) is not None or lowered in _FLASH_ALIASES


def is_gemma4(model_id: str) -> bool:
    return _GEMMA4.search(model_id.lower()) is not None


# --- small JS-semantics helpers -------------------------------------------------------------------------------


def _is_blank(text: Any, expression: str) -> bool:
    """``!text || text.trim() === ""``: a truthy value that is not a string (a number, an object, an array)
    fails in ``trim`` with V8's words (``expression`` is the source text V8 names)."""
    return not js_truthy(text) or js_is_blank(string_receiver(text, expression, "trim"))


def _sanitize(value: Any) -> str:
    """sanitizeSurrogates, failing the way ``value.replace`` fails in JS for a non-string."""
    return sanitize_surrogates(require_string(value, "text", "replace"))


def normalize_tool_call_id(tool_call_id: str, model: Model, source_assistant: Any = None) -> str:
    """Ids sent to id-requiring models must match ``[a-zA-Z0-9_-]{1,64}``; other models get them untouched.

    The JS regex works on UTF-16 code units, so an astral character becomes two underscores.
    """
    model_id = model["id"]
    if not (_requires_tool_call_id_of(model_id) if type(model_id) is str else requires_tool_call_id(model_id)):
        return tool_call_id
    return sanitize_id_chars(string_receiver(tool_call_id, "id", "replace"))[:64]


def _valid_signature(signature: Any) -> bool:
    if not signature or not isinstance(signature, str):
        return False
    if len(signature) % 4 != 0:
        return False
    return _BASE64_SIGNATURE.fullmatch(signature) is not None


def _kept_signature(same_model: bool, signature: Any) -> str | None:
    """Thought signatures are opaque to other models and must be base64, so only those survive a replay."""
    return signature if same_model and _valid_signature(signature) else None


def _inline_data(block: Any) -> dict[str, Any]:
    blob: dict[str, Any] = {}
    if not isinstance(block, dict):
        return {"inlineData": blob}
    if "mimeType" in block:
        blob["mimeType"] = block["mimeType"]
    if "data" in block:
        blob["data"] = block["data"]
    return {"inlineData": blob}


# --- messages -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ModelTraits:
    """Per-model answers the converter needs for every message, computed once per request."""

    send_ids: bool
    accepts_images: bool
    nested_images: bool  # images ride inside functionResponse.parts instead of a follow-up user turn

    @classmethod
    def of(cls, model: Model) -> _ModelTraits:
        return cls(
            send_ids=requires_tool_call_id(model["id"]),
            accepts_images="image" in (model.get("input") or []),
            nested_images=_supports_multimodal_function_response(model["id"]),
        )


def _user_content(message: dict[str, Any]) -> dict[str, Any] | None:
    content = message.get("content")
    if isinstance(content, str):
        return {"role": "user", "parts": [{"text": sanitize_surrogates(content)}]}
    parts: list[dict[str, Any]] = []
    for item in content or []:
        if isinstance(item, dict) and item.get("type") == "text":
            parts.append({"text": _sanitize(item.get("text", UNDEFINED))})
        else:
            parts.append(_inline_data(item))
    if not parts:
        return None
    return {"role": "user", "parts": parts}


def _assistant_content(message: dict[str, Any], model: Model, traits: _ModelTraits) -> dict[str, Any] | None:
    same_model = message.get("provider") == model["provider"] and message.get("model") == model["id"]
    send_ids = traits.send_ids
    parts: list[dict[str, Any]] = []
    for block in message.get("content") or []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            signature = _kept_signature(same_model, block.get("textSignature"))
            if _is_blank(block.get("text"), "block.text") and not signature:
                continue
            part: dict[str, Any] = {"text": _sanitize(block.get("text", UNDEFINED))}
            if signature:
                part["thoughtSignature"] = signature
            parts.append(part)
        elif kind == "thinking":
            if same_model:
                signature = _kept_signature(same_model, block.get("thinkingSignature"))
                if _is_blank(block.get("thinking"), "block.thinking") and not signature:
                    continue
                part = {"thought": True, "text": _sanitize(block.get("thinking", UNDEFINED))}
                if signature:
                    part["thoughtSignature"] = signature
                parts.append(part)
            else:
                if _is_blank(block.get("thinking"), "block.thinking"):
                    continue
                parts.append({"text": _sanitize(block.get("thinking", UNDEFINED))})
        elif kind == "toolCall":
            signature = _kept_signature(same_model, block.get("thoughtSignature"))
            call: dict[str, Any] = {}
            if "name" in block:
                call["name"] = block["name"]
            arguments = block.get("arguments")
            call["args"] = arguments if arguments is not None else {}
            if send_ids and "id" in block:
                call["id"] = block["id"]
            part = {"functionCall": call}
            if signature:
                part["thoughtSignature"] = signature
            parts.append(part)
    if not parts:
        return None
    return {"role": "model", "parts": parts}


def _append_tool_result(
    contents: list[dict[str, Any]],
    message: dict[str, Any],
    traits: _ModelTraits,
    response_turn: dict[str, Any] | None,
    blank_is_empty: bool = False,
) -> dict[str, Any]:
    """Add one tool result; returns the user turn now holding function responses (for the next result).
    `blank_is_empty`: whitespace-only text counts as no text (Pi 1.6)."""
    content = message.get("content")  # transformMessages made a missing one []; "" is a string too
    if not isinstance(content, list):
        raise PayloadError("msg.content.filter is not a function")
    texts: list[Any] = []
    images: list[dict[str, Any]] = []
    for block in content:
        kind = block_type(block)  # (a null item fails in pi-ai's `c.type`, as in Pi)
        if kind == "text":
            texts.append(block.get("text"))
        elif kind == "image" and traits.accepts_images:
            images.append(block)
    if all(isinstance(text, str) for text in texts):
        text_result = "\n".join(texts)
    else:
        text_result = "\n".join(js_join_piece(text) for text in texts)
    has_text = len(js_trim(text_result) if blank_is_empty else text_result) > 0
    has_images = len(images) > 0
    nested_images = traits.nested_images

    if has_text:
        value = sanitize_surrogates(text_result)
    else:
        value = "(see attached image)" if has_images else ""
    image_parts = [_inline_data(image) for image in images]

    response: dict[str, Any] = {}
    if "toolName" in message:
        response["name"] = message["toolName"]
    response["response"] = {"error": value} if js_truthy(message.get("isError")) else {"output": value}
    if has_images and nested_images:
        response["parts"] = image_parts
    if traits.send_ids and "toolCallId" in message:
        response["id"] = message["toolCallId"]
    part = {"functionResponse": response}

    # All function responses of one batch must share a single user turn (Cloud Code Assist insists on it).
    # Only a turn created here can hold function responses, so identity replaces rescanning its parts.
    if contents and contents[-1] is response_turn and response_turn is not None:
        response_turn["parts"].append(part)
    else:
        response_turn = {"role": "user", "parts": [part]}
        contents.append(response_turn)

    if has_images and not nested_images:
        contents.append({"role": "user", "parts": [{"text": "Tool result image:"}, *image_parts]})
    return response_turn


def convert_messages(model: Model, context: dict[str, Any], renamed: dict[str, str] | None = None,
                     trace: ContentTrace | None = None, rules: TransformRules = TRANSFORM_085,
                     blank_is_empty: bool = False) -> list[dict[str, Any]]:
    """Gemini ``contents`` for a context, after pi-ai's cross-provider normalisation (whose renamed tool-call ids
    go to `renamed`); with `trace`, where each transformed message went (see build_history_traced). `rules` and
    `blank_is_empty` are what a later Pi changed (transformMessages, whitespace-only tool output)."""
    contents: list[dict[str, Any]] = []
    response_turn: dict[str, Any] | None = None
    traits = _ModelTraits.of(model)
    transformed = transform_messages(context.get("messages") or [], model, normalize_tool_call_id, id_map=renamed,
                                     synthetic=None if trace is None else trace.synthetic, rules=rules)
    places = None
    if trace is not None:
        trace.transformed, places = transformed, trace.places
        trace.api = GEMINI_API.api  # the places are in Gemini's terms, whichever Gemini API builds them
    for message in transformed:
        role = message.get("role")
        converted: dict[str, Any] | None
        if role == "user":
            converted = _user_content(message)
        elif role == "assistant":
            converted = _assistant_content(message, model, traits)
        elif role == "toolResult":
            response_turn = _append_tool_result(contents, message, traits, response_turn, blank_is_empty)
            if places is not None:  # where it went: (its response turn, its part there, its images' own content
                # or -1); written out here, as it runs once per tool result of every traced part
                last = len(contents) - 1
                if contents[last] is response_turn:
                    places.append((last, len(response_turn["parts"]) - 1, -1))
                else:
                    places.append((last - 1, len(response_turn["parts"]) - 1, last))
            continue
        else:
            if places is not None:
                places.append(-1)
            continue
        if converted is not None:
            contents.append(converted)
        if places is not None:
            places.append(len(contents) - 1 if converted is not None else -1)
    return contents


def build_history(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The ``contents`` of a conversation's first part (see providers.split), with the tool-call ids it renamed.

    Nothing in ``contents`` depends on what follows a user message, except that a tool result right after a user
    message that converts to nothing joins the function responses before it (see starts_by_continuing)."""
    renamed: dict[str, str] = {}
    return convert_messages(model, context, renamed), renamed


def build_history_traced(model: Model, context: dict[str, Any], options: dict[str, Any],
                         trace: ContentTrace) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """build_history, recording in `trace` where each transformed message went: per message, the index of the
    content it made (-1: none), or for a tool result (its response turn's index, its part's index, the index of
    its "Tool result image:" content or -1)."""
    renamed: dict[str, str] = {}
    return convert_messages(model, context, renamed, trace), renamed


def starts_by_continuing(contents: list[dict[str, Any]]) -> bool:
    """Whether these contents open with function responses, which the whole conversation may have added to the
    user turn before them."""
    return bool(contents) and any("functionResponse" in part for part in contents[0].get("parts") or ())


# --- tools ----------------------------------------------------------------------------------------------------


def convert_tools(tools: list[dict[str, Any]], supports_strict: bool) -> list[dict[str, Any]]:
    declarations: list[dict[str, Any]] = []
    for tool in tools:
        strict = resolve_json_schema_strict(tool, supports_strict)
        parameters = json_schema_tool_parameters(tool, strict)
        declaration = copy_defined({}, tool, "name", "description")
        if parameters is not None or "parameters" in tool:
            declaration["parametersJsonSchema"] = parameters
        declarations.append(declaration)
    return [{"functionDeclarations": declarations}]


def function_calling_mode(tools: list[dict[str, Any]], tool_choice: Any, supports_strict: bool) -> str | None:
    """``toolConfig.functionCallingConfig.mode``, or None when pi-ai leaves the choice to the API."""
    any_strict = any(resolve_json_schema_strict(tool, supports_strict) is True for tool in tools)
    if tool_choice in ("none", "any"):
        return str(tool_choice).upper()
    if any_strict:
        return "VALIDATED"
    if tool_choice:
        return "AUTO"
    return None


# --- thinking -------------------------------------------------------------------------------------------------


def resolve_google_thinking_level(model: Model, level: str) -> str:
    """A pi thinking level (after the model's level map) as one of Google's four effort levels."""
    if level == "off":
        return "high"
    level_map = model.get("thinkingLevelMap") or {}
    mapped = level_map.get(level, _MISSING)
    resolved = mapped.lower() if isinstance(mapped, str) else level
    if resolved in GOOGLE_LEVELS:
        return resolved
    shown = "undefined" if mapped is _MISSING else "null" if mapped is None else str(mapped)
    raise PayloadError(
        f"Unsupported Google thinking level mapping for {model['provider']}/{model['id']}: {level} -> {shown}"
    )


def _uses_thinking_level(model_id: str, flavor: GoogleFlavor) -> bool:
    return (
        is_gemini3_pro(model_id)
        or is_gemini3_flash(model_id)
        or (flavor.gemma4_levels and is_gemma4(model_id))
    )


def _thinking_level(effort: str, model_id: str, flavor: GoogleFlavor) -> str:
    if is_gemini3_pro(model_id):
        return "LOW" if effort in ("minimal", "low") else "HIGH"
    if flavor.gemma4_levels and is_gemma4(model_id):
        return "MINIMAL" if effort in ("minimal", "low") else "HIGH"
    return effort.upper()


_BUDGETS_25_PRO = {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}
_BUDGETS_25_FLASH_LITE = {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}
_BUDGETS_25_FLASH = {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}


def _thinking_budget(model_id: str, effort: str, custom: Any, flavor: GoogleFlavor) -> Any:
    if isinstance(custom, dict) and effort in custom:
        return custom[effort]
    if "2.5-pro" in model_id:
        return _BUDGETS_25_PRO[effort]
    if flavor.flash_lite_budgets and "2.5-flash-lite" in model_id:
        return _BUDGETS_25_FLASH_LITE[effort]
    if "2.5-flash" in model_id:
        return _BUDGETS_25_FLASH[effort]
    return -1


def _disabled_thinking_config(model_id: str, flavor: GoogleFlavor) -> dict[str, Any]:
    """Gemini 3 cannot switch thinking off, so "off" asks for the lowest level without returning thoughts."""
    if is_gemini3_pro(model_id):
        return {"thinkingLevel": "LOW"}
    if is_gemini3_flash(model_id) or (flavor.gemma4_levels and is_gemma4(model_id)):
        return {"thinkingLevel": "MINIMAL"}
    return {"thinkingBudget": 0}


def _thinking_config(model: Model, options: dict[str, Any], flavor: GoogleFlavor) -> dict[str, Any] | None:
    if not model.get("reasoning"):
        return None
    reasoning = options.get("reasoning")
    model_id = model["id"]
    if not reasoning:
        return _disabled_thinking_config(model_id, flavor)
    effort = resolve_google_thinking_level(model, clamp_thinking_level(model, reasoning))
    if _uses_thinking_level(model_id, flavor):
        return {"includeThoughts": True, "thinkingLevel": _thinking_level(effort, model_id, flavor)}
    budget = _thinking_budget(model_id, effort, options.get("thinkingBudgets"), flavor)
    return {"includeThoughts": True, "thinkingBudget": budget}


# --- request --------------------------------------------------------------------------------------------------


def build_request(
    model: Model, context: dict[str, Any], options: dict[str, Any], flavor: GoogleFlavor
) -> dict[str, Any]:
    """pi-ai's streamSimple → buildParams for either Google API."""
    options = options or {}
    if flavor.requires_api_key and not options.get("apiKey"):
        raise missing_api_key(model)
    base = build_base_options(model, context, options)
    thinking = _thinking_config(model, options, flavor)

    contents = convert_messages(model, context)

    config: dict[str, Any] = {}
    if options.get("temperature") is not None:
        config["temperature"] = options["temperature"]
    max_tokens = base.get("maxTokens")
    if max_tokens is not None:
        config["maxOutputTokens"] = max_tokens
    system_prompt = context.get("systemPrompt")
    if system_prompt:
        config["systemInstruction"] = _sanitize(system_prompt)
    tools = context.get("tools") or []
    supports_strict = supports_strict_tool_sampling(model["id"])
    mode = function_calling_mode(tools, options.get("toolChoice"), supports_strict) if tools else None
    if tools:
        config["tools"] = convert_tools(tools, supports_strict)
    if mode is not None:
        config["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    if thinking is not None:
        config["thinkingConfig"] = thinking

    return {"model": model["id"], "contents": contents, "config": config}


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The ``{model, contents, config}`` object google-generative-ai passes to ``onPayload`` (google-vertex's,
    in providers.google_vertex, is built by the same `build_request` with Vertex's flavour)."""
    return build_request(model, context, options, GEMINI_API)
