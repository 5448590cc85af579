"""The OpenAI Responses request body pi-ai's ``openai-responses`` adapter hands to ``onPayload``.

Pi replays its own earlier turns to the Responses API statelessly (``store: false``): stored reasoning items are
sent back verbatim from ``thinkingSignature``, assistant text keeps the item id and phase recorded in
``textSignature``, and tool calls carry ``call_id|item_id`` pairs that must satisfy OpenAI's pairing rules. Every
one of those rules changes the bytes sent, so they are ported one for one. The ``azure-openai-responses`` variant
shares the item conversion and lives at the end of this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pi_tools.js.access import (
    block_type,
    content_array,
    copy_defined,
    js_join_piece,
    string_field,
    string_receiver,
)
from pi_tools.js.errors import JsTypeError
from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.strings import js_length
from pi_tools.js.values import UNDEFINED, js_to_string, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import (
    grammar_input_properties,
    grammar_tool_input,
    make_strict_json_schema,
    resolve_grammar,
    resolve_json_schema_strict,
)
from pi_tools.providers.data_url import image_data_url
from pi_tools.providers.errors import PayloadError, malformed_input_guard, missing_api_key, require_api_key
from pi_tools.providers.hashing import short_hash
from pi_tools.providers.options import build_base_options, clamp_thinking_level, resolve_cache_retention
from pi_tools.providers.provider_env import provider_env
from pi_tools.providers.sanitize import sanitize_id_chars, sanitize_surrogates
from pi_tools.providers.transform_messages import transform_messages
from pi_tools.providers.v8json import js_json_parse

TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
"""Providers whose tool-call ids keep the ``call_id|item_id`` shape when replayed to this API."""

MIN_OUTPUT_TOKENS = 16
"""OpenAI rejects ``max_output_tokens`` below 16, so pi-ai raises smaller values to it."""

PROMPT_CACHE_KEY_MAX_CHARS = 64
MAX_ITEM_ID_LENGTH = 64

# --- compat and ids --------------------------------------------------------------------------------------------


def resolved_compat(model: Model) -> dict[str, Any]:
    """The model's Responses compat flags with pi-ai's defaults filled in."""
    compat = model.get("compat") or {}
    base_url = model.get("baseUrl") or ""
    detected = (
        "openrouter" if model.get("provider") == "openrouter" or "openrouter.ai" in base_url else "openai"
    )

    def flag(name: str, default: Any) -> Any:
        value = compat.get(name)
        return default if value is None else value

    return {
        "supportsDeveloperRole": flag("supportsDeveloperRole", True),
        "sessionAffinityFormat": flag("sessionAffinityFormat", detected),
        "supportsLongCacheRetention": flag("supportsLongCacheRetention", True),
        "supportsStrictMode": flag("supportsStrictMode", False),
        "supportsOpenAIGrammarTools": flag("supportsOpenAIGrammarTools", False),
        "supportsAdditionalTools": flag("supportsAdditionalTools", False),
        "supportsToolSearch": flag("supportsToolSearch", False),
        "supportsExplicitPromptCacheMode": flag("supportsExplicitPromptCacheMode", False),
        "supportsMaxOutputTokens": flag("supportsMaxOutputTokens", True),
    }


def _id_part(part: str) -> str:
    sanitized = sanitize_id_chars(part)[:MAX_ITEM_ID_LENGTH]
    return sanitized.rstrip("_")  # `.replace(/_+$/, "")`: the sanitized id has no line break for `$` to stop at


def _foreign_item_id(item_id: str) -> str:
    return f"fc_{short_hash(item_id)}"[:MAX_ITEM_ID_LENGTH]


def _includes_bar(value: Any) -> bool:
    """``id.includes("|")`` on a stored id of any type: strings and arrays have ``includes`` (an array holds
    ``"|"`` as an item or not); null and undefined have no properties; other values lack the method."""
    if type(value) is list:
        return any(type(item) is str and item == "|" for item in value)
    return "|" in string_receiver(value, "id", "includes")


def _split_id(value: Any, expression: str) -> list[str]:
    """``const [a, b] = EXPRESSION.split("|")``: V8's words for a receiver without ``split`` name the
    destructuring too."""
    if type(value) is str:
        return value.split("|")
    if value is None or value is UNDEFINED:
        string_receiver(value, expression, "split")
    raise JsTypeError(f"{expression}.split is not a function or its return value is not iterable")


def make_tool_call_id_normalizer(
    allowed_providers: frozenset[str] = TOOL_CALL_PROVIDERS,
) -> Callable[[str, Model, Mapping[str, Any]], str]:
    """The Responses-family id normaliser for a set of providers that use ``call_id|item_id`` ids."""

    def normalize(tool_call_id: str, model: Model, source: Mapping[str, Any]) -> str:
        if model.get("provider") not in allowed_providers or not _includes_bar(tool_call_id):
            return _id_part(string_receiver(tool_call_id, "part", "replace"))
        pieces = _split_id(tool_call_id, "id")
        call_id = _id_part(pieces[0])
        foreign = source.get("provider") != model.get("provider") or source.get("api") != model.get("api")
        item_id = _foreign_item_id(pieces[1]) if foreign else _id_part(pieces[1])
        if not item_id.startswith("fc_"):
            item_id = _id_part(f"fc_{item_id}")
        return f"{call_id}|{item_id}"

    return normalize


normalize_tool_call_id = make_tool_call_id_normalizer()
"""Cross-model tool-call id rewrite for ``openai-responses`` (``transform_messages`` calls it)."""


# --- tools -----------------------------------------------------------------------------------------------------


def _hashable(value: Any) -> bool:
    return not isinstance(value, dict | list)


def split_deferred_tools(context: Mapping[str, Any], enabled: bool) -> tuple[list[Any], dict[str, Any]]:
    """(tools sent up front, tools loaded later by a tool result's ``addedToolNames``); names deduplicated."""
    unique: dict[Any, Any] = {}
    for tool in context.get("tools") or ():
        name = tool.get("name")
        unique[name if _hashable(name) else js_to_string(name)] = tool
    if not enabled:
        return list(unique.values()), {}
    deferred_names: set[Any] = set()
    used_names: set[Any] = set()
    for message in context.get("messages") or ():
        role = message.get("role")
        if role == "assistant":
            for block in message.get("content") or ():
                if block_type(block) == "toolCall" and _hashable(block.get("name")):
                    used_names.add(block.get("name"))
        elif role == "toolResult":
            for name in message.get("addedToolNames") or ():
                if _hashable(name) and name not in used_names:
                    deferred_names.add(name)
    immediate: list[Any] = []
    deferred: dict[str, Any] = {}
    for name, tool in unique.items():
        if name in deferred_names:
            deferred[name] = tool
        else:
            immediate.append(tool)
    return immediate, deferred


def convert_tools(
    tools: list[Any],
    *,
    supports_strict_mode: bool = True,
    supports_grammar_tools: bool = False,
    strict: Any = UNDEFINED,
    defer_loading: bool = False,
) -> list[dict[str, Any]]:
    """Responses tool definitions: custom grammar tools where supported, else functions (``strict`` if allowed).

    `strict` is the value a plain function tool's ``strict`` key gets (pi-ai's ``toolOptions.strict``): false
    when not given, but Codex passes ``null``, which is sent as is."""
    default_strict = False if strict is UNDEFINED else strict
    result: list[dict[str, Any]] = []
    for tool in tools:
        grammar = resolve_grammar(tool, supports_grammar_tools)
        if grammar:
            custom: dict[str, Any] = {"type": "custom"}
            copy_defined(custom, tool, "name", "description")
            custom["format"] = {
                "type": "grammar",
                "syntax": grammar["format"],
                "definition": grammar["definition"],
            }
            if defer_loading:
                custom["defer_loading"] = True
            result.append(custom)
            continue
        resolved = resolve_json_schema_strict(tool, supports_strict_mode)
        tool_strict = default_strict if resolved is None else resolved
        function: dict[str, Any] = {"type": "function"}
        copy_defined(function, tool, "name", "description")
        if tool_strict is True:
            function["parameters"] = make_strict_json_schema(tool.get("parameters"))
        else:
            copy_defined(function, tool, "parameters")
        if defer_loading:
            function["defer_loading"] = True
        if supports_strict_mode:
            function["strict"] = tool_strict
        result.append(function)
    return result


# --- messages --------------------------------------------------------------------------------------------------


def _parse_text_signature(signature: Any) -> tuple[Any, str | None] | None:
    """(item id, phase) recorded for an assistant text block; legacy signatures are the bare id."""
    if not js_truthy(signature):
        return None
    if not isinstance(signature, str):
        raise PayloadError("signature.startsWith is not a function")
    if signature.startswith("{"):
        try:
            parsed = js_json_parse(signature)
        except PayloadError:
            parsed = None
        if isinstance(parsed, dict):
            version = parsed.get("v")
            if type(version) in (int, float) and version == 1 and isinstance(parsed.get("id"), str):
                phase = parsed.get("phase")
                return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def _input_image(block: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": image_data_url(block)}


def _tool_result_output(model: Model, content: list[Any]) -> str | list[dict[str, Any]]:
    if len(content) == 1 and type(only := content[0]) is dict and only.get("type") == "text" and type(
            only.get("text")) is str:  # most results: one text block and no image
        return sanitize_surrogates(only["text"]) if only["text"] else "(no tool output)"
    text = "\n".join(js_join_piece(block.get("text")) for block in content if block_type(block) == "text")
    images = [block for block in content if block_type(block) == "image"]
    if not images or "image" not in (model.get("input") or ()):
        if text:
            return sanitize_surrogates(text)
        return "(see attached image)" if images else "(no tool output)"
    output: list[dict[str, Any]] = []
    if text:
        output.append({"type": "input_text", "text": sanitize_surrogates(text)})
    output.extend(_input_image(image) for image in images)
    return output


class _ResponsesInputBuilder:
    """Turns transformed messages into Responses input items, tracking the state pi-ai threads through the loop."""

    def __init__(
        self,
        model: Model,
        grammar_properties: Mapping[str, str],
        deferred_tools: Mapping[str, Any],
        deferred_mode: str | None,
        tool_options: Mapping[str, Any],
    ) -> None:
        self.model = model
        self.grammar_properties = grammar_properties
        self.deferred_tools = deferred_tools
        self.deferred_mode = deferred_mode
        self.tool_options = tool_options
        self.loaded_tool_names: set[str] = set()
        self.items: list[Any] = []
        self.index_label: Callable[[int], str] = str
        """How a message's index is written into the item id its text gets when it has none."""
        self.labelled = 0
        """How many ids index_label wrote."""

    def user(self, message: Mapping[str, Any]) -> bool:
        content = message.get("content")
        if isinstance(content, str):
            self.items.append(
                {"role": "user", "content": [{"type": "input_text", "text": sanitize_surrogates(content)}]}
            )
            return True
        parts = [
            {"type": "input_text", "text": sanitize_surrogates(string_field(block, "text"))}
            if block_type(block) == "text"
            else _input_image(block)
            for block in content_array(message, "msg.content.map")
        ]
        if not parts:
            return False
        self.items.append({"role": "user", "content": parts})
        return True

    def assistant(self, message: Mapping[str, Any], message_index: int) -> bool:
        model = self.model
        same_provider_api = message.get("provider") == model.get("provider") and message.get(
            "api"
        ) == model.get("api")
        same_model = same_provider_api and message.get("model") == model.get("id")
        different_model = same_provider_api and not same_model
        output: list[Any] = []
        text_index = 0
        for block in message.get("content") or ():
            kind = block_type(block)
            if kind == "thinking":
                signature = block.get("thinkingSignature")
                if js_truthy(signature):
                    output.append(js_json_parse(signature))
            elif kind == "text":
                output.append(self._text_item(block, message_index, text_index))
                text_index += 1
            elif kind == "toolCall":
                output.append(self._tool_call_item(block, same_model, different_model))
        self.items.extend(output)
        return bool(output)

    def _text_item(self, block: Mapping[str, Any], message_index: int, text_index: int) -> dict[str, Any]:
        parsed = _parse_text_signature(block.get("textSignature"))
        item_id = parsed[0] if parsed else None
        if not item_id:
            label = self.index_label(message_index)
            self.labelled += 1
            item_id = f"msg_pi_{label}" if text_index == 0 else f"msg_pi_{label}_{text_index}"
        elif js_length(item_id) > MAX_ITEM_ID_LENGTH:
            item_id = f"msg_{short_hash(item_id)}"
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "content": [
                {
                    "type": "output_text",
                    "text": sanitize_surrogates(string_field(block, "text")),
                    "annotations": [],
                }
            ],
            "status": "completed",
            "id": item_id,
        }
        if parsed and parsed[1] is not None:
            item["phase"] = parsed[1]
        return item

    def _tool_call_item(
        self, block: Mapping[str, Any], same_model: bool, different_model: bool
    ) -> dict[str, Any]:
        pieces = _split_id(block.get("id", UNDEFINED), "toolCall.id")
        call_id = pieces[0]
        item_id: str | None = pieces[1] if len(pieces) > 1 else None
        name = block.get("name")
        input_property = self.grammar_properties.get(name) if isinstance(name, str) else None
        deferred = isinstance(name, str) and name in self.deferred_tools
        starts_fc = item_id is not None and item_id.startswith("fc_")
        if (different_model and starts_fc) or (input_property is None and not starts_fc):
            item_id = None
        item: dict[str, Any] = {"type": "custom_tool_call" if input_property is not None else "function_call"}
        if item_id is not None:
            item["id"] = item_id
        item["call_id"] = call_id
        copy_defined(item, block, "name")
        if input_property is not None:
            item["input"] = sanitize_surrogates(
                grammar_tool_input(name, block.get("arguments", UNDEFINED), input_property)
            )
        elif "arguments" in block:
            item["arguments"] = js_stringify(block["arguments"])
        if (same_model or deferred) and "namespace" in block:
            item["namespace"] = block["namespace"]
        return item

    def tool_result(self, message: Mapping[str, Any]) -> None:
        tool_call_id = message.get("toolCallId")
        if tool_call_id is not None and type(tool_call_id) is not str:  # `const [callId] = msg.toolCallId.split()`
            raise JsTypeError("msg.toolCallId.split is not a function or its return value is not iterable")
        call_id = string_field(message, "toolCallId", "split").split("|")[0]
        output = _tool_result_output(self.model, content_array(message, "content.filter"))
        kind = (
            "custom_tool_call_output"
            if isinstance(message.get("toolName"), str) and message["toolName"] in self.grammar_properties
            else "function_call_output"
        )
        self.items.append({"type": kind, "call_id": call_id, "output": output})
        newly_loaded: list[Any] = []
        for name in message.get("addedToolNames") or ():
            tool = self.deferred_tools.get(name) if isinstance(name, str) else None
            if tool is None or name in self.loaded_tool_names:
                continue
            self.loaded_tool_names.add(name)
            newly_loaded.append(tool)
        if not newly_loaded:
            return
        if self.deferred_mode == "additional-tools":
            self.items.append(
                {"type": "additional_tools", "role": "developer", "tools": self._tools(newly_loaded, False)}
            )
        elif self.deferred_mode == "tool-search":
            names = [js_to_string(tool.get("name")) for tool in newly_loaded]
            seed = js_to_string(message.get("toolCallId")) + ":" + ",".join(names)
            search_id = f"pi_tool_load_{short_hash(seed)}"
            self.items.append(
                {
                    "type": "tool_search_call",
                    "call_id": search_id,
                    "execution": "client",
                    "status": "completed",
                    "arguments": {"query": " ".join(names), "limit": len(names)},
                }
            )
            self.items.append(
                {
                    "type": "tool_search_output",
                    "call_id": search_id,
                    "execution": "client",
                    "status": "completed",
                    "tools": self._tools(newly_loaded, True),
                }
            )

    def _tools(self, tools: list[Any], defer_loading: bool) -> list[dict[str, Any]]:
        return convert_tools(
            tools,
            supports_strict_mode=self.tool_options["supportsStrictMode"],
            supports_grammar_tools=self.tool_options["supportsOpenAIGrammarTools"],
            strict=self.tool_options.get("strict", UNDEFINED),
            defer_loading=defer_loading,
        )


def convert_messages(
    model: Model,
    context: Mapping[str, Any],
    *,
    allowed_providers: frozenset[str] = TOOL_CALL_PROVIDERS,
    include_system_prompt: bool = True,
    grammar_properties: Mapping[str, str] | None = None,
    deferred_tools: Mapping[str, Any] | None = None,
    deferred_mode: str | None = None,
    tool_options: Mapping[str, Any] | None = None,
) -> list[Any]:
    """The ``input`` array: system/developer prompt, then one or more items per transformed message."""
    builder, _ = _convert(model, context, allowed_providers, include_system_prompt, grammar_properties,
                          deferred_tools, deferred_mode, tool_options, None, None)
    return builder.items


def _convert(
    model: Model,
    context: Mapping[str, Any],
    allowed_providers: frozenset[str],
    include_system_prompt: bool,
    grammar_properties: Mapping[str, str] | None,
    deferred_tools: Mapping[str, Any] | None,
    deferred_mode: str | None,
    tool_options: Mapping[str, Any] | None,
    id_map: dict[str, str] | None,
    index_label: Callable[[int], str] | None,
) -> tuple[_ResponsesInputBuilder, int]:
    """convert_messages, with its builder and the number of messages that produced items (the counter that
    numbers the ids of assistant texts without one)."""
    messages = transform_messages(
        context.get("messages") or [], model, make_tool_call_id_normalizer(allowed_providers), id_map=id_map
    )
    builder = _ResponsesInputBuilder(
        model,
        grammar_properties or {},
        deferred_tools or {},
        deferred_mode,
        tool_options or {"supportsStrictMode": True, "supportsOpenAIGrammarTools": False},
    )
    if index_label is not None:
        builder.index_label = index_label
    system_prompt = context.get("systemPrompt")
    if include_system_prompt and system_prompt:
        developer = (
            model.get("reasoning") and (model.get("compat") or {}).get("supportsDeveloperRole") is not False
        )
        builder.items.append(
            {"role": "developer" if developer else "system", "content": sanitize_surrogates(system_prompt)}
        )
    message_index = 0
    for message in messages:
        role = message.get("role")
        if role == "user":
            if not builder.user(message):
                continue
        elif role == "assistant":
            if not builder.assistant(message, message_index):
                continue
        elif role == "toolResult":
            builder.tool_result(message)
        message_index += 1
    return builder, message_index


# --- params ----------------------------------------------------------------------------------------------------


def client_api_key(model: Model, options: Mapping[str, Any]) -> str:
    """The key the OpenAI client is built with; a caller-supplied Authorization header makes it optional."""
    api_key = options.get("apiKey")
    if api_key:
        return str(api_key)
    for name, value in (options.get("headers") or {}).items():
        if name.lower() in ("authorization", "cf-aig-authorization") and value is not None and value.strip():
            return "unused"
    raise missing_api_key(model)


def clamp_prompt_cache_key(key: str) -> str:
    """OpenAI caps ``prompt_cache_key`` at 64 characters (code points, as ``Array.from`` counts them)."""
    return key[:PROMPT_CACHE_KEY_MAX_CHARS] if len(key) > PROMPT_CACHE_KEY_MAX_CHARS else key


def reasoning_effort(model: Model, options: Mapping[str, Any]) -> str | None:
    """The requested thinking level clamped to the model, or ``None`` when reasoning is off."""
    level = options.get("reasoning")
    if not level:
        return None
    clamped = clamp_thinking_level(model, level)
    return None if clamped == "off" else clamped


def _apply_reasoning(
    params: dict[str, Any], model: Model, effort: str | None, *, skip_off_effort: bool
) -> None:
    """Reasoning models get the mapped effort plus encrypted reasoning for replay, or their "off" effort."""
    if not model.get("reasoning"):
        return
    level_map = model.get("thinkingLevelMap") or {}
    if effort:
        mapped = level_map.get(effort)
        params["reasoning"] = {"effort": effort if mapped is None else mapped, "summary": "auto"}
        params["include"] = ["reasoning.encrypted_content"]
    elif not skip_off_effort and not ("off" in level_map and level_map["off"] is None):
        off_effort = level_map.get("off")
        params["reasoning"] = {"effort": "none" if off_effort is None else off_effort}


@malformed_input_guard
def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object ``streamSimple`` passes to ``onPayload`` for an ``openai-responses`` model."""
    return _build_params(model, context, options, None, None)[0]


def _build_params(
    model: Model, context: dict[str, Any], options: dict[str, Any], id_map: dict[str, str] | None,
    index_label: Callable[[int], str] | None, history_only: bool = False,
) -> tuple[dict[str, Any], _ResponsesInputBuilder, int]:
    """build_payload, with the builder of its input items and the number of messages that produced items;
    `history_only` stops at the items of the conversation (no system prompt, no other params)."""
    client_api_key(model, options)
    base = {} if history_only else build_base_options(model, context, options)  # the estimate: the tail's
    compat = resolved_compat(model)
    grammar_properties = grammar_input_properties(context.get("tools"), compat["supportsOpenAIGrammarTools"])

    deferred_mode = (
        "additional-tools"
        if compat["supportsAdditionalTools"]
        else "tool-search"
        if compat["supportsToolSearch"]
        else None
    )
    immediate, deferred = split_deferred_tools(context, deferred_mode is not None)
    tool_options = {
        "supportsStrictMode": bool(compat["supportsStrictMode"]),
        "supportsOpenAIGrammarTools": bool(compat["supportsOpenAIGrammarTools"]),
    }
    builder, counted = _convert(
        model,
        context,
        TOOL_CALL_PROVIDERS,
        not history_only,
        grammar_properties,
        deferred,
        deferred_mode,
        tool_options,
        id_map,
        index_label,
    )
    items = builder.items
    params: dict[str, Any] = {"model": model.get("id"), "input": items, "stream": True}
    if history_only:
        return params, builder, counted
    effort = reasoning_effort(model, options)
    retention = resolve_cache_retention(base)
    session_id = base.get("sessionId")
    if retention != "none" and session_id is not None:
        params["prompt_cache_key"] = clamp_prompt_cache_key(session_id)
    explicit_mode = compat["supportsExplicitPromptCacheMode"]
    if retention == "long" and compat["supportsLongCacheRetention"] and not explicit_mode:
        params["prompt_cache_retention"] = "24h"
    if explicit_mode:
        if retention == "none":
            params["prompt_cache_options"] = {"mode": "explicit"}
        elif retention == "long" and compat["supportsLongCacheRetention"]:
            params["prompt_cache_options"] = {"ttl": "30m"}
    params["store"] = False
    max_tokens: int = base["maxTokens"]
    if js_truthy(max_tokens) and compat["supportsMaxOutputTokens"]:
        params["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if "temperature" in base:
        params["temperature"] = base["temperature"]
    if immediate:
        params["tools"] = convert_tools(
            immediate,
            supports_strict_mode=tool_options["supportsStrictMode"],
            supports_grammar_tools=tool_options["supportsOpenAIGrammarTools"],
        )
    if options.get("toolChoice") is not None:
        params["tool_choice"] = options["toolChoice"]
    _apply_reasoning(params, model, effort, skip_off_effort=model.get("provider") == "github-copilot")
    if model.get("reasoning") and model.get("provider") == "xai":
        params["include"] = ["reasoning.encrypted_content"]
    params.update(base.get("samplingParams") or {})
    return params, builder, counted


# --- in parts (see pi_tools.providers.split) -------------------------------------------------------------------
#
# The only state the conversion carries from message to message (tools loaded late aside, which split refuses)
# is the counter that numbers the ids of assistant texts without one (``msg_pi_<n>``): n counts the messages
# before that produced items. A part does not know how many the parts before it produced, so it writes its own
# count behind a label, and the join writes the true number in its place.

PART_INDEX_LABEL = "~pi-tools-part-index~"
"""Stands before a part's own message count in the ids it numbers, until the join knows the true number."""
_LABEL_BYTES = PART_INDEX_LABEL.encode()
_DIGITS = re.compile(rb"[0-9]+")


def _part_label(index: int) -> str:
    return f"{PART_INDEX_LABEL}{index}"


class PartCarry:
    """A part's message count, and where its text holds a labelled index: (start, end, index) spans, or None
    when the label also appears elsewhere in the text (then the part cannot be renumbered exactly)."""

    __slots__ = ("counted", "labelled", "spans")

    def __init__(self, counted: int, labelled: int, spans: list[tuple[int, int, int]] | None = None) -> None:
        self.counted = counted
        self.labelled = labelled
        self.spans = spans

    def __getstate__(self) -> tuple[int, int, list[tuple[int, int, int]] | None]:
        return self.counted, self.labelled, self.spans

    def __setstate__(self, state: tuple[int, int, list[tuple[int, int, int]] | None]) -> None:
        self.counted, self.labelled, self.spans = state


def build_history(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[list[Any], dict[str, str], PartCarry]:
    """The input items of a conversation's first part (no system prompt), the tool-call ids it renamed and its
    carry: what build_payload makes of those messages inside the whole conversation, once renumbered."""
    renamed: dict[str, str] = {}
    params, builder, counted = _build_params(model, context, options, renamed, _part_label, history_only=True)
    return params["input"], renamed, PartCarry(counted, builder.labelled)


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], PartCarry, int]:
    """The payload of a conversation's last part, its carry, and whether its input opens with the system
    prompt (1) or not (0)."""
    params, builder, counted = _build_params(model, context, options, None, _part_label)
    opening = 1 if context.get("systemPrompt") else 0
    return params, PartCarry(counted, builder.labelled), opening


