"""Chat Completions request body, exactly as pi-ai's ``streamSimple`` hands it to ``onPayload``.

The body depends on the host's compat profile (``compat.py``): role of the system prompt, max-tokens field,
reasoning knobs, replay of reasoning text, Anthropic-style cache markers behind OpenRouter. Key order matters
(it is the wire order), so every dict is built in the reference's insertion order, and keys the reference
leaves ``undefined`` are simply not written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pi_tools.js.access import (
    block_field,
    block_type,
    content_array,
    copy_defined,
    js_join_piece,
    js_prop,
    string_receiver,
)
from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.strings import js_is_blank, js_length, js_slice, js_trim
from pi_tools.js.values import UNDEFINED, js_set_key, js_truthy
from pi_tools.providers.data_url import image_data_url
from pi_tools.providers.hashing import short_hash, short_hashes
from pi_tools.providers.sanitize import sanitize_id_chars, sanitize_surrogates

from ..catalog import Model
from ..constrained_sampling import (
    grammar_input_properties,
    grammar_tool_input,
    json_schema_tool_parameters,
    resolve_grammar,
    resolve_json_schema_strict,
)
from ..errors import PayloadError, missing_api_key
from ..options import (
    build_base_options,
    clamp_thinking_budget_to_answer_room,
    clamp_thinking_level,
    resolve_cache_retention,
    thinking_budget_for_level,
)
from ..transform_messages import transform_messages
from .compat import resolve_compat
from .reasoning_details import is_reasoning_detail

_REPLAY_FIELDS = ("reasoning", "reasoning_content", "reasoning_text")
_TOOL_RESULT_BRIDGE = "I have processed the tool results."
_TOOL_IMAGES_INTRO = "Attached image(s) from tool result:"
_PROMPT_CACHE_KEY_MAX = 64
_MISSING: Any = object()


def normalize_tool_call_id(
    tool_call_id: str, model: Model, source_assistant: dict[str, Any] | None = None,
    digests: Mapping[str, str] | None = None,
) -> str:
    """Fit a foreign tool-call id into Chat Completions' limits (40 chars for OpenAI).

    Responses-style ids ``call|item`` keep both halves so parallel calls sharing a call id stay distinct; when
    the combination is too long a short hash of the whole id keeps it unique. `digests` may hold that hash of
    ids, made ahead (see _pipe_id_digests).
    """
    del source_assistant
    if "|" in (tool_call_id if type(tool_call_id) is list else string_receiver(tool_call_id, "id", "includes")):
        call_part, _, item_part = tool_call_id.partition("|")
        call_id = sanitize_id_chars(call_part)
        item_id = sanitize_id_chars(item_part)
        combined = f"{call_id}_{item_id}" if item_id else call_id
        if len(combined) <= 40:
            return combined
        digest = ((digests.get(tool_call_id) if digests else None) or short_hash(tool_call_id))[:8]
        return f"{call_id[: max(1, 40 - len(digest) - 1)]}_{digest}"
    if model.get("provider") == "openai" and js_length(tool_call_id) > 40:
        return js_slice(tool_call_id, 0, 40)
    return tool_call_id


def convert_tools(tools: list[dict[str, Any]], compat: dict[str, Any]) -> list[dict[str, Any]]:
    """Tool definitions; ``strict`` is written whenever the host accepts the field at all."""
    converted: list[dict[str, Any]] = []
    supports_strict = compat["supportsStrictMode"] is not False
    for tool in tools:
        grammar = resolve_grammar(tool, bool(compat["supportsOpenAIGrammarTools"]))
        if grammar is not None:
            custom = copy_defined({}, tool, "name", "description")
            custom["format"] = {
                "type": "grammar",
                "grammar": {"syntax": grammar["format"], "definition": grammar["definition"]},
            }
            converted.append({"type": "custom", "custom": custom})
            continue
        strict = resolve_json_schema_strict(tool, supports_strict)
        function = copy_defined({}, tool, "name", "description")
        parameters = json_schema_tool_parameters(tool, strict)
        if parameters is not None or "parameters" in tool:
            function["parameters"] = parameters
        if supports_strict:
            function["strict"] = bool(strict)
        converted.append({"type": "function", "function": function})
    return converted


# --- reasoning_details replay --------------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def _parse_json(text: str) -> Any:
    """``JSON.parse`` or ``_MISSING`` when it would throw (NaN/Infinity literals are not JSON there)."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return _MISSING


