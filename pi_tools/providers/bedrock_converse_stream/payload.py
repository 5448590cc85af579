"""Build the Bedrock ConverseStream command input exactly as pi-ai hands it to ``onPayload``.

Bedrock is stricter than Anthropic's own API (no empty text, one user turn for all tool results, only four
image formats), so pi-ai rewrites the history with placeholders and cache points; this module reproduces that.
Binary fields (image bytes, redacted reasoning) are ``Uint8Array`` in the reference; here they are written as
``{"$bytes": "<base64>"}`` like the conformance goldens, and ``wire`` turns them into plain base64 strings.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from pi_tools.js.access import block_type, for_of, js_prop, string_field, string_receiver
from pi_tools.js.strings import js_is_blank
from pi_tools.js.values import UNDEFINED, js_to_string, js_truthy
from pi_tools.providers.anthropic_messages.payload import MIN_ANSWER_TOKENS, NAN, has_thinking_budget
from pi_tools.providers.anthropic_messages.payload import (
    normalize_tool_call_id as _anthropic_normalize_tool_call_id,
)
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import json_schema_tool_parameters, resolve_json_schema_strict
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.options import (
    adjust_max_tokens_for_thinking,
    clamp_max_tokens_to_context,
    js_max,
    js_min,
    resolve_cache_retention,
)
from pi_tools.providers.provider_env import provider_env
from pi_tools.providers.sanitize import sanitize_surrogates
from pi_tools.providers.transform_messages import (
    TRANSFORM_085,
    TransformRules,
    split_error_tool_result_images,
    transform_messages,
)

Block = dict[str, Any]

EMPTY_TEXT_PLACEHOLDER = "<empty>"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
_IMAGE_FORMATS = {
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
}
_DEFAULT_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 16384, "max": 16384}
_SEPARATORS = re.compile(r"[\s_.:]+")
_BASE64_ALPHABET = re.compile(r"[A-Za-z0-9+/]*")
# atob() ignores ASCII whitespace (the WHATWG "forgiving-base64" rules).
_ATOB_WHITESPACE = str.maketrans("", "", "\t\n\x0c\r ")
# Node's DOMException texts for atob() input it cannot decode.
ATOB_INVALID_CHARACTER = "Invalid character"
ATOB_BAD_LENGTH = "The string to be decoded is not correctly encoded."


def normalize_tool_call_id(tool_call_id: str, model: Model | None = None, source: Any = None) -> str:
    """Bedrock applies the same ``[a-zA-Z0-9_-]{1,64}`` rule as Anthropic."""
    return _anthropic_normalize_tool_call_id(tool_call_id)


# --------------------------------------------------------------------------------------------------------
# Model classification (id and name both count: inference-profile ARNs do not name the model)
# --------------------------------------------------------------------------------------------------------


def _match_candidates(model: Model) -> list[str]:
    values = [str(model.get("id", ""))]
    if model.get("name"):
        values.append(str(model["name"]))
    candidates: list[str] = []
    for value in values:
        lower = value.lower()
        candidates.extend((lower, _SEPARATORS.sub("-", lower)))
    return candidates


def is_claude(model: Model) -> bool:
    model_id = str(model.get("id", "")).lower()
    name = str(model.get("name") or "").lower()
    return (
        "anthropic.claude" in model_id
        or "anthropic/claude" in model_id
        or "anthropic.claude" in name
        or "anthropic/claude" in name
        or "claude" in name
    )


def _any_candidate(model: Model, needles: tuple[str, ...]) -> bool:
    return any(needle in candidate for candidate in _match_candidates(model) for needle in needles)


def supports_adaptive_thinking(model: Model) -> bool:
    return _any_candidate(
        model, ("opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "fable-5")
    )


def _supports_native_xhigh(model: Model) -> bool:
    return _any_candidate(model, ("opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "fable-5"))


def supports_prompt_caching(model: Model, options: dict[str, Any]) -> bool:
    """Explicit cache points only for Claude generations that accept them (or when forced for opaque ARNs)."""
    candidates = _match_candidates(model)
    if not any("claude" in candidate for candidate in candidates):
        return provider_env("AWS_BEDROCK_FORCE_CACHE", options) == "1"
    return _any_candidate(
        model, ("fable-5", "opus-5", "sonnet-5", "-4-", "claude-3-7-sonnet", "claude-3-5-haiku")
    )


def configured_region(options: dict[str, Any]) -> str | None:
    """The region from the environment; ``streamSimple`` never forwards a ``region`` option, so none is read."""
    return provider_env("AWS_REGION", options) or provider_env("AWS_DEFAULT_REGION", options)


def _is_gov_cloud(model: Model, options: dict[str, Any]) -> bool:
    region = configured_region(options)
    if region and region.lower().startswith("us-gov-"):
        return True
    model_id = str(model.get("id", "")).lower()
    return model_id.startswith("us-gov.") or model_id.startswith("arn:aws-us-gov:")


# --------------------------------------------------------------------------------------------------------
# Binary fields
# --------------------------------------------------------------------------------------------------------


def atob(data: str) -> bytes:
    """Decode like Node's ``atob``: lenient about whitespace and padding, strict about the alphabet.

    Raises ``ValueError`` with Node's own message, which is what a failed request reports.
    """
    text = data.translate(_ATOB_WHITESPACE)
    body = text.rstrip("=")
    padding = len(text) - len(body)
    if padding > 2 or _BASE64_ALPHABET.fullmatch(body) is None:
        raise ValueError(ATOB_INVALID_CHARACTER)
    if len(text) % 4:
        if padding:
            raise ValueError(ATOB_INVALID_CHARACTER)
        remainder = len(text) % 4
    else:
        remainder = len(body) % 4
    if remainder == 1:
        raise ValueError(ATOB_BAD_LENGTH)
    return binascii.a2b_base64(body + "=" * (-len(body) % 4))


def bytes_value(raw: bytes) -> dict[str, str]:
    """How a ``Uint8Array`` appears in a payload dict (the goldens' convention)."""
    return {"$bytes": base64.b64encode(raw).decode("ascii")}


def _image_block(block: Block) -> Block:
    mime = block.get("mimeType")
    image_format = _IMAGE_FORMATS.get(mime) if isinstance(mime, str) else None
    if image_format is None:
        raise PayloadError(f"Unknown image type: {js_to_string(block.get('mimeType', UNDEFINED))}")
    try:
        raw = atob(js_to_string(block.get("data", UNDEFINED)))  # atob converts as String() does
    except ValueError as error:
        raise PayloadError(str(error)) from None
    return {"source": {"bytes": bytes_value(raw)}, "format": image_format}


def _redacted_content(signature: Any) -> bytes | None:
    if not signature or not isinstance(signature, str):
        return None
    try:
        return atob(signature)
    except ValueError:
        return None


# --------------------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------------------


def _text_block(text: Any) -> Block | None:
    """Bedrock rejects blank text blocks, so they are dropped (checked after surrogate clean-up). A stored text
    that is not a string fails in sanitizeSurrogates' `text.replace`, with V8's words."""
    cleaned = sanitize_surrogates(string_receiver(text, "text", "replace"))
    return None if js_is_blank(cleaned) else {"text": cleaned}


def _required_text_block(text: str) -> Block:
    return _text_block(text) or {"text": EMPTY_TEXT_PLACEHOLDER}


def _strip_empty_keys(value: Any) -> Any:
    """Bedrock documents may not hold empty member names; pi-ai drops them at every depth (a copy, made with
    an explicit stack: stored arguments may nest deeper than Python recurses)."""
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if key == "" and isinstance(source, dict):
                continue
            if isinstance(item, (dict, list)):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy))
                item = copy
            if isinstance(target, dict):
                target[key] = item
            else:
                target.append(item)
    return root


