"""The Anthropic Messages request of Pi 1.6's ``streamSimple`` (pi-ai 1.x), built from a transcript.

What changed from the 0.85 builder (``payload``), whose message and content conversion is reused:

- the request is built from the transcript: the system prompt is the leading system message's text, the tools
  are the transcript's current tools; later system messages are kept in place (as ``system`` messages of
  rendered updates, held until just before the next assistant message) for models whose compat says
  ``supportsMidConvoSystemMessages``, else every system message is collapsed into the leading one;
- native tool changes (``supportsMidConvoToolChanges`` with initial tools): the top-level list is the initial
  tools plus a deferred placeholder tool, later tools are ``tool_addition``/``tool_removal`` blocks inside those
  system messages, beta ``inline-tools-2026-09-15``;
- the message-threads beta where the model's endpoint takes threads (by default api.anthropic.com) and the
  request has a session to cache under;
- managed effort: thinking off sends ``thinking: disabled`` without effort markers; on, the top-level effort
  is ``low`` (the markers carry the real levels);
- the ``addedToolNames`` deferred tools of 0.85 are gone; images of an error tool result follow every tool
  result of the turn; tool schemas keep ``additionalProperties``, ``$defs`` and ``definitions``; strict tools
  refuse the keywords Anthropic's strict mode rejects;
- 1.6's transformMessages (foreign thinking dropped, system messages held past tool results) and output budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pi_tools.js.strings import js_trim
from pi_tools.js.values import UNDEFINED, js_truthy
from pi_tools.providers.anthropic_messages.payload import (
    _EFFORTS,
    FINE_GRAINED_TOOL_STREAMING_BETA,
    INTERLEAVED_THINKING_BETA,
    MID_CONVERSATION_OUTPUT_CONFIG_BETA,
    NAN,
    OAUTH_BETAS,
    SERVER_SIDE_FALLBACK_BETA,
    THINKING_BINDING_CONTROLS_BETA,
    Block,
    _compat,
    _compat_flag,
    _configured_betas,
    _convert_assistant,
    _convert_user,
    _effort_for_level,
    _identity,
    _image_block,
    _insert_effort_messages,
    _system_blocks,
    _to_claude_code_name,
    _tool_result_content,
    cache_control_for,
    has_thinking_budget,
    normalize_tool_call_id,
    uses_oauth,
)
from pi_tools.providers.anthropic_messages.strict16 import resolve_strict16, strict_parameters16
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import missing_api_key
from pi_tools.providers.options import (
    MIN_ANSWER_TOKENS,
    adjust_max_tokens_for_thinking,
    js_max,
    js_min,
    resolve_cache_retention,
)
from pi_tools.providers.options16 import build_base_options, clamp_max_tokens_to_context
from pi_tools.providers.provider_env import provider_env
from pi_tools.providers.sanitize import sanitize_surrogates
from pi_tools.providers.transcript import (
    current_tools,
    leading_system_message,
    normalize_context,
    render_system_message_update,
    resolve_transcript,
    system_message_text,
)
from pi_tools.providers.transform_messages import (
    TRANSFORM_16,
    split_error_tool_result_images,
    transform_messages,
)

INLINE_TOOLS_BETA = "inline-tools-2026-09-15"
MESSAGE_THREADS_BETA = "message-threads-2026-08-12"
DEFERRED_TOOL_PLACEHOLDER: dict[str, Any] = {
    "name": "__pi_deferred_placeholder__",
    "description": "Reserved placeholder. Never available. Never call this.",
    "input_schema": {"type": "object", "properties": {}, "required": []},
    "defer_loading": True,
}
"""The never-active deferred tool a request with native tool changes always declares (keeps Anthropic's
tool-change scaffolding inside the cached prefix from the first request)."""

_FEDERATION_VARIABLES = ("ANTHROPIC_FEDERATION_RULE_ID", "ANTHROPIC_ORGANIZATION_ID", "ANTHROPIC_IDENTITY_TOKEN_FILE")
_AUTH_HEADERS = ("authorization", "x-api-key", "cf-aig-authorization")

# --------------------------------------------------------------------------------------------------------
# Model compatibility (1.6 defaults)
# --------------------------------------------------------------------------------------------------------


def keeps_system_messages(model: Model) -> bool:
    return _compat_flag(model, "supportsMidConvoSystemMessages", False)


def supports_message_threads(model: Model) -> bool:
    value = _compat(model).get("supportsMessageThreads")
    if value is None:
        return "api.anthropic.com" in str(model.get("baseUrl") or "")
    return bool(value)


def _is_open_router(model: Model) -> bool:
    return model.get("provider") == "openrouter" or "openrouter.ai" in str(model.get("baseUrl") or "")


def session_affinity_header(model: Model) -> str | None:
    """The header carrying the session id for cache affinity, or None where the model sends none."""
    compat = _compat(model)
    open_router = _is_open_router(model)
    send = compat.get("sendSessionAffinityHeaders")
    if not (open_router if send is None else send):
        return None
    format_ = compat.get("sessionAffinityFormat")
    if format_ is None and open_router:
        format_ = "openrouter"
    return "x-session-id" if format_ == "openrouter" else "x-session-affinity"


def cache_session_id(options: Mapping[str, Any]) -> Any:
    """The session id requests are cached under (UNDEFINED without one, or when caching is off)."""
    if resolve_cache_retention(options) == "none":
        return UNDEFINED
    return options.get("sessionId", UNDEFINED)


def thread_session_id(model: Model, options: Mapping[str, Any]) -> Any:
    """The session whose requests use message threads (UNDEFINED where threads do not apply)."""
    return cache_session_id(options) if supports_message_threads(model) else UNDEFINED


# --------------------------------------------------------------------------------------------------------
# Auth and streamSimple's options
# --------------------------------------------------------------------------------------------------------


def _has_header(headers: Any, name: str) -> bool:
    for key, value in (headers or {}).items():
        if key.lower() == name and value is not None and len(js_trim(value)) > 0:
            return True
    return False


def has_request_auth(options: Mapping[str, Any]) -> bool:
    headers = options.get("headers")
    return js_truthy(options.get("apiKey")) or any(_has_header(headers, name) for name in _AUTH_HEADERS)


def uses_federation(model: Model, options: Mapping[str, Any]) -> bool:
    """Workload identity federation: the anthropic provider, no key nor auth header, and its three variables."""
    if model.get("provider") != "anthropic" or has_request_auth(options):
        return False
    return all(provider_env(name, options) for name in _FEDERATION_VARIABLES)


def _assert_request_auth(model: Model, options: Mapping[str, Any]) -> None:
    if not uses_federation(model, options) and not has_request_auth(options):
        raise missing_api_key(model)


def resolve_request_options(model: Model, transcript: Sequence[Mapping[str, Any]],
                            options: Mapping[str, Any]) -> dict[str, Any]:
    """What ``streamSimple`` hands ``stream``: the base options, ``toolChoice``, and the thinking switch with its
    budget or effort."""
    base = build_base_options(model, transcript, options, options.get("apiKey"))
    if options.get("toolChoice") is not None:
        base["toolChoice"] = options["toolChoice"]
    level = options.get("reasoning")
    if not level:
        return {**base, "thinkingEnabled": False}
    if _compat(model).get("forceAdaptiveThinking") is True:
        return {**base, "thinkingEnabled": True, "effort": _effort_for_level(model, level)}
    if not has_thinking_budget(level, options.get("thinkingBudgets")):
        # pi-ai's arithmetic on an undefined budget yields NaN for both numbers (JSON null on the wire).
        return {**base, "maxTokens": NAN, "thinkingEnabled": True, "thinkingBudgetTokens": NAN}
    adjusted_max, budget = adjust_max_tokens_for_thinking(
        base["maxTokens"], model["maxTokens"], level, options.get("thinkingBudgets"))
    max_tokens = clamp_max_tokens_to_context(model, transcript, adjusted_max)
    return {
        **base,
        "maxTokens": max_tokens,
        "thinkingEnabled": True,
        "thinkingBudgetTokens": js_min(budget, js_max(0, max_tokens - MIN_ANSWER_TOKENS)),
    }


# --------------------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------------------


def convert_tools(tools: Sequence[Mapping[str, Any]], rename: Callable[[str], str], eager_streaming: bool,
                  supports_strict: bool, cache_control: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Tool definitions; the cache marker (if any) on the last one."""
    converted: list[dict[str, Any]] = []
    last = len(tools) - 1
    for index, tool in enumerate(tools):
        strict = resolve_strict16(tool, supports_strict)
        parameters = strict_parameters16(tool, strict)
        schema = parameters if isinstance(parameters, dict) else {}
        properties = schema.get("properties")
        required = schema.get("required")
        legacy: dict[str, Any] = {
            "type": "object",
            "properties": {} if properties is None else properties,
            "required": [] if required is None else required,
        }
        for key in ("additionalProperties", "$defs", "definitions"):
            if key in schema:
                legacy[key] = schema[key]
        entry: dict[str, Any] = {"name": rename(tool["name"])}
        if "description" in tool:
            entry["description"] = tool["description"]
        if eager_streaming:
            entry["eager_input_streaming"] = True
        if strict:
            entry["strict"] = True
        entry["input_schema"] = {**schema, **legacy} if strict else legacy
        if cache_control is not None and index == last:
            entry["cache_control"] = cache_control
        converted.append(entry)
    return converted


