"""Anthropic Messages payloads and HTTP requests against the reference's goldens and oracle recordings.

Every conformance golden whose key is ``anthropic-messages[@...]`` is rebuilt from its ``llm`` messages and
inputs and must equal the reference's ``onPayload`` object (top-level key order included) and the request the
SDK sent. ``tests/data/anthropic`` adds oracle recordings for more models (managed effort, fallbacks, text-only,
Copilot, no eager streaming, ...) and for strict / deferred tools; the real public sessions are checked
against the reference's payload digests; the remaining tests cover branches the oracle cannot reach
(environment variables, OAuth tokens, caller options) by deriving the expectation from a golden through the
rule the reference applies.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers.anthropic_messages import payload as anthropic_payload
from pi_tools.providers.anthropic_messages.payload import build_payload, normalize_tool_call_id
from pi_tools.providers.anthropic_messages.wire import build_wire
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

from support.golden import expected
from support.payloadcases import (
    assert_realworld_digest,
    assert_request_line,
    assert_same_top_level_order,
    build_unless_reference_failed,
    golden_context,
    golden_options,
    golden_params,
    realworld_params,
    recording_loader,
    recording_params,
)

API = "anthropic-messages"
DATA = Path(__file__).resolve().parents[1] / "data" / "anthropic"
# What Pi's coding agent adds to every request (the oracle passes the same).
AGENT_OPTIONS = {"timeoutMs": 300000}
OPENROUTER_HEADERS = {
    "HTTP-Referer": "https://pi.dev",
    "X-OpenRouter-Title": "pi",
    "X-OpenRouter-Categories": "cli-agent",
}
ENV_VARS = ("PI_CACHE_RETENTION", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")

# Goldens this implementation knowingly does not reproduce: (case, variant, key) -> reason. Keep empty.
KNOWN_DIFFERENCES: dict[tuple[str, str, str], str] = {}


@pytest.fixture(autouse=True)
def _reference_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle scrubs provider variables before Pi loads; do the same so the host cannot leak in."""
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def _options(doc: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    options = golden_options(doc, entry)
    if entry["model"].startswith("openrouter/"):
        options["headers"] = dict(OPENROUTER_HEADERS)
    return options


def _assert_payload_and_wire(doc: dict[str, Any], entry: dict[str, Any]) -> None:
    model = find_model(entry["model"])
    context, options = golden_context(doc), _options(doc, entry)
    payload = build_unless_reference_failed(entry, build_payload, model, context, options)
    if payload is None:
        return
    assert_same_top_level_order(payload, entry["payload"])
    wire = build_wire(model, payload, {**options, **AGENT_OPTIONS}, context)
    assert_request_line(wire, entry["wire"])
    if "body" in entry["wire"]:
        assert_same_top_level_order(wire["body"], entry["wire"]["body"])


# --------------------------------------------------------------------------------------------------------
# Conformance goldens
# --------------------------------------------------------------------------------------------------------


GOLDEN_PARAMS = golden_params(API, KNOWN_DIFFERENCES)


@pytest.mark.parametrize(("case", "variant", "key"), GOLDEN_PARAMS)
def test_golden_payload_and_wire(case: str, variant: str, key: str) -> None:
    doc = expected(case)
    _assert_payload_and_wire(doc, doc[variant][key])


def test_goldens_are_present() -> None:
    assert len(GOLDEN_PARAMS) >= 2 * 49


# --------------------------------------------------------------------------------------------------------
# Oracle recordings for more models and tool shapes
# --------------------------------------------------------------------------------------------------------


_recording = recording_loader(DATA)
RECORDING_PARAMS = recording_params(DATA, _recording)


@pytest.mark.parametrize(("name", "variant", "key"), RECORDING_PARAMS)
def test_oracle_recording(name: str, variant: str, key: str) -> None:
    doc = _recording(name)
    _assert_payload_and_wire(doc, doc[variant][key])


def test_recordings_cover_the_interesting_models() -> None:
    models = {
        _recording(name)[variant][key]["model"] for name, variant, key in (p.values for p in RECORDING_PARAMS)
    }
    assert {
        "anthropic/claude-opus-5",
        "anthropic/claude-fable-5",
        "minimax/MiniMax-M2.7",
        "github-copilot/claude-haiku-4.5",
        "kimi-coding/k3",
    } <= models


# --------------------------------------------------------------------------------------------------------
# Branches the oracle cannot reach, derived from a golden
# --------------------------------------------------------------------------------------------------------

BASE_CASE = "c001_tools"
BASE_KEY = API


def _base(variant: str = "payloads") -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    doc = expected(BASE_CASE)
    entry = doc[variant][BASE_KEY]
    return find_model(entry["model"]), golden_context(doc), _options(doc, entry), entry["payload"]


def _rewrite_cache_control(value: Any, marker: dict[str, Any] | None) -> Any:
    """The golden with every ``cache_control`` replaced (or removed when ``marker`` is None)."""
    if isinstance(value, list):
        return [_rewrite_cache_control(item, marker) for item in value]
    if isinstance(value, dict):
        result = {}
        for name, item in value.items():
            if name == "cache_control":
                if marker is not None:
                    result[name] = marker
            else:
                result[name] = _rewrite_cache_control(item, marker)
        return result
    return value


def test_long_cache_retention_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    model, context, options, golden = _base()
    assert build_payload(model, context, options) == _rewrite_cache_control(
        golden, {"type": "ephemeral", "ttl": "1h"}
    )


def test_long_cache_retention_from_scoped_env_and_option() -> None:
    model, context, options, golden = _base()
    wanted = _rewrite_cache_control(golden, {"type": "ephemeral", "ttl": "1h"})
    assert build_payload(model, context, {**options, "env": {"PI_CACHE_RETENTION": "long"}}) == wanted
    assert build_payload(model, context, {**options, "cacheRetention": "long"}) == wanted


def test_long_retention_without_long_cache_support_keeps_plain_markers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    model, context, options, _golden = _base()
    model = {**model, "compat": {**(model.get("compat") or {}), "supportsLongCacheRetention": False}}
    payload = build_payload(model, context, options)
    assert payload["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert payload["tools"][-1]["cache_control"] == {"type": "ephemeral"}


def test_cache_retention_none_removes_every_marker() -> None:
    model, context, options, golden = _base()
    # The golden's last message is an assistant turn, so no user message was marked.
    payload = build_payload(model, context, {**options, "cacheRetention": "none"})
    assert payload == _rewrite_cache_control(golden, None)
    assert "cache_control" not in json.dumps(payload)


def test_string_prompt_at_the_end_becomes_a_marked_text_block() -> None:
    model, context, options, _golden = _base()
    context = {
        **context,
        "messages": [*context["messages"], {"role": "user", "content": "go on", "timestamp": 1}],
    }
    payload = build_payload(model, context, options)
    assert payload["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "go on", "cache_control": {"type": "ephemeral"}}],
    }


def test_missing_api_key_is_pi_error() -> None:
    model, context, options, _golden = _base()
    options.pop("apiKey")
    with pytest.raises(PayloadError, match="^No API key for provider: anthropic$"):
        build_payload(model, context, options)
    # An explicit auth header satisfies the check, as in pi-ai.
    assert build_payload(model, context, {**options, "headers": {"X-Api-Key": "k"}})["model"] == model["id"]


def _claude_code(name: str) -> str:
    return {"read": "Read", "bash": "Bash", "edit": "Edit", "write": "Write", "grep": "Grep"}.get(name, name)


def test_oauth_token_uses_claude_code_identity() -> None:
    model, context, options, golden = _base("payloadsReasoning")
    options = {**options, "apiKey": "sk-ant-oat01-secret"}
    payload = build_payload(model, context, options)
    wanted = copy.deepcopy(golden)
    wanted["betas"] = ["claude-code-20250219", "oauth-2025-04-20", *golden.get("betas", [])]
    identity = {
        "type": "text",
        "text": "You are Claude Code, Anthropic's official CLI for Claude.",
        "cache_control": {"type": "ephemeral"},
    }
    wanted["system"] = [identity, *golden["system"]]
    for tool in wanted["tools"]:
        tool["name"] = _claude_code(tool["name"])
    for message in wanted["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_use":
                block["name"] = _claude_code(block["name"])
    assert payload == wanted
    assert list(payload) == list(wanted)
    headers = build_wire(model, payload, options)["headers"]
    assert headers["authorization"] == "Bearer <redacted>"
    assert "x-api-key" not in headers
    assert headers["user-agent"] == "claude-cli/2.1.251"
    assert headers["x-app"] == "cli"
    assert headers["anthropic-beta"] == ",".join(wanted["betas"])


def test_temperature_only_without_thinking() -> None:
    model, context, options, golden = _base()
    payload = build_payload(model, context, {**options, "temperature": 0.25})
    assert payload["temperature"] == 0.25
    assert list(payload) == [
        "model",
        "messages",
        "max_tokens",
        "stream",
        "system",
        "temperature",
        "tools",
        "thinking",
    ]
    assert {k: v for k, v in payload.items() if k != "temperature"} == golden
    reasoning = build_payload(model, context, {**options, "temperature": 0.25, "reasoning": "low"})
    assert "temperature" not in reasoning


def test_caller_max_tokens_metadata_and_tool_choice() -> None:
    model, context, options, golden = _base()
    payload = build_payload(
        model,
        context,
        {**options, "maxTokens": 1000, "metadata": {"user_id": "u-1"}, "toolChoice": "any"},
    )
    assert payload["max_tokens"] == 1000
    assert payload["metadata"] == {"user_id": "u-1"}
    assert payload["tool_choice"] == {"type": "any"}
    assert list(payload)[-2:] == ["metadata", "tool_choice"]
    named = build_payload(model, context, {**options, "toolChoice": {"type": "tool", "name": "bash"}})
    assert named["tool_choice"] == {"type": "tool", "name": "bash"}


def test_budget_thinking_fits_under_a_small_caller_cap() -> None:
    model, context, options, _golden = _base()
    payload = build_payload(model, context, {**options, "maxTokens": 1500, "reasoning": "high"})
    # min(1500 + 16384, 64000) leaves room for the budget; the budget keeps 1024 tokens for the answer.
    assert payload["max_tokens"] == 17884
    assert payload["thinking"] == {"type": "enabled", "budget_tokens": 16384, "display": "summarized"}
    custom = build_payload(
        model, context, {**options, "reasoning": "low", "thinkingBudgets": {"low": 3000}, "maxTokens": 100}
    )
    assert custom["max_tokens"] == 3100
    assert custom["thinking"]["budget_tokens"] == 2076


def test_configured_beta_header_overrides_pi_betas() -> None:
    model, context, options, _golden = _base()
    reasoning = {**options, "reasoning": "medium"}
    configured = build_payload(model, context, {**reasoning, "headers": {"Anthropic-Beta": " a , b,a ,, "}})
    assert configured["betas"] == ["a", "b"]
    cleared = build_payload(model, context, {**reasoning, "headers": {"anthropic-beta": None}})
    assert "betas" not in cleared


def test_tool_call_ids_are_squeezed_into_anthropic_alphabet() -> None:
    assert normalize_tool_call_id("call_1|fc_abc/def") == "call_1_fc_abc_def"
    assert normalize_tool_call_id("é" * 70) == "_" * 64
    assert normalize_tool_call_id("toolu_01-AZaz09") == "toolu_01-AZaz09"


def test_strict_schema_rewrite_matches_reference_rules() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}, "c": {"type": "number"}},
        "required": ["a"],
    }
    strict = anthropic_payload.make_strict_json_schema(schema)
    assert strict == {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": ["integer", "null"]},
            "c": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        },
        "required": ["a", "b", "c"],
        "additionalProperties": False,
    }
    assert schema["required"] == ["a"]  # the caller's schema is not mutated


