"""The Bedrock ConverseStream command input as Pi 1.6's pi-ai hands it to ``onPayload``.

What changed since 0.85 (``payload.py``, whose conversion this module reuses):
- the request comes from a transcript: Bedrock has no mid-conversation system messages, so they are folded into
  one leading prompt (the ``system`` blocks); the tools are those the system messages leave declared;
- for Claude, the images of an error tool result follow all the turn's tool results (a caption naming the call
  first), a note in their place;
- thinking from another model is dropped (transformMessages' 1.6 rules);
- the output budget is 1.6's (options16);
- Claude Haiku 5 joins the adaptive-thinking, native-xhigh and prompt-caching families; adaptive Claude models
  that accept it bind replayed thinking to its prompt (`block_binding` and a beta); OpenAI GPT models take a
  reasoning effort (gpt-oss a flat `reasoning_effort`).
"""

from __future__ import annotations

from typing import Any

from pi_tools.providers.anthropic_messages.payload import MIN_ANSWER_TOKENS, NAN, has_thinking_budget
from pi_tools.providers.bedrock_converse_stream.payload import (
    _DEFAULT_BUDGETS,
    INTERLEAVED_THINKING_BETA,
    _any_candidate,
    _clamp_level,
    _is_gov_cloud,
    _match_candidates,
    _system_blocks,
    _tool_config,
    convert_messages,
    is_claude,
)
from pi_tools.providers.bedrock_converse_stream.payload import (
    supports_prompt_caching as supports_prompt_caching_085,
)
from pi_tools.providers.catalog import Model
from pi_tools.providers.options import adjust_max_tokens_for_thinking, js_max, js_min, resolve_cache_retention
from pi_tools.providers.options16 import build_base_options, clamp_max_tokens_to_context
from pi_tools.providers.transcript import (
    collapse_system_messages,
    current_tools,
    leading_system_message,
    normalize_context,
    system_message_text,
    without_leading_system_message,
)
from pi_tools.providers.transform_messages import TRANSFORM_16

THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01"
_ADAPTIVE = ("opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "haiku-5", "fable-5")
_NATIVE_XHIGH = ("opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "haiku-5", "fable-5")
_BLOCK_BINDING = _NATIVE_XHIGH
_GPT_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "max"}
_GPT_OSS_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}


def supports_adaptive_thinking(model: Model) -> bool:
    return _any_candidate(model, _ADAPTIVE)


def supports_prompt_caching(model: Model, options: dict[str, Any]) -> bool:
    """The earlier families, and Claude Haiku 5."""
    if supports_prompt_caching_085(model, options):
        return True
    candidates = _match_candidates(model)
    return any("claude" in candidate for candidate in candidates) and any("haiku-5" in c for c in candidates)


def _effort_for_level(model: Model, level: Any) -> Any:
    if level == "xhigh" and _any_candidate(model, _NATIVE_XHIGH):
        return "xhigh"
    mapped = (model.get("thinkingLevelMap") or {}).get(level) if level else None
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level, "high")


