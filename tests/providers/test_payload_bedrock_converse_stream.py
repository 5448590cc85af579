"""Bedrock ConverseStream command inputs and HTTP requests against the reference's goldens and oracle recordings.

Every conformance golden keyed ``bedrock-converse-stream[@...]`` is rebuilt and must equal the reference's
``onPayload`` object (binary members as ``{"$bytes": ...}``, top-level key order included) or fail with the
reference's error; its ``wire`` must match the request the AWS SDK built (body in schema order with plain
base64, URL-encoded model id, bearer auth). ``tests/data/bedrock`` adds oracle recordings for adaptive,
xhigh-native, non-Claude and text-only models; the real public sessions are checked against the reference's
payload digests; the other tests derive expectations for environment-driven branches (cache retention,
regions, GovCloud, SigV4) that the oracle scrubs away.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers.bedrock_converse_stream.payload import atob, build_payload, normalize_tool_call_id
from pi_tools.providers.bedrock_converse_stream.wire import build_wire
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

API = "bedrock-converse-stream"
DATA = Path(__file__).resolve().parents[1] / "data" / "bedrock"
ENV_VARS = (
    "PI_CACHE_RETENTION",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_BEDROCK_SKIP_AUTH",
    "AWS_BEDROCK_FORCE_CACHE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
)

# Goldens this implementation knowingly does not reproduce: (case, variant, key) -> reason. Keep empty.
KNOWN_DIFFERENCES: dict[tuple[str, str, str], str] = {}


@pytest.fixture(autouse=True)
def _reference_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle scrubs provider variables before Pi loads; do the same so the host cannot leak in."""
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _check(doc: dict[str, Any], entry: dict[str, Any]) -> None:
    model = find_model(entry["model"])
    options = golden_options(doc, entry)
    payload = build_unless_reference_failed(entry, build_payload, model, golden_context(doc), options)
    if payload is None:
        return
    assert_same_top_level_order(payload, entry["payload"])
    wire = build_wire(model, payload, options)
    assert_request_line(wire, entry["wire"])
    assert wire["body"] == entry["wire"]["body"]
    # The SDK writes members in schema order; the exact bytes follow from that order.
    assert _compact(wire["body"]) == _compact(entry["wire"]["body"])


# --------------------------------------------------------------------------------------------------------
# Conformance goldens
# --------------------------------------------------------------------------------------------------------


GOLDEN_PARAMS = golden_params(API, KNOWN_DIFFERENCES)


@pytest.mark.parametrize(("case", "variant", "key"), GOLDEN_PARAMS)
def test_golden_payload_and_wire(case: str, variant: str, key: str) -> None:
    doc = expected(case)
    _check(doc, doc[variant][key])


def test_goldens_are_present() -> None:
    assert len(GOLDEN_PARAMS) >= 2 * 49


def test_golden_body_bytes_and_hash() -> None:
    """bodyBytes / bodySha256 of the reference request follow from the body we build."""
    doc = expected("c001_tools")
    entry = doc["payloadsReasoning"][API]
    model = find_model(entry["model"])
    wire = build_wire(model, build_payload(model, golden_context(doc), golden_options(doc, entry)), {})
    raw = _compact(wire["body"]).encode("utf-8")
    assert len(raw) == entry["wire"]["bodyBytes"]
    assert hashlib.sha256(raw).hexdigest() == entry["wire"]["bodySha256"]


# --------------------------------------------------------------------------------------------------------
# Oracle recordings for more models
# --------------------------------------------------------------------------------------------------------


_recording = recording_loader(DATA)
RECORDING_PARAMS = recording_params(DATA, _recording)


@pytest.mark.parametrize(("name", "variant", "key"), RECORDING_PARAMS)
def test_oracle_recording(name: str, variant: str, key: str) -> None:
    doc = _recording(name)
    _check(doc, doc[variant][key])


def test_recordings_cover_the_interesting_models() -> None:
    models = {
        _recording(name)[variant][key]["model"] for name, variant, key in (p.values for p in RECORDING_PARAMS)
    }
    assert {
        "amazon-bedrock/anthropic.claude-opus-4-6-v1",
        "amazon-bedrock/anthropic.claude-opus-4-7",
        "amazon-bedrock/amazon.nova-2-lite-v1:0",
        "amazon-bedrock/meta.llama3-1-8b-instruct-v1:0",
        "amazon-bedrock/eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
    } <= models


# --------------------------------------------------------------------------------------------------------
# Branches the oracle cannot reach, derived from a golden
# --------------------------------------------------------------------------------------------------------


def _base(variant: str = "payloads") -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    doc = expected("c001_tools")
    entry = doc[variant][API]
    return find_model(entry["model"]), golden_context(doc), golden_options(doc, entry), entry["payload"]