def _tool_result_content(content: list[Any] | str) -> list[Block]:
    """convertToolResultContent walks the content with for...of: a string goes by characters, which have no
    `text` (sanitizeSurrogates then throws), and a number, boolean or object is not iterable."""
    blocks: list[Block] = []
    block: Any
    for block in content:
        if block_type(block) == "image":
            blocks.append({"image": _image_block(block)})
        else:
            text = _text_block(string_field(block, "text"))
            if text is not None:
                blocks.append(text)
    return blocks or [{"text": EMPTY_TEXT_PLACEHOLDER}]


def _tool_result(message: dict[str, Any]) -> Block:
    result = {
        "toolUseId": message.get("toolCallId"),
        "content": _tool_result_content(for_of(message.get("content"), "content")),
        "status": "error" if js_truthy(message.get("isError")) else "success",
    }
    if "toolCallId" not in message:
        del result["toolUseId"]  # undefined: JSON leaves the member out
    return {"toolResult": result}


def _convert_user(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    blocks: list[Block] = []
    if isinstance(content, str):
        blocks.append(_required_text_block(content))
    else:
        items: Any = () if content is None else for_of(content, "m.content")  # (a string was taken above)
        for item in items:
            kind = item.get("type")
            if kind == "text":
                text = _text_block(item.get("text", ""))
                if text is not None:
                    blocks.append(text)
            elif kind == "image":
                blocks.append({"image": _image_block(item)})
        if not blocks:
            blocks.append({"text": EMPTY_TEXT_PLACEHOLDER})
    return {"role": "user", "content": blocks}


def _thinking_block(block: Block, signatures_supported: bool) -> Block | None:
    if block.get("redacted"):
        raw = _redacted_content(block.get("thinkingSignature"))
        return {"reasoningContent": {"redactedContent": bytes_value(raw)}} if raw else None
    thinking = sanitize_surrogates(string_receiver(js_prop(block, "thinking"), "text", "replace"))
    if js_is_blank(thinking):
        return None
    if not signatures_supported:
        return {"reasoningContent": {"reasoningText": {"text": thinking}}}
    signature = block.get("thinkingSignature")
    if not js_truthy(signature) or js_is_blank(string_receiver(signature, "c.thinkingSignature", "trim")):
        return {"text": thinking}
    return {"reasoningContent": {"reasoningText": {"text": thinking, "signature": signature}}}


def _convert_assistant(message: dict[str, Any], signatures_supported: bool) -> dict[str, Any] | None:
    blocks: list[Block] = []
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        converted: Block | None = None
        if kind == "text":
            converted = _text_block(js_prop(block, "text"))
        elif kind == "toolCall":
            tool_use: Block = {"toolUseId": block.get("id"), "name": block.get("name")}
            for member, key in (("toolUseId", "id"), ("name", "name")):
                if key not in block:
                    del tool_use[member]  # undefined: JSON leaves the member out
            if "arguments" in block:
                tool_use["input"] = _strip_empty_keys(block["arguments"])
            converted = {"toolUse": tool_use}
        elif kind == "thinking":
            converted = _thinking_block(block, signatures_supported)
        if converted is not None:
            blocks.append(converted)
    return {"role": "assistant", "content": blocks} if blocks else None


def _cache_point(retention: str) -> Block:
    point: dict[str, Any] = {"type": "default"}
    if retention == "long":
        point["ttl"] = "1h"
    return {"cachePoint": point}


def convert_messages(
    model: Model, context: dict[str, Any], retention: str, caching: bool, renamed: dict[str, str] | None = None,
    rules: TransformRules = TRANSFORM_085, split_error_images: bool = False,
) -> list[dict[str, Any]]:
    """Converse messages for a context (the tool-call ids pi-ai's normalisation renamed go to `renamed`).
    `rules` and `split_error_images` are what a later Pi changed (transformMessages; the images of an error tool
    result sent after all the turn's tool results)."""
    messages = transform_messages(context.get("messages") or [], model, normalize_tool_call_id, id_map=renamed,
                                  rules=rules)
    signatures_supported = is_claude(model)
    result: list[dict[str, Any]] = []
    index = 0
    count = len(messages)
    while index < count:
        message = messages[index]
        role = message.get("role")
        if role == "user":
            result.append(_convert_user(message))
        elif role == "assistant":
            assistant = _convert_assistant(message, signatures_supported)
            if assistant is not None:
                result.append(assistant)
        elif role == "toolResult":
            results: list[Block] = []
            error_images: list[Block] = []
            while index < count and messages[index].get("role") == "toolResult":
                tool_message = messages[index]
                split = split_error_tool_result_images(tool_message) if split_error_images else None
                if split is None:
                    results.append(_tool_result(tool_message))
                else:
                    content, caption, images = split
                    results.append(_tool_result({**tool_message, "content": content}))
                    error_images.append({"text": caption})
                    error_images.extend({"image": _image_block(image)} for image in images)
                index += 1
            result.append({"role": "user", "content": results + error_images if error_images else results})
            continue
        index += 1
    if retention != "none" and caching and result and result[-1]["role"] == "user":
        result[-1]["content"].append(_cache_point(retention))
    return result


def build_history(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The messages of a conversation's first part (see providers.split), with the tool-call ids it renamed:
    what convert_messages makes of them inside the whole conversation, minus the cache point only the last user
    message gets. (A user message always converts to one, so nothing after it joins anything before it.)"""
    renamed: dict[str, str] = {}
    return convert_messages(model, context, "none", False, renamed), renamed


def _system_blocks(system_prompt: str | None, retention: str, caching: bool) -> list[Block] | None:
    if not system_prompt:
        return None
    blocks: list[Block] = [{"text": sanitize_surrogates(system_prompt)}]
    if retention != "none" and caching:
        blocks.append(_cache_point(retention))
    return blocks


# --------------------------------------------------------------------------------------------------------
# Tools and reasoning
# --------------------------------------------------------------------------------------------------------


def _tool_config(
    tools: list[dict[str, Any]] | None, tool_choice: Any, supports_strict: bool
) -> dict[str, Any] | None:
    if not tools or tool_choice == "none":
        return None
    specs: list[Block] = []
    for tool in tools:
        strict = resolve_json_schema_strict(tool, supports_strict)
        parameters = json_schema_tool_parameters(tool, strict)
        spec: dict[str, Any] = {"name": tool.get("name")}
        if "description" in tool:
            spec["description"] = tool["description"]
        spec["inputSchema"] = {"json": parameters}
        if strict:
            spec["strict"] = True
        specs.append({"toolSpec": spec})
    config: dict[str, Any] = {"tools": specs}
    if tool_choice == "auto":
        config["toolChoice"] = {"auto": {}}
    elif tool_choice == "any":
        config["toolChoice"] = {"any": {}}
    elif isinstance(tool_choice, dict) and tool_choice.get("type") == "tool":
        config["toolChoice"] = {"tool": {"name": tool_choice.get("name")}}
    return config


def _effort_for_level(model: Model, level: str) -> str:
    if level == "xhigh" and _supports_native_xhigh(model):
        return "xhigh"
    mapped = (model.get("thinkingLevelMap") or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level, "high")


def _clamp_level(level: str) -> str:
    return "high" if level in ("xhigh", "max") else level


def _reasoning_fields(model: Model, options: dict[str, Any]) -> dict[str, Any] | None:
    """``additionalModelRequestFields``: Claude thinking settings, nothing for other model families."""
    level = options.get("reasoning")
    if not level or not model.get("reasoning") or not is_claude(model):
        return None
    display = None if _is_gov_cloud(model, options) else (options.get("thinkingDisplay") or "summarized")
    thinking: dict[str, Any]
    if supports_adaptive_thinking(model):
        thinking = {"type": "adaptive"}
        if display is not None:
            thinking["display"] = display
        return {"thinking": thinking, "output_config": {"effort": _effort_for_level(model, level)}}
    budgets = options.get("thinkingBudgets") or {}
    budget = budgets.get(_clamp_level(level))
    if budget is None:
        budget = _DEFAULT_BUDGETS.get(level)
    thinking = {"type": "enabled"}
    if budget is not None:
        thinking["budget_tokens"] = budget
    if display is not None:
        thinking["display"] = display
    fields: dict[str, Any] = {"thinking": thinking}
    if options.get("interleavedThinking", True) is not False:
        fields["anthropic_beta"] = [INTERLEAVED_THINKING_BETA]
    return fields


def _resolve_request_options(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> dict[str, Any]:
    """What ``streamSimple`` hands to ``stream``: clamped max tokens and, for budget Claude models, the budget."""
    model_max: int = model["maxTokens"]
    requested = options.get("maxTokens")
    base_max = clamp_max_tokens_to_context(model, context, model_max if requested is None else requested)
    level = options.get("reasoning")
    resolved: dict[str, Any] = {"maxTokens": base_max}
    if not level:
        return resolved
    resolved["reasoning"] = level
    budgets = options.get("thinkingBudgets")
    if budgets is not None:
        resolved["thinkingBudgets"] = budgets
    if not is_claude(model) or supports_adaptive_thinking(model):
        return resolved
    if not has_thinking_budget(level, budgets):
        # pi-ai's arithmetic on an undefined budget yields NaN for the cap and the budget alike.
        resolved["maxTokens"] = NAN
        resolved["thinkingBudgets"] = {**(budgets or {}), _clamp_level(level): NAN}
        return resolved
    adjusted_max, budget = adjust_max_tokens_for_thinking(base_max, model_max, level, budgets)
    max_tokens = clamp_max_tokens_to_context(model, context, adjusted_max)
    resolved["maxTokens"] = max_tokens
    resolved["thinkingBudgets"] = {
        **(budgets or {}),
        _clamp_level(level): js_min(budget, js_max(0, max_tokens - MIN_ANSWER_TOKENS)),
    }
    return resolved


# --------------------------------------------------------------------------------------------------------
# Payload
# --------------------------------------------------------------------------------------------------------

# Caller options ``streamSimple`` forwards (``buildBaseOptions`` plus ``toolChoice``) that the command uses.
_FORWARDED_OPTIONS = ("temperature", "apiKey", "cacheRetention", "sessionId", "headers", "env", "toolChoice")


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The ConverseStream command input pi-ai's bedrock ``streamSimple`` passes to ``onPayload``."""
    forwarded = {key: options[key] for key in _FORWARDED_OPTIONS if options.get(key) is not None}
    forwarded.update(_resolve_request_options(model, context, options))
    return build_command_input(model, context, forwarded)


def build_command_input(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """pi-ai's ``commandInput`` for already-resolved stream options."""
    retention = resolve_cache_retention(options)
    caching = supports_prompt_caching(model, options)
    max_tokens = options.get("maxTokens")
    if max_tokens is None and is_claude(model):
        max_tokens = model.get("maxTokens")
    inference: dict[str, Any] = {}
    if max_tokens is not None:
        inference["maxTokens"] = max_tokens
    if options.get("temperature") is not None:
        inference["temperature"] = options["temperature"]
    command: dict[str, Any] = {
        "modelId": model.get("id"),
        "messages": convert_messages(model, context, retention, caching),
    }
    system = _system_blocks(context.get("systemPrompt"), retention, caching)
    if system is not None:
        command["system"] = system
    command["inferenceConfig"] = inference
    supports_strict = bool((model.get("compat") or {}).get("supportsStrictMode", False))
    tool_config = _tool_config(context.get("tools"), options.get("toolChoice"), supports_strict)
    if tool_config is not None:
        command["toolConfig"] = tool_config
    reasoning = _reasoning_fields(model, options)
    if reasoning is not None:
        command["additionalModelRequestFields"] = reasoning
    if options.get("requestMetadata") is not None:
        command["requestMetadata"] = options["requestMetadata"]
    return command
