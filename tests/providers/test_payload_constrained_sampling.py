"""Constrained sampling (strict JSON-schema and grammar tools), shared by every adapter, against Node.

Every expectation was captured from the reference (pi-ai ``streamSimple`` → ``onPayload``) with the same model,
compat flags and context; both OpenAI-style APIs must agree with it, since they now call one module.
"""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.constrained_sampling import UnsupportedStrictSchemaError, make_strict_json_schema
from pi_tools.providers.errors import PayloadError

MODELS = {"openai-completions": "ant-ling/Ling-2.6-1T", "openai-responses": "openai/gpt-5"}
COMPAT = {"supportsOpenAIGrammarTools": True, "supportsStrictMode": True}
PARAMS = {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}
GRAMMAR_ERROR = 'Tool "g" cannot use grammar constrained sampling: '

# (tool, error Pi reports) for tools that make the whole request fail.
FAILING_TOOLS: dict[str, tuple[dict[str, Any], str]] = {
    "nameless": (
        {"description": "d", "parameters": {"type": "object", "properties": {"a": {"$ref": "x"}}},
         "constrainedSampling": {"type": "json_schema", "strict": "require"}},
        'Tool "undefined" requires JSON-schema constrained sampling, but $ref schemas are unsupported.',
    ),
    "required_but_unsupported": (
        {"name": "t", "description": "d", "parameters": {"type": "object", "properties": {"a": {"oneOf": []}}},
         "constrainedSampling": {"type": "json_schema", "strict": "require"}},
        'Tool "t" requires JSON-schema constrained sampling, but oneOf schemas are unsupported.',
    ),
    "no_variants": (
        {"name": "g", "parameters": PARAMS, "constrainedSampling": {"type": "grammar"}},
        "Cannot read properties of undefined (reading 'openai_lark')",
    ),
    "null_variants": (
        {"name": "g", "parameters": PARAMS, "constrainedSampling": {"type": "grammar", "variants": None}},
        "Cannot read properties of null (reading 'openai_lark')",
    ),
    "string_variants": (
        {"name": "g", "parameters": PARAMS, "constrainedSampling": {"type": "grammar", "variants": "abc"}},
        GRAMMAR_ERROR + "no supported grammar variant was provided.",
    ),
    "no_parameters": (
        {"name": "g", "constrainedSampling": {"type": "grammar", "variants": {"openai_regex": "x"}}},
        GRAMMAR_ERROR + "Cannot read properties of undefined (reading 'type').",
    ),
    "empty_property_schema": (
        {"name": "g", "parameters": {"type": "object", "properties": {"input": {}}, "required": ["input"]},
         "constrainedSampling": {"type": "grammar", "variants": {"openai_regex": "x"}}},
        GRAMMAR_ERROR + "grammar constrained sampling property input must have type string.",
    ),
    "null_property_schema": (
        {"name": "g", "parameters": {"type": "object", "properties": {"input": None}, "required": ["input"]},
         "constrainedSampling": {"type": "grammar", "variants": {"openai_regex": "x"}}},
        GRAMMAR_ERROR + "grammar constrained sampling requires a properties entry for input.",
    ),
}

STRICT_TOOL = {
    "name": "t", "description": "d",
    "parameters": {"type": "object", "properties": {"b": {"type": "string"}, "1": {"type": "number"}}, "required": ["b"]},
    "constrainedSampling": {"type": "json_schema"},
}
# Object.keys puts integer-like names first, so "1" leads ``required`` although it was declared second.
STRICT_PARAMETERS = {
    "type": "object",
    "properties": {"b": {"type": "string"}, "1": {"anyOf": [{"type": "number"}, {"type": "null"}]}},
    "required": ["1", "b"],
    "additionalProperties": False,
}
# JS trim() keeps U+001C but strips U+FEFF, so only the regex variant counts as non-blank here.
BLANK_LARK_TOOL = {"name": "g", "parameters": PARAMS,
                   "constrainedSampling": {"type": "grammar", "variants": {"openai_lark": "\ufeff ", "openai_regex": "\x1c"}}}