def _rewrite_cache_points(value: Any, ttl: str | None, remove: bool = False) -> Any:
    if isinstance(value, list):
        items = [item for item in value if not (remove and isinstance(item, dict) and "cachePoint" in item)]
        return [_rewrite_cache_points(item, ttl, remove) for item in items]
    if isinstance(value, dict):
        result = {name: _rewrite_cache_points(item, ttl, remove) for name, item in value.items()}
        if "cachePoint" in result and ttl is not None:
            result["cachePoint"] = {**result["cachePoint"], "ttl": ttl}
        return result
    return value


def test_long_cache_retention_adds_one_hour_ttl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    model, context, options, golden = _base()
    assert build_payload(model, context, options) == _rewrite_cache_points(golden, "1h")


def test_cache_retention_none_drops_cache_points() -> None:
    model, context, options, golden = _base()
    payload = build_payload(model, context, {**options, "cacheRetention": "none"})
    assert payload == _rewrite_cache_points(golden, None, remove=True)
    assert "cachePoint" not in json.dumps(payload)


def test_trailing_user_message_gets_a_cache_point() -> None:
    model, context, options, _golden = _base()
    context = {
        **context,
        "messages": [*context["messages"], {"role": "user", "content": "  ", "timestamp": 1}],
    }
    payload = build_payload(model, context, options)
    assert payload["messages"][-1] == {
        "role": "user",
        "content": [{"text": "<empty>"}, {"cachePoint": {"type": "default"}}],
    }


def test_non_claude_model_only_caches_when_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    model = find_model("amazon-bedrock/amazon.nova-pro-v1:0")
    context = {
        "systemPrompt": "sys",
        "messages": [{"role": "user", "content": "hi", "timestamp": 1}],
        "tools": None,
    }
    plain = build_payload(model, context, {"apiKey": "k"})
    assert plain["system"] == [{"text": "sys"}]
    monkeypatch.setenv("AWS_BEDROCK_FORCE_CACHE", "1")
    forced = build_payload(model, context, {"apiKey": "k"})
    assert forced["system"] == [{"text": "sys"}, {"cachePoint": {"type": "default"}}]
    assert forced["messages"][-1]["content"][-1] == {"cachePoint": {"type": "default"}}


def test_gov_cloud_region_omits_thinking_display(monkeypatch: pytest.MonkeyPatch) -> None:
    model, context, options, golden = _base("payloadsReasoning")
    monkeypatch.setenv("AWS_REGION", "us-gov-west-1")
    payload = build_payload(model, context, options)
    wanted = copy.deepcopy(golden)
    del wanted["additionalModelRequestFields"]["thinking"]["display"]
    assert payload == wanted
    wire = build_wire(model, payload, options)
    assert wire["url"].startswith("https://bedrock-runtime.us-gov-west-1.amazonaws.com/model/")


def test_region_from_environment_or_option_replaces_catalog_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    model, context, options, _golden = _base()
    payload = build_payload(model, context, options)
    suffix = "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    assert (
        build_wire(model, payload, options)["url"]
        == "https://bedrock-runtime.us-east-1.amazonaws.com" + suffix
    )
    # streamSimple forwards no ``region`` option, so only the environment moves the endpoint.
    assert build_wire(model, payload, {**options, "region": "eu-west-3"})["url"] == (
        "https://bedrock-runtime.us-east-1.amazonaws.com" + suffix
    )
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    assert (
        build_wire(model, payload, options)["url"]
        == "https://bedrock-runtime.eu-west-3.amazonaws.com" + suffix
    )
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-south-1")
    assert (
        build_wire(model, payload, options)["url"]
        == "https://bedrock-runtime.ap-south-1.amazonaws.com" + suffix
    )
    custom = {**model, "baseUrl": "https://proxy.example.com/bedrock/"}
    assert build_wire(custom, payload, options)["url"] == "https://proxy.example.com/bedrock" + suffix


def test_sigv4_headers_without_a_bearer_token(monkeypatch: pytest.MonkeyPatch) -> None:
    model, context, options, _golden = _base()
    options.pop("apiKey")
    payload = build_payload(model, context, options)
    wire = build_wire(model, payload, options)
    headers = wire["headers"]
    assert headers["authorization"] == "AWS4-HMAC-SHA256 <redacted>"
    assert headers["x-amz-date"] == "<volatile>"
    assert headers["x-amz-content-sha256"] == hashlib.sha256(_compact(wire["body"]).encode()).hexdigest()
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "token")
    assert build_wire(model, payload, options)["headers"]["authorization"] == "Bearer <redacted>"
    monkeypatch.setenv("AWS_BEDROCK_SKIP_AUTH", "1")
    assert build_wire(model, payload, options)["headers"]["authorization"].startswith("AWS4-HMAC-SHA256 ")


def test_caller_headers_cannot_replace_signing_headers() -> None:
    model, context, options, _golden = _base()
    payload = build_payload(model, context, options)
    headers = build_wire(
        model,
        payload,
        {**options, "headers": {"X-Team": "a", "Authorization": "x", "X-Amz-Date": "y", "N": None}},
    )["headers"]
    assert headers["x-team"] == "a"
    assert headers["authorization"] == "Bearer <redacted>"
    assert "n" not in headers


