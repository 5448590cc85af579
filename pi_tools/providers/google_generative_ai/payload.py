"""Context → Gemini request object (`{model, contents, config}`) as pi-ai builds it for @google/genai.

pi-ai hands this object to ``onPayload`` before the SDK reshapes it into the HTTP body (see ``wire.py``), so it
is what Pi's ``before_provider_request`` hook sees. The message conversion is shared with google-vertex; the
thinking rules differ slightly per API, so they are parameterised by ``GoogleFlavor``.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.jsonjs import js_number_str, sanitize_surrogates
from pi_tools.providers.options import build_base_options, clamp_thinking_level
from pi_tools.providers.transform_messages import transform_messages

GOOGLE_LEVELS = ("minimal", "low", "medium", "high")

_GEMINI_MAJOR = re.compile(r"^gemini(?:-live)?-([0-9]+)")
_GEMINI3_PRO = re.compile(r"gemini-3(?:\.[0-9]+)?-pro")
_GEMINI3_FLASH = re.compile(r"gemini-3(?:\.[0-9]+)?-flash")
_GEMMA4 = re.compile(r"gemma-?4")
_MISSING = object()
_FLASH_ALIASES = frozenset({"gemini-flash-latest", "gemini-flash-lite-latest"})
_BASE64_SIGNATURE = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_TOOL_ID_DISALLOWED = re.compile(r"[^a-zA-Z0-9_-]")
# String.prototype.trim()'s whitespace set; Python's str.strip() differs (it keeps U+FEFF, drops U+001C-1F).
_JS_WHITESPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


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


def _is_blank(text: Any) -> bool:
    """``!text || text.trim() === ""`` for the string-or-missing values blocks carry."""
    if not text:
        return True
    return isinstance(text, str) and all(ch in _JS_WHITESPACE for ch in text)


def _sanitize(value: Any) -> str:
    """sanitizeSurrogates, failing the way ``value.replace`` fails in JS for a non-string."""
    if isinstance(value, str):
        return sanitize_surrogates(value)
    if value is None:
        raise PayloadError("Cannot read properties of undefined (reading 'replace')")
    raise PayloadError("text.replace is not a function")


def _js_join_piece(value: Any) -> str:
    """How ``Array.prototype.join`` renders one element."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_str(value)
    if isinstance(value, list):
        return ",".join(_js_join_piece(item) for item in value)
    return "[object Object]"


def normalize_tool_call_id(tool_call_id: str, model: Model, source_assistant: Any = None) -> str:
    """Ids sent to id-requiring models must match ``[a-zA-Z0-9_-]{1,64}``; other models get them untouched.

    The JS regex works on UTF-16 code units, so an astral character becomes two underscores.
    """
    if not requires_tool_call_id(model["id"]):
        return tool_call_id
    return _TOOL_ID_DISALLOWED.sub(_tool_id_replacement, tool_call_id)[:64]


def _tool_id_replacement(match: re.Match[str]) -> str:
    return "__" if ord(match.group(0)) > 0xFFFF else "_"


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
            parts.append({"text": _sanitize(item.get("text"))})
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
            if _is_blank(block.get("text")) and not signature:
                continue
            part: dict[str, Any] = {"text": _sanitize(block.get("text"))}
            if signature:
                part["thoughtSignature"] = signature
            parts.append(part)
        elif kind == "thinking":
            if same_model:
                signature = _kept_signature(same_model, block.get("thinkingSignature"))
                if _is_blank(block.get("thinking")) and not signature:
                    continue
                part = {"thought": True, "text": _sanitize(block.get("thinking"))}
                if signature:
                    part["thoughtSignature"] = signature
                parts.append(part)
            else:
                if _is_blank(block.get("thinking")):
                    continue
                parts.append({"text": _sanitize(block.get("thinking"))})
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
) -> dict[str, Any]:
    """Add one tool result; returns the user turn now holding function responses (for the next result)."""
    content = message.get("content") or []
    if not isinstance(content, list):
        raise PayloadError("msg.content.filter is not a function")
    texts: list[Any] = []
    images: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(block.get("text"))
        elif kind == "image" and traits.accepts_images:
            images.append(block)
    if all(isinstance(text, str) for text in texts):
        text_result = "\n".join(texts)
    else:
        text_result = "\n".join(_js_join_piece(text) for text in texts)
    has_text = len(text_result) > 0
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
    response["response"] = {"error": value} if message.get("isError") else {"output": value}
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


def convert_messages(model: Model, context: dict[str, Any]) -> list[dict[str, Any]]:
    """Gemini ``contents`` for a context, after pi-ai's cross-provider normalisation."""
    contents: list[dict[str, Any]] = []
    response_turn: dict[str, Any] | None = None
    traits = _ModelTraits.of(model)
    for message in transform_messages(context.get("messages") or [], model, normalize_tool_call_id):
        role = message.get("role")
        converted: dict[str, Any] | None
        if role == "user":
            converted = _user_content(message)
        elif role == "assistant":
            converted = _assistant_content(message, model, traits)
        elif role == "toolResult":
            response_turn = _append_tool_result(contents, message, traits, response_turn)
            continue
        else:
            continue
        if converted is not None:
            contents.append(converted)
    return contents


# --- tools ----------------------------------------------------------------------------------------------------


class _UnsupportedStrictSchema(Exception):
    """The schema uses a construct constrained sampling cannot express."""


