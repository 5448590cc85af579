"""openai-completions as Pi 1.6 builds it (payload16, wire16), against Pi 1.6 itself.

- Oracle runs (../shared/oracle16) of the sessions in tests/data/openai_completions16 (system messages in place,
  tool additions and removals, empty user parts, blank tool output, foreign thinking, a system message held
  between a call and its results, a transcript ending with one) for 22 catalog models of every provider:
  payloads and wire requests.
- pi-ai 1.6's streamSimple (custom_payloads.mjs) on compat fields and options no catalog model combines.
- A few corners written out, as pi-ai 1.6 builds them.
Regenerate the data with tests/data/openai_completions16/regen.py.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.openai_completions.compat16 import resolve_compat16

from support.payloadcases import assert_same_json, json_loader

API = "openai-completions"
PI16 = resolve("1.6")
DATA = Path(__file__).resolve().parents[1] / "data" / "openai_completions16"
SESSIONS = ["s1_midconvo", "s2_foreign", "s3_notools", "s4_trailing_system", "s5_held"]
_load = json_loader(DATA)


def _model(ref: str) -> dict[str, Any]:
    return find_model(ref, PI16.requests.catalog)


def _build(model: dict[str, Any], context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    return registry.build_payload(API, model, context, options, PI16.requests)


def _oracle_params() -> list[Any]:
    return [pytest.param(name, variant, key, id=f"{name}/{variant}/{key}")
            for name in SESSIONS for variant in ("payloads", "payloadsReasoning")
            for key in _load(f"{name}.expected.json")[variant]]


@pytest.mark.parametrize(("name", "variant", "key"), _oracle_params())
def test_oracle_payload_and_wire(name: str, variant: str, key: str) -> None:
    doc = _load(f"{name}.expected.json")
    entry = doc[variant][key]
    model = _model(entry["model"])
    options = dict(doc["inputs"]["streamOptions"])
    if entry.get("reasoning") is not None:
        options["reasoning"] = entry["reasoning"]
    context = {"messages": doc["llm"]}
    if "error" in entry:
        with pytest.raises(PayloadError) as raised:
            _build(model, context, options)
        assert str(raised.value) == entry["error"]
        return
    payload = _build(model, context, options)
    assert_same_json(payload, entry["payload"])
    wire = registry.build_wire(API, model, payload, options, PI16.requests)
    golden = entry["wire"]
    assert (wire["method"], wire["url"]) == (golden["method"], golden["url"])
    assert wire["headers"] == {name: value for name, value in golden["headers"].items() if value != "<volatile>"}


def _custom_params() -> list[Any]:
    cases = _load("custom_cases.expected.json")
    return [pytest.param(index, id=f"{case['session']}/{case['model']}/{case.get('compat', case.get('patch'))}/"
                                   f"{case['options']}") for index, case in enumerate(cases)]


@pytest.mark.parametrize("index", _custom_params())
def test_custom_compat_and_options(index: int) -> None:
    case = _load("custom_cases.expected.json")[index]
    model = copy.deepcopy(_model(case["model"]))
    model.update(case.get("patch") or {})
    if "compat" in case:
        model["compat"] = {**(model.get("compat") or {}), **case["compat"]}
    options = {"apiKey": "sk-x", "sessionId": "sess-1234", **case["options"]}
    context = {"messages": _load(f"{case['session']}.expected.json")["llm"]}
    expected = case["expected"]
    if "error" in expected:
        with pytest.raises(PayloadError) as raised:
            _build(model, context, options)
        assert str(raised.value) == expected["error"]
        return
    assert_same_json(_build(model, context, options), expected["payload"])


# --- corners, as pi-ai 1.6 builds them ---------------------------------------------------------------------

T = 1796230000000


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": name.upper(),
            "parameters": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}


def _function(name: str, strict: bool | None = None) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "description": name.upper(), "parameters": {
        "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}
    if strict is not None:
        function["strict"] = strict
    return {"type": "function", "function": function}


TRANSCRIPT = [
    {"role": "system", "content": "P", "toolsAdded": [_tool("a")], "timestamp": T},
    {"role": "user", "content": "u", "timestamp": T},
    {"role": "system", "content": "", "sections": {"s": "X"}, "toolsAdded": [_tool("b")], "timestamp": T},
    {"role": "user", "content": "v", "timestamp": T},
]


def test_kimi_keeps_system_messages_and_tool_additions_in_place() -> None:
    payload = _build(_model("moonshotai/kimi-k3"), {"messages": TRANSCRIPT}, {"apiKey": "sk-x"})
    assert_same_json(payload, {
        "model": "kimi-k3",
        "messages": [
            {"role": "system", "content": "P"},
            {"role": "user", "content": "u"},
            {"role": "system", "tools": [_function("b")]},
            {"role": "system", "content": 'Updated system prompt section "s":\n\nX'},
            {"role": "user", "content": "v"},
        ],
        "stream": True, "stream_options": {"include_usage": True}, "max_tokens": 1044408,
        "tools": [_function("a")],
    })


def test_a_model_without_them_collapses_the_prompt_and_lists_every_tool() -> None:
    payload = _build(_model("groq/openai/gpt-oss-120b"), {"messages": TRANSCRIPT}, {"apiKey": "sk-x"})
    assert_same_json(payload, {
        "model": "openai/gpt-oss-120b",
        "messages": [{"role": "system", "content": "P\n\nX"}, {"role": "user", "content": "u"},
                     {"role": "user", "content": "v"}],
        "stream": True, "stream_options": {"include_usage": True}, "store": False, "max_completion_tokens": 65536,
        "tools": [_function("a", False), _function("b", False)],
    })


USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
PARTS = [
    {"role": "user", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "hi"}], "timestamp": T},
    {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "a", "arguments": {"x": "1"}},
                                      {"type": "toolCall", "id": "c2", "name": "a", "arguments": {"x": "2"}}],
     "api": API, "provider": "groq", "model": "openai/gpt-oss-120b", "usage": USAGE, "stopReason": "toolUse",
     "timestamp": T},
    {"role": "toolResult", "toolCallId": "c1", "toolName": "a", "content": [{"type": "text", "text": " \n "}],
     "isError": False, "timestamp": T},
    {"role": "toolResult", "toolCallId": "c2", "toolName": "a",
     "content": [{"type": "text", "text": "  "}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}],
     "isError": False, "timestamp": T},
    {"role": "user", "content": [{"type": "text", "text": ""}], "timestamp": T},
    {"role": "user", "content": "bye", "timestamp": T},
]


def test_empty_user_parts_and_blank_tool_output() -> None:
    context = {"systemPrompt": "S", "tools": [_tool("a")], "messages": PARTS}
    payload = _build(_model("groq/openai/gpt-oss-120b"), context, {"apiKey": "sk-x"})
    assert payload["messages"] == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"x":"1"}'}},
            {"id": "c2", "type": "function", "function": {"name": "a", "arguments": '{"x":"2"}'}}]},
        {"role": "tool", "content": "(no tool output)", "tool_call_id": "c1"},
        {"role": "tool", "content": "  \n(tool image omitted: model does not support images)", "tool_call_id": "c2"},
        {"role": "user", "content": "bye"},
    ]


def test_developer_role_only_for_openai_itself() -> None:
    context = {"systemPrompt": "S", "messages": [PARTS[-1]]}
    openai = {**_model("groq/openai/gpt-oss-120b"), "provider": "openai"}
    assert _build(openai, context, {"apiKey": "sk-x"})["messages"][0] == {"role": "developer", "content": "S"}
    openrouter = _model("openrouter/openai/gpt-5.5")
    assert _build(openrouter, context, {"apiKey": "sk-x"})["messages"][0] == {"role": "system", "content": "S"}
    assert resolve_compat16(_model("openrouter/openai/gpt-5.5"))["supportsDeveloperRole"] is False


def test_openrouter_session_header_and_sdk_headers() -> None:
    model = _model("openrouter/openai/gpt-5.5")
    options = {"apiKey": "sk-x", "sessionId": "abc"}
    payload = _build(model, {"messages": TRANSCRIPT}, options)
    headers = registry.build_wire(API, model, payload, options, PI16.requests)["headers"]
    assert headers["x-session-id"] == "abc"
    assert headers["x-openrouter-title"] == "pi"
    assert headers["x-stainless-timeout"] == "300"
    assert headers["user-agent"] == "pi/1.6.0 (<platform>; node/v<node-version>; <arch>)"
    none = registry.build_wire(API, model, payload, {**options, "cacheRetention": "none", "timeoutMs": 5000},
                               PI16.requests)["headers"]
    assert "x-session-id" not in none and none["x-stainless-timeout"] == "5"


def test_untyped_schema_nodes_keep_a_preferred_strict_tool_loose() -> None:
    untyped = {"name": "u", "description": "U", "constrainedSampling": {"type": "json_schema", "strict": "prefer"},
               "parameters": {"type": "object", "properties": {"a": {"description": "any"}}, "required": ["a"]}}
    context = {"systemPrompt": "S", "tools": [untyped], "messages": [PARTS[-1]]}
    tools = _build(_model("groq/openai/gpt-oss-120b"), context, {"apiKey": "sk-x"})["tools"]
    assert tools == [{"type": "function", "function": {**{k: untyped[k] for k in ("name", "description",
                                                                                  "parameters")}, "strict": False}}]
    required = {**untyped, "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    with pytest.raises(PayloadError, match='Tool "u" requires JSON-schema constrained sampling, but schemas '
                                           "without a type are unsupported."):
        _build(_model("groq/openai/gpt-oss-120b"), {**context, "tools": [required]}, {"apiKey": "sk-x"})


@pytest.mark.parametrize(("options", "url"), [
    ({"env": {"AZURE_OPENAI_RESOURCE_NAME": "res"}}, "https://res.openai.azure.com/openai/v1/chat/completions"),
    ({"azureBaseUrl": " https://y.cognitiveservices.azure.com/ ", "azureDeploymentName": "dd"},
     "https://y.cognitiveservices.azure.com/openai/v1/chat/completions"),
    ({"azureResourceName": "rr", "env": {"AZURE_OPENAI_BASE_URL": "https://z.example.com/v1"}},
     "https://z.example.com/v1/chat/completions"),
])
def test_azure_request_goes_to_the_resolved_endpoint(options: dict[str, Any], url: str) -> None:
    """The URLs pi-ai 1.6's OpenAI client fetched for these options."""
    model = _model("azure/deepseek-v4-pro")
    options = {"apiKey": "sk-x", **options}
    payload = _build(model, {"messages": TRANSCRIPT}, options)
    assert registry.build_wire(API, model, payload, options, PI16.requests)["url"] == url


