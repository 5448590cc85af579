"""Build the Anthropic Messages request exactly as pi-ai's ``streamSimple`` hands it to ``onPayload``.

The payload decides prompt-cache hits, thinking budgets and which history the model sees, so every rule of
the reference is reproduced here, including the odd ones (blank text dropped, thinking without a signature
degraded to text, string tool results, cache markers only on a trailing *user* message). Key order follows
the reference's insertion order because callers compare and hash the serialised body.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from pi_tools.js.access import (
    block_field,
    block_type,
    content_array,
    js_join_piece,
    js_prop,
    string_field,
    string_receiver,
)
from pi_tools.js.strings import js_is_blank, js_trim
from pi_tools.js.values import UNDEFINED, js_set_key, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import (
    json_schema_tool_parameters,
    resolve_json_schema_strict,
)
from pi_tools.providers.constrained_sampling import (
    make_strict_json_schema as make_strict_json_schema,  # re-exported: tests and callers reach it here
)
from pi_tools.providers.errors import missing_api_key
from pi_tools.providers.options import (
    DEFAULT_THINKING_BUDGETS,
    adjust_max_tokens_for_thinking,
    clamp_max_tokens_to_context,
    js_max,
    js_min,
    resolve_cache_retention,
)
from pi_tools.providers.sanitize import sanitize_id_chars, sanitize_surrogates
from pi_tools.providers.transform_messages import transform_messages

Block = dict[str, Any]

CLAUDE_CODE_VERSION = "2.1.251"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
OAUTH_TOKEN_MARKER = "sk-ant-oat"
MIN_ANSWER_TOKENS = 1024
NAN = float("nan")

FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
SERVER_SIDE_FALLBACK_BETA = "server-side-fallback-2026-07-01"
MID_CONVERSATION_OUTPUT_CONFIG_BETA = "mid-conversation-output-config-2026-07-01"
THINKING_BINDING_CONTROLS_BETA = "thinking-binding-controls-2026-08-01"
OAUTH_BETAS = ("claude-code-20250219", "oauth-2025-04-20")

# Claude Code's canonical tool casing; OAuth requests must look like Claude Code's own.
_CLAUDE_CODE_TOOLS = (
    "Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode",
    "KillShell", "NotebookEdit", "Skill", "Task", "TaskOutput", "TodoWrite", "WebFetch", "WebSearch",
)  # fmt: skip
_CLAUDE_CODE_LOOKUP = {name.lower(): name for name in _CLAUDE_CODE_TOOLS}
_EFFORTS = frozenset({"low", "medium", "high", "xhigh", "max"})

def normalize_tool_call_id(tool_call_id: str, model: Model | None = None, source: Any = None) -> str:
    """Anthropic accepts ids of ``[a-zA-Z0-9_-]{1,64}``; ids minted by other providers are squeezed into that."""
    return sanitize_id_chars(string_receiver(tool_call_id, "id", "replace"))[:64]


# --------------------------------------------------------------------------------------------------------
# Model compatibility flags
# --------------------------------------------------------------------------------------------------------


def _compat(model: Model) -> dict[str, Any]:
    return model.get("compat") or {}


def _compat_flag(model: Model, name: str, default: bool) -> bool:
    value = _compat(model).get(name)
    return default if value is None else bool(value)


def _default_supports_tool_references(model: Model) -> bool:
    """Tool search exists on first-party Claude >= 4.5 (not Haiku), so only those get deferred tools."""
    model_id = str(model.get("id", ""))
    if model.get("provider") != "anthropic" or "haiku" in model_id:
        return False
    match = re.match(r"^claude-(?:opus|sonnet|fable)-(\d+)(?:-(\d+))?(?:-|$)", model_id)
    if match is None:
        return False
    major = int(match.group(1))
    minor = int(match.group(2)) if match.group(2) and len(match.group(2)) < 8 else 0
    return major > 4 or (major == 4 and minor >= 5)


def _supports_tool_references(model: Model) -> bool:
    value = _compat(model).get("supportsToolReferences")
    return _default_supports_tool_references(model) if value is None else bool(value)


def is_oauth_token(api_key: str | None) -> bool:
    return bool(api_key) and OAUTH_TOKEN_MARKER in str(api_key)


def uses_oauth(model: Model, options: dict[str, Any]) -> bool:
    """Copilot keys never take the Claude Code path, whatever they look like."""
    return model.get("provider") != "github-copilot" and is_oauth_token(options.get("apiKey"))


def cache_control_for(model: Model, options: dict[str, Any]) -> dict[str, Any] | None:
    """The ephemeral marker for this request, or None when caching is off."""
    retention = resolve_cache_retention(options)
    if retention == "none":
        return None
    marker: dict[str, Any] = {"type": "ephemeral"}
    if retention == "long" and _compat_flag(model, "supportsLongCacheRetention", True):
        marker["ttl"] = "1h"
    return marker


def _to_claude_code_name(name: str) -> str:
    return _CLAUDE_CODE_LOOKUP.get(name.lower(), name)


def _identity(name: str) -> str:
    return name


# --------------------------------------------------------------------------------------------------------
# Thinking configuration (streamSimple)
# --------------------------------------------------------------------------------------------------------


def _effort_for_level(model: Model, level: str) -> str:
    mapped = (model.get("thinkingLevelMap") or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level, "high")


def _resolve_request_options(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> dict[str, Any]:
    """What ``streamSimple`` passes on to ``stream``: max tokens, thinking switch, budget or effort."""
    model_max: int = model["maxTokens"]
    requested = options.get("maxTokens")
    base_max = clamp_max_tokens_to_context(model, context, model_max if requested is None else requested)
    level = options.get("reasoning")
    if not level:
        return {"maxTokens": base_max, "thinkingEnabled": False}
    if _compat(model).get("forceAdaptiveThinking") is True:
        return {"maxTokens": base_max, "thinkingEnabled": True, "effort": _effort_for_level(model, level)}
    if not has_thinking_budget(level, options.get("thinkingBudgets")):
        # pi-ai's arithmetic on an undefined budget yields NaN for both numbers (JSON null on the wire).
        return {"maxTokens": NAN, "thinkingEnabled": True, "thinkingBudgetTokens": NAN}
    adjusted_max, budget = adjust_max_tokens_for_thinking(
        base_max, model_max, level, options.get("thinkingBudgets")
    )
    max_tokens = clamp_max_tokens_to_context(model, context, adjusted_max)
    return {
        "maxTokens": max_tokens,
        "thinkingEnabled": True,
        "thinkingBudgetTokens": js_min(budget, js_max(0, max_tokens - MIN_ANSWER_TOKENS)),
    }


def has_thinking_budget(level: str, custom_budgets: dict[str, Any] | None) -> bool:
    """Whether pi-ai's budget table knows this level (a level the agent never clamped, e.g. "off", does not)."""
    key = "high" if level in ("xhigh", "max") else level
    return key in DEFAULT_THINKING_BUDGETS or (custom_budgets or {}).get(key) is not None