_JSON_SPACE = " \t\n\r"


def _signed_reasoning_details(signature: Any) -> list[Any] | None:
    """A thinking signature that is a JSON array of OpenRouter reasoning details, replayed as-is. Most signatures
    are opaque tokens: one that cannot open an array (after JSON's whitespace) is not parsed."""
    if not isinstance(signature, str) or not signature or signature[0] not in "[ \t\n\r":
        return None
    if signature[0] != "[" and signature.lstrip(_JSON_SPACE)[:1] != "[":
        return None
    parsed = _parse_json(signature)
    if isinstance(parsed, list) and parsed and all(is_reasoning_detail(item) for item in parsed):
        return parsed
    return None


def _legacy_encrypted_detail(signature: Any) -> dict[str, Any] | None:
    """Older sessions stored one encrypted detail per tool call in ``thoughtSignature`` (a JSON object; anything
    that cannot open one is not parsed)."""
    if not isinstance(signature, str) or not signature or signature[0] not in "{ \t\n\r":
        return None
    if signature[0] != "{" and signature.lstrip(_JSON_SPACE)[:1] != "{":
        return None
    parsed = _parse_json(signature)
    if (
        is_reasoning_detail(parsed)
        and parsed["type"] == "reasoning.encrypted"
        and isinstance(parsed.get("id"), str)
        and parsed["id"]
        and parsed["data"]
    ):
        return dict(parsed)
    return None


# --- messages ------------------------------------------------------------------------------------------------


def _user_message(message: dict[str, Any]) -> dict[str, Any] | None:
    content = message.get("content")
    if isinstance(content, str):
        return {"role": "user", "content": sanitize_surrogates(content)}
    parts: list[dict[str, Any]] = []
    for item in content or []:
        if item.get("type") == "text":
            parts.append({"type": "text", "text": sanitize_surrogates(item["text"])})
        else:
            parts.append({"type": "image_url", "image_url": {"url": image_data_url(item)}})
    if not parts:
        return None
    return {"role": "user", "content": parts}


def _tool_call_entry(block: dict[str, Any], grammar_properties: dict[str, str]) -> dict[str, Any]:
    name = block.get("name", UNDEFINED)  # tc.name and tc.id: undefined ones are left out of the JSON
    input_property = grammar_properties.get(name) if isinstance(name, str) else None
    if input_property is not None:
        custom_input = grammar_tool_input(name, block.get("arguments", UNDEFINED), input_property)
        return {
            "id": block.get("id", UNDEFINED),
            "type": "custom",
            "custom": {"name": name, "input": sanitize_surrogates(custom_input)},
        }
    function: dict[str, Any] = {"name": name}
    if "arguments" in block:
        function["arguments"] = js_stringify(block["arguments"])
    return {"id": block.get("id", UNDEFINED), "type": "function", "function": function}


