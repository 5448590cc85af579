"""Pi 1.6 openai-responses corners, against what pi-ai 1.6 itself built (tests/data/openai_responses/
synthetic16_cases.json, written by gen_synthetic16.mjs with the options Pi's coding agent adds): system messages
kept in place (GPT-5.4, GPT-5.6+) or collapsed (GPT-5.1), tools declared as `additional_tools` items with their
notices or as a synthetic tool search, `configuration_update` items (GPT-6), a ChatGPT sign-in, a system message
held past a tool batch, foreign thinking dropped, item ids by prefix, whitespace-only tool output, strict schemas
with untyped nodes, Copilot, OpenCode, xAI, Meta and Cloudflare headers. Payload and HTTP request, every header."""

from __future__ import annotations

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.constrained_sampling import UnsupportedStrictSchemaError, make_strict_json_schema
from pi_tools.providers.credentials import OFFLINE_API_KEY
from pi_tools.providers.openai_responses.convert16 import convert_messages, convert_tools
from pi_tools.providers.openai_responses.payload16 import is_chatgpt_sign_in

from support.responses16_cases import PI16, cases, check_case, model_of, names_for

PI085 = resolve("0.85")
API = "openai-responses"


@pytest.mark.parametrize("name", names_for(API))
def test_pi_ai_16(name: str) -> None:
    check_case(cases()[name])


def test_every_case_is_checked() -> None:
    assert len(cases()) >= 45


def test_the_offline_placeholder_builds_for_an_api_key_user() -> None:
    """pi-tools' placeholder credential is not an `sk-` key, but it stands for one: the request keeps
    max_output_tokens and the retention fields a ChatGPT sign-in drops (case "chatgpt sign in gpt-5.1")."""
    signed_in = cases()["chatgpt sign in gpt-5.1"]
    model = model_of(signed_in)
    assert "max_output_tokens" not in signed_in["payload"] and "temperature" not in signed_in["payload"]
    assert is_chatgpt_sign_in(model, "oauth-token") and not is_chatgpt_sign_in(model, "sk-proj-1")
    assert not is_chatgpt_sign_in(model, OFFLINE_API_KEY)
    options = {**signed_in["options"], "apiKey": OFFLINE_API_KEY}
    payload = registry.build_payload(API, model, signed_in["context"], options, PI16.requests)
    assert {key: payload.get(key) for key in ("max_output_tokens", "prompt_cache_retention", "temperature")} == {
        "max_output_tokens": 128000, "prompt_cache_retention": "24h", "temperature": 0.3}
    as_sk = registry.build_payload(API, model, signed_in["context"], {**options, "apiKey": "sk-x"}, PI16.requests)
    assert payload == as_sk
    wire = registry.build_wire(API, model, payload, options, PI16.requests)
    assert wire["headers"]["authorization"] == "Bearer <redacted>"


def test_a_sign_in_elsewhere_is_an_api_key() -> None:
    """Only a credential sent straight to api.openai.com is a ChatGPT sign-in."""
    case = cases()["sk key other base url"]
    assert case["payload"]["temperature"] == 0.3
    assert not is_chatgpt_sign_in(model_of(case), "oauth-token")


def test_the_085_edition_is_unchanged() -> None:
    """The same session under 0.85's adapter: `session_id` header, 0.85's user agent, the placeholder key."""
    model = find_model("openai/gpt-5.1", PI085.requests.catalog)
    context = {"systemPrompt": "S", "messages": [{"role": "user", "content": "hi", "timestamp": 1}]}
    options = {"apiKey": OFFLINE_API_KEY, "sessionId": "s1"}
    payload = registry.build_payload(API, model, context, options, PI085.requests)
    assert payload["input"][0] == {"role": "developer", "content": "S"} and payload["max_output_tokens"] == 128000
    headers = registry.build_wire(API, model, payload, options, PI085.requests)["headers"]
    assert headers["session_id"] == "s1" and "session-id" not in headers
    assert headers["user-agent"] == "pi (<platform> <os-release>; <arch>)"


def test_strict_schemas_need_typed_nodes_in_16_only() -> None:
    schema = {"type": "object", "properties": {"value": {"description": "anything"}}, "required": ["value"]}
    assert make_strict_json_schema(schema)["additionalProperties"] is False  # 0.85
    with pytest.raises(UnsupportedStrictSchemaError, match="schemas without a type are unsupported"):
        make_strict_json_schema(schema, typed_only=True)
    enum_only = {"type": "object", "properties": {"v": {"enum": ["a"]}}}
    assert make_strict_json_schema(enum_only, typed_only=True)["required"] == ["v"]


def test_the_conversion_takes_codex_tool_options() -> None:
    """convert16 is shared with openai-codex-responses, which sends `strict: null` for tools without their own."""
    tool = {"name": "read", "description": "R", "parameters": {"type": "object", "properties": {}}}
    assert convert_tools([tool], strict=None) == [
        {"type": "function", "name": "read", "description": "R", "parameters": {"type": "object", "properties": {}},
         "strict": None}]
    model = find_model("openai/gpt-5.6-sol", PI16.requests.catalog)
    transcript = [{"role": "system", "content": "S", "toolsAdded": [tool], "timestamp": 0},
                  {"role": "user", "content": "hi", "timestamp": 1}]
    builder = convert_messages(model, transcript, frozenset({"openai"}), supports_mid_convo_system_messages=True,
                               supports_additional_tools=True,
                               tool_options={"supportsStrictMode": True, "strict": None},
                               configuration_update_effort="high")
    assert builder.items == [
        {"type": "additional_tools", "role": "developer", "tools": convert_tools([tool], strict=None)},
        {"role": "developer", "content": "S"},
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "configuration_update", "reasoning": {"effort": "high"}},
    ]