def _assert_request_auth(model: Model, options: dict[str, Any]) -> None:
    if options.get("apiKey"):
        return
    for name, value in (options.get("headers") or {}).items():
        if name.lower() in ("authorization", "x-api-key", "cf-aig-authorization") and value is not None:
            if js_trim(value):
                return
    raise missing_api_key(model)


# --------------------------------------------------------------------------------------------------------
# Betas
# --------------------------------------------------------------------------------------------------------


def _configured_betas(model: Model, options: dict[str, Any]) -> tuple[bool, str | None]:
    """An explicit ``anthropic-beta`` header (model, then options) replaces Pi's own beta selection."""
    found = False
    configured: str | None = None
    for headers in (model.get("headers"), options.get("headers")):
        for name, value in (headers or {}).items():
            if name.lower() == "anthropic-beta":
                found, configured = True, value
    return found, configured


def _beta_features(
    model: Model,
    context: dict[str, Any],
    oauth: bool,
    thinking_enabled: bool,
    configured: tuple[bool, str | None],
) -> list[str]:
    found, value = configured
    if found:
        if value is None:
            return []
        return list(dict.fromkeys(js_trim(part) for part in value.split(",") if js_trim(part)))
    compat = _compat(model)
    features: list[str] = []
    if oauth:
        features.extend(OAUTH_BETAS)
    if context.get("tools") and not _compat_flag(model, "supportsEagerToolInputStreaming", True):
        features.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    if model.get("reasoning") and thinking_enabled and compat.get("forceAdaptiveThinking") is not True:
        features.append(INTERLEAVED_THINKING_BETA)
    if compat.get("allowedFallbackModels"):
        features.append(SERVER_SIDE_FALLBACK_BETA)
    if compat.get("supportsMidConvoEffort") is True:
        features.extend((MID_CONVERSATION_OUTPUT_CONFIG_BETA, THINKING_BINDING_CONTROLS_BETA))
    return list(dict.fromkeys(features))


