"""The request body of pi-ai's ``openai-codex-responses`` adapter as Pi 1.6 builds it (what it hands ``onPayload``).

The credential, the endpoint and the session id are 0.85's (``payload.py``: the ChatGPT account read from the
token, the offline placeholder naming ``<account-id>``); the input is 1.6's shared Responses conversion
(``openai_responses.convert16``) over the transcript. What changed in the body since 0.85:

- No ``instructions``: the system prompt is the leading developer (or system) input item, as on every Responses
  model, and later system messages stay in place or are folded by the model's compat. Tools the transcript
  declares are top-level ``tools`` or ``additional_tools``/tool-search items (GPT-5.6 and later: all in place);
  function tools keep ``strict: null``.
- ``max_output_tokens``: the 1.6 output budget (providers.options16), at least 16, unless the compat refuses it.
- Thinking off on a reasoning model is sent as the model's ``off`` effort (``none`` by default; no ``reasoning``
  at all where the model maps ``off`` to null), with ``summary: "auto"`` as every requested effort.
- Models whose compat says ``supportsMidConvoEffort`` carry the level in ``configuration_update`` items (one with
  the current level at the end of the input) and a fixed ``reasoning.effort`` of ``medium``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pi_tools.js.values import UNDEFINED, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import grammar_input_properties
from pi_tools.providers.errors import malformed_input_guard
from pi_tools.providers.openai_codex_responses.payload import (
    CODEX_TOOL_CALL_PROVIDERS,
    account_id,
    cache_session_id,
    codex_api_key,
)
from pi_tools.providers.openai_responses.convert16 import (
    InputBuilder16,
    convert_messages,
    convert_tools,
    responses_tool_support,
)
from pi_tools.providers.openai_responses.payload import MIN_OUTPUT_TOKENS
from pi_tools.providers.options import clamp_thinking_level
from pi_tools.providers.options16 import build_base_options
from pi_tools.providers.transcript import (
    Message,
    declared_tools,
    normalize_context,
    resolve_transcript,
    resolve_transcript_tools,
)

CONFIGURATION_UPDATE_REQUEST_EFFORT = "medium"
"""``reasoning.effort`` while ``configuration_update`` items carry the thinking level."""

def _compat(model: Model, name: str, default: Any) -> Any:
    value = (model.get("compat") or {}).get(name)
    return default if value is None else value


def resolve_reasoning_effort(model: Model, effort: Any) -> Any:
    """The provider's effort for a requested level (``none`` is thinking off); None where the model takes no
    ``reasoning`` for it (its level map sends ``off`` to null)."""
    level_map = model.get("thinkingLevelMap") or {}
    if effort == "none":
        return level_map["off"] if "off" in level_map else "none"
    mapped = level_map.get(effort) if isinstance(effort, str) else None
    return effort if mapped is None else mapped


def configuration_update_effort(model: Model, options: Mapping[str, Any]) -> Any:
    """The level the ``configuration_update`` items carry, or None where the effort goes in ``reasoning``."""
    effort = options.get("reasoningEffort")
    if not js_truthy(_compat(model, "supportsMidConvoEffort", UNDEFINED)) or effort is None:
        return None
    return resolve_reasoning_effort(model, effort)


def stream_options(model: Model, transcript: list[Message], options: Mapping[str, Any]) -> dict[str, Any]:
    """What 1.6's ``streamSimple`` hands Codex's ``stream``: the 1.6 base options, the tool choice, and the
    clamped thinking level (``none`` when off on a reasoning model). Fails as Pi does without a credential."""
    api_key = codex_api_key(model, options)
    codex = build_base_options(model, transcript, options, api_key)
    if options.get("toolChoice") is not None:
        codex["toolChoice"] = options["toolChoice"]
    level = options.get("reasoning")
    clamped = clamp_thinking_level(model, level) if js_truthy(level) else "off"
    if clamped != "off":
        codex["reasoningEffort"] = clamped
    elif model.get("reasoning"):
        codex["reasoningEffort"] = "none"
    return codex


def _convert(model: Model, transcript: list[Message], grammar_properties: Mapping[str, str], update_effort: Any,
             id_map: dict[str, str] | None = None,
             index_label: Callable[[int], str] | None = None) -> InputBuilder16:
    """convert_messages with Codex's providers, the model's compat and ``strict: null`` function tools."""
    tool_options = {"strict": None, "supportsStrictMode": bool(_compat(model, "supportsStrictMode", True)),
                    "supportsOpenAIGrammarTools": bool(_compat(model, "supportsOpenAIGrammarTools", False))}
    return convert_messages(
        model, transcript, CODEX_TOOL_CALL_PROVIDERS,
        grammar_properties=grammar_properties,
        supports_mid_convo_system_messages=_compat(model, "supportsMidConvoSystemMessages", False),
        supports_additional_tools=_compat(model, "supportsAdditionalTools", False),
        supports_tool_search=_compat(model, "supportsToolSearch", False),
        tool_options=tool_options,
        configuration_update_effort=update_effort,
        id_map=id_map,
        index_label=index_label,
    )


def build_request_body(
    model: Model,
    transcript: list[Message],
    options: Mapping[str, Any],
    session_id: str | None,
    grammar_properties: Mapping[str, str],
    update_effort: Any,
    index_label: Callable[[int], str] | None = None,
    built: list[Any] | None = None,
) -> dict[str, Any]:
    """pi-ai 1.6's ``buildRequestBody`` for Codex's own request options (``textVerbosity``, ``toolChoice``,
    ``maxTokens``, ``temperature``, ``serviceTier``, ``reasoningEffort``, ``reasoningSummary``) over a resolved
    transcript. `index_label` numbers the ids of assistant texts without one (build_tail), and `built`, when
    given, receives the builder of the input."""
    strict_mode = bool(_compat(model, "supportsStrictMode", True))
    grammar_tools = bool(_compat(model, "supportsOpenAIGrammarTools", False))
    mid_convo = _compat(model, "supportsMidConvoSystemMessages", False)
    additional = _compat(model, "supportsAdditionalTools", False)
    search = _compat(model, "supportsToolSearch", False)
    request_tools, _ = resolve_transcript_tools(transcript, responses_tool_support(mid_convo, additional, search))
    builder = _convert(model, transcript, grammar_properties, update_effort, index_label=index_label)
    if built is not None:
        built.append(builder)
    body: dict[str, Any] = {
        "model": model.get("id"),
        "store": False,
        "stream": True,
        "input": builder.items,
        "text": {"verbosity": options.get("textVerbosity") or "low"},
        "include": ["reasoning.encrypted_content"],
    }
    if session_id is not None:
        body["prompt_cache_key"] = session_id
    tool_choice = options.get("toolChoice")
    body["tool_choice"] = "auto" if tool_choice is None else tool_choice
    body["parallel_tool_calls"] = True
    max_tokens: Any = options.get("maxTokens")
    if max_tokens is not None and js_truthy(max_tokens) and js_truthy(_compat(model, "supportsMaxOutputTokens", True)):
        body["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if options.get("temperature") is not None:
        body["temperature"] = options["temperature"]
    if options.get("serviceTier") is not None:
        body["service_tier"] = options["serviceTier"]
    if request_tools:
        body["tools"] = convert_tools(request_tools, supports_strict_mode=strict_mode,
                                      supports_grammar_tools=grammar_tools, strict=None)
    effort = options.get("reasoningEffort")
    if effort is not None:
        sent = resolve_reasoning_effort(model, effort) if update_effort is None else CONFIGURATION_UPDATE_REQUEST_EFFORT
        if sent is not None:
            summary = options.get("reasoningSummary")
            body["reasoning"] = {"effort": sent, "summary": "auto" if summary is None else summary}
    elif model.get("reasoning"):
        level_map = model.get("thinkingLevelMap") or {}
        if "off" not in level_map or level_map["off"] is not None:
            off = level_map.get("off")
            body["reasoning"] = {"effort": "none" if off is None else off}
    return body


@malformed_input_guard
def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The body Pi 1.6's ``streamSimple`` passes to ``onPayload`` for an ``openai-codex-responses`` model."""
    return _build_payload(model, context, options)