# --------------------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------------------


def _convert_tool_result(message: Mapping[str, Any], content: Any) -> Block:
    result: Block = {"type": "tool_result"}
    if "toolCallId" in message:  # undefined: JSON leaves the member out
        result["tool_use_id"] = message["toolCallId"]
    if not isinstance(content, list):
        from pi_tools.js.access import content_array

        content = content_array(message, "content.some")  # convertContentBlocks calls content.some first
    result["content"] = _tool_result_content(content)
    if "isError" in message:
        result["is_error"] = message["isError"]
    return result


def _system_update(message: Mapping[str, Any], oauth: bool,
                   tool_definitions: Callable[[list[Any]], list[dict[str, Any]]] | None) -> dict[str, Any] | None:
    """A later system message as the model receives it in place (None when it renders to nothing)."""
    blocks: list[Block] = []
    text = render_system_message_update(message)
    if len(text) > 0:
        blocks.append({"type": "text", "text": sanitize_surrogates(text)})
    if tool_definitions is not None:
        added = list(message.get("toolsAdded") or ())
        redefined = {tool.get("name") for tool in added}
        for tool in message.get("toolsRemoved") or ():
            name = tool.get("name")
            if name in redefined:
                continue
            blocks.append({"type": "tool_removal",
                           "tool": {"type": "tool_reference", "name": _to_claude_code_name(name) if oauth else name}})
        for definition in tool_definitions(added):
            blocks.append({"type": "tool_addition", "tool": {"type": "tool_definition", "definition": definition}})
    return {"role": "system", "content": blocks} if blocks else None