def convert_part(
    model: Model,
    context: Mapping[str, Any],
    *,
    allowed_providers: frozenset[str],
    grammar_properties: Mapping[str, str] | None,
    deferred_tools: Mapping[str, Any] | None,
    deferred_mode: str | None,
    tool_options: Mapping[str, Any] | None,
    id_map: dict[str, str] | None,
) -> tuple[list[Any], PartCarry]:
    """The input items (no system prompt) of one part of a conversation and its carry, for another API's
    folder that shares this conversion (openai-codex-responses): convert_messages with the ids of assistant
    texts without one numbered behind the part label; `id_map` collects the tool-call ids it renamed."""
    builder, counted = _convert(model, context, allowed_providers, False, grammar_properties, deferred_tools,
                                deferred_mode, tool_options, id_map, _part_label)
    return builder.items, PartCarry(counted, builder.labelled)


def encode_part(converted: list[Any], carry: PartCarry) -> tuple[Any, PartCarry]:
    """The part's items as EncodedItems, with the spans of its labelled indexes noted in the carry."""
    from pi_tools.pipe.documents import EncodedItems, dump_items

    text = dump_items(converted)
    spans: list[tuple[int, int, int]] = []
    if carry.labelled:
        find, digits, width = text.find, _DIGITS.match, len(_LABEL_BYTES)
        at = find(_LABEL_BYTES)
        while at >= 0:
            number = digits(text, at + width)
            if number is None:
                break
            spans.append((at, number.end(), int(number.group())))
            at = find(_LABEL_BYTES, number.end())
    exact = at < 0 if carry.labelled else _LABEL_BYTES not in text
    carry.spans = spans if exact and len(spans) == carry.labelled else None
    return EncodedItems(text, len(converted)), carry


