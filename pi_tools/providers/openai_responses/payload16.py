"""The Pi 1.6 request body of pi-ai's ``openai-responses`` adapter (what it hands ``onPayload``).

Built from the transcript (providers.transcript): the input comes from `convert16.convert_messages`; the top-level
``tools`` are those the transcript's leading system messages hold (all current tools where system messages are
collapsed; none for models that declare every tool in place, GPT-5.6 and later); the output budget is 1.6's
(providers.options16). What else changed since 0.85:

- ``prompt_cache_key`` follows the model's ``promptCacheKeyMode`` (``disabled``: none).
- A credential sent straight to api.openai.com that is not an ``sk-`` API key is a ChatGPT sign-in: the request then
  has no ``max_output_tokens``, ``prompt_cache_retention``, ``prompt_cache_options`` nor ``temperature``, and no
  ``configuration_update`` items. pi-tools builds for an API-key user: its offline placeholder credential
  (providers.credentials) counts as an ``sk-`` key; a caller passing a real credential gets what Pi does with it.
- Models whose compat says ``supportsMidConvoEffort`` send the thinking level as ``configuration_update`` items
  and a fixed ``reasoning.effort`` of ``medium``.
- Sampling parameters may come from the model's ``samplingParamsByThinkingLevel``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pi_tools.js.values import js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import grammar_input_properties
from pi_tools.providers.credentials import OFFLINE_API_KEY
from pi_tools.providers.errors import malformed_input_guard
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
    clamp_prompt_cache_key,
    client_api_key,
    reasoning_effort,
    resolved_compat,
)
from pi_tools.providers.options import resolve_cache_retention
from pi_tools.providers.options16 import build_base_options
from pi_tools.providers.transcript import (
    declared_tools,
    normalize_context,
    resolve_transcript,
    resolve_transcript_tools,
)

OPENAI_API_BASE_URL = "https://api.openai.com/v1"
CONFIGURATION_UPDATE_REQUEST_EFFORT = "medium"
"""The ``reasoning.effort`` of a request whose thinking level travels in ``configuration_update`` items."""


def resolved_compat16(model: Model) -> dict[str, Any]:
    """The model's Responses compat flags with pi-ai 1.6's defaults filled in."""
    compat = model.get("compat") or {}

    def flag(name: str, default: Any) -> Any:
        value = compat.get(name)
        return default if value is None else value

    return {
        **resolved_compat(model),
        "supportsMidConvoSystemMessages": flag("supportsMidConvoSystemMessages", False),
        "promptCacheKeyMode": flag("promptCacheKeyMode", "auto"),
        "supportsMidConvoEffort": flag("supportsMidConvoEffort", False),
    }


def is_chatgpt_sign_in(model: Mapping[str, Any], api_key: Any) -> bool:
    """Whether the credential is a Sign in with ChatGPT token: anything but an ``sk-`` key sent straight to OpenAI.
    pi-tools' offline placeholder stands for an API key."""
    if api_key is None or api_key == OFFLINE_API_KEY:
        return False
    return (model.get("provider") == "openai" and model.get("baseUrl") == OPENAI_API_BASE_URL
            and not str(api_key).startswith("sk-"))


def configuration_update_effort(model: Model, effort: str | None, api_key: Any, compat: Mapping[str, Any]) -> Any:
    """The level sent in ``configuration_update`` items, or None where the effort goes in ``reasoning``."""
    if not compat["supportsMidConvoEffort"] or not effort or is_chatgpt_sign_in(model, api_key):
        return None
    mapped = (model.get("thinkingLevelMap") or {}).get(effort)
    return effort if mapped is None else mapped


def _tool_options(compat: Mapping[str, Any]) -> dict[str, bool]:
    return {
        "supportsStrictMode": bool(compat["supportsStrictMode"]),
        "supportsOpenAIGrammarTools": bool(compat["supportsOpenAIGrammarTools"]),
    }


def _convert(model: Model, resolved: list[dict[str, Any]], compat: Mapping[str, Any], update_effort: Any,
             grammar_transcript: list[dict[str, Any]], id_map: dict[str, str] | None = None,
             index_label: Callable[[int], str] | None = None) -> InputBuilder16:
    """convert_messages with the model's compat (grammar tools from what `grammar_transcript` declares)."""
    grammar_properties = grammar_input_properties(declared_tools(grammar_transcript),
                                                  compat["supportsOpenAIGrammarTools"])
    return convert_messages(
        model, resolved, TOOL_CALL_PROVIDERS,
        grammar_properties=grammar_properties,
        supports_mid_convo_system_messages=compat["supportsMidConvoSystemMessages"],
        supports_additional_tools=compat["supportsAdditionalTools"],
        supports_tool_search=compat["supportsToolSearch"],
        tool_options=_tool_options(compat),
        configuration_update_effort=update_effort,
        id_map=id_map,
        index_label=index_label,
    )


@malformed_input_guard
def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object Pi 1.6's ``streamSimple`` passes to ``onPayload`` for an ``openai-responses`` model."""
    return _build_payload(model, context, options)