# --------------------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------------------


def _split_deferred_tools(
    tools: Iterable[dict[str, Any]],
    messages: list[dict[str, Any]],
    enabled: bool,
    normalize_name: Callable[[str], str],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Tools first loaded by a tool result (``addedToolNames``) go after the cached prefix, marked deferred."""
    unique: dict[str, dict[str, Any]] = {}
    for tool in tools:
        unique[normalize_name(tool["name"])] = tool
    if not enabled or not unique:
        return list(unique.values()), []
    deferred_names: set[str] = set()
    used_names: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    # Set members with JS identity: a stored name may be any JSON value
                    used_names.add(js_set_key(normalize_name(block.get("name", UNDEFINED))))
        elif role == "toolResult":
            for name in message.get("addedToolNames") or []:
                normalized = js_set_key(normalize_name(name))
                if normalized not in used_names:
                    deferred_names.add(normalized)
    immediate = [tool for name, tool in unique.items() if name not in deferred_names]
    deferred = [tool for name, tool in unique.items() if name in deferred_names]
    return immediate, deferred


def _convert_tools(
    tools: list[dict[str, Any]],
    rename: Callable[[str], str],
    eager_streaming: bool,
    supports_strict: bool,
    cache_control: dict[str, Any] | None,
    defer_loading: bool = False,
) -> list[dict[str, Any]]:
    converted: list[dict[str, Any]] = []
    last = len(tools) - 1
    for index, tool in enumerate(tools):
        strict = resolve_json_schema_strict(tool, supports_strict)
        parameters = json_schema_tool_parameters(tool, strict)
        schema = parameters if isinstance(parameters, dict) else {}
        properties = schema.get("properties")
        required = schema.get("required")
        legacy = {
            "type": "object",
            "properties": {} if properties is None else properties,
            "required": [] if required is None else required,
        }
        entry: dict[str, Any] = {"name": rename(tool["name"])}
        if "description" in tool:
            entry["description"] = tool["description"]
        if eager_streaming:
            entry["eager_input_streaming"] = True
        if strict:
            entry["strict"] = True
        entry["input_schema"] = {**schema, **legacy} if strict else legacy
        if defer_loading:
            entry["defer_loading"] = True
        if cache_control is not None and index == last:
            entry["cache_control"] = cache_control
        converted.append(entry)
    return converted


# --------------------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------------------


def _image_block(block: Any) -> Block:
    """Fields a non-object item lacks are undefined in JS and vanish from the JSON."""
    fields = block if isinstance(block, dict) else {}
    source: dict[str, Any] = {"type": "base64"}
    if "mimeType" in fields:
        source["media_type"] = fields["mimeType"]
    if "data" in fields:
        source["data"] = fields["data"]
    return {"type": "image", "source": source}


def _plain_texts(content: list[Any]) -> list[str] | None:
    """The texts of a content list made only of text blocks with string text (the usual case), else None."""
    texts: list[str] = []
    for block in content:
        if type(block) is not dict or block.get("type") != "text":
            return None
        text = block.get("text")
        if type(text) is not str:
            return None
        texts.append(text)
    return texts


def _tool_result_content(content: list[Any]) -> str | list[Block]:
    """Text-only results travel as one joined string; any image turns the content into a block list.

    The join prints every item's ``text`` as ``Array.prototype.join`` does (missing ones as nothing).
    """
    texts = _plain_texts(content)
    if texts is not None:
        return sanitize_surrogates("\n".join(texts))
    if not any(block_type(block) == "image" for block in content):
        return sanitize_surrogates("\n".join(js_join_piece(block_field(block, "text")) for block in content))
    blocks: list[Block] = [
        {"type": "text", "text": sanitize_surrogates(string_field(block, "text"))}
        if block_type(block) == "text"
        else _image_block(block)
        for block in content
    ]
    if not any(block["type"] == "text" for block in blocks):
        blocks.insert(0, {"type": "text", "text": "(see attached image)"})
    return blocks


def _convert_user(message: dict[str, Any]) -> dict[str, Any] | None:
    content = message.get("content")
    if isinstance(content, str):
        if js_is_blank(content):
            return None
        return {"role": "user", "content": sanitize_surrogates(content)}
    blocks: list[Block] = []
    for item in content or []:
        if item.get("type") == "text":
            text = sanitize_surrogates(item.get("text", ""))
            if not js_is_blank(text):
                blocks.append({"type": "text", "text": text})
        else:
            blocks.append(_image_block(item))
    return {"role": "user", "content": blocks} if blocks else None


def _convert_assistant(
    message: dict[str, Any], rename: Callable[[str], str], allow_empty_signature: bool
) -> dict[str, Any] | None:
    blocks: list[Block] = []
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = string_receiver(js_prop(block, "text"), "block.text", "trim")  # V8's words on a non-string
            if js_is_blank(text):
                continue
            blocks.append({"type": "text", "text": sanitize_surrogates(text)})
        elif kind == "thinking":
            signature = block.get("thinkingSignature")
            if block.get("redacted"):
                redacted: Block = {"type": "redacted_thinking"}
                if "thinkingSignature" in block:  # a stored null is sent; a missing one (undefined) is not
                    redacted["data"] = signature
                blocks.append(redacted)
                continue
            # `!!signature && signature.trim()...` then `block.thinking.trim()`: V8's words on a non-string.
            has_signature = js_truthy(signature) and not js_is_blank(
                string_receiver(signature, "thinkingSignature", "trim"))
            thinking = string_receiver(js_prop(block, "thinking"), "block.thinking", "trim")
            if js_is_blank(thinking) and not has_signature:
                continue
            if has_signature:
                blocks.append(
                    {"type": "thinking", "thinking": sanitize_surrogates(thinking), "signature": signature}
                )
            elif allow_empty_signature:
                blocks.append(
                    {"type": "thinking", "thinking": sanitize_surrogates(thinking), "signature": ""}
                )
            else:
                blocks.append({"type": "text", "text": sanitize_surrogates(thinking)})
        elif kind == "toolCall":
            arguments = block.get("arguments")
            name = block.get("name", UNDEFINED)  # block.id and block.name: undefined ones are left out
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block.get("id", UNDEFINED),
                    "name": UNDEFINED if name is UNDEFINED else rename(name),
                    "input": {} if arguments is None else arguments,
                }
            )
    return {"role": "assistant", "content": blocks} if blocks else None


def _convert_tool_result(
    message: dict[str, Any],
    rename: Callable[[str], str],
    oauth: bool,
    deferred_names: set[str],
    loaded_names: set[str],
) -> tuple[Block, list[Block]]:
    references: list[Block] = []
    for name in message.get("addedToolNames") or []:
        normalized = js_set_key(rename(name))
        if normalized not in deferred_names or normalized in loaded_names:
            continue
        loaded_names.add(normalized)
        references.append(
            {"type": "tool_reference", "tool_name": _to_claude_code_name(name) if oauth else name}
        )
    # convertContentBlocks calls content.some first: a string content (left as is for an image-capable
    # model) throws there.
    content = _tool_result_content(content_array(message, "content.some"))
    result: Block = {"type": "tool_result", "tool_use_id": message.get("toolCallId")}
    if "toolCallId" not in message:
        del result["tool_use_id"]  # undefined: JSON leaves the member out
    result["content"] = references if references else content
    if "isError" in message:
        result["is_error"] = message["isError"]
    if not references:
        return result, []
    siblings = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return result, siblings


def _convert_messages(
    messages: list[dict[str, Any]],
    rename: Callable[[str], str],
    oauth: bool,
    cache_control: dict[str, Any] | None,
    allow_empty_signature: bool,
    deferred_names: set[str],
    managed_provider: str | None,
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """Anthropic messages plus, for managed-effort models, the effort each replayed assistant ran with."""
    converted: list[dict[str, Any]] = []
    assistant_levels: dict[int, str] = {}
    loaded_names: set[str] = set()
    index = 0
    count = len(messages)
    while index < count:
        message = messages[index]
        role = message.get("role")
        if role == "user":
            user = _convert_user(message)
            if user is not None:
                converted.append(user)
        elif role == "assistant":
            assistant = _convert_assistant(message, rename, allow_empty_signature)
            if assistant is not None:
                if managed_provider is not None:
                    level = message.get("providerThinkingLevel")
                    if (
                        message.get("api") == "anthropic-messages"
                        and message.get("provider") == managed_provider
                        and level in _EFFORTS
                    ):
                        assistant_levels[len(converted)] = level
                converted.append(assistant)
        elif role == "toolResult":
            results: list[Block] = []
            siblings: list[Block] = []
            while index < count and messages[index].get("role") == "toolResult":
                result, extra = _convert_tool_result(
                    messages[index], rename, oauth, deferred_names, loaded_names
                )
                results.append(result)
                siblings.extend(extra)
                index += 1
            converted.append({"role": "user", "content": results + siblings})
            continue
        index += 1
    if cache_control is not None and converted:
        _mark_last_user_message(converted[-1], cache_control)
    return converted, assistant_levels


def _mark_last_user_message(message: dict[str, Any], cache_control: dict[str, Any]) -> None:
    """Cache the whole history by marking the final user turn (never an assistant turn)."""
    if message["role"] != "user":
        return
    content = message["content"]
    if isinstance(content, list):
        if content and content[-1].get("type") in ("text", "image", "tool_result"):
            content[-1]["cache_control"] = cache_control
    elif isinstance(content, str):
        message["content"] = [{"type": "text", "text": content, "cache_control": cache_control}]


def _insert_effort_messages(
    messages: list[dict[str, Any]], levels: dict[int, str], active_effort: str
) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        level = levels.get(index)
        if level is not None:
            result.append({"role": "system", "content": [], "output_config": {"effort": level}})
        result.append(message)
    result.append({"role": "system", "content": [], "output_config": {"effort": active_effort}})
    return result


# --------------------------------------------------------------------------------------------------------
# Payload
# --------------------------------------------------------------------------------------------------------


# The stream options ``streamSimple`` forwards from the caller (``buildBaseOptions`` plus ``toolChoice``); any
# other key (``effort``, ``thinkingDisplay``, ...) is deliberately not passed through.
_FORWARDED_OPTIONS = (
    "temperature",
    "apiKey",
    "cacheRetention",
    "sessionId",
    "headers",
    "metadata",
    "env",
    "toolChoice",
)


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object pi-ai's anthropic-messages ``streamSimple`` passes to ``onPayload``."""
    _assert_request_auth(model, options)
    forwarded = {key: options[key] for key in _FORWARDED_OPTIONS if options.get(key) is not None}
    forwarded.update(_resolve_request_options(model, context, options))
    return build_params(model, context, forwarded)


def build_history(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, str]] | None:
    """The payload messages of a conversation's first part, for a conversation that goes on with a user message.

    They are exactly what ``build_params`` makes of those messages inside the whole conversation, minus what only
    the end of a conversation gets (the cache marker on its last user turn), provided no tool result of the
    conversation loads tools (``addedToolNames``: which tools load late depends on every message; the caller
    checks). Returned with the tool-call ids the first part renamed, which the caller checks against later tool
    results. None for models that replay each turn's effort (a closing effort message ends the list).
    """
    if _compat(model).get("supportsMidConvoEffort") is True:
        return None
    oauth = uses_oauth(model, options)
    renamed: dict[str, str] = {}
    messages = transform_messages(context.get("messages") or [], model, normalize_tool_call_id, id_map=renamed)
    converted, _ = _convert_messages(
        messages,
        _to_claude_code_name if oauth else _identity,
        oauth,
        None,
        _compat_flag(model, "allowEmptySignature", False),
        set(),
        None,
    )
    return converted, renamed