def join_parts(parts: list[Any], tail: Any) -> list[Any] | None:
    """The parts' items in order, each labelled index replaced by the count of the messages before it in the
    whole conversation; None where a label could not be told from the text around it."""
    from pi_tools.pipe.documents import EncodedItems

    joined: list[Any] = []
    offset = 0
    for part in [*parts, tail]:
        carry: PartCarry = part.carry
        if carry.spans is None:
            return None
        encoded = part.messages
        if carry.spans:
            text, start = encoded.json, 0
            pieces: list[bytes | memoryview] = []
            view = memoryview(text)
            for first, end, index in carry.spans:
                pieces.append(view[start:first])
                pieces.append(str(index + offset).encode())
                start = end
            pieces.append(view[start:])
            encoded = EncodedItems(b"".join(pieces), encoded.count)
        joined.append(encoded)
        offset += carry.counted
    return joined


# --- azure-openai-responses ------------------------------------------------------------------------------------

AZURE_TOOL_CALL_PROVIDERS = TOOL_CALL_PROVIDERS | {"azure-openai-responses"}
normalize_azure_tool_call_id = make_tool_call_id_normalizer(AZURE_TOOL_CALL_PROVIDERS)
"""Cross-model tool-call id rewrite for ``azure-openai-responses`` (Azure's own ids keep their pairs too)."""
AZURE_DEFAULT_API_VERSION = "v1"
_AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com")
_AZURE_DEFAULT_PATHS = frozenset(("", "/", "/openai", "/openai/v1/responses"))