_MARKED_BLOCKS = ("text", "image", "tool_result", "tool_addition", "tool_removal")


def _mark_last_message(message: dict[str, Any], cache_control: dict[str, Any]) -> None:
    """Cache the history by marking the final user or system message (never an assistant one)."""
    if message["role"] not in ("user", "system"):
        return
    content = message["content"]
    if isinstance(content, list):
        if content and content[-1].get("type") in _MARKED_BLOCKS:
            content[-1]["cache_control"] = cache_control
    elif isinstance(content, str):
        message["content"] = [{"type": "text", "text": content, "cache_control": cache_control}]


def convert_messages(
    messages: list[dict[str, Any]],
    oauth: bool,
    cache_control: dict[str, Any] | None,
    allow_empty_signature: bool,
    managed_provider: str | None,
    tool_definitions: Callable[[list[Any]], list[dict[str, Any]]] | None,
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """Anthropic messages (system updates held until just before the next assistant message that is sent) and,
    for managed-effort models, the effort each replayed assistant message ran with."""
    rename = _to_claude_code_name if oauth else _identity
    converted: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    assistant_levels: dict[int, str] = {}
    index = 0
    count = len(messages)
    while index < count:
        message = messages[index]
        role = message.get("role")
        if role == "system":
            update = _system_update(message, oauth, tool_definitions)
            if update is not None:
                pending.append(update)
        elif role == "user":
            user = _convert_user(message)
            if user is not None:
                converted.append(user)
        elif role == "assistant":
            assistant = _convert_assistant(message, rename, allow_empty_signature)
            if assistant is not None:
                converted.extend(pending)
                pending.clear()
                level = message.get("providerThinkingLevel")
                if (managed_provider is not None and message.get("api") == "anthropic-messages"
                        and message.get("provider") == managed_provider and level in _EFFORTS):
                    assistant_levels[len(converted)] = level
                converted.append(assistant)
        elif role == "toolResult":
            results: list[Block] = []
            images: list[Block] = []
            while index < count and messages[index].get("role") == "toolResult":
                result = messages[index]
                split = split_error_tool_result_images(result)
                results.append(_convert_tool_result(result, split[0] if split is not None else None))
                if split is not None:
                    images.append({"type": "text", "text": split[1]})
                    images.extend(_image_block(image) for image in split[2])
                index += 1
            converted.append({"role": "user", "content": results + images})
            continue
        index += 1
    converted.extend(pending)
    if cache_control is not None and converted:
        _mark_last_message(converted[-1], cache_control)
    return converted, assistant_levels


# --------------------------------------------------------------------------------------------------------
# Betas and params
# --------------------------------------------------------------------------------------------------------


def _beta_features(model: Model, tools: list[Any], oauth: bool, options: Mapping[str, Any],
                   native_tool_changes: bool, message_threads: bool) -> list[str]:
    found, value = _configured_betas(model, dict(options))
    if found:
        if value is None:
            return []
        return list(dict.fromkeys(js_trim(part) for part in value.split(",") if js_trim(part)))
    compat = _compat(model)
    features: list[str] = []
    if oauth:
        features.extend(OAUTH_BETAS)
    if tools and not _compat_flag(model, "supportsEagerToolInputStreaming", True):
        features.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    interleaved = options.get("interleavedThinking")
    if (model.get("reasoning") and options.get("thinkingEnabled") is True
            and (True if interleaved is None else interleaved) and compat.get("forceAdaptiveThinking") is not True):
        features.append(INTERLEAVED_THINKING_BETA)
    if compat.get("allowedFallbackModels"):
        features.append(SERVER_SIDE_FALLBACK_BETA)
    if compat.get("supportsMidConvoEffort") is True:
        features.extend((MID_CONVERSATION_OUTPUT_CONFIG_BETA, THINKING_BINDING_CONTROLS_BETA))
    if native_tool_changes:
        features.append(INLINE_TOOLS_BETA)
    if message_threads:
        features.append(MESSAGE_THREADS_BETA)
    return list(dict.fromkeys(features))


def build_params(model: Model, transcript: list[dict[str, Any]], options: Mapping[str, Any],
                 message_threads: bool) -> dict[str, Any]:
    """pi-ai 1.6 ``buildParams`` for a resolved transcript and ``stream``'s options."""
    compat = _compat(model)
    oauth = uses_oauth(model, dict(options))
    cache_control = cache_control_for(model, dict(options))
    rename = _to_claude_code_name if oauth else _identity
    eager = _compat_flag(model, "supportsEagerToolInputStreaming", True)
    strict = _compat_flag(model, "supportsStrictTools", False)

    def tool_definitions(tools: list[Any], marker: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return convert_tools(tools, rename, eager, strict, marker)

    initial = leading_system_message(transcript)
    initial_text = system_message_text(initial) if initial is not None else ""
    transformed = transform_messages(transcript, model, normalize_tool_call_id, rules=TRANSFORM_16)
    conversation = transformed[1:] if initial is not None else transformed
    initial_tools = list((initial or {}).get("toolsAdded") or ())
    native = (keeps_system_messages(model) and _compat_flag(model, "supportsMidConvoToolChanges", False)
              and len(initial_tools) > 0)
    thinking_disabled = bool(model.get("reasoning") and options.get("thinkingEnabled") is False
                             and not ("off" in (model.get("thinkingLevelMap") or {})
                                      and model["thinkingLevelMap"]["off"] is None))
    effort_messages = compat.get("supportsMidConvoEffort") is True and not thinking_disabled
    converted, levels = convert_messages(
        conversation, oauth, cache_control, _compat_flag(model, "allowEmptySignature", False),
        model.get("provider") if effort_messages else None, tool_definitions if native else None)
    tools = current_tools(transcript)
    betas = _beta_features(model, tools, oauth, options, native, message_threads)
    max_tokens = options.get("maxTokens")
    params: dict[str, Any] = {
        "model": model.get("id"),
        "messages": _insert_effort_messages(converted, levels, options.get("effort") or "high")
        if effort_messages else converted,
        "max_tokens": model.get("maxTokens") if max_tokens is None else max_tokens,
        "stream": True,
    }
    if betas:
        params["betas"] = betas
    system = _system_blocks(initial_text, oauth, cache_control)
    if system is not None:
        params["system"] = system
    temperature = options.get("temperature")
    if (temperature is not None and not options.get("thinkingEnabled")
            and compat.get("supportsMidConvoEffort") is not True
            and _compat_flag(model, "supportsTemperature", True)):
        params["temperature"] = temperature
    tool_cache = cache_control if _compat_flag(model, "supportsCacheControlOnTools", True) else None
    if native:
        params["tools"] = [*tool_definitions(initial_tools, tool_cache), dict(DEFERRED_TOOL_PLACEHOLDER)]
    elif tools:
        params["tools"] = tool_definitions(tools, tool_cache)
    _add_thinking(params, model, options, thinking_disabled, effort_messages)
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


def _add_thinking(params: dict[str, Any], model: Model, options: Mapping[str, Any], disabled: bool,
                  effort_messages: bool) -> None:
    display = options.get("thinkingDisplay") or "summarized"
    if disabled:
        params["thinking"] = {"type": "disabled"}
    elif effort_messages:
        params["thinking"] = {
            "type": "adaptive",
            "display": display,
            "block_binding": {"prefix_mismatch_behavior": "drop_block"},
        }
        params["output_config"] = {"effort": "low"}
    elif model.get("reasoning") and options.get("thinkingEnabled"):
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


def resolved_transcript(model: Model, context: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The transcript ``stream`` builds from: the context normalised, system messages kept or collapsed."""
    return resolve_transcript(normalize_context(context), keeps_system_messages(model))


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object pi-ai 1.6's anthropic-messages ``streamSimple`` passes to ``onPayload``."""
    _assert_request_auth(model, options)
    transcript = normalize_context(context)
    request = resolve_request_options(model, transcript, options)
    resolved = resolve_transcript(transcript, keeps_system_messages(model))
    return build_params(model, resolved, request, thread_session_id(model, options) is not UNDEFINED)




def build_history(model: Model, context: dict[str, Any],
                  options: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str]] | None:
    """The messages of a part of the transcript before its last (providers.split), holding no system message: what
    build_params makes of them inside the whole transcript, minus what only its end gets (the cache marker), with
    the tool-call ids the part renamed. The transcript's leading system message belongs to the last part (its
    prompt and tools are outside the message list). None for models that replay each turn's effort (a closing
    effort message ends the list)."""
    if _compat(model).get("supportsMidConvoEffort") is True:
        return None
    renamed: dict[str, str] = {}
    transformed = transform_messages(context.get("messages") or [], model, normalize_tool_call_id, id_map=renamed,
                                     rules=TRANSFORM_16)
    converted, _ = convert_messages(transformed, uses_oauth(model, options), None,
                                    _compat_flag(model, "allowEmptySignature", False), None, None)
    return converted, renamed