def test_wire_defaults_without_agent_options() -> None:
    model, context, options, _golden = _base()
    payload = build_payload(model, context, options)
    wire = build_wire(model, payload, options)
    assert wire["headers"]["x-stainless-timeout"] == "600"
    assert wire["headers"]["x-api-key"] == "<redacted>"
    assert list(wire["headers"]) == sorted(wire["headers"])


def test_building_leaves_the_context_untouched() -> None:
    doc = _recording("features.models.json")
    context = golden_context(doc)
    before = copy.deepcopy(context)
    for key in ("anthropic-messages", "anthropic-messages@anthropic/claude-opus-5"):
        entry = doc["payloadsReasoning"][key]
        build_payload(find_model(entry["model"]), context, _options(doc, entry))
    assert context == before


def test_unclamped_level_reproduces_reference_nan_arithmetic() -> None:
    """A level the agent would have clamped away ("off", "turbo") still reaches budget maths in pi-ai.

    Recorded with pi-ai 0.85.1's streamSimple (user "hi", apiKey only): ``max_tokens`` is NaN (JSON null) and
    ``budget_tokens`` falls back to 1024 through ``NaN || 1024``.
    """
    model = find_model("anthropic/claude-sonnet-4-5")
    context = {
        "systemPrompt": "s",
        "messages": [{"role": "user", "content": "hi", "timestamp": 1}],
        "tools": None,
    }
    for level in ("off", "turbo"):
        body = json.loads(js_stringify(build_payload(model, context, {"apiKey": "k", "reasoning": level})))
        assert body["max_tokens"] is None
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024, "display": "summarized"}


# --------------------------------------------------------------------------------------------------------
# Real public sessions: the reference's payload digests (fixtures/realworld/expected)
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "variant", "key"), list(realworld_params(API)))
def test_realworld_payload_digest(name: str, variant: str, key: str) -> None:
    assert_realworld_digest(name, variant, key, build_payload, build_wire, _options)
