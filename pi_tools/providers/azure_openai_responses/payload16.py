"""The Pi 1.6 request body of pi-ai's ``azure-openai-responses`` adapter (what it hands ``onPayload``).

The shared 1.6 Responses conversion (openai_responses.convert16) with Azure's own choices, as in 0.85: the
deployment as ``model``, a ``prompt_cache_key`` whatever the cache retention, no retention fields, strict tools
unless the compat refuses them, the "off" effort for every provider. What 1.6 changed for Azure: the provider is
called ``azure`` (its own tool-call ids keep their ``call_id|item_id`` pairs under that name); the transcript's
system messages stay in place or are collapsed by the compat, and its tools are declared as the compat allows
(top-level, tool search or ``additional_tools``); ``promptCacheKeyMode: disabled`` drops the cache key; the
endpoint and the deployment are resolved as before (azure-openai-config.ts; options.env, then the environment).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_tools.js.values import js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import grammar_input_properties
from pi_tools.providers.errors import malformed_input_guard, require_api_key
from pi_tools.providers.openai_responses.convert16 import (
    InputBuilder16,
    convert_messages,
    convert_tools,
    responses_tool_support,
)
from pi_tools.providers.openai_responses.payload import (
    MIN_OUTPUT_TOKENS,
    TOOL_CALL_PROVIDERS,
    _apply_reasoning,
    azure_deployment_name,
    azure_endpoint,
    clamp_prompt_cache_key,
    make_tool_call_id_normalizer,
    reasoning_effort,
)
from pi_tools.providers.options16 import build_base_options
from pi_tools.providers.transcript import (
    declared_tools,
    normalize_context,
    resolve_transcript,
    resolve_transcript_tools,
)

AZURE_TOOL_CALL_PROVIDERS = TOOL_CALL_PROVIDERS | {"azure"}
normalize_tool_call_id = make_tool_call_id_normalizer(AZURE_TOOL_CALL_PROVIDERS)
"""Cross-model tool-call id rewrite for ``azure-openai-responses`` in Pi 1.6 (Azure's provider is ``azure``)."""


def _flag(compat: dict[str, Any], name: str, default: bool) -> Any:
    value = compat.get(name)
    return default if value is None else value


@malformed_input_guard
def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object Pi 1.6's ``streamSimple`` passes to ``onPayload`` for an ``azure-openai-responses`` model.

    pi-ai resolves the endpoint before building the params, so a missing base URL fails the request here too."""
    return _build_payload(model, context, options)


def _tool_flags(compat: dict[str, Any]) -> tuple[Any, bool, bool, Any, Any]:
    """(mid-convo system messages, grammar tools, strict mode, additional tools, tool search) with Azure's
    defaults."""
    return (_flag(compat, "supportsMidConvoSystemMessages", False),
            bool(_flag(compat, "supportsOpenAIGrammarTools", False)), bool(_flag(compat, "supportsStrictMode", True)),
            _flag(compat, "supportsAdditionalTools", False), _flag(compat, "supportsToolSearch", False))


def _convert(model: Model, resolved: list[dict[str, Any]], compat: dict[str, Any], grammar_transcript: list[Any],
             id_map: dict[str, str] | None = None,
             index_label: Callable[[int], str] | None = None) -> InputBuilder16:
    """convert_messages with Azure's providers and the model's compat (grammar tools from what
    `grammar_transcript` declares)."""
    mid_convo, supports_grammar, supports_strict, additional, tool_search = _tool_flags(compat)
    return convert_messages(
        model, resolved, AZURE_TOOL_CALL_PROVIDERS,
        grammar_properties=grammar_input_properties(declared_tools(grammar_transcript), supports_grammar),
        supports_mid_convo_system_messages=mid_convo,
        supports_additional_tools=additional,
        supports_tool_search=tool_search,
        tool_options={"supportsStrictMode": supports_strict, "supportsOpenAIGrammarTools": supports_grammar},
        id_map=id_map,
        index_label=index_label,
    )


def _build_payload(model: Model, context: dict[str, Any], options: dict[str, Any],
                   index_label: Callable[[int], str] | None = None, built: list[Any] | None = None) -> dict[str, Any]:
    """build_payload; `index_label` numbers the ids of assistant texts without one (build_tail), and `built`, when
    given, receives the builder of the input."""
    api_key = require_api_key(model, options)
    transcript = normalize_context(context)
    base = build_base_options(model, transcript, options, api_key)
    effort = reasoning_effort(model, options)
    compat = model.get("compat") or {}
    mid_convo, supports_grammar, supports_strict, additional, tool_search = _tool_flags(compat)
    resolved = resolve_transcript(transcript, mid_convo)
    deployment = azure_deployment_name(model, base)
    azure_endpoint(model, base)
    request_tools, _ = resolve_transcript_tools(resolved, responses_tool_support(mid_convo, additional, tool_search))
    builder = _convert(model, resolved, compat, resolved, index_label=index_label)
    if built is not None:
        built.append(builder)
    params: dict[str, Any] = {"model": deployment, "input": builder.items, "stream": True}
    if compat.get("promptCacheKeyMode") != "disabled" and base.get("sessionId") is not None:
        params["prompt_cache_key"] = clamp_prompt_cache_key(base["sessionId"])
    params["store"] = False
    if js_truthy(base.get("maxTokens")):
        params["max_output_tokens"] = max(base["maxTokens"], MIN_OUTPUT_TOKENS)
    if "temperature" in base:
        params["temperature"] = base["temperature"]
    if request_tools:
        params["tools"] = convert_tools(request_tools, supports_strict_mode=supports_strict,
                                        supports_grammar_tools=supports_grammar)
    if options.get("toolChoice") is not None:
        params["tool_choice"] = options["toolChoice"]
    _apply_reasoning(params, model, effort, skip_off_effort=False)
    params.update(base.get("samplingParams") or {})
    return params


# --- in parts (see pi_tools.providers.split; the item counter is carried as openai-responses carries it) -----


def build_history(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[list[Any], dict[str, str],
                                                                                        Any]:
    """The input items of a part of the transcript before its last, holding no system message (the leading one,
    made of the context's systemPrompt and tools, opens the last part), the tool-call ids it renamed and its
    carry (openai_responses.payload.PartCarry)."""
    from pi_tools.providers.openai_responses.payload import PartCarry, _part_label

    compat = model.get("compat") or {}
    grammar_transcript = resolve_transcript(normalize_context({**context, "messages": []}),
                                            _flag(compat, "supportsMidConvoSystemMessages", False))
    renamed: dict[str, str] = {}
    builder = _convert(model, list(context.get("messages") or []), compat, grammar_transcript, renamed, _part_label)
    return builder.items, renamed, PartCarry(builder.counted, builder.labelled)


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of the transcript's last part, its carry and its opening count (the Responses family's
    tail_built_by over this API's own build_payload)."""
    from pi_tools.providers.openai_responses.payload16 import tail_built_by

    return tail_built_by(_build_payload, model, context, options)
