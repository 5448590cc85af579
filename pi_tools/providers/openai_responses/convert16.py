"""Pi 1.6's Responses input conversion (pi-ai ``openai-responses-shared.ts``), shared by every Responses API.

What 1.6 changed against the 0.85 conversion in ``payload.py`` (whose item builders this module reuses):

- The input is built from the transcript: system messages are items of their own (the leading one as the whole
  prompt, later ones, where the model keeps them in place, as updates framed by section name), in the model's
  instruction role (``developer`` for reasoning models unless the compat says otherwise).
- Tools declared by system messages after those the request's top-level ``tools`` already holds are declared in
  place, by what the API can express (``responses_tool_support``): ``additional_tools`` items (every tool, from the
  first system message on, with a notice before each later batch and a notice for removals), or a synthetic
  client-side tool search (additions only). 0.85's tools loaded late by a tool result's ``addedToolNames`` are gone.
- Where the model takes its thinking level as ``configuration_update`` items, one goes before each earlier reply of
  the same model that recorded its level, and one with the current level at the end.
- A tool call keeps its item id only when it has the prefix of the item it is replayed as (``fc_`` for a function
  call, ``ctc_`` for a custom tool call) and comes from this very model; namespaces only from this very model.
- A tool result whose text is only whitespace counts as no text; strict tool schemas need a type on every node.

`convert_messages` takes the options pi-ai's ``convertResponsesMessages`` takes, so that openai-responses,
azure-openai-responses and openai-codex-responses build their input with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pi_tools.js.access import block_type, content_array, copy_defined, js_join_piece, string_field
from pi_tools.js.errors import JsTypeError
from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.strings import js_is_blank
from pi_tools.js.values import UNDEFINED, js_to_string
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import (
    grammar_tool_input,
    make_strict_json_schema,
    resolve_grammar,
    resolve_json_schema_strict,
)
from pi_tools.providers.hashing import short_hash
from pi_tools.providers.openai_responses.payload import (
    _input_image,
    _ResponsesInputBuilder,
    _split_id,
    make_tool_call_id_normalizer,
)
from pi_tools.providers.sanitize import sanitize_surrogates
from pi_tools.providers.transcript import (
    ToolSupport,
    render_system_message_update,
    resolve_transcript,
    resolve_transcript_tools,
    system_message_text,
)
from pi_tools.providers.transform_messages import TRANSFORM_16, transform_messages

INCREMENTAL_TOOLS_NOTICE = (
    "This is an incremental tools update. Previously declared tools remain available unless explicitly marked "
    "unavailable. A tool declared again here is available again, and its latest definition replaces the earlier one."
)
"""What precedes every ``additional_tools`` item after the first."""
REMOVED_TOOLS_NOTICE = "The following tools are no longer available. Do not call them:"


def responses_tool_support(mid_convo_system: Any, additional_tools: Any, tool_search: Any) -> ToolSupport:
    """How a Responses request declares tool changes: every declaration in place as ``additional_tools`` items
    (`changes`, only where system messages stay in place), additions as a synthetic tool search (`additions`), or
    only the top-level list (`none`)."""
    if mid_convo_system and additional_tools:
        return "changes"
    return "additions" if tool_search else "none"


def incremental_tools_notice(unavailable: Sequence[str]) -> str:
    """The notice before a later ``additional_tools`` item, naming the tools still removed."""
    if not unavailable:
        return INCREMENTAL_TOOLS_NOTICE
    return f"{INCREMENTAL_TOOLS_NOTICE}\nStill unavailable: {', '.join(unavailable)}."


def removed_tools_notice(names: Sequence[str]) -> str:
    """The text announcing tools a system message removed."""
    return REMOVED_TOOLS_NOTICE + "".join(f"\n- {name}" for name in names)


def convert_tools(
    tools: Sequence[Any],
    *,
    supports_strict_mode: bool = True,
    supports_grammar_tools: bool = False,
    strict: Any = UNDEFINED,
    tool_search_result: bool = False,
) -> list[dict[str, Any]]:
    """Responses tool definitions as Pi 1.6 writes them: 0.85's, with strict schemas requiring a type on every node.
    `strict` is the ``strict`` a function tool gets when its own sampling does not decide (false unless given;
    Codex gives null); `tool_search_result` marks the tools a synthetic tool search returns (``defer_loading``)."""
    default_strict = False if strict is UNDEFINED else strict
    result: list[dict[str, Any]] = []
    for tool in tools:
        grammar = resolve_grammar(tool, supports_grammar_tools)
        if grammar:
            custom: dict[str, Any] = {"type": "custom"}
            copy_defined(custom, tool, "name", "description")
            custom["format"] = {"type": "grammar", "syntax": grammar["format"], "definition": grammar["definition"]}
            if tool_search_result:
                custom["defer_loading"] = True
            result.append(custom)
            continue
        resolved = resolve_json_schema_strict(tool, supports_strict_mode, typed_only=True)
        tool_strict = default_strict if resolved is None else resolved
        function: dict[str, Any] = {"type": "function"}
        copy_defined(function, tool, "name", "description")
        if tool_strict is True:
            function["parameters"] = make_strict_json_schema(tool.get("parameters"), typed_only=True)
        else:
            copy_defined(function, tool, "parameters")
        if tool_search_result:
            function["defer_loading"] = True
        if supports_strict_mode:
            function["strict"] = tool_strict
        result.append(function)
    return result


def tool_result_output(model: Model, content: list[Any]) -> str | list[dict[str, Any]]:
    """A tool result's ``output``: its text (whitespace only counts as none), with its images where the model
    takes them."""
    if len(content) == 1 and type(only := content[0]) is dict and only.get("type") == "text" and type(
            only.get("text")) is str:  # most results: one text block and no image
        text = only["text"]
        return "(no tool output)" if js_is_blank(text) else sanitize_surrogates(text)
    text = "\n".join(js_join_piece(block.get("text")) for block in content if block_type(block) == "text")
    images = [block for block in content if block_type(block) == "image"]
    has_text = not js_is_blank(text)
    if not images or "image" not in (model.get("input") or ()):
        if has_text:
            return sanitize_surrogates(text)
        return "(see attached image)" if images else "(no tool output)"
    output: list[dict[str, Any]] = []
    if has_text:
        output.append({"type": "input_text", "text": sanitize_surrogates(text)})
    output.extend(_input_image(image) for image in images)
    return output


def _configuration_update(effort: Any) -> dict[str, Any]:
    return {"type": "configuration_update", "reasoning": {"effort": effort}}


class InputBuilder16(_ResponsesInputBuilder):
    """The 0.85 item builder with 1.6's tool-call and tool-result items, and configuration updates before replies."""

    def __init__(self, model: Model, grammar_properties: Mapping[str, str], tool_options: Mapping[str, Any],
                 configuration_update_effort: Any = None) -> None:
        super().__init__(model, grammar_properties, {}, None, tool_options)
        self.configuration_update_effort = configuration_update_effort
        self.counted = 0
        """How many messages numbered the ids of assistant texts without one (convert_messages' count)."""
        self.opening = 0
        """How many items the transcript's leading system message made."""

    def assistant(self, message: Mapping[str, Any], message_index: int) -> bool:
        update = None
        if self.configuration_update_effort is not None and "providerThinkingLevel" in message:
            model = self.model
            if (message.get("provider"), message.get("api"), message.get("model")) == (
                    model.get("provider"), model.get("api"), model.get("id")):
                update = _configuration_update(message["providerThinkingLevel"])
        if update is None:
            return super().assistant(message, message_index)
        at = len(self.items)
        self.items.append(update)
        if super().assistant(message, message_index):
            return True
        del self.items[at]
        return False

    def _tool_call_item(self, block: Mapping[str, Any], same_model: bool, different_model: bool) -> dict[str, Any]:
        pieces = _split_id(block.get("id", UNDEFINED), "toolCall.id")
        call_id = pieces[0]
        item_id: str | None = pieces[1] if len(pieces) > 1 else None
        name = block.get("name")
        input_property = self.grammar_properties.get(name) if isinstance(name, str) else None
        prefix = "fc_" if input_property is None else "ctc_"
        if different_model or item_id is None or not item_id.startswith(prefix):
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
        if same_model and "namespace" in block:
            item["namespace"] = block["namespace"]
        return item

    def tool_result(self, message: Mapping[str, Any]) -> None:
        tool_call_id = message.get("toolCallId")
        if tool_call_id is not None and type(tool_call_id) is not str:  # `const [callId] = msg.toolCallId.split()`
            raise JsTypeError("msg.toolCallId.split is not a function or its return value is not iterable")
        call_id = string_field(message, "toolCallId", "split").split("|")[0]
        output = tool_result_output(self.model, content_array(message, "content.filter"))
        kind = (
            "custom_tool_call_output"
            if isinstance(message.get("toolName"), str) and message["toolName"] in self.grammar_properties
            else "function_call_output"
        )
        self.items.append({"type": kind, "call_id": call_id, "output": output})

    def tools(self, tools: Sequence[Any], tool_search_result: bool = False) -> list[dict[str, Any]]:
        options = self.tool_options
        extra: dict[str, Any] = {"strict": options["strict"]} if "strict" in options else {}
        return convert_tools(tools, supports_strict_mode=bool(options.get("supportsStrictMode", True)),
                             supports_grammar_tools=bool(options.get("supportsOpenAIGrammarTools", False)),
                             tool_search_result=tool_search_result, **extra)