def _build_payload(model: Model, context: dict[str, Any], options: dict[str, Any],
                   index_label: Callable[[int], str] | None = None, built: list[Any] | None = None) -> dict[str, Any]:
    """build_payload; `index_label` numbers the ids of assistant texts without one (build_tail), and `built`, when
    given, receives the builder of the input."""
    client_api_key(model, options)
    transcript = normalize_context(context)
    base = build_base_options(model, transcript, options)
    effort = reasoning_effort(model, options)
    compat = resolved_compat16(model)
    api_key = base.get("apiKey")
    update_effort = configuration_update_effort(model, effort, api_key, compat)
    resolved = resolve_transcript(transcript, compat["supportsMidConvoSystemMessages"])
    support = responses_tool_support(compat["supportsMidConvoSystemMessages"], compat["supportsAdditionalTools"],
                                     compat["supportsToolSearch"])
    request_tools, _ = resolve_transcript_tools(resolved, support)
    tool_options = _tool_options(compat)
    builder = _convert(model, resolved, compat, update_effort, resolved, index_label=index_label)
    if built is not None:
        built.append(builder)
    params: dict[str, Any] = {"model": model.get("id"), "input": builder.items, "stream": True}
    retention = resolve_cache_retention(base)
    sign_in = is_chatgpt_sign_in(model, api_key)
    session_id = base.get("sessionId")
    if retention != "none" and compat["promptCacheKeyMode"] != "disabled" and session_id is not None:
        params["prompt_cache_key"] = clamp_prompt_cache_key(session_id)
    explicit_mode = compat["supportsExplicitPromptCacheMode"]
    if not sign_in:
        if retention == "long" and compat["supportsLongCacheRetention"] and not explicit_mode:
            params["prompt_cache_retention"] = "24h"
        if explicit_mode:
            if retention == "none":
                params["prompt_cache_options"] = {"mode": "explicit"}
            elif retention == "long" and compat["supportsLongCacheRetention"]:
                params["prompt_cache_options"] = {"ttl": "30m"}
    params["store"] = False
    max_tokens = base["maxTokens"]
    if js_truthy(max_tokens) and compat["supportsMaxOutputTokens"] and not sign_in:
        params["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if "temperature" in base and not sign_in:
        params["temperature"] = base["temperature"]
    if request_tools:
        params["tools"] = convert_tools(request_tools, supports_strict_mode=tool_options["supportsStrictMode"],
                                        supports_grammar_tools=tool_options["supportsOpenAIGrammarTools"])
    if options.get("toolChoice") is not None:
        params["tool_choice"] = options["toolChoice"]
    _apply_reasoning(params, model, effort, skip_off_effort=model.get("provider") == "github-copilot")
    if effort and update_effort is not None and "reasoning" in params:
        params["reasoning"]["effort"] = CONFIGURATION_UPDATE_REQUEST_EFFORT
    if model.get("reasoning") and model.get("provider") == "xai":
        params["include"] = ["reasoning.encrypted_content"]
    params.update(base.get("samplingParams") or {})
    return params


def build_history(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[list[Any], dict[str, str],
                                                                                        Any]:
    """The input items of a part of the transcript before its last (providers.split), holding no system message
    (the leading one, made of the context's systemPrompt and tools, opens the last part), the tool-call ids it
    renamed and its carry (payload.PartCarry: the ids it numbers are labelled until the join knows the count of
    the messages before it). No closing configuration update: only the transcript's end has it."""
    from pi_tools.providers.openai_responses.payload import PartCarry, _part_label

    compat = resolved_compat16(model)
    update_effort = configuration_update_effort(model, reasoning_effort(model, options), options.get("apiKey"),
                                                compat)
    grammar_transcript = resolve_transcript(normalize_context({**context, "messages": []}),
                                            compat["supportsMidConvoSystemMessages"])
    renamed: dict[str, str] = {}
    builder = _convert(model, list(context.get("messages") or []), compat, update_effort, grammar_transcript,
                       renamed, _part_label)
    if update_effort is not None:
        builder.items.pop()  # the closing configuration update
    return builder.items, renamed, PartCarry(builder.counted, builder.labelled)


BuildPayload = Callable[[Model, dict[str, Any], dict[str, Any], Callable[[int], str] | None, list[Any] | None],
                        dict[str, Any]]


def tail_built_by(build_payload: BuildPayload, model: Model, context: dict[str, Any],
                  options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of the transcript's last part as `build_payload` builds it (its numbered ids labelled), its
    carry, and how many items its input opens with that the leading system message made. The Responses family
    (OpenAI, Codex, Azure) differ only in their `build_payload`, so they share this."""
    from pi_tools.providers.openai_responses.payload import PartCarry, _part_label

    built: list[InputBuilder16] = []
    params = build_payload(model, context, options, _part_label, built)
    builder = built[0]
    return params, PartCarry(builder.counted, builder.labelled), builder.opening


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of the transcript's last part, its carry and its opening count (see tail_built_by)."""
    return tail_built_by(_build_payload, model, context, options)