def build_params(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """pi-ai ``buildParams`` for already-resolved stream options (``maxTokens``, ``thinkingEnabled``, ...)."""
    compat = _compat(model)
    oauth = uses_oauth(model, options)
    cache_control = cache_control_for(model, options)
    rename = _to_claude_code_name if oauth else _identity
    messages = transform_messages(context.get("messages") or [], model, normalize_tool_call_id)
    immediate, deferred = _split_deferred_tools(
        context.get("tools") or [], messages, _supports_tool_references(model), rename
    )
    if not immediate and deferred:
        immediate, deferred = deferred, []
    deferred_names = {rename(tool["name"]) for tool in deferred}
    managed = compat.get("supportsMidConvoEffort") is True
    converted, levels = _convert_messages(
        messages,
        rename,
        oauth,
        cache_control,
        _compat_flag(model, "allowEmptySignature", False),
        deferred_names,
        model.get("provider") if managed else None,
    )
    thinking_enabled = options.get("thinkingEnabled")
    betas = _beta_features(model, context, oauth, thinking_enabled is True, _configured_betas(model, options))
    max_tokens = options.get("maxTokens")
    params: dict[str, Any] = {
        "model": model.get("id"),
        "messages": _insert_effort_messages(converted, levels, options.get("effort") or "high")
        if managed
        else converted,
        "max_tokens": model.get("maxTokens") if max_tokens is None else max_tokens,
        "stream": True,
    }
    if betas:
        params["betas"] = betas
    system = _system_blocks(context.get("systemPrompt"), oauth, cache_control)
    if system is not None:
        params["system"] = system
    temperature = options.get("temperature")
    if (
        temperature is not None
        and not thinking_enabled
        and not managed
        and _compat_flag(model, "supportsTemperature", True)
    ):
        params["temperature"] = temperature
    if immediate or deferred:
        eager = _compat_flag(model, "supportsEagerToolInputStreaming", True)
        strict = _compat_flag(model, "supportsStrictTools", False)
        tool_cache = cache_control if _compat_flag(model, "supportsCacheControlOnTools", True) else None
        params["tools"] = _convert_tools(immediate, rename, eager, strict, tool_cache) + _convert_tools(
            deferred, rename, eager, strict, None, defer_loading=True
        )
    _add_thinking(params, model, options, managed)
    metadata = options.get("metadata")
    if metadata and isinstance(metadata.get("user_id"), str):
        params["metadata"] = {"user_id": metadata["user_id"]}
    tool_choice = options.get("toolChoice")
    if tool_choice:
        params["tool_choice"] = {"type": tool_choice} if isinstance(tool_choice, str) else tool_choice
    fallbacks = compat.get("allowedFallbackModels")
    if fallbacks:
        params["fallbacks"] = [{"model": fallback.get("model")} for fallback in fallbacks]
    return params


def _system_blocks(
    system_prompt: str | None, oauth: bool, cache_control: dict[str, Any] | None
) -> list[Block] | None:
    texts: list[str] = []
    if oauth:
        texts.append(CLAUDE_CODE_IDENTITY)
    if system_prompt:
        texts.append(sanitize_surrogates(system_prompt))
    if not texts:
        return None
    blocks: list[Block] = []
    for text in texts:
        block: Block = {"type": "text", "text": text}
        if cache_control is not None:
            block["cache_control"] = cache_control
        blocks.append(block)
    return blocks


def _add_thinking(params: dict[str, Any], model: Model, options: dict[str, Any], managed: bool) -> None:
    display = options.get("thinkingDisplay") or "summarized"
    if managed:
        params["thinking"] = {
            "type": "adaptive",
            "display": display,
            "block_binding": {"prefix_mismatch_behavior": "drop_block"},
        }
        params["output_config"] = {"effort": "high"}
        return
    if not model.get("reasoning"):
        return
    enabled = options.get("thinkingEnabled")
    if enabled:
        if _compat(model).get("forceAdaptiveThinking") is True:
            params["thinking"] = {"type": "adaptive", "display": display}
            if options.get("effort"):
                params["output_config"] = {"effort": options["effort"]}
        else:
            budget = options.get("thinkingBudgetTokens")
            params["thinking"] = {
                "type": "enabled",
                # ``budget || 1024``: zero and NaN are falsy in JavaScript.
                "budget_tokens": budget if budget and budget == budget else 1024,
                "display": display,
            }
    elif enabled is False:
        level_map = model.get("thinkingLevelMap") or {}
        if not ("off" in level_map and level_map["off"] is None):
            params["thinking"] = {"type": "disabled"}