_STRICT_UNSUPPORTED_KEYS = (
    "$ref", "$defs", "definitions", "allOf", "oneOf", "patternProperties", "dependentSchemas", "dependencies",
    "unevaluatedProperties", "propertyNames", "contains", "prefixItems", "not", "if", "then", "else",
)  # fmt: skip


def _is_structured(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    types = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    return "object" in types or "array" in types or "properties" in schema or "items" in schema


def _allows_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if ("const" in schema and schema["const"] is None) or (
        isinstance(schema.get("enum"), list) and None in schema["enum"]
    ):
        return True
    variants = schema.get("anyOf")
    return isinstance(variants, list) and any(_allows_null(v) for v in variants)


def _make_strict(schema: Any) -> None:
    """In-place port of pi-ai's strict-schema rewrite (every property required, nullable when optional)."""
    if not isinstance(schema, dict):
        raise _UnsupportedStrictSchema("boolean schemas are unsupported")
    for key in _STRICT_UNSUPPORTED_KEYS:
        if schema.get(key, _MISSING) is not _MISSING:
            raise _UnsupportedStrictSchema(f"{key} schemas are unsupported")
    if "anyOf" in schema:
        variants = schema["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise _UnsupportedStrictSchema("anyOf must contain at least one schema")
        for variant in variants:
            if _is_structured(variant):
                raise _UnsupportedStrictSchema("object and array unions are unsupported")
            _make_strict(variant)
    if "items" in schema:
        if isinstance(schema["items"], list):
            raise _UnsupportedStrictSchema("tuple schemas are unsupported")
        _make_strict(schema["items"])
    is_object = schema.get("type") == "object"
    if "properties" in schema and not is_object:
        raise _UnsupportedStrictSchema("properties require type object")
    if not is_object:
        return
    if "additionalProperties" in schema and schema["additionalProperties"] is not False:
        raise _UnsupportedStrictSchema("schema-valued or true additionalProperties is unsupported")
    if "properties" in schema and not isinstance(schema["properties"], dict):
        raise _UnsupportedStrictSchema("object properties must be a schema map")
    required_value = schema.get("required")
    if "required" in schema and (
        not isinstance(required_value, list) or any(not isinstance(k, str) for k in required_value)
    ):
        raise _UnsupportedStrictSchema("object required must be a string array")
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(required_value) if isinstance(required_value, list) else set()
    if any(key not in properties for key in required):
        raise _UnsupportedStrictSchema("required contains an unknown property")
    for key, prop in list(properties.items()):
        _make_strict(prop)
        if key not in required and not _allows_null(prop):
            properties[key] = {"anyOf": [prop, {"type": "null"}]}
    schema["required"] = list(properties)
    schema["additionalProperties"] = False


def make_strict_json_schema(schema: Any) -> dict[str, Any]:
    cloned = copy.deepcopy(schema)
    if not isinstance(cloned, dict):
        raise _UnsupportedStrictSchema("root schema must have type object")
    _make_strict(cloned)
    if cloned.get("type") != "object":
        raise _UnsupportedStrictSchema("root schema must have type object")
    return cloned


def resolve_strict_sampling(tool: dict[str, Any], supports_strict: bool) -> bool | None:
    """True when a ``json_schema`` constrained tool can be sent strict; raises when it must be and cannot."""
    config = tool.get("constrainedSampling")
    if not config or config.get("type") != "json_schema":
        return None
    name = tool.get("name")
    if supports_strict:
        try:
            make_strict_json_schema(tool.get("parameters"))
            return True
        except _UnsupportedStrictSchema as error:
            if config.get("strict") != "require":
                return None
            raise PayloadError(
                f'Tool "{name}" requires JSON-schema constrained sampling, but {error}.'
            ) from error
    if config.get("strict") == "require":
        raise PayloadError(
            f'Tool "{name}" requires JSON-schema constrained sampling, but strict tools are unsupported.'
        )
    return None


def convert_tools(tools: list[dict[str, Any]], supports_strict: bool) -> list[dict[str, Any]]:
    declarations: list[dict[str, Any]] = []
    for tool in tools:
        strict = resolve_strict_sampling(tool, supports_strict)
        parameters = make_strict_json_schema(tool.get("parameters")) if strict else tool.get("parameters")
        declaration: dict[str, Any] = {}
        if "name" in tool:
            declaration["name"] = tool["name"]
        if "description" in tool:
            declaration["description"] = tool["description"]
        if parameters is not None or "parameters" in tool:
            declaration["parametersJsonSchema"] = parameters
        declarations.append(declaration)
    return [{"functionDeclarations": declarations}]


def function_calling_mode(tools: list[dict[str, Any]], tool_choice: Any, supports_strict: bool) -> str | None:
    """``toolConfig.functionCallingConfig.mode``, or None when pi-ai leaves the choice to the API."""
    any_strict = any(resolve_strict_sampling(tool, supports_strict) is True for tool in tools)
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
        raise PayloadError(f"No API key for provider: {model['provider']}")
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
    """The ``{model, contents, config}`` object google-generative-ai passes to ``onPayload``.

    The registry routes google-vertex here too (one package per dialect), so Vertex models are handed on.
    """
    if model.get("api") == "google-vertex":
        from pi_tools.providers.google_generative_ai import vertex  # vertex builds on this module

        return vertex.build_payload(model, context, options)
    return build_request(model, context, options, GEMINI_API)