def _assistant_message(
    message: dict[str, Any], model: Model, compat: dict[str, Any], grammar_properties: dict[str, str]
) -> dict[str, Any] | None:
    """One assistant turn, or ``None`` when it carries neither text nor tool calls (aborted, empty)."""
    converted: dict[str, Any] = {
        "role": "assistant",
        "content": "" if compat["requiresAssistantAfterToolResult"] else None,
    }
    blocks = message.get("content") or []
    # One pass sorts the blocks by type. `block.text.trim()` (and `block.thinking.trim()` below): V8's words
    # where a stored one is not a string; the texts fail first, as Pi filters them first.
    texts: list[str] = []
    thinking_blocks: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            piece = block.get("text")
            texts.append(piece if type(piece) is str else string_receiver(js_prop(block, "text"), "block.text", "trim"))
        elif kind == "thinking":
            thinking_blocks.append(block)
        elif kind == "toolCall":
            tool_calls.append(block)
    text_parts = [{"type": "text", "text": sanitize_surrogates(text)} for text in texts if not js_is_blank(text)]
    text = "".join(part["text"] for part in text_parts)

    preserved_details: list[Any] | None = None
    for block in thinking_blocks:
        preserved_details = _signed_reasoning_details(block.get("thinkingSignature"))
        if preserved_details is not None:
            break
    if preserved_details is None:
        legacy = [_legacy_encrypted_detail(call.get("thoughtSignature")) for call in tool_calls]
        legacy_details = [detail for detail in legacy if detail is not None]
        preserved_details = legacy_details or None

    thinking_with_text = [block for block in thinking_blocks
                          if not js_is_blank(string_receiver(js_prop(block, "thinking"), "block.thinking", "trim"))]
    if thinking_with_text:
        if compat["requiresThinkingAsText"]:
            joined = "\n\n".join(sanitize_surrogates(block["thinking"]) for block in thinking_with_text)
            converted["content"] = [{"type": "text", "text": joined}, *text_parts]
        else:
            if text:
                converted["content"] = text
            if preserved_details is None:
                field = thinking_with_text[0].get("thinkingSignature")
                if model.get("provider") == "opencode-go" and field == "reasoning":
                    field = "reasoning_content"
                if field and field in _REPLAY_FIELDS:
                    converted[field] = "\n".join(block["thinking"] for block in thinking_with_text)
    elif text:
        converted["content"] = text

    if tool_calls:
        converted["tool_calls"] = [_tool_call_entry(call, grammar_properties) for call in tool_calls]
    if preserved_details is not None:
        converted["reasoning_details"] = preserved_details
    if (
        compat["requiresReasoningContentOnAssistantMessages"]
        and model.get("reasoning")
        and "reasoning_content" not in converted
    ):
        converted["reasoning_content"] = ""
    content = converted["content"]
    if not content and not converted.get("tool_calls"):
        return None
    return converted


def _tool_result_message(message: dict[str, Any], compat: dict[str, Any]) -> dict[str, Any]:
    # toolMsg.content.filter(...) comes first: a string content (left as is for an image-capable model)
    # throws there.
    blocks = content_array(message, "toolMsg.content.filter")
    if len(blocks) == 1 and type(only := blocks[0]) is dict and only.get("type") == "text" and type(
            only.get("text")) is str:  # most results: one text block, joined and scanned for images as is
        text, has_images = only["text"], False
    else:
        text = "\n".join(js_join_piece(block_field(block, "text")) for block in blocks if block_type(block) == "text")
        has_images = any(block_type(block) == "image" for block in blocks)
    body = text if text else "(see attached image)" if has_images else "(no tool output)"
    converted: dict[str, Any] = {
        "role": "tool",
        "content": sanitize_surrogates(body),
        "tool_call_id": message.get("toolCallId"),
    }
    if "toolCallId" not in message:
        del converted["tool_call_id"]  # undefined: JSON leaves the member out
    if compat["requiresToolResultName"] and message.get("toolName"):
        converted["name"] = message["toolName"]
    return converted


def _tools_by_name(tools: list[dict[str, Any]] | None, names: list[str]) -> list[dict[str, Any]]:
    by_name = {tool["name"]: tool for tool in tools or []}
    return [by_name[name] for name in names if name in by_name]


def _pipe_id_digests(messages: Any, model: Model) -> dict[str, str]:
    """short_hash of every Responses-style (``call|item``) tool-call id of other models' assistant messages,
    hashed together (hashing.short_hashes): normalize_tool_call_id hashes those whose halves are too long
    together, one at a time a per-character Python loop (a tenth of a large openai-completions build). An id
    hashed here that needs no hash costs only its share of the bulk hash."""
    if not isinstance(messages, list):
        return {}
    identity = (model.get("provider"), model.get("api"), model.get("id"))
    ids: dict[str, None] = {}
    for message in messages:
        if (type(message) is not dict or message.get("role") != "assistant"
                or (message.get("provider"), message.get("api"), message.get("model")) == identity):
            continue
        content = message.get("content")
        if type(content) is not list:
            continue
        for block in content:
            if type(block) is dict and block.get("type") == "toolCall":
                tool_call_id = block.get("id")
                if type(tool_call_id) is str and "|" in tool_call_id:
                    ids[tool_call_id] = None
    if len(ids) < 2:
        return {}
    return dict(zip(ids, short_hashes(list(ids)), strict=True))