def _build_payload(model: Model, context: dict[str, Any], options: dict[str, Any],
                   index_label: Callable[[int], str] | None = None, built: list[Any] | None = None) -> dict[str, Any]:
    """build_payload, with build_request_body's `index_label` and `built`."""
    codex_api_key(model, options)
    transcript = normalize_context(context)
    codex = stream_options(model, transcript, options)
    resolved = resolve_transcript(transcript, _compat(model, "supportsMidConvoSystemMessages", False))
    update_effort = configuration_update_effort(model, codex)
    account_id(codex["apiKey"])
    grammar_properties = grammar_input_properties(declared_tools(resolved),
                                                  bool(_compat(model, "supportsOpenAIGrammarTools", False)))
    return build_request_body(model, resolved, codex, cache_session_id(codex), grammar_properties, update_effort,
                              index_label, built)


# --- in parts (see pi_tools.providers.split; the item counter is carried as openai-responses carries it) -----


def build_history(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[list[Any], dict[str, str],
                                                                                        Any]:
    """The input items of a part of the transcript before its last, holding no system message (the leading one,
    made of the context's systemPrompt and tools, opens the last part), the tool-call ids it renamed and its
    carry (openai_responses.payload.PartCarry). No closing configuration update: only the transcript's end has
    it."""
    from pi_tools.providers.openai_responses.payload import PartCarry, _part_label

    codex = stream_options(model, [], options)
    update_effort = configuration_update_effort(model, codex)
    grammar_transcript = resolve_transcript(normalize_context({**context, "messages": []}),
                                            _compat(model, "supportsMidConvoSystemMessages", False))
    grammar_properties = grammar_input_properties(declared_tools(grammar_transcript),
                                                  bool(_compat(model, "supportsOpenAIGrammarTools", False)))
    renamed: dict[str, str] = {}
    builder = _convert(model, list(context.get("messages") or []), grammar_properties, update_effort, renamed,
                       _part_label)
    if update_effort is not None:
        builder.items.pop()  # the closing configuration update
    return builder.items, renamed, PartCarry(builder.counted, builder.labelled)


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of the transcript's last part, its carry and its opening count (the Responses family's
    tail_built_by over this API's own build_payload)."""
    from pi_tools.providers.openai_responses.payload16 import tail_built_by

    return tail_built_by(_build_payload, model, context, options)
