"""Pi 1.6 anthropic-messages corners, each checked against the 1.6 oracle.

tests/data/anthropic16/oracle_corners.json holds small sessions written for these corners (tool changes in
place, updates held past tool results, managed effort, error-result images, strict tools, gateways' headers) with
what Pi 1.6 built for them: every case must come out identical. The tests after it spell out the behaviour.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.anthropic_messages.strict16 import refused_keyword, resolve_strict16
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

API = "anthropic-messages"
EDITION = resolve("1.6").requests
DATA = Path(__file__).resolve().parents[1] / "data" / "anthropic16" / "oracle_corners.json"
OPTIONS = {"apiKey": "sk-oracle-dummy-api-key", "sessionId": "0199aaaa-0000-7000-8000-000000000001"}


@cache
def _corners() -> list[dict[str, Any]]:
    with open(DATA, encoding="utf-8") as fh:
        cases: list[dict[str, Any]] = json.load(fh)["cases"]
    return cases


def _case(name: str) -> dict[str, Any]:
    return next(case for case in _corners() if case["name"] == name)


def _build(case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    model = find_model(case["model"], EDITION.catalog)
    context, options = copy.deepcopy(case["context"]), dict(case["options"])
    payload = registry.build_payload(API, model, context, options, EDITION)
    return payload, registry.build_wire(API, model, payload, options, EDITION)


@pytest.mark.parametrize("name", [case["name"] for case in _corners()])
def test_corner_matches_the_oracle(name: str) -> None:
    case = _case(name)
    if "error" in case:
        with pytest.raises(PayloadError) as failure:
            _build(case)
        assert str(failure.value) == case["error"]
        return
    payload, wire = _build(case)
    assert js_stringify(payload) == js_stringify(case["payload"])
    assert (wire["method"], wire["url"], wire["headers"]) == (
        case["wire"]["method"], case["wire"]["url"], case["wire"]["headers"])
    assert js_stringify(wire["body"]) == js_stringify(case["wire"]["body"])


def _transcript(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"messages": list(messages)}


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"tool {name}",
            "parameters": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}


def _system(**fields: Any) -> dict[str, Any]:
    return {"role": "system", "content": fields.pop("content", ""), **fields, "timestamp": 1}


def _payload(model: str, context: dict[str, Any], **options: Any) -> dict[str, Any]:
    return registry.build_payload(API, find_model(model, EDITION.catalog), context, {**OPTIONS, **options}, EDITION)


def test_native_tool_changes_keep_the_top_level_list_and_add_the_placeholder() -> None:
    payload = _payload("anthropic/claude-opus-4-8", _transcript(
        _system(content="Prompt", toolsAdded=[_tool("bash")]),
        {"role": "user", "content": "hi", "timestamp": 1},
        _system(toolsAdded=[_tool("grep")], toolsRemoved=[{"name": "bash"}]),
    ))
    assert [tool["name"] for tool in payload["tools"]] == ["bash", "__pi_deferred_placeholder__"]
    assert payload["tools"][0]["cache_control"] == {"type": "ephemeral"}
    assert payload["tools"][1] == {
        "name": "__pi_deferred_placeholder__",
        "description": "Reserved placeholder. Never available. Never call this.",
        "input_schema": {"type": "object", "properties": {}, "required": []},
        "defer_loading": True,
    }
    assert payload["betas"] == ["inline-tools-2026-09-15", "message-threads-2026-08-12"]
    assert payload["messages"][-1] == {"role": "system", "content": [
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "bash"}},
        {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": {
            "name": "grep", "description": "tool grep", "eager_input_streaming": True,
            "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
        }, "cache_control": {"type": "ephemeral"}},
    ]}


def test_a_collapsing_model_gets_one_prompt_and_the_current_tools() -> None:
    payload = _payload("anthropic/claude-sonnet-4-5", _transcript(
        _system(content="Prompt", sections={"a": "A", "b": "B"}, toolsAdded=[_tool("bash")]),
        {"role": "user", "content": "hi", "timestamp": 1},
        _system(content="More", sections={"a": None}, toolsAdded=[_tool("grep")], toolsRemoved=[{"name": "bash"}]),
    ))
    assert payload["system"] == [{"type": "text", "text": "Prompt\n\nMore\n\nB", "cache_control": {"type": "ephemeral"}}]
    assert [tool["name"] for tool in payload["tools"]] == ["grep"]
    assert payload["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]
    assert payload["betas"] == ["message-threads-2026-08-12"]


def test_managed_effort_with_thinking_off_sends_no_effort() -> None:
    context = _transcript({"role": "user", "content": "hi", "timestamp": 1})
    off = _payload("anthropic/claude-opus-5", context)
    assert off["thinking"] == {"type": "disabled"}
    assert "output_config" not in off
    assert [message["role"] for message in off["messages"]] == ["user"]
    on = _payload("anthropic/claude-opus-5", context, reasoning="high")
    assert on["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "drop_block"}
    assert on["output_config"] == {"effort": "low"}
    assert on["messages"][-1] == {"role": "system", "content": [], "output_config": {"effort": "high"}}


def test_an_update_before_a_user_message_lands_after_it() -> None:
    payload = _payload("anthropic/claude-opus-4-8", _transcript(
        _system(content="Prompt"),
        _system(sections={"mode": "plan"}),
        {"role": "user", "content": "hi", "timestamp": 1},
    ), cacheRetention="none")
    assert payload["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": [{"type": "text", "text": 'Updated system prompt section "mode":\n\nplan'}]},
    ]
    assert "betas" not in payload  # no cache, no session to thread


def test_the_wire_opens_a_thread_only_for_a_session_on_anthropics_endpoint() -> None:
    model = find_model("anthropic/claude-sonnet-4-5", EDITION.catalog)
    context = _transcript({"role": "user", "content": "hi", "timestamp": 1})
    payload = registry.build_payload(API, model, context, dict(OPTIONS), EDITION)
    wire = registry.build_wire(API, model, payload, dict(OPTIONS), EDITION)
    assert list(wire["body"])[-1] == "thread" and wire["body"]["thread"] == {"type": "create"}
    assert wire["headers"]["anthropic-beta"] == "message-threads-2026-08-12"
    assert wire["headers"]["x-stainless-timeout"] == "300"
    assert wire["headers"]["user-agent"] == "pi/1.6.0 (<platform>; node/v<node-version>; <arch>)"
    no_session = {"apiKey": OPTIONS["apiKey"]}
    payload = registry.build_payload(API, model, context, no_session, EDITION)
    wire = registry.build_wire(API, model, payload, no_session, EDITION)
    assert "thread" not in wire["body"] and "anthropic-beta" not in wire["headers"]
    continuing = {**OPTIONS, "disableContinuation": True}
    wire = registry.build_wire(API, model, registry.build_payload(API, model, context, continuing, EDITION),
                               continuing, EDITION)
    assert "thread" not in wire["body"] and wire["headers"]["anthropic-beta"] == "message-threads-2026-08-12"


@pytest.mark.parametrize(("key", "value", "refused"), [
    ("minimum", 1, True), ("maxItems", 3, True), ("minItems", 0, False), ("minItems", 1, False),
    ("minItems", 2, True), ("minItems", True, True), ("format", "uri", False), ("format", "regex", True),
    ("format", 3, True), ("description", "x", False),
])
def test_refused_strict_keywords(key: str, value: Any, refused: bool) -> None:
    assert refused_keyword(key, value) is refused


def test_strict_tools_fall_back_or_fail_with_the_first_reason() -> None:
    tool = {"name": "t", "parameters": {"type": "object", "properties": {"a": {"description": "any"}}},
            "constrainedSampling": {"type": "json_schema", "strict": "prefer"}}
    assert resolve_strict16(tool, True) is None
    required = {**tool, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    with pytest.raises(PayloadError, match='^Tool "t" requires JSON-schema constrained sampling, but schemas '
                                           'without a type are unsupported.$'):
        resolve_strict16(required, True)
    typed = {**tool, "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}
    assert resolve_strict16(typed, True) is True
