"""pi-ai's provider-neutral option handling: thinking levels, output-token ceilings, budgets, cache retention.

Every adapter derives ``max_tokens`` from a chars/4 estimate of the whole context and clamps thinking levels to
what the model supports; the payloads only match Pi when these numbers match exactly, so the estimate follows
JavaScript semantics (UTF-16 lengths, ``JSON.stringify`` output, ``NaN`` timestamp comparisons).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from pi_tools.js.access import block_type, for_of
from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.strings import js_length
from pi_tools.js.values import UNDEFINED, js_add, js_set_key, js_to_number, js_to_string, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.junk_blocks import AS_STORED

THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
"""Every level pi-ai knows, weakest first; clamping walks this order."""

DEFAULT_THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_ANSWER_TOKENS = 1024
CONTEXT_SAFETY_TOKENS = 4096
CHARS_PER_TOKEN = 4
ESTIMATED_IMAGE_CHARS = 4800

# Options a provider-neutral call forwards to the API-specific stream options, in pi-ai's order.
_FORWARDED_OPTIONS = (
    "signal",
    "telemetryContext",
    "apiKey",
    "fetch",
    "transport",
    "cacheRetention",
    "sessionId",
    "headers",
    "onPayload",
    "onResponse",
    "timeoutMs",
    "websocketConnectTimeoutMs",
    "maxRetries",
    "maxRetryDelayMs",
    "metadata",
    "env",
)

Number = TypeVar("Number", int, float)


# --- thinking levels -------------------------------------------------------------------------------------------


def supported_thinking_levels(model: Model) -> list[str]:
    """Levels the model accepts: a level mapped to ``null`` is unsupported; xhigh/max need an explicit mapping."""
    if not model.get("reasoning"):
        return ["off"]
    level_map = model.get("thinkingLevelMap") or {}
    supported: list[str] = []
    for level in THINKING_LEVELS:
        if level in level_map and level_map[level] is None:
            continue
        if level in ("xhigh", "max") and level not in level_map:
            continue
        supported.append(level)
    return supported


def clamp_thinking_level(model: Model, level: Any) -> str:
    """The requested level if supported, else the nearest stronger one, else the nearest weaker one.

    An unknown level (any other value, a number or an object too) falls back to the weakest supported level,
    as pi-ai does.
    """
    supported = supported_thinking_levels(model)
    if level in supported:
        return level
    if level not in THINKING_LEVELS:
        return supported[0] if supported else "off"
    index = THINKING_LEVELS.index(level)
    for candidate in THINKING_LEVELS[index:]:
        if candidate in supported:
            return candidate
    for candidate in reversed(THINKING_LEVELS[:index]):
        if candidate in supported:
            return candidate
    return supported[0] if supported else "off"


def clamp_reasoning(level: str | None) -> str | None:
    """Budget-style APIs have no xhigh/max: both spend the ``high`` budget."""
    return "high" if level in ("xhigh", "max") else level


def thinking_budget_for_level(level: str, custom_budgets: Mapping[str, int] | None = None) -> int:
    """Thinking-token budget for a level, with user overrides laid over pi-ai's defaults."""
    budgets = {**DEFAULT_THINKING_BUDGETS, **(custom_budgets or {})}
    key = clamp_reasoning(level)
    return budgets[key] if key is not None else 0


def js_min(*values: Number) -> Number:
    """``Math.min``: NaN anywhere makes the result NaN (Python's ``min`` answers by argument order instead).

    Token counts are ints until a malformed session makes pi-ai's arithmetic NaN; that NaN is carried in the same
    slot (and written as JSON null, or treated as falsy) rather than widening every signature to ``float``.
    """
    return cast(Number, math.nan) if any(value != value for value in values) else min(values)


def js_max(*values: Number) -> Number:
    """``Math.max``: NaN anywhere makes the result NaN."""
    return cast(Number, math.nan) if any(value != value for value in values) else max(values)


def clamp_thinking_budget_to_answer_room(budget: int, ceiling: int) -> int:
    """Keep at least ``MIN_ANSWER_TOKENS`` of a shared response ceiling for the answer itself."""
    return js_min(budget, js_max(0, ceiling - MIN_ANSWER_TOKENS))


def adjust_max_tokens_for_thinking(
    base_max_tokens: int | None,
    model_max_tokens: int,
    level: str,
    custom_budgets: Mapping[str, int] | None = None,
) -> tuple[int, int]:
    """(maxTokens, thinkingBudget) when thinking shares the output ceiling; ``None`` base means "model cap"."""
    budget = thinking_budget_for_level(level, custom_budgets)
    if base_max_tokens is None:
        max_tokens = model_max_tokens
    else:
        max_tokens = js_min(base_max_tokens + budget, model_max_tokens)
    if max_tokens <= budget:
        budget = clamp_thinking_budget_to_answer_room(budget, max_tokens)
    return max_tokens, budget


# --- context size estimate -------------------------------------------------------------------------------------