def _names(tools: Sequence[Any]) -> list[Any]:
    return [tool.get("name") if isinstance(tool, Mapping) else UNDEFINED for tool in tools]


class _ToolDeclarations:
    """Tools declared in place by the system messages after those the top-level list holds."""

    def __init__(self, builder: InputBuilder16, support: ToolSupport, instruction_role: str) -> None:
        self.builder = builder
        self.support = support
        self.instruction_role = instruction_role
        self.declared = False
        self.unavailable: dict[Any, None] = {}
        """Tools announced as removed and not declared since, in the order they were removed."""

    def additions(self, message: Mapping[str, Any], seed: str) -> None:
        tools = list(message.get("toolsAdded") or ())
        names = _names(tools)
        for name in names:
            self.unavailable.pop(_hashable(name), None)
        if not tools:
            return
        items = self.builder.items
        if self.support == "changes":
            if self.declared:
                unavailable = [js_join_piece(name) for name in self.unavailable]
                items.append({"role": self.instruction_role, "content": incremental_tools_notice(unavailable)})
            self.declared = True
            items.append({"type": "additional_tools", "role": "developer", "tools": self.builder.tools(tools)})
            return
        if self.support != "additions":
            return
        joined = ",".join(js_join_piece(name) for name in names)
        call_id = f"pi_tool_load_{short_hash(f'{seed}:{joined}')}"
        query = " ".join(js_join_piece(name) for name in names)
        items.append({"type": "tool_search_call", "call_id": call_id, "execution": "client", "status": "completed",
                      "arguments": {"query": query, "limit": len(names)}})
        items.append({"type": "tool_search_output", "call_id": call_id, "execution": "client",
                      "status": "completed", "tools": self.builder.tools(tools, tool_search_result=True)})

    def removals(self, message: Mapping[str, Any]) -> str | None:
        added = set(_hashable(name) for name in _names(list(message.get("toolsAdded") or ())))
        removed = [name for name in _names(list(message.get("toolsRemoved") or ())) if _hashable(name) not in added]
        for name in removed:
            self.unavailable[_hashable(name)] = None
        return removed_tools_notice([js_join_piece(name) for name in removed]) if removed else None


