"""Pi 1.6's provider-neutral options, where they differ from 0.85's (providers/options.py).

- The size estimate counts 3.5 characters per token (0.85: 4) over the transcript, system messages included (their
  prompt text, and the tools they add or remove); the separate systemPrompt/tools prefix and the
  `addedToolNames` count of 0.85 are gone with the transcript.
- The output ceiling keeps a margin of max(4096, 15% of the input), and where that leaves less than 32768 tokens,
  min(32768, window - input - 4096): OpenRouter counts prompts higher than providers do.
- Sampling parameters can come from the model's `samplingParamsByThinkingLevel`; `identity`,
  `disableContinuation` and `onProviderStreamEvent` are forwarded, `telemetryContext` became `telemetry`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.strings import js_length
from pi_tools.js.values import UNDEFINED, js_add
from pi_tools.providers.catalog import Model
from pi_tools.providers.options import (
    CONTEXT_SAFETY_TOKENS,
    clamp_thinking_level,
    js_max,
    js_min,
    js_token_count,
    last_usage_index,
    message_chars,
    usage_context_tokens,
)
from pi_tools.providers.transcript import normalize_context, system_message_text

CHARS_PER_TOKEN = 3.5
CONTEXT_SAFETY_RATIO = 0.15
MIN_OUTPUT_WITH_RATIO_MARGIN = 32768

_FORWARDED_OPTIONS = (
    "signal",
    "telemetry",
    "apiKey",
    "fetch",
    "transport",
    "cacheRetention",
    "sessionId",
    "disableContinuation",
    "headers",
    "identity",
    "onPayload",
    "onResponse",
    "onProviderStreamEvent",
    "timeoutMs",
    "websocketConnectTimeoutMs",
    "maxRetries",
    "maxRetryDelayMs",
    "metadata",
    "env",
)


def _tokens(chars: float) -> Any:
    """Math.ceil(chars / 3.5); NaN stays NaN."""
    return chars if chars != chars else math.ceil(chars / CHARS_PER_TOKEN)


def estimate_tools_tokens(tools: Any) -> int:
    """The tokens of a tool list as JSON.stringify writes it (0 for none or an empty one)."""
    if not tools:
        return 0
    return _tokens(js_length(js_stringify(tools)))


def estimate_message_tokens(message: Mapping[str, Any]) -> Any:
    """chars/3.5 of what a message sends; a system message counts its prompt and its tool changes."""
    if message.get("role") == "system":
        return (_tokens(js_length(system_message_text(message))) + estimate_tools_tokens(message.get("toolsAdded"))
                + estimate_tools_tokens(message.get("toolsRemoved")))
    return _tokens(message_chars(message))


def estimate_context_tokens(messages: Sequence[Mapping[str, Any]]) -> Any:
    """The transcript's size: the newest trustworthy reported usage plus chars/3.5 of everything after it, or
    chars/3.5 of everything."""
    anchor = last_usage_index(messages)
    if anchor is not None:
        trailing = 0
        for message in messages[anchor + 1:]:
            trailing += estimate_message_tokens(message)
        return js_token_count(js_add(usage_context_tokens(messages[anchor].get("usage")), trailing))
    return sum(estimate_message_tokens(message) for message in messages)


def estimate_request_tokens(context: Mapping[str, Any]) -> Any:
    """The estimate of a request's context as handed to streamSimple ({systemPrompt?, tools?, messages}): over its
    transcript (normalizeContext), as the output budget counts it."""
    return estimate_context_tokens(normalize_context(context))


def output_room(window: Any, estimate: Any) -> Any:
    """The output tokens the context window leaves after an input estimate: a margin of max(4096, 15% of the
    input), or, where that leaves less than 32768, min(32768, what a 4096 margin leaves)."""
    margin = js_max(CONTEXT_SAFETY_TOKENS, _ceil(estimate * CONTEXT_SAFETY_RATIO))
    room = window - estimate - margin
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN:
        room = js_min(MIN_OUTPUT_WITH_RATIO_MARGIN, window - estimate - CONTEXT_SAFETY_TOKENS)
    return room


def clamp_max_tokens_to_context(model: Model, transcript: Sequence[Mapping[str, Any]], max_tokens: Any) -> Any:
    """The output ceiling fitted into the context window with Pi 1.6's margins."""
    window = model.get("contextWindow") or 0
    if window <= 0:
        return js_max(1, max_tokens)
    return js_min(max_tokens, js_max(1, output_room(window, estimate_context_tokens(transcript))))


def _ceil(value: float) -> Any:
    return value if value != value else math.ceil(value)


def resolve_sampling_params(model: Model, level: Any, requested: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The model's sampling parameters, then those of the (clamped) thinking level, then the caller's."""
    effective = clamp_thinking_level(model, level)
    by_level = (model.get("samplingParamsByThinkingLevel") or {}).get(effective)
    fixed = model.get("samplingParams")
    if not (fixed or by_level or requested):
        return None
    return {**(fixed or {}), **(by_level or {}), **(requested or {})}


def build_base_options(model: Model, transcript: Sequence[Mapping[str, Any]],
                       options: Mapping[str, Any] | None = None, api_key: str | None = None) -> dict[str, Any]:
    """The stream options every 1.6 streamSimple starts from (absent options left out; `maxTokens` always set,
    fitted to the window)."""
    opts = options or {}
    base: dict[str, Any] = {}
    if opts.get("temperature") is not None:
        base["temperature"] = opts["temperature"]
    sampling = resolve_sampling_params(model, opts.get("reasoning") or "off", opts.get("samplingParams"))
    if sampling is not None:
        base["samplingParams"] = sampling
    requested = opts.get("maxTokens")
    base["maxTokens"] = clamp_max_tokens_to_context(
        model, transcript, requested if requested is not None else model["maxTokens"])
    for key in _FORWARDED_OPTIONS:
        value = (api_key or opts.get("apiKey")) if key == "apiKey" else opts.get(key, UNDEFINED)
        if value is not None and value is not UNDEFINED:
            base[key] = value
    return base