def _ceil_tokens(chars: int) -> int:
    """``Math.ceil(chars / 4)``; NaN (a malformed block's length) stays NaN."""
    return chars if chars != chars else -(-chars // CHARS_PER_TOKEN)


def _field_length(block: Any, key: str) -> int:
    """``block[key].length``: V8's TypeError on null or missing, NaN (not a crash) on numbers and booleans."""
    value = block.get(key, UNDEFINED) if isinstance(block, dict) else UNDEFINED
    if value is None or value is UNDEFINED:
        raise PayloadError(f"Cannot read properties of {js_to_string(value)} (reading 'length')")
    return js_length(value)


def _js_number(value: Any) -> float:
    """JS ``Number(value)`` for what can sit in a timestamp slot, as ``>=`` and ``Math.max`` convert it: a stored
    ``null`` is 0 (a NaN Pi computed itself, as for a compaction summary's bad date, is a float NaN here)."""
    return js_to_number(value)


def _blocks(content: Any, expression: str) -> Iterable[Any]:
    """The content blocks the estimate walks (missing content counts as none)."""
    return () if content is None or content is UNDEFINED else for_of(content, expression)


def _text_and_image_chars(content: Any) -> int:
    """estimateTextAndImageContentChars: a string's length, else `for (const block of content)`, which fails on
    a missing or null content too (a custom message without content becomes such a user message; stored user
    and tool-result messages without one are read with [] as Pi reads them, session.context)."""
    if isinstance(content, str):
        return js_length(content)
    chars = 0
    for block in for_of(content, "content"):
        chars += _field_length(block, "text") if block_type(block) == "text" else ESTIMATED_IMAGE_CHARS
    return chars


def estimate_message_tokens(message: Mapping[str, Any]) -> int:
    """chars/4 of what a message sends: text and thinking, tool names plus JSON arguments, 4800 chars per image."""
    return _ceil_tokens(message_chars(message))


def message_chars(message: Mapping[str, Any]) -> int:
    """The characters a user, tool-result or assistant message counts in pi-ai's estimate (every version)."""
    role = message.get("role")
    content = message.get("content")
    if role in ("user", "toolResult"):
        return _text_and_image_chars(content)
    chars = 0
    for block in _blocks(content, "message.content"):
        kind = block_type(block)
        if kind == "text":
            chars += _field_length(block, "text")
        elif kind == "thinking":
            chars += _field_length(block, "thinking")
        else:
            name_length = _field_length(block, "name")
            # JSON.stringify(undefined) yields undefined, which pi-ai prints as the word "undefined".
            serialized = js_stringify(block["arguments"]) if "arguments" in block else "undefined"
            chars += name_length + js_length(serialized)
    return chars


def usage_context_tokens(usage: Any) -> Any:
    """pi-ai's calculateContextTokens: ``usage.totalTokens || usage.input + usage.output + usage.cacheRead +
    usage.cacheWrite``, as the JavaScript value it is.

    A truthy totalTokens is taken as it is stored, whatever its type (a string, an array, an object); the sum is
    JavaScript's `+` (a missing part makes it NaN, a null one adds 0, a string part concatenates). Callers compare
    it with 0 (`js_to_number(...) > 0`) and add to it (`js_add`) as pi-ai does. A message without any usage object fails
    the request as reading ``usage.totalTokens`` does in JS; a primitive or an array has no such properties (NaN).
    """
    if usage is None or usage is UNDEFINED:
        raise PayloadError(f"Cannot read properties of {js_to_string(usage)} (reading 'totalTokens')")
    if not isinstance(usage, dict):
        return math.nan
    total = usage.get("totalTokens", UNDEFINED)
    if js_truthy(total):
        return total
    found = usage.get("input", UNDEFINED)
    for key in ("output", "cacheRead", "cacheWrite"):
        found = js_add(found, usage.get(key, UNDEFINED))
    return found


def js_token_count(value: Any) -> Any:
    """A token estimate as the number a subtraction reads it as (a string from `js_add` converted; an integral
    float as an int, so that JSON writes it as JavaScript does)."""
    if type(value) is int:
        return value
    number = js_to_number(value)
    return int(number) if math.isfinite(number) and number.is_integer() else number


def message_timestamp(message: Mapping[str, Any]) -> float:
    """A message's timestamp as the estimate compares them (``Number(timestamp)``; NaN when it is not one)."""
    raw = message.get("timestamp", UNDEFINED)  # a missing one is undefined: NaN, not 0
    return raw if type(raw) is int or type(raw) is float else _js_number(raw)


def last_usage_index(messages: Sequence[Mapping[str, Any]]) -> int | None:
    """Index of the newest assistant whose reported usage still describes the prefix before it.

    An assistant older than some earlier message (e.g. a compaction summary inserted later) does not qualify; a
    NaN timestamp anywhere poisons the running maximum (Math.max propagates NaN), so no later assistant
    qualifies, exactly as in JS.
    """
    latest_prefix = -math.inf
    found: int | None = None
    for index, message in enumerate(messages):
        raw = message.get("timestamp", UNDEFINED)  # message_timestamp, inlined: this runs once per message
        timestamp = raw if type(raw) is int or type(raw) is float else _js_number(raw)
        if timestamp != timestamp:  # NaN: nothing from here on can qualify
            break
        if (
            timestamp >= latest_prefix
            and message.get("role") == "assistant"
            and message.get("stopReason") not in ("aborted", "error")
        ):
            usage = message.get("usage", UNDEFINED)
            total = usage.get("totalTokens") if type(usage) is dict else None
            if (type(total) is int and total > 0) or js_to_number(usage_context_tokens(usage)) > 0:
                found = index
        if timestamp > latest_prefix:
            latest_prefix = timestamp
    return found


def estimate_tools_tokens(tools: Iterable[Any] | None) -> int:
    """chars/4 of the tool list as ``JSON.stringify`` would write it (0 for none)."""
    tool_list = list(tools or ())
    if not tool_list:
        return 0
    return _ceil_tokens(js_length(js_stringify(tool_list)))


def estimate_context_tokens(context: Mapping[str, Any]) -> int:
    """pi-ai's context-size estimate: last trustworthy reported usage plus chars/4 of everything after it.

    Without usage, everything is estimated: all messages, the system prompt and the tool list.
    """
    messages: Sequence[Mapping[str, Any]] = context.get(AS_STORED) or context.get("messages") or []
    tools = context.get("tools")
    anchor = last_usage_index(messages)
    if anchor is not None:
        trailing = 0
        added_names: set[Any] = set()  # a JS Set of whatever the session stored (js_set_key: any value)
        for message in messages[anchor + 1 :]:
            trailing += estimate_message_tokens(message)
            if message.get("role") == "toolResult":
                added_names.update(map(js_set_key, message.get("addedToolNames") or ()))
        added = estimate_tools_tokens(tool for tool in tools if js_set_key(tool.get("name")) in added_names) \
            if tools and added_names else 0
        # JavaScript's + throughout: a stored string total concatenates ("5" + 12 + 0 is "5120")
        return js_token_count(js_add(js_add(usage_context_tokens(messages[anchor].get("usage")), trailing), added))
    tokens = sum(estimate_message_tokens(message) for message in messages)
    system_prompt = context.get("systemPrompt")
    if system_prompt:
        tokens += _ceil_tokens(js_length(system_prompt))
    return tokens + estimate_tools_tokens(tools)


def output_room(window: Any, estimate: Any) -> Any:
    """The output tokens the context window leaves after an input estimate and the 4096-token margin."""
    return window - estimate - CONTEXT_SAFETY_TOKENS


def clamp_max_tokens_to_context(model: Model, context: Mapping[str, Any], max_tokens: int) -> int:
    """Shrink the output ceiling so estimated input + output + a 4096-token margin fits the context window."""
    context_window = model.get("contextWindow") or 0
    if context_window <= 0:
        return js_max(1, max_tokens)
    available = context_window - estimate_context_tokens(context) - CONTEXT_SAFETY_TOKENS
    return js_min(max_tokens, js_max(1, available))


# --- base options ----------------------------------------------------------------------------------------------


def build_base_options(
    model: Model,
    context: Mapping[str, Any],
    options: Mapping[str, Any] | None = None,
    api_key: str | None = None,
) -> dict[str, Any]:
    """The API-specific stream options every ``streamSimple`` starts from.

    Only the keys pi-ai forwards are kept (absent/None ones dropped); ``maxTokens`` is always present, clamped to
    the context window. Level, budgets and tool choice stay in the caller's ``options`` for the adapter to read.
    """
    opts = options or {}
    base: dict[str, Any] = {}
    if opts.get("temperature") is not None:
        base["temperature"] = opts["temperature"]
    model_sampling = model.get("samplingParams")
    option_sampling = opts.get("samplingParams")
    if model_sampling or option_sampling:
        base["samplingParams"] = {**(model_sampling or {}), **(option_sampling or {})}
    requested = opts.get("maxTokens")
    base["maxTokens"] = clamp_max_tokens_to_context(
        model, context, requested if requested is not None else model["maxTokens"]
    )
    for key in _FORWARDED_OPTIONS:
        value = (api_key or opts.get("apiKey")) if key == "apiKey" else opts.get(key)
        if value is not None:
            base[key] = value
    return base


def resolve_cache_retention(options: Mapping[str, Any] | None = None) -> str:
    """Explicit ``cacheRetention`` wins; else ``"long"`` when ``PI_CACHE_RETENTION=long``; else ``"short"``.

    The variable is looked up in the options' ``env`` overrides first, then the process environment.
    """
    opts = options or {}
    explicit = opts.get("cacheRetention")
    if explicit:
        return str(explicit)
    env = opts.get("env") or {}
    value = env.get("PI_CACHE_RETENTION") or os.environ.get("PI_CACHE_RETENTION")
    return "long" if value == "long" else "short"