def _build(api: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    model = {**find_model(MODELS[api]), "compat": COMPAT}
    context = {"messages": messages or [{"role": "user", "content": "hi", "timestamp": 1}], "tools": tools}
    return registry.build_payload(api, model, context, {"apiKey": "k"})


@pytest.mark.parametrize("api", list(MODELS))
@pytest.mark.parametrize("case", list(FAILING_TOOLS))
def test_failing_tools_report_pis_error(api: str, case: str) -> None:
    tool, error = FAILING_TOOLS[case]
    with pytest.raises(PayloadError) as caught:
        _build(api, [tool])
    assert str(caught.value) == error


def test_strict_schema_orders_required_like_object_keys() -> None:
    completions = _build("openai-completions", [STRICT_TOOL])["tools"][0]
    assert completions == {"type": "function", "function": {
        "name": "t", "description": "d", "parameters": STRICT_PARAMETERS, "strict": True}}
    responses = _build("openai-responses", [STRICT_TOOL])["tools"][0]
    assert responses == {"type": "function", "name": "t", "description": "d", "parameters": STRICT_PARAMETERS,
                         "strict": True}


def test_grammar_variant_blankness_uses_js_trim() -> None:
    completions = _build("openai-completions", [BLANK_LARK_TOOL])["tools"][0]
    assert completions == {"type": "custom", "custom": {"name": "g", "format": {
        "type": "grammar", "grammar": {"syntax": "regex", "definition": "\x1c"}}}}
    responses = _build("openai-responses", [BLANK_LARK_TOOL])["tools"][0]
    assert responses == {"type": "custom", "name": "g", "format": {
        "type": "grammar", "syntax": "regex", "definition": "\x1c"}}


def _grammar_history(api: str, arguments: Any) -> list[dict[str, Any]]:
    provider, model_id = MODELS[api].split("/", 1)
    call: dict[str, Any] = {"type": "toolCall", "id": "call_1", "name": "g"}
    if arguments != "<absent>":
        call["arguments"] = arguments
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    return [
        {"role": "user", "content": "hi", "timestamp": 1},
        {"role": "assistant", "content": [call], "api": api, "provider": provider, "model": model_id,
         "timestamp": 2, "stopReason": "toolUse", "usage": usage},
        {"role": "toolResult", "toolCallId": "call_1", "toolName": "g", "content": [{"type": "text", "text": "r"}],
         "isError": False, "timestamp": 3},
    ]


GRAMMAR_TOOL = {"name": "g", "description": "d", "parameters": PARAMS,
                "constrainedSampling": {"type": "grammar", "variants": {"openai_lark": "start: /x/"}}}


def test_grammar_calls_replay_their_raw_input() -> None:
    completions = _build("openai-completions", [GRAMMAR_TOOL], _grammar_history("openai-completions", {"input": "x1"}))
    assert completions["messages"][1] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "custom", "custom": {"name": "g", "input": "x1"}}]}
    responses = _build("openai-responses", [GRAMMAR_TOOL], _grammar_history("openai-responses", {"input": "x1"}))
    assert responses["input"][1] == {"type": "custom_tool_call", "call_id": "call_1", "name": "g", "input": "x1"}


@pytest.mark.parametrize("api", list(MODELS))
@pytest.mark.parametrize(("arguments", "error"), [
    ("<absent>", "Cannot read properties of undefined (reading 'input')"),
    (None, "Cannot read properties of null (reading 'input')"),
    ({"input": 5}, 'Grammar tool call "g" requires argument "input" to be a string.'),
])
def test_grammar_calls_without_string_input_fail(api: str, arguments: Any, error: str) -> None:
    with pytest.raises(PayloadError) as caught:
        _build(api, [GRAMMAR_TOOL], _grammar_history(api, arguments))
    assert str(caught.value) == error


def test_make_strict_json_schema_leaves_the_tool_schema_alone() -> None:
    original = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert make_strict_json_schema(original)["required"] == ["a"]
    assert original == {"type": "object", "properties": {"a": {"type": "string"}}}
    with pytest.raises(UnsupportedStrictSchemaError, match="root schema must have type object"):
        make_strict_json_schema({"type": "string"})