def _hashable(value: Any) -> Any:
    return value if not isinstance(value, dict | list) else js_to_string(value)


def instruction_role(model: Model) -> str:
    """The role system messages are sent in: ``developer`` for reasoning models unless the compat refuses it."""
    developer = model.get("reasoning") and (model.get("compat") or {}).get("supportsDeveloperRole") is not False
    return "developer" if developer else "system"


def convert_messages(
    model: Model,
    transcript: Sequence[dict[str, Any]],
    allowed_providers: frozenset[str],
    *,
    grammar_properties: Mapping[str, str] | None = None,
    supports_mid_convo_system_messages: Any = False,
    supports_additional_tools: Any = False,
    supports_tool_search: Any = False,
    tool_options: Mapping[str, Any] | None = None,
    configuration_update_effort: Any = None,
    id_map: dict[str, str] | None = None,
    index_label: Callable[[int], str] | None = None,
) -> InputBuilder16:
    """The ``input`` items of a transcript (normalized: the prompt and tools as its leading system message), in
    the builder that made them (``builder.items``)."""
    resolved = resolve_transcript(list(transcript), supports_mid_convo_system_messages)
    messages = transform_messages(resolved, model, make_tool_call_id_normalizer(allowed_providers), id_map=id_map,
                                  rules=TRANSFORM_16)
    support = responses_tool_support(supports_mid_convo_system_messages, supports_additional_tools,
                                     supports_tool_search)
    _, folded = resolve_transcript_tools(resolved, support)
    builder = InputBuilder16(model, grammar_properties or {},
                             tool_options or {"supportsStrictMode": True, "supportsOpenAIGrammarTools": False},
                             configuration_update_effort)
    if index_label is not None:
        builder.index_label = index_label
    role = instruction_role(model)
    declarations = _ToolDeclarations(builder, support, role)
    items = builder.items
    message_index = 0
    system_index = 0
    for position, message in enumerate(messages):
        kind = message.get("role")
        leading = position == 0 and kind == "system"
        if kind == "system":
            anchors = system_index >= folded
            system_index += 1
            if anchors:
                declarations.additions(message, f"system:{message_index}")
            parts = [system_message_text(message) if leading else render_system_message_update(message)]
            if anchors:
                notice = declarations.removals(message)
                if notice is not None:
                    parts.append(notice)
            text = "\n\n".join(part for part in parts if len(part) > 0)
            if text:
                items.append({"role": role, "content": sanitize_surrogates(text)})
        elif kind == "user":
            if not builder.user(message):
                continue
        elif kind == "assistant":
            if not builder.assistant(message, message_index):
                continue
        elif kind == "toolResult":
            builder.tool_result(message)
        if not leading:
            message_index += 1
        else:
            builder.opening = len(items)
    builder.counted = message_index
    if configuration_update_effort is not None:
        items.append(_configuration_update(configuration_update_effort))
    return builder
