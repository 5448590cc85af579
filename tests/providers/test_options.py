"""Thinking levels, the context-size estimate and output-token ceilings, against Node and the goldens.

Expected numbers for hand-built contexts were computed with Node on the reference (pi-ai's
``estimateContextTokens``, ``clampThinkingLevel``, ``adjustMaxTokensForThinking``); a ``"NaN"`` timestamp there
is the ``None`` a golden stores for JS ``NaN``. The golden tests rebuild every payload's output ceiling from the
case's ``llm``, ``inputs.systemPrompt`` and ``inputs.tools``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from pi_tools.providers.catalog import Model, find_model
from pi_tools.providers.options import (
    adjust_max_tokens_for_thinking,
    build_base_options,
    clamp_max_tokens_to_context,
    clamp_thinking_level,
    estimate_context_tokens,
    resolve_cache_retention,
    supported_thinking_levels,
    thinking_budget_for_level,
)

from support.golden import case_names, expected

LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max", "turbo"]

# model → (getSupportedThinkingLevels, clampThinkingLevel for each of LEVELS), from Node.
NODE_THINKING: dict[str, tuple[list[str], list[str]]] = {
    "anthropic/claude-sonnet-4-5": (
        ["off", "minimal", "low", "medium", "high"],
        ["off", "minimal", "low", "medium", "high", "high", "high", "off"],
    ),
    "anthropic/claude-opus-4-6": (
        ["off", "minimal", "low", "medium", "high", "max"],
        ["off", "minimal", "low", "medium", "high", "max", "max", "off"],
    ),
    "groq/openai/gpt-oss-120b": (
        ["low", "medium", "high"],
        ["low", "low", "low", "medium", "high", "high", "high", "low"],
    ),
    "deepseek/deepseek-v4-flash": (
        ["off", "low", "high", "max"],
        ["off", "low", "low", "high", "high", "max", "max", "off"],
    ),
    "openrouter/anthropic/claude-sonnet-4.5:batch": (
        ["off", "minimal", "low", "medium", "high"],
        ["off", "minimal", "low", "medium", "high", "high", "high", "off"],
    ),
    "openai/gpt-5.1": (
        ["off", "low", "medium", "high"],
        ["off", "low", "low", "medium", "high", "high", "high", "off"],
    ),
    "google/gemini-2.5-flash": (
        ["off", "minimal", "low", "medium", "high"],
        ["off", "minimal", "low", "medium", "high", "high", "high", "off"],
    ),
    "google/gemini-3-flash-preview": (
        ["minimal", "low", "medium", "high"],
        ["minimal", "minimal", "low", "medium", "high", "high", "high", "minimal"],
    ),
    "mistral/mistral-medium-latest": (
        ["off", "minimal", "low", "medium", "high"],
        ["off", "minimal", "low", "medium", "high", "high", "high", "off"],
    ),
    "mistral/magistral-medium-latest": (
        ["off", "minimal", "low", "medium", "high"],
        ["off", "minimal", "low", "medium", "high", "high", "high", "off"],
    ),
    "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0": (
        ["off", "minimal", "low", "medium", "high"],
        ["off", "minimal", "low", "medium", "high", "high", "high", "off"],
    ),
}


@pytest.mark.parametrize("reference", sorted(NODE_THINKING))
def test_thinking_levels_match_node(reference: str) -> None:
    model = find_model(reference)
    supported, clamped = NODE_THINKING[reference]
    assert supported_thinking_levels(model) == supported
    assert [clamp_thinking_level(model, level) for level in LEVELS] == clamped


def test_non_reasoning_model_only_supports_off() -> None:
    model: Model = {**find_model("anthropic/claude-sonnet-4-5"), "reasoning": False}
    assert supported_thinking_levels(model) == ["off"]
    assert clamp_thinking_level(model, "high") == "off"


# --- estimate on hand-built contexts ---------------------------------------------------------------------------

TOOLS: list[dict[str, Any]] = [
    {
        "name": "read",
        "label": "Read",
        "description": "Read a file ✓ 😀",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "bash",
        "description": "Run",
        "parameters": {"type": "object", "properties": {"timeout": {"type": "number", "default": 60.0}}},
    },
]
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
TOOL_CALL = {
    "type": "toolCall",
    "id": "c1",
    "name": "read",
    "arguments": {"path": "é😀\ud83d", "n": 60.0, "big": 1e21},
}


def _user(content: Any, ts: Any) -> dict[str, Any]:
    return {"role": "user", "content": content, "timestamp": ts}


def _assistant(
    content: list[Any], ts: Any, total: int, stop: str = "stop", inp: int = 0, out: int = 0
) -> dict[str, Any]:
    usage = {"input": inp, "output": out, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total}
    return {"role": "assistant", "content": content, "usage": usage, "stopReason": stop, "timestamp": ts}


def _result(content: list[Any], ts: Any, added: list[str]) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "read",
        "content": content,
        "isError": False,
        "timestamp": ts,
        "addedToolNames": added,
    }


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


NAN = math.nan  # a NaN Pi computed (a compaction summary's bad date); a stored null is 0 to Number()

# (context, estimateContextTokens(context).tokens from Node)
NODE_ESTIMATES: list[tuple[str, dict[str, Any], int]] = [
    (
        "no usage: prompt, tools, astral chars",
        {"systemPrompt": "You are helpful 😀", "messages": [_user("hi there 😀", 1)], "tools": TOOLS},
        78,
    ),
    (
        "image counts 4800 chars",
        {"systemPrompt": "", "messages": [_user([_text("abc"), IMAGE], 1)], "tools": None},
        1201,
    ),
    (
        "usage anchor plus trailing",
        {
            "systemPrompt": "sys",
            "messages": [_user("q", 1), _assistant([_text("a")], 2, 1000), _user("follow up question", 3)],
            "tools": TOOLS,
        },
        1005,
    ),
    (
        "usage from parts, added tools, JSON args",
        {
            "systemPrompt": "sys",
            "messages": [
                _user("q", 1),
                _assistant([TOOL_CALL, {"type": "thinking", "thinking": "hmm"}], 2, 0, inp=300, out=20),
                _result([_text("x" * 101), IMAGE], 3, ["bash"]),
            ],
            "tools": TOOLS,
        },
        1577,
    ),
    (
        "assistant older than prefix",
        {
            "systemPrompt": "sys",
            "messages": [_user("q", 5), _assistant([_text("a")], 4, 1000), _user("later", 6)],
            "tools": TOOLS,
        },
        75,
    ),
    (
        "NaN before poisons",
        {
            "systemPrompt": "sys",
            "messages": [_user("q", NAN), _assistant([_text("a")], 4, 1000), _user("later", 6)],
            "tools": TOOLS,
        },
        75,
    ),
    (
        "NaN assistant never qualifies",
        {
            "systemPrompt": "sys",
            "messages": [_user("q", 1), _assistant([_text("a")], NAN, 1000), _user("later", 6)],
            "tools": TOOLS,
        },
        75,
    ),
    (
        "NaN summary hides later usage",
        {
            "systemPrompt": "sys",
            "messages": [
                _user("q", 1),
                _assistant([_text("a")], 2, 1000),
                _user("summary", NAN),
                _assistant([_text("b")], 9, 5000),
                _user("x", 10),
            ],
            "tools": TOOLS,
        },
        1004,
    ),
    (
        "error and aborted skipped but counted after",
        {
            "systemPrompt": "sys",
            "messages": [
                _user("q", 1),
                _assistant([_text("a")], 2, 1000),
                _assistant([_text("b")], 3, 7000, "error"),
                _assistant([_text("c")], 4, 9000, "aborted"),
                _result([_text("r")], 5, ["read", "bash"]),
            ],
            "tools": TOOLS,
        },
        1073,
    ),
    (
        "tool call without arguments",
        {
            "systemPrompt": "sys",
            "messages": [_user("q", 1), _assistant([{"type": "toolCall", "id": "c2", "name": "bash"}], 2, 0)],
            "tools": [],
        },
        6,
    ),
    ("empty", {"systemPrompt": None, "messages": [], "tools": None}, 0),
]


@pytest.mark.parametrize(("context", "tokens"), [pytest.param(c, t, id=i) for i, c, t in NODE_ESTIMATES])
def test_estimate_context_tokens_matches_node(context: dict[str, Any], tokens: int) -> None:
    assert estimate_context_tokens(context) == tokens


def test_missing_timestamp_behaves_like_nan() -> None:
    messages = [{"role": "user", "content": "q"}, _assistant([_text("a")], 4, 1000), _user("later", 6)]
    assert estimate_context_tokens({"systemPrompt": "sys", "messages": messages, "tools": TOOLS}) == 75


@pytest.mark.parametrize(("stamp", "tokens"), [(None, 1002), ("abc", 75), ("3", 1002), ([], 1002)])
def test_stored_timestamp_is_converted_as_number_does(stamp: Any, tokens: int) -> None:
    """Node 22, pi-ai's estimateContextTokens on this context: a stored null is 0 (the assistant's usage counts),
    'abc' is NaN (nothing after it counts), '3' and [] are numbers (3, 0)."""
    messages = [_user("q", stamp), _assistant([_text("a")], 4, 1000), _user("later", 6)]
    assert estimate_context_tokens({"systemPrompt": "sys", "messages": messages, "tools": TOOLS}) == tokens


# (baseMaxTokens, modelMaxTokens, level, custom budgets) → adjustMaxTokensForThinking, from Node.
NODE_ADJUST: list[tuple[int | None, int, str, dict[str, int] | None, tuple[int, int]]] = [
    (None, 64000, "medium", None, (64000, 8192)),
    (60000, 64000, "high", None, (64000, 16384)),
    (500, 2000, "minimal", None, (1524, 1024)),
    (100, 1500, "high", {"high": 3000}, (1500, 476)),
    (4000, 64000, "xhigh", {"high": 20000, "low": 10}, (24000, 20000)),
    (1000, 1024, "low", None, (1024, 0)),
]


@pytest.mark.parametrize(("base", "model_max", "level", "custom", "result"), NODE_ADJUST)
def test_adjust_max_tokens_for_thinking_matches_node(
    base: int | None, model_max: int, level: str, custom: dict[str, int] | None, result: tuple[int, int]
) -> None:
    assert adjust_max_tokens_for_thinking(base, model_max, level, custom) == result


def test_thinking_budget_defaults_and_overrides() -> None:
    assert [
        thinking_budget_for_level(level) for level in ("minimal", "low", "medium", "high", "xhigh", "max")
    ] == [1024, 2048, 8192, 16384, 16384, 16384]
    assert thinking_budget_for_level("max", {"high": 5}) == 5


def test_context_window_zero_only_floors_at_one() -> None:
    model: Model = {**find_model("anthropic/claude-sonnet-4-5"), "contextWindow": 0}
    assert clamp_max_tokens_to_context(model, {"messages": []}, 0) == 1
    assert clamp_max_tokens_to_context(model, {"messages": []}, 5000) == 5000


def test_clamp_never_below_one() -> None:
    model: Model = {**find_model("anthropic/claude-sonnet-4-5"), "contextWindow": 5000}
    context: dict[str, Any] = {"systemPrompt": "x" * 40000, "messages": [], "tools": None}
    assert clamp_max_tokens_to_context(model, context, 64000) == 1


def test_build_base_options() -> None:
    model: Model = {
        **find_model("mistral/magistral-medium-latest"),
        "samplingParams": {"top_p": 0.9, "seed": 1},
    }
    context: dict[str, Any] = {"systemPrompt": "s" * 4000, "messages": [], "tools": None}
    options = {
        "apiKey": "k",
        "sessionId": "sid",
        "reasoning": "high",
        "samplingParams": {"seed": 2},
        "maxTokens": None,
    }
    base = build_base_options(model, context, options)
    assert base == {
        "samplingParams": {"top_p": 0.9, "seed": 2},
        "maxTokens": 16384,
        "apiKey": "k",
        "sessionId": "sid",
    }
    assert list(base) == ["samplingParams", "maxTokens", "apiKey", "sessionId"]
    small = build_base_options(
        {**model, "contextWindow": 25000}, context, {"maxTokens": 30000}, api_key="override"
    )
    assert small == {
        "samplingParams": {"top_p": 0.9, "seed": 1},
        "maxTokens": 25000 - 1000 - 4096,
        "apiKey": "override",
    }


def test_resolve_cache_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_CACHE_RETENTION", raising=False)
    assert resolve_cache_retention({}) == "short"
    assert resolve_cache_retention(None) == "short"
    assert resolve_cache_retention({"cacheRetention": "none"}) == "none"
    assert resolve_cache_retention({"env": {"PI_CACHE_RETENTION": "long"}}) == "long"
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    assert resolve_cache_retention({}) == "long"
    assert resolve_cache_retention({"cacheRetention": "short"}) == "short"
    monkeypatch.setenv("PI_CACHE_RETENTION", "LONG")
    assert resolve_cache_retention({}) == "short"


# --- goldens ---------------------------------------------------------------------------------------------------


def _max_tokens_field(api: str, payload: dict[str, Any]) -> int | None:
    """Where each API puts the output ceiling in its params object."""
    if api == "anthropic-messages":
        return payload.get("max_tokens")
    if api == "openai-completions":
        return payload.get("max_completion_tokens", payload.get("max_tokens"))
    if api == "openai-responses":
        return payload.get("max_output_tokens")
    if api == "google-generative-ai":
        return payload["config"].get("maxOutputTokens")
    if api == "mistral-conversations":
        return payload.get("maxTokens")
    if api == "bedrock-converse-stream":
        return payload["inferenceConfig"].get("maxTokens")
    raise AssertionError(f"no max-tokens rule for {api}")


def _thinking_budget_field(api: str, payload: dict[str, Any]) -> int | None:
    if api == "anthropic-messages":
        thinking = payload.get("thinking") or {}
    else:
        thinking = (payload.get("additionalModelRequestFields") or {}).get("thinking") or {}
    return thinking.get("budget_tokens") if thinking.get("type") == "enabled" else None


def _golden_payloads() -> Iterator[Any]:
    for name in case_names():
        doc = expected(name)
        for variant in ("payloads", "payloadsReasoning"):
            for key, entry in (doc.get(variant) or {}).items():
                if "payload" in entry:
                    yield pytest.param(name, variant, key, id=f"{name}:{variant}:{key}")


def _golden_context(name: str) -> dict[str, Any]:
    doc = expected(name)
    return {
        "systemPrompt": doc["inputs"]["systemPrompt"],
        "messages": doc["llm"],
        "tools": doc["inputs"]["tools"],
    }


# Budget-mode Claude adapters raise the ceiling by the thinking budget and re-clamp it; the rest keep the base.
BUDGET_MODE = {"anthropic-messages", "bedrock-converse-stream"}


@pytest.mark.parametrize(("name", "variant", "key"), list(_golden_payloads()))
def test_golden_output_ceiling(name: str, variant: str, key: str) -> None:
    entry = expected(name)[variant][key]
    api = key.split("@")[0]
    model = find_model(entry["model"])
    context = _golden_context(name)
    level = entry["reasoning"]
    base = clamp_max_tokens_to_context(model, context, model["maxTokens"])
    payload = entry["payload"]
    budget_mode = (
        level is not None
        and api in BUDGET_MODE
        and not (model.get("compat") or {}).get("forceAdaptiveThinking")
    )
    if not budget_mode:
        assert _max_tokens_field(api, payload) == base
        return
    raised, budget = adjust_max_tokens_for_thinking(base, model["maxTokens"], level)
    ceiling = clamp_max_tokens_to_context(model, context, raised)
    assert _max_tokens_field(api, payload) == ceiling
    expected_budget = min(budget, max(0, ceiling - 1024))
    if api == "anthropic-messages":
        expected_budget = expected_budget or 1024
    assert _thinking_budget_field(api, payload) == expected_budget


# --- NaN from malformed blocks (expected values from Node's estimateContextTokens / clampMaxTokensToContext) -----

NAN = "NaN"


def _user_text(text: Any) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def _failed_assistant(block: dict[str, Any]) -> dict[str, Any]:
    # stopReason "error" keeps pi-ai from reading the (absent) usage, so only the block is measured.
    return {"role": "assistant", "stopReason": "error", "content": [block], "timestamp": 1}


@pytest.mark.parametrize(
    ("context", "node_tokens"),
    [
        ({"messages": [_user_text(5)]}, NAN),
        ({"messages": [_failed_assistant({"type": "thinking", "thinking": 0})]}, NAN),
        ({"messages": [_failed_assistant({"type": "toolCall", "name": True, "arguments": {}})]}, NAN),
        ({"messages": [_failed_assistant({"type": "toolCall", "name": "abc"})]}, 3),
        ({"messages": [_user_text(["ab", "c"])]}, 1),
        ({"messages": [_user_text({"length": 9})]}, 3),
        ({"systemPrompt": 7, "messages": [{"role": "user", "content": "hello", "timestamp": 1}]}, NAN),
        # A missing part makes the usage sum NaN (not reported usage); a null part adds 0.
        ({"messages": [{"role": "assistant", "stopReason": "stop", "usage": {"totalTokens": 0, "input": 5},
                        "content": [{"type": "text", "text": "abcd"}], "timestamp": 1}]}, 1),
        ({"messages": [{"role": "assistant", "stopReason": "stop",
                        "usage": {"totalTokens": 0, "input": 5, "output": None, "cacheRead": 0, "cacheWrite": 0},
                        "content": [{"type": "text", "text": "abcd"}], "timestamp": 1},
                       {"role": "user", "content": "abcdefgh", "timestamp": 2}]}, 7),
    ],
)
def test_estimate_follows_js_arithmetic_on_malformed_blocks(context: dict[str, Any], node_tokens: Any) -> None:
    tokens = estimate_context_tokens(context)
    clamped = clamp_max_tokens_to_context({"contextWindow": 200000}, context, 64000)
    if node_tokens == NAN:
        assert tokens != tokens and clamped != clamped
    else:
        assert (tokens, clamped) == (node_tokens, 64000)


@pytest.mark.parametrize(
    ("context", "node_error"),
    [
        ({"messages": [{"role": "user", "content": [{"type": "text"}], "timestamp": 1}]},
         "Cannot read properties of undefined (reading 'length')"),
        ({"messages": [_failed_assistant({"type": "text", "text": None})]},
         "Cannot read properties of null (reading 'length')"),
        ({"messages": [{"role": "assistant", "stopReason": "stop", "content": [], "timestamp": 1}]},
         "Cannot read properties of undefined (reading 'totalTokens')"),
    ],
)
def test_estimate_fails_where_js_throws(context: dict[str, Any], node_error: str) -> None:
    from pi_tools.providers.errors import PayloadError

    with pytest.raises(PayloadError) as caught:
        estimate_context_tokens(context)
    assert str(caught.value) == node_error


def _nan_context() -> dict[str, Any]:
    usage = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    assistant = {"role": "assistant", "content": [{"type": "thinking", "thinking": 0}, {"type": "text", "text": "x"}],
                 "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "timestamp": 2,
                 "stopReason": "stop", "usage": usage}
    messages = [{"role": "user", "content": "hi", "timestamp": 1}, assistant, {"role": "user", "content": "q", "timestamp": 3}]
    return {"systemPrompt": "sys", "messages": messages}


# What Pi sends when the estimate is NaN (captured at onPayload, JSON-serialised: NaN is written as null).
NAN_PAYLOAD_FIELDS: list[tuple[str, str, str | None, dict[str, Any]]] = [
    ("anthropic-messages", "anthropic/claude-sonnet-4-5", None, {"max_tokens": None}),
    ("anthropic-messages", "anthropic/claude-sonnet-4-5", "medium",
     {"max_tokens": None, "thinking": {"type": "enabled", "budget_tokens": 1024, "display": "summarized"}}),
    ("openai-responses", "openai/gpt-5", None, {"max_output_tokens": "<absent>"}),
    ("openai-responses", "openai/gpt-5", "medium", {"max_output_tokens": "<absent>"}),
    ("openai-completions", "ant-ling/Ling-2.6-1T", None,
     {"max_tokens": "<absent>", "max_completion_tokens": "<absent>"}),
    ("google-generative-ai", "google/gemini-2.5-pro", "medium", {"config.maxOutputTokens": None}),
    ("mistral-conversations", "mistral/mistral-large-latest", None, {"maxTokens": None}),
    ("bedrock-converse-stream", "amazon-bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0", "medium",
     {"inferenceConfig": {"maxTokens": None},
      "additionalModelRequestFields.thinking": {"type": "enabled", "budget_tokens": None, "display": "summarized"}}),
]


@pytest.mark.parametrize(("api", "reference", "reasoning", "node_fields"), NAN_PAYLOAD_FIELDS)
def test_nan_estimate_reaches_the_payload_as_pi_sends_it(
    api: str, reference: str, reasoning: str | None, node_fields: dict[str, Any]
) -> None:
    import json

    from pi_tools.js.json_stringify import js_stringify
    from pi_tools.providers import registry

    options: dict[str, Any] = {"apiKey": "k", "sessionId": "s"}
    if reasoning:
        options["reasoning"] = reasoning
    payload = json.loads(js_stringify(registry.build_payload(api, find_model(reference), _nan_context(), options)))
    for path, value in node_fields.items():
        node: Any = payload
        for key in path.split("."):
            node = node.get(key, "<absent>") if isinstance(node, dict) else "<absent>"
        assert node == value, path