def reasoning_fields(model: Model, options: dict[str, Any]) -> dict[str, Any] | None:
    """``additionalModelRequestFields``: Claude thinking, OpenAI GPT reasoning effort, else nothing."""
    level = options.get("reasoning")
    if not level or not model.get("reasoning"):
        return None
    if is_claude(model):
        gov_cloud = _is_gov_cloud(model, options)
        display = None if gov_cloud else (options.get("thinkingDisplay") or "summarized")
        binding = not gov_cloud and _any_candidate(model, _BLOCK_BINDING)
        thinking: dict[str, Any]
        if supports_adaptive_thinking(model):
            thinking = {"type": "adaptive"}
            if display is not None:
                thinking["display"] = display
            if binding:
                thinking["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
            fields: dict[str, Any] = {"thinking": thinking, "output_config": {"effort": _effort_for_level(model, level)}}
            if binding:
                fields["anthropic_beta"] = [THINKING_BINDING_BETA]
            return fields
        budgets = options.get("thinkingBudgets") or {}
        budget = budgets.get(_clamp_level(level))
        if budget is None:
            budget = _DEFAULT_BUDGETS.get(level)
        thinking = {"type": "enabled"}
        if budget is not None:
            thinking["budget_tokens"] = budget
        if display is not None:
            thinking["display"] = display
        fields = {"thinking": thinking}
        if options.get("interleavedThinking", True) is not False:
            fields["anthropic_beta"] = [INTERLEAVED_THINKING_BETA]
        return fields
    candidates = _match_candidates(model)
    if any("gpt-oss" in candidate for candidate in candidates):
        effort = _GPT_OSS_EFFORT.get(level)
        return {"reasoning_effort": effort} if effort is not None else {}
    if any("gpt-" in candidate for candidate in candidates):
        mapped = (model.get("thinkingLevelMap") or {}).get(level)
        effort = mapped if isinstance(mapped, str) else _GPT_EFFORT.get(level)
        return {"reasoning": {"effort": effort} if effort is not None else {}}
    return None


def resolve_request_options(model: Model, transcript: list[dict[str, Any]],
                            options: dict[str, Any]) -> dict[str, Any]:
    """What Pi 1.6's ``streamSimple`` hands to ``stream``: the base options (1.6's output budget), the reasoning
    level and, for budget Claude models, the budget fitted into the output ceiling."""
    resolved = build_base_options(model, transcript, options)
    if options.get("toolChoice") is not None:
        resolved["toolChoice"] = options["toolChoice"]
    level = options.get("reasoning")
    if not level:
        return resolved
    resolved["reasoning"] = level
    budgets = options.get("thinkingBudgets")
    if budgets is not None:
        resolved["thinkingBudgets"] = budgets
    if not is_claude(model) or supports_adaptive_thinking(model):
        return resolved
    model_max: int = model["maxTokens"]
    if not has_thinking_budget(level, budgets):
        resolved["maxTokens"] = NAN  # pi-ai's arithmetic on an undefined budget
        resolved["thinkingBudgets"] = {**(budgets or {}), _clamp_level(level): NAN}
        return resolved
    adjusted_max, budget = adjust_max_tokens_for_thinking(resolved["maxTokens"], model_max, level, budgets)
    max_tokens = clamp_max_tokens_to_context(model, transcript, adjusted_max)
    resolved["maxTokens"] = max_tokens
    resolved["thinkingBudgets"] = {
        **(budgets or {}),
        _clamp_level(level): js_min(budget, js_max(0, max_tokens - MIN_ANSWER_TOKENS)),
    }
    return resolved


def build_command_input(model: Model, messages: list[dict[str, Any]], options: dict[str, Any]) -> dict[str, Any]:
    """pi-ai 1.6's ``commandInput`` for a folded transcript and resolved stream options."""
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
    supports_strict = bool((model.get("compat") or {}).get("supportsStrictMode", False))
    tool_config = _tool_config(current_tools(messages), options.get("toolChoice"), supports_strict)
    command: dict[str, Any] = {
        "modelId": model.get("id"),
        "messages": convert_messages(model, {"messages": without_leading_system_message(messages)}, retention,
                                     caching, rules=TRANSFORM_16, split_error_images=is_claude(model)),
    }
    initial = leading_system_message(messages)
    system = _system_blocks(system_message_text(initial) if initial is not None else None, retention, caching)
    if system is not None:
        command["system"] = system
    command["inferenceConfig"] = inference
    if tool_config is not None:
        command["toolConfig"] = tool_config
    reasoning = reasoning_fields(model, options)
    if reasoning is not None:
        command["additionalModelRequestFields"] = reasoning
    if options.get("requestMetadata") is not None:
        command["requestMetadata"] = options["requestMetadata"]
    return command


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The ConverseStream command input Pi 1.6's bedrock ``streamSimple`` passes to ``onPayload``."""
    options = options or {}
    transcript = normalize_context(context)
    resolved = resolve_request_options(model, transcript, options)
    return build_command_input(model, collapse_system_messages(transcript), resolved)


def build_history(model: Model, context: dict[str, Any],
                  options: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The messages of a part of the transcript before its last (providers.split), holding no system message (the
    leading one is the ``system`` blocks and the tools, which the last part's command carries), with the
    tool-call ids it renamed: what build_command_input makes of them inside the whole transcript, minus the cache
    point only the last user message gets."""
    renamed: dict[str, str] = {}
    messages = convert_messages(model, {"messages": context.get("messages") or []}, "none", False, renamed,
                                rules=TRANSFORM_16, split_error_images=is_claude(model))
    return messages, renamed