@pytest.mark.parametrize(("ref", "env", "url"), [
    ("cloudflare-workers-ai/@cf/deepseek-ai/deepseek-v4-flash-0731", None,
     "https://api.cloudflare.com/client/v4/accounts/%7BCLOUDFLARE_ACCOUNT_ID%7D/ai/v1/chat/completions"),
    ("cloudflare-workers-ai/@cf/deepseek-ai/deepseek-v4-flash-0731", {"CLOUDFLARE_ACCOUNT_ID": "acc"},
     "https://api.cloudflare.com/client/v4/accounts/acc/ai/v1/chat/completions"),
    ("cloudflare-ai-gateway/workers-ai/@cf/deepseek-ai/deepseek-v4-flash-0731", {"CLOUDFLARE_ACCOUNT_ID": "acc"},
     "https://gateway.ai.cloudflare.com/v1/acc/%7BCLOUDFLARE_GATEWAY_ID%7D/compat/chat/completions"),
    ("cloudflare-ai-gateway/workers-ai/@cf/deepseek-ai/deepseek-v4-flash-0731",
     {"CLOUDFLARE_ACCOUNT_ID": "acc", "CLOUDFLARE_GATEWAY_ID": "gw"},
     "https://gateway.ai.cloudflare.com/v1/acc/gw/compat/chat/completions"),
])
def test_cloudflare_fills_its_endpoint_from_the_request_env(ref: str, env: dict[str, str] | None, url: str) -> None:
    """The URLs pi-ai 1.6's OpenAI client fetched (placeholders filled from options.env only)."""
    model = _model(ref)
    options: dict[str, Any] = {"apiKey": "sk-x", **({"env": env} if env else {})}
    payload = _build(model, {"messages": TRANSCRIPT}, options)
    assert registry.build_wire(API, model, payload, options, PI16.requests)["url"] == url