def azure_deployment_name(model: Model, options: Mapping[str, Any]) -> str:
    """``AZURE_OPENAI_DEPLOYMENT_NAME_MAP`` (``id=deployment,...``) renames the model; else the model id."""
    deployments: dict[str, str] = {}
    for entry in (provider_env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", options) or "").split(","):
        entry = entry.strip()
        if not entry:
            continue
        model_id, _, deployment = entry.partition("=")
        deployment = deployment.split("=", 1)[0]
        if model_id and deployment:
            deployments[model_id.strip()] = deployment.strip()
    return deployments.get(str(model.get("id"))) or str(model.get("id"))


def _normalize_azure_base_url(base_url: str) -> str:
    trimmed = base_url.strip().rstrip("/")
    parts = urlsplit(trimmed)
    if not parts.scheme or not parts.netloc:
        raise PayloadError(f"Invalid Azure OpenAI base URL: {base_url}")
    host = (parts.hostname or "").lower()
    path = parts.path.rstrip("/")
    if host.endswith(_AZURE_HOST_SUFFIXES) and path in _AZURE_DEFAULT_PATHS:
        parts = parts._replace(path="/openai/v1", query="")
    return urlunsplit(parts).rstrip("/")


def azure_endpoint(model: Model, options: Mapping[str, Any]) -> tuple[str, str]:
    """(base URL, api-version): explicit base URL, else the resource name's default endpoint, else the model's."""
    api_version = provider_env("AZURE_OPENAI_API_VERSION", options) or AZURE_DEFAULT_API_VERSION
    base_url = (provider_env("AZURE_OPENAI_BASE_URL", options) or "").strip() or None
    resource = provider_env("AZURE_OPENAI_RESOURCE_NAME", options)
    if not base_url and resource:
        base_url = f"https://{resource}.openai.azure.com/openai/v1"
    if not base_url and model.get("baseUrl"):
        base_url = str(model["baseUrl"])
    if not base_url:
        raise PayloadError(
            "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, "
            "or pass azureBaseUrl, azureResourceName, or model.baseUrl."
        )
    return _normalize_azure_base_url(base_url), api_version



@malformed_input_guard
def build_azure_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object for ``azure-openai-responses``: the deployment as model, no retention fields, all tools.

    pi-ai resolves the endpoint before building the params, so a missing base URL fails the request here too.
    """
    return _build_azure_params(model, context, options, None, None)[0]


def _build_azure_params(
    model: Model, context: dict[str, Any], options: dict[str, Any], id_map: dict[str, str] | None,
    index_label: Callable[[int], str] | None, history_only: bool = False,
) -> tuple[dict[str, Any], _ResponsesInputBuilder, int]:
    """build_azure_payload, with the builder of its input items and the number of messages that produced items;
    `history_only` stops at the items of the conversation (no system prompt, no endpoint, no other params), as
    _build_params does for openai-responses."""
    require_api_key(model, options)
    base = {} if history_only else build_base_options(model, context, options)  # the estimate: the tail's
    if not history_only:
        effort = reasoning_effort(model, options)
        deployment = azure_deployment_name(model, base)
        azure_endpoint(model, base)
    compat = model.get("compat") or {}
    supports_grammar = compat.get("supportsOpenAIGrammarTools")
    supports_grammar = False if supports_grammar is None else bool(supports_grammar)
    supports_strict = compat.get("supportsStrictMode")
    supports_strict = True if supports_strict is None else bool(supports_strict)
    grammar_properties = grammar_input_properties(context.get("tools"), supports_grammar)
    builder, counted = _convert(model, context, AZURE_TOOL_CALL_PROVIDERS, not history_only, grammar_properties,
                                None, None, None, id_map, index_label)
    items = builder.items
    if history_only:
        return {"input": items}, builder, counted
    params: dict[str, Any] = {"model": deployment, "input": items, "stream": True}
    if base.get("sessionId") is not None:
        params["prompt_cache_key"] = clamp_prompt_cache_key(base["sessionId"])
    params["store"] = False
    if js_truthy(base.get("maxTokens")):
        params["max_output_tokens"] = max(base["maxTokens"], MIN_OUTPUT_TOKENS)
    if "temperature" in base:
        params["temperature"] = base["temperature"]
    tools = context.get("tools")
    if tools:
        params["tools"] = convert_tools(
            list(tools), supports_strict_mode=supports_strict, supports_grammar_tools=supports_grammar
        )
    if options.get("toolChoice") is not None:
        params["tool_choice"] = options["toolChoice"]
    _apply_reasoning(params, model, effort, skip_off_effort=False)
    params.update(base.get("samplingParams") or {})
    return params, builder, counted


def build_azure_history(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[list[Any], dict[str, str], PartCarry]:
    """build_history for ``azure-openai-responses``: the same items and the same carry (the message counter),
    Azure's own tool-call ids kept; encode_part and join_parts are openai-responses' own."""
    renamed: dict[str, str] = {}
    params, builder, counted = _build_azure_params(model, context, options, renamed, _part_label, history_only=True)
    return params["input"], renamed, PartCarry(counted, builder.labelled)


def build_azure_tail(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[dict[str, Any], PartCarry, int]:
    """build_tail for ``azure-openai-responses``."""
    params, builder, counted = _build_azure_params(model, context, options, None, _part_label)
    opening = 1 if context.get("systemPrompt") else 0
    return params, PartCarry(counted, builder.labelled), opening