_UNSET: Any = ("unset",)
"""The role of the last message before any message set it (None in the whole conversation)."""


def convert_messages(
    model: Model,
    context: dict[str, Any],
    compat: dict[str, Any],
    grammar_properties: dict[str, str],
    state: dict[str, Any] | None = None,
    id_map: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The ``messages`` array: system prompt, then the transformed transcript in Chat Completions shapes.

    `state`, when given, receives what a part of a conversation carries to the next (see join_parts):
    ``last_role`` (_UNSET when no message set it) and ``leading_users``, the user messages before the first
    message that set it (each would get a bridge after tool results of the part before); `id_map` receives
    the renamed tool-call ids."""
    converted: list[dict[str, Any]] = []
    source = context.get("messages") or []
    digests = _pipe_id_digests(source, model)
    normalizer = normalize_tool_call_id if not digests else (
        lambda tool_call_id, target, assistant: normalize_tool_call_id(tool_call_id, target, assistant, digests))
    transcript = transform_messages(source, model, normalizer, id_map=id_map)
    system_prompt = context.get("systemPrompt")
    if system_prompt:
        system_role = "developer" if model.get("reasoning") and compat["supportsDeveloperRole"] else "system"
        converted.append({"role": system_role, "content": sanitize_surrogates(system_prompt)})

    bridge_after_tools = bool(compat["requiresAssistantAfterToolResult"])
    accepts_images = "image" in (model.get("input") or [])
    last_role: Any = _UNSET
    leading_users = 0
    index = 0
    count = len(transcript)
    while index < count:
        message = transcript[index]
        role = message.get("role")
        if last_role is _UNSET and role == "user":
            leading_users += 1
        if bridge_after_tools and last_role == "toolResult" and role == "user":
            converted.append({"role": "assistant", "content": _TOOL_RESULT_BRIDGE})
        if role == "user":
            user = _user_message(message)
            index += 1
            if user is None:
                continue
            converted.append(user)
        elif role == "assistant":
            assistant = _assistant_message(message, model, compat, grammar_properties)
            index += 1
            if assistant is None:
                continue
            converted.append(assistant)
        elif role == "toolResult":
            image_parts: list[dict[str, Any]] = []
            deferred_names: dict[str, None] = {}
            while index < count and transcript[index].get("role") == "toolResult":
                result = transcript[index]
                converted.append(_tool_result_message(result, compat))
                if compat["deferredToolsMode"] == "kimi":
                    for name in result.get("addedToolNames") or []:
                        deferred_names[js_set_key(name)] = None  # a JS Set: any stored value is a member
                if accepts_images:
                    image_parts.extend(
                        {"type": "image_url", "image_url": {"url": image_data_url(block)}}
                        for block in result["content"]
                        if block_type(block) == "image"
                    )
                index += 1
            if image_parts:
                if bridge_after_tools:
                    converted.append({"role": "assistant", "content": _TOOL_RESULT_BRIDGE})
                converted.append(
                    {"role": "user", "content": [{"type": "text", "text": _TOOL_IMAGES_INTRO}, *image_parts]}
                )
                last_role = "user"
            else:
                last_role = "toolResult"
            if deferred_names:
                deferred_tools = _tools_by_name(context.get("tools"), list(deferred_names))
                if deferred_tools:
                    converted.append({"role": "system", "tools": convert_tools(deferred_tools, compat)})
            continue
        else:
            index += 1
        last_role = role
    if state is not None:
        state["last_role"] = last_role
        state["leading_users"] = leading_users
    return converted


# --- Anthropic-style cache markers (OpenRouter anthropic/* models) -------------------------------------------


def _mark_text_content(message: dict[str, Any], marker: dict[str, Any]) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            return False
        message["content"] = [{"type": "text", "text": content, "cache_control": dict(marker)}]
        return True
    if not isinstance(content, list):
        return False
    for part in reversed(content):
        if isinstance(part, dict) and part.get("type") == "text":
            part["cache_control"] = dict(marker)
            return True
    return False


def _apply_cache_markers(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, marker: dict[str, Any]
) -> int | None:
    """Mark the system prompt, the last tool and the last conversational text, like Anthropic's own API; the
    index of that text's message (None: none has text)."""
    for message in messages:
        if message.get("role") in ("system", "developer"):
            _mark_text_content(message, marker)
            break
    if tools:
        tools[-1]["cache_control"] = dict(marker)
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") in ("user", "assistant", "tool") and _mark_text_content(message, marker):
            return index
    return None


def _cache_marker(compat: dict[str, Any], retention: str) -> dict[str, Any] | None:
    if compat["cacheControlFormat"] != "anthropic" or retention == "none":
        return None
    if retention == "long" and compat["supportsLongCacheRetention"]:
        return {"type": "ephemeral", "ttl": "1h"}
    return {"type": "ephemeral"}


# --- reasoning controls --------------------------------------------------------------------------------------


def _level_value(model: Model, level: str | None) -> Any:
    """``model.thinkingLevelMap?.[level]``: ``_MISSING`` when undefined, else the (possibly null) entry."""
    level_map = model.get("thinkingLevelMap")
    if not isinstance(level_map, dict) or level is None or level not in level_map:
        return _MISSING
    return level_map[level]


def _mapped_or(model: Model, level: str | None, fallback: Any) -> Any:
    """``thinkingLevelMap?.[level] ?? fallback`` (a null entry falls back too)."""
    value = _level_value(model, level)
    return fallback if value is _MISSING or value is None else value


def _chat_template_value(model: Model, effort: str | None, value: Any, budget: int | None) -> Any:
    """One configured chat-template value with Pi's ``$var`` placeholders resolved (``_MISSING`` = omit)."""
    if not isinstance(value, (dict, list)):
        return value
    placeholder = value if isinstance(value, dict) else {}
    if not effort and placeholder.get("omitWhenOff"):
        return _MISSING
    variable = placeholder.get("$var")
    if variable == "thinking.enabled":
        return bool(effort)
    if variable == "thinking.budget":
        return _MISSING if budget is None else budget
    mapped = _level_value(model, effort) if effort else _level_value(model, "off")
    if mapped is _MISSING:
        return _MISSING if effort is None else effort
    return mapped if isinstance(mapped, str) else _MISSING


def _chat_template_values(
    model: Model, effort: str | None, values: dict[str, Any], budget: int | None
) -> dict[str, Any] | None:
    resolved = {}
    for key, value in (values or {}).items():
        item = _chat_template_value(model, effort, value, budget)
        if item is not _MISSING:
            resolved[key] = item
    return resolved or None


def _thinking_budget(model: Model, request: dict[str, Any], params: dict[str, Any]) -> int | None:
    """Reasoning budget capped so at least 1024 tokens remain for the answer under the response ceiling."""
    effort = request.get("reasoningEffort")
    if not effort or not model.get("reasoning"):
        return None
    ceiling: Any = params.get("max_tokens")
    if ceiling is None:
        ceiling = params.get("max_completion_tokens")
    if ceiling is None:
        ceiling = model.get("maxTokens")
    budget = clamp_thinking_budget_to_answer_room(
        thinking_budget_for_level(effort, request.get("thinkingBudgets")), ceiling
    )
    return budget if budget > 0 else None


def _apply_reasoning(
    params: dict[str, Any], model: Model, compat: dict[str, Any], effort: str | None, budget: int | None
) -> None:
    """Write the host's reasoning switch; each thinking format names and shapes it differently."""
    reasoning_model = bool(model.get("reasoning"))
    thinking_format = compat["thinkingFormat"]
    supports_effort = bool(compat["supportsReasoningEffort"])
    if thinking_format == "zai" and reasoning_model:
        params["thinking"] = {"type": "enabled", "clear_thinking": False} if effort else {"type": "disabled"}
        if effort and supports_effort:
            mapped = _level_value(model, effort)
            value = effort if mapped is _MISSING else mapped
            if isinstance(value, str):
                params["reasoning_effort"] = value
    elif thinking_format == "qwen" and reasoning_model:
        params["enable_thinking"] = bool(effort)
        if effort and supports_effort:
            value = _mapped_or(model, effort, effort)
            if isinstance(value, str):
                params["reasoning_effort"] = value
    elif thinking_format == "qwen-chat-template" and reasoning_model:
        params["chat_template_kwargs"] = {"enable_thinking": bool(effort), "preserve_thinking": True}
    elif thinking_format == "chat-template" and reasoning_model:
        kwargs = _chat_template_values(model, effort, compat["chatTemplateKwargs"], budget)
        if kwargs:
            params["chat_template_kwargs"] = kwargs
    elif thinking_format == "baseten" and reasoning_model:
        args = _chat_template_values(model, effort, compat["chatTemplateArgs"], budget)
        if args:
            params["chat_template_args"] = args
        if supports_effort:
            mapped = _level_value(model, effort) if effort else _level_value(model, "off")
            value = effort if mapped is _MISSING else mapped
            if isinstance(value, str):
                params["reasoning_effort"] = value
    elif thinking_format == "deepseek" and reasoning_model:
        if effort:
            params["thinking"] = {"type": "enabled"}
        elif _level_value(model, "off") is not None:
            params["thinking"] = {"type": "disabled"}
        if effort and supports_effort:
            params["reasoning_effort"] = _mapped_or(model, effort, effort)
    elif thinking_format == "openrouter" and reasoning_model:
        if effort:
            params["reasoning"] = {"effort": _mapped_or(model, effort, effort)}
        elif _level_value(model, "off") is not None:
            params["reasoning"] = {"effort": _mapped_or(model, "off", "none")}
    elif thinking_format == "ant-ling" and reasoning_model and effort:
        value = _level_value(model, effort)
        if isinstance(value, str):
            params["reasoning"] = {"effort": value}
    elif thinking_format == "together" and reasoning_model:
        params["reasoning"] = {"enabled": bool(effort)}
        if effort and supports_effort:
            params["reasoning_effort"] = _mapped_or(model, effort, effort)
    elif thinking_format == "string-thinking" and reasoning_model:
        if effort:
            params["thinking"] = _mapped_or(model, effort, effort)
        elif _level_value(model, "off") is not None:
            params["thinking"] = _mapped_or(model, "off", "none")
    elif effort and reasoning_model and supports_effort:
        params["reasoning_effort"] = _mapped_or(model, effort, effort)
    elif not effort and reasoning_model and supports_effort:
        off_value = _level_value(model, "off")
        if isinstance(off_value, str):
            params["reasoning_effort"] = off_value


# --- request -------------------------------------------------------------------------------------------------


def _has_tool_history(messages: list[dict[str, Any]]) -> bool:
    for message in messages:
        role = message.get("role")
        if role == "toolResult":
            return True
        if role == "assistant":
            content = message.get("content")
            if content is None:
                missing = "null" if "content" in message else "undefined"
                raise PayloadError(f"Cannot read properties of {missing} (reading 'some')")
            if any(block.get("type") == "toolCall" for block in content):
                return True
    return False


def _tool_history(messages: list[dict[str, Any]]) -> str:
    """What _has_tool_history answers for these messages: "yes", "no" or "raises"."""
    try:
        return "yes" if _has_tool_history(messages) else "no"
    except PayloadError:
        return "raises"


def _deferred_tool_names(messages: list[dict[str, Any]]) -> set[str]:
    names: set[str] = set()
    for message in messages:
        if message.get("role") == "toolResult":
            names.update(map(js_set_key, message.get("addedToolNames") or []))
    return names


def _clamp_cache_key(key: str | None) -> str | None:
    if key is None:
        return None
    return key if len(key) <= _PROMPT_CACHE_KEY_MAX else key[:_PROMPT_CACHE_KEY_MAX]


def build_params(
    model: Model,
    context: dict[str, Any],
    request: dict[str, Any],
    compat: dict[str, Any],
    retention: str,
    grammar_properties: dict[str, str],
    record: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """pi-ai ``buildParams`` for already-resolved request options (``maxTokens``, ``reasoningEffort``, ...).

    `record`, when given, receives what joining this conversation to parts before it must check (see
    join_parts): the convert_messages state, where the cache marker went, whether the history decides the
    tools."""
    messages = convert_messages(model, context, compat, grammar_properties, record)
    marker = _cache_marker(compat, retention)
    long_cache = retention == "long" and bool(compat["supportsLongCacheRetention"])
    base_url = str(model.get("baseUrl", ""))
    # prompt_cache_key/_retention exist from the start (possibly undefined), which fixes their position even
    # when sampling params fill them in later.
    params: dict[str, Any] = {"model": model.get("id"), "messages": messages, "stream": True}
    cache_key_wanted = ("api.openai.com" in base_url and retention != "none") or long_cache
    params["prompt_cache_key"] = _clamp_cache_key(request.get("sessionId")) if cache_key_wanted else None
    params["prompt_cache_retention"] = "24h" if long_cache else None
    placeholders = {key for key in ("prompt_cache_key", "prompt_cache_retention") if params[key] is None}

    if compat["supportsUsageInStreaming"] is not False:
        params["stream_options"] = {"include_usage": True}
    if compat["supportsStore"]:
        params["store"] = False
    max_tokens = request.get("maxTokens")
    if js_truthy(max_tokens):
        field = "max_tokens" if compat["maxTokensField"] == "max_tokens" else "max_completion_tokens"
        params[field] = max_tokens
    if request.get("temperature") is not None:
        params["temperature"] = request["temperature"]

    history = context.get("messages") or []
    tools = context.get("tools")
    deferred = _deferred_tool_names(history) if compat["deferredToolsMode"] == "kimi" else set()
    active_tools = [tool for tool in tools if tool.get("name") not in deferred] if tools is not None else None
    if record is not None:
        record["before_tools"] = list(params)
    if active_tools:
        params["tools"] = convert_tools(active_tools, compat)
        if compat["zaiToolStream"]:
            params["tool_stream"] = True
    elif _has_tool_history(history):
        params["tools"] = []
    marked = None
    if marker is not None:
        marked = _apply_cache_markers(messages, params.get("tools"), marker)
    if record is not None:
        record["marker"] = marker is not None
        record["marked"] = marked
        record["tool_history"] = None if active_tools else _tool_history(history)
    if js_truthy(request.get("toolChoice")):
        params["tool_choice"] = request["toolChoice"]
    if compat.get("vllmPriority") is not None:
        params["priority"] = compat["vllmPriority"]

    budget_field = compat["thinkingTokenBudgetField"] or (
        "thinking_token_budget" if compat["supportsThinkingTokenBudget"] else None
    )
    budget = _thinking_budget(model, request, params)
    _apply_reasoning(params, model, compat, request.get("reasoningEffort"), budget)
    if budget_field and budget is not None:
        params[budget_field] = budget

    explicit = model.get("compat") or {}
    if js_truthy(explicit.get("openRouterRouting")):
        params["provider"] = explicit["openRouterRouting"]
    gateway: Any = explicit.get("vercelGatewayRouting")
    if isinstance(gateway, dict) and (js_truthy(gateway.get("only")) or js_truthy(gateway.get("order"))):
        gateway_options: dict[str, Any] = {}
        if js_truthy(gateway.get("only")):
            gateway_options["only"] = gateway["only"]
        if js_truthy(gateway.get("order")):
            gateway_options["order"] = gateway["order"]
        params["providerOptions"] = {"gateway": gateway_options}
    sampling = request.get("samplingParams")
    if sampling:
        params.update(sampling)
        placeholders.difference_update(sampling)
    for key in placeholders:
        del params[key]
    return params


def _has_header(headers: dict[str, Any] | None, name: str) -> bool:
    for key, value in (headers or {}).items():
        if key.lower() == name and isinstance(value, str) and js_trim(value):
            return True
    return False


def require_api_key(model: Model, options: dict[str, Any]) -> None:
    """Pi refuses to build a request without a key unless an authorization header replaces it."""
    if options.get("apiKey"):
        return
    headers = options.get("headers")
    if _has_header(headers, "authorization") or _has_header(headers, "cf-aig-authorization"):
        return
    raise missing_api_key(model)


def request_options(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``streamSimple``'s translation of provider-neutral options into this adapter's request options."""
    require_api_key(model, options)
    base = build_base_options(model, context, options)
    reasoning = options.get("reasoning")
    clamped = clamp_thinking_level(model, reasoning) if reasoning else None
    return {
        **base,
        "toolChoice": options.get("toolChoice"),
        "reasoningEffort": None if clamped == "off" else clamped,
        "thinkingBudgets": options.get("thinkingBudgets"),
    }


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The exact params object Pi passes to ``onPayload`` for this model, context and SimpleStreamOptions."""
    request = request_options(model, context, options)
    compat = resolve_compat(model)
    grammar_properties = grammar_input_properties(
        context.get("tools"), bool(compat["supportsOpenAIGrammarTools"])
    )
    retention = resolve_cache_retention(options)
    return build_params(model, context, request, compat, retention, grammar_properties)


# --- in parts (see pi_tools.providers.split) -------------------------------------------------------------------
#
# Across a cut the conversion carries the role of the last message (after tool results, a host that needs it gets
# an assistant bridge before each user message); the payload's end depends on the whole history in two places:
# the cache marker goes on the last message with text, and without tools to send, ``tools: []`` is sent when any
# message holds a tool call or result. Each part reports these, and join_parts adds the bridges the whole
# conversation has and refuses what only the whole conversation can decide.

_BRIDGE = {"role": "assistant", "content": _TOOL_RESULT_BRIDGE}


def build_history(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, Any]]:
    """The messages of a conversation's first part (no system prompt), the tool-call ids it renamed, and its
    carry: the convert_messages state, what the part's history says about tools, whether bridges are made."""
    require_api_key(model, options)
    compat = resolve_compat(model)
    grammar_properties = grammar_input_properties(
        context.get("tools"), bool(compat["supportsOpenAIGrammarTools"])
    )
    state: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    history = {**context, "systemPrompt": None}
    messages = convert_messages(model, history, compat, grammar_properties, state, renamed)
    state["tool_history"] = _tool_history(context.get("messages") or [])
    state["bridges"] = bool(compat["requiresAssistantAfterToolResult"])
    return messages, renamed, state


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of a conversation's last part, its carry (as build_history's, plus where the cache marker
    went and whether the history decides the tools), and whether its messages open with the system prompt."""
    request = request_options(model, context, options)
    compat = resolve_compat(model)
    grammar_properties = grammar_input_properties(
        context.get("tools"), bool(compat["supportsOpenAIGrammarTools"])
    )
    retention = resolve_cache_retention(options)
    record: dict[str, Any] = {}
    params = build_params(model, context, request, compat, retention, grammar_properties, record)
    opening = 1 if context.get("systemPrompt") else 0
    if record["marked"] is not None:
        record["marked"] -= opening
    record["bridges"] = bool(compat["requiresAssistantAfterToolResult"])
    return params, record, opening


def _insert_empty_tools(payload: dict[str, Any], before_tools: list[str]) -> None:
    """``tools: []`` where build_params puts it: after the keys it had set by then (some may since be gone)."""
    ahead = {key: payload[key] for key in before_tools if key in payload}
    behind = {key: value for key, value in payload.items() if key not in ahead}
    payload.clear()
    payload.update(ahead)
    payload["tools"] = []
    payload.update(behind)


def join_parts(parts: list[Any], tail: Any) -> list[Any] | None:
    """The parts' messages in order with the bridges the whole conversation puts between them, or None where
    the whole history decides what the last part alone cannot (the cache marker's message). Where the whole
    history holds tool calls the last part lacks, its payload gets the ``tools: []`` the whole one has."""
    from pi_tools.pipe.documents import EncodedItems, dump_items

    carry = tail.carry
    if carry["marker"] and carry["marked"] is None:
        return None  # the marker goes on an earlier part's message
    if carry["tool_history"] is not None:  # no tools to send: the whole history decides on "tools": []
        whole = next((part.carry["tool_history"] for part in parts if part.carry["tool_history"] != "no"),
                     carry["tool_history"])
        if whole == "raises":
            return None
        if whole != carry["tool_history"]:  # an earlier part holds the history the last part lacks
            if "tools" in tail.payload:
                return None
            _insert_empty_tools(tail.payload, carry["before_tools"])
    joined: list[Any] = []
    last_role: Any = None
    for part in [*parts, tail]:
        state = part.carry
        if state["bridges"] and last_role == "toolResult" and state["leading_users"]:
            joined.append(EncodedItems(dump_items([_BRIDGE] * state["leading_users"]), state["leading_users"]))
        joined.append(part.messages)
        if state["last_role"] != _UNSET:  # (compared by value: the carry may have been pickled)
            last_role = state["last_role"]
    return joined