def test_tool_choice_and_temperature() -> None:
    model, context, options, golden = _base()
    auto = build_payload(model, context, {**options, "toolChoice": "auto", "temperature": 0.5})
    assert auto["toolConfig"]["toolChoice"] == {"auto": {}}
    assert auto["inferenceConfig"] == {
        "maxTokens": golden["inferenceConfig"]["maxTokens"],
        "temperature": 0.5,
    }
    named = build_payload(model, context, {**options, "toolChoice": {"type": "tool", "name": "bash"}})
    assert named["toolConfig"]["toolChoice"] == {"tool": {"name": "bash"}}
    body = build_wire(model, named, options)["body"]
    assert list(body["toolConfig"]) == ["tools", "toolChoice"]
    none = build_payload(model, context, {**options, "toolChoice": "none"})
    assert "toolConfig" not in none
    assert {k: v for k, v in none.items()} == {k: v for k, v in golden.items() if k != "toolConfig"}


def test_budget_uses_custom_budgets_and_leaves_answer_room() -> None:
    model, context, options, _golden = _base()
    payload = build_payload(
        model, context, {**options, "reasoning": "xhigh", "thinkingBudgets": {"high": 5000}, "maxTokens": 500}
    )
    assert payload["inferenceConfig"] == {"maxTokens": 5500}
    assert payload["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 4476


def test_atob_is_as_lenient_as_the_browser() -> None:
    assert atob("AAEC\nAwQ") == bytes([0, 1, 2, 3, 4])
    assert atob(" AAECAwQ= ") == bytes([0, 1, 2, 3, 4])
    assert atob("AAECAw==") == atob("AAECAw") == bytes([0, 1, 2, 3])
    # Node's messages (checked with Node 22): bad characters vs. an impossible length.
    for bad in ("AAECAwQ==", "not base64!", "AA-_", "A=AA", "AA==="):
        with pytest.raises(ValueError, match="^Invalid character$"):
            atob(bad)
    with pytest.raises(ValueError, match="^The string to be decoded is not correctly encoded.$"):
        atob("AAAAA")


def test_undecodable_image_fails_the_request() -> None:
    model, context, options, _golden = _base()
    image = {"type": "image", "data": "@@@@", "mimeType": "image/png"}
    context = {**context, "messages": [{"role": "user", "content": [image], "timestamp": 1}]}
    with pytest.raises(PayloadError, match="^Invalid character$"):
        build_payload(model, context, options)
    image["data"] = "iVBO Rw0K"
    payload = build_payload(model, context, options)
    block = payload["messages"][0]["content"][0]["image"]
    assert block == {
        "source": {"bytes": {"$bytes": base64.b64encode(atob("iVBORw0K")).decode()}},
        "format": "png",
    }
    assert build_wire(model, payload, options)["body"]["messages"][0]["content"][0]["image"] == {
        "format": "png",
        "source": {"bytes": "iVBORw0K"},
    }


def test_tool_call_ids_are_squeezed_into_bedrock_alphabet() -> None:
    assert normalize_tool_call_id("call_1|fc_abc/def") == "call_1_fc_abc_def"
    assert normalize_tool_call_id("x" * 80) == "x" * 64


def test_building_leaves_the_context_untouched() -> None:
    doc = _recording("features.models.json")
    context = golden_context(doc)
    before = copy.deepcopy(context)
    entry = doc["payloadsReasoning"][API]
    model = find_model(entry["model"])
    options = golden_options(doc, entry)
    build_wire(model, build_payload(model, context, options), options)
    assert context == before


def test_unclamped_level_reproduces_reference_nan_arithmetic() -> None:
    """Recorded with pi-ai 0.85.1 (user "hi", system "s", reasoning "off") and the AWS SDK's serialised body."""
    model = find_model("amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0")
    context = {
        "systemPrompt": "s",
        "messages": [{"role": "user", "content": "hi", "timestamp": 1}],
        "tools": None,
    }
    payload = build_payload(model, context, {"apiKey": "k", "reasoning": "off"})
    as_json = json.loads(js_stringify(payload))
    assert as_json["inferenceConfig"] == {"maxTokens": None}
    assert as_json["additionalModelRequestFields"]["thinking"]["budget_tokens"] is None
    body = js_stringify(build_wire(model, payload, {"apiKey": "k"})["body"])
    assert body == (
        '{"messages":[{"role":"user","content":[{"text":"hi"},{"cachePoint":{"type":"default"}}]}],'
        '"system":[{"text":"s"},{"cachePoint":{"type":"default"}}],"inferenceConfig":{"maxTokens":"NaN"},'
        '"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":"NaN","display":"summarized"},'
        '"anthropic_beta":["interleaved-thinking-2025-05-14"]}}'
    )


# --------------------------------------------------------------------------------------------------------
# Real public sessions: the reference's payload digests (fixtures/realworld/expected)
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "variant", "key"), list(realworld_params(API)))
def test_realworld_payload_digest(name: str, variant: str, key: str) -> None:
    assert_realworld_digest(name, variant, key, build_payload, build_wire)
