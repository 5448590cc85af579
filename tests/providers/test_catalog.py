"""The bundled pi-ai catalog: it must be the reference package's data, and the lookups/costs must match pi-ai."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.providers.catalog import all_models, calculate_cost, catalog_source, find_model, get_model
from pi_tools.providers.errors import UnknownModelError

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_PACKAGE = Path("/tmp/ref/node_modules/@earendil-works/pi-ai")
REFERENCE_DATA = REFERENCE_PACKAGE / "dist" / "providers" / "data"
needs_reference = pytest.mark.skipif(
    not REFERENCE_DATA.is_dir(), reason="reference npm package not installed"
)


def _load_regen_script() -> Any:
    spec = importlib.util.spec_from_file_location("regen_catalog", ROOT / "scripts" / "regen_catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_reference
def test_bundled_catalog_is_what_the_script_regenerates(tmp_path: Path) -> None:
    out = tmp_path / "models.json"
    assert _load_regen_script().main([str(REFERENCE_PACKAGE), "--out", str(out)]) == 0
    assert out.read_bytes() == (ROOT / "pi_tools" / "providers" / "data" / "models.json").read_bytes()


@needs_reference
def test_every_reference_model_is_bundled_field_for_field() -> None:
    files = sorted(p for p in REFERENCE_DATA.glob("*.json") if not p.name.startswith("."))
    expected_count = 0
    for path in files:
        for api, models in json.loads(path.read_text(encoding="utf-8")).items():
            for model_id, reference in models.items():
                expected_count += 1
                bundled = get_model(path.stem, model_id)
                assert bundled == reference
                assert list(bundled) == list(reference), "field order differs"
                assert bundled["api"] == api
    assert len(all_models()) == expected_count
    assert (
        catalog_source()["version"] == json.loads((REFERENCE_PACKAGE / "package.json").read_text())["version"]
    )


# Catalog facts that drive the conformance payloads (providers.md, "Conformance models").
CONFORMANCE_MODELS: list[tuple[str, str, int, int, list[str]]] = [
    ("anthropic/claude-sonnet-4-5", "anthropic-messages", 1000000, 64000, ["text", "image"]),
    ("anthropic/claude-opus-4-6", "anthropic-messages", 1000000, 128000, ["text", "image"]),
    ("groq/openai/gpt-oss-120b", "openai-completions", 131072, 65536, ["text"]),
    ("deepseek/deepseek-v4-flash", "openai-completions", 1000000, 384000, ["text"]),
    ("openrouter/anthropic/claude-sonnet-4.5:batch", "openai-completions", 1000000, 64000, ["text", "image"]),
    ("openai/gpt-5.1", "openai-responses", 400000, 128000, ["text", "image"]),
    ("google/gemini-2.5-flash", "google-generative-ai", 1048576, 65536, ["text", "image"]),
    ("google/gemini-3-flash-preview", "google-generative-ai", 1048576, 65536, ["text", "image"]),
    ("mistral/mistral-medium-latest", "mistral-conversations", 262144, 262144, ["text", "image"]),
    ("mistral/magistral-medium-latest", "mistral-conversations", 128000, 16384, ["text"]),
    (
        "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0",
        "bedrock-converse-stream",
        200000,
        64000,
        ["text", "image"],
    ),
]


@pytest.mark.parametrize(("reference", "api", "context_window", "max_tokens", "inputs"), CONFORMANCE_MODELS)
def test_conformance_model_facts(
    reference: str, api: str, context_window: int, max_tokens: int, inputs: list[str]
) -> None:
    model = find_model(reference)
    provider, _, model_id = reference.partition("/")
    assert (model["provider"], model["id"], model["api"]) == (provider, model_id, api)
    assert (model["contextWindow"], model["maxTokens"], model["input"]) == (
        context_window,
        max_tokens,
        inputs,
    )
    assert model["reasoning"] is True
    assert "headers" not in model and "samplingParams" not in model


def test_conformance_model_compat_and_maps() -> None:
    assert find_model("anthropic/claude-opus-4-6")["compat"]["forceAdaptiveThinking"] is True
    gpt_oss_map = find_model("groq/openai/gpt-oss-120b")["thinkingLevelMap"]
    assert {level: gpt_oss_map[level] for level in ("off", "minimal", "xhigh", "max")} == dict.fromkeys(
        ("off", "minimal", "xhigh", "max")
    )
    deepseek = find_model("deepseek/deepseek-v4-flash")
    assert deepseek["compat"]["thinkingFormat"] == "deepseek"
    assert deepseek["thinkingLevelMap"]["minimal"] is None and deepseek["thinkingLevelMap"]["medium"] is None
    assert deepseek["thinkingLevelMap"]["max"] == "max"
    assert (
        find_model("amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0")["name"] == "Claude Sonnet 4.5"
    )


def test_find_model_keeps_slashes_in_the_id() -> None:
    model = find_model("openrouter/anthropic/claude-sonnet-4.5:batch")
    assert model["provider"] == "openrouter"
    assert model["id"] == "anthropic/claude-sonnet-4.5:batch"
    assert model["compat"]["cacheControlFormat"] == "anthropic"


@pytest.mark.parametrize(
    "reference", ["anthropic", "anthropic/", "/claude-sonnet-4-5", "nope/x", "anthropic/nope"]
)
def test_unknown_models_raise_a_readable_key_error(reference: str) -> None:
    with pytest.raises(UnknownModelError) as info:
        find_model(reference)
    assert isinstance(info.value, KeyError)
    assert str(info.value).startswith(("unknown", "model reference"))


def test_lookups_return_private_copies() -> None:
    model = get_model("anthropic", "claude-sonnet-4-5")
    model["cost"]["input"] = 999
    model["input"].append("audio")
    fresh = get_model("anthropic", "claude-sonnet-4-5")
    assert fresh["cost"]["input"] == 3
    assert fresh["input"] == ["text", "image"]


def test_models_of_one_provider() -> None:
    google = all_models("google")
    assert google and all(m["provider"] == "google" for m in google)
    with pytest.raises(UnknownModelError):
        all_models("no-such-provider")


# (provider, model id, usage, usage.cost after pi-ai's calculateCost) computed with Node on the reference.
NODE_COSTS: list[tuple[str, str, dict[str, int], dict[str, float]]] = [
    (
        "anthropic",
        "claude-sonnet-4-5",
        {"input": 1000, "output": 500, "cacheRead": 2000, "cacheWrite": 400, "cacheWrite1h": 100},
        {
            "input": 0.003,
            "output": 0.007500000000000001,
            "cacheRead": 0.0006,
            "cacheWrite": 0.001725,
            "total": 0.012825,
        },
    ),
    (
        "anthropic",
        "claude-sonnet-4-5",
        {"input": 1200, "output": 85, "cacheRead": 0, "cacheWrite": 0},
        {"input": 0.0036, "output": 0.001275, "cacheRead": 0, "cacheWrite": 0, "total": 0.004875},
    ),
    (  # 272001 input tokens in total: above the tier threshold, so the whole request uses tier rates
        "openai",
        "gpt-5.5",
        {"input": 100000, "output": 1000, "cacheRead": 172001, "cacheWrite": 0},
        {
            "input": 1,
            "output": 0.045000000000000005,
            "cacheRead": 0.172001,
            "cacheWrite": 0,
            "total": 1.217001,
        },
    ),
    (  # exactly at the threshold: base rates
        "openai",
        "gpt-5.5",
        {"input": 100000, "output": 1000, "cacheRead": 172000, "cacheWrite": 0},
        {"input": 0.5, "output": 0.030000000000000002, "cacheRead": 0.086, "cacheWrite": 0, "total": 0.616},
    ),
    (
        "openai",
        "gpt-5.6-luna",
        {"input": 300000, "output": 7, "cacheRead": 3, "cacheWrite": 11},
        {
            "input": 0.12000000000000001,
            "output": 1.2600000000000001e-05,
            "cacheRead": 1.2000000000000002e-07,
            "cacheWrite": 5.5e-06,
            "total": 0.12001822000000002,
        },
    ),
    (
        "google",
        "gemini-2.5-flash",
        {"input": 123457, "output": 98765, "cacheRead": 4321, "cacheWrite": 0},
        {
            "input": 0.037037099999999996,
            "output": 0.2469125,
            "cacheRead": 0.00012963,
            "cacheWrite": 0,
            "total": 0.28407923,
        },
    ),
    (
        "deepseek",
        "deepseek-v4-flash",
        {"input": 7, "output": 13, "cacheRead": 1000003, "cacheWrite": 17},
        {
            "input": 9.800000000000001e-07,
            "output": 3.6400000000000003e-06,
            "cacheRead": 0.0028000084,
            "cacheWrite": 0,
            "total": 0.0028046283999999997,
        },
    ),
]


@pytest.mark.parametrize(("provider", "model_id", "usage", "expected"), NODE_COSTS)
def test_calculate_cost_matches_pi_ai_bit_for_bit(
    provider: str, model_id: str, usage: dict[str, int], expected: dict[str, float]
) -> None:
    record: dict[str, Any] = {
        **usage,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    cost = calculate_cost(get_model(provider, model_id), record)
    assert cost is record["cost"]
    assert list(cost) == ["input", "output", "cacheRead", "cacheWrite", "total"]
    for key, value in expected.items():
        assert cost[key] == value and cost[key].hex() == float(value).hex(), key


def test_calculate_cost_creates_the_cost_record_when_missing() -> None:
    usage: dict[str, Any] = {"input": 1000000, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    cost = calculate_cost(get_model("anthropic", "claude-sonnet-4-5"), usage)
    assert usage["cost"] is cost
    assert cost == {"input": 3.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 3.0}


# --- registry ----------------------------------------------------------------------------------------------------


def test_registry_import_is_cheap_and_lazy() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, pi_tools.providers.registry as r, pi_tools.providers as p, pi_tools.providers.table as t\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('polars', 'jinja2', 'httpx')]\n"
        "apis = {row.folder.rsplit('.', 1)[1] for row in t.api_rows()}\n"
        "loaded = [m for m in sys.modules if m.startswith('pi_tools.providers.') and m.split('.')[2] in apis]\n"
        "print(heavy, loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[] []"


def test_registry_maps_every_api_and_rejects_unknown_ones() -> None:
    from pi_tools.providers.google_generative_ai.adapter import GoogleGenerativeAI
    from pi_tools.providers.registry import (
        NotBuiltForEdition,
        adapter,
        build_payload,
        build_wire,
        stream_decoder,
    )
    from pi_tools.providers.table import api_rows

    assert isinstance(adapter("google-vertex"), GoogleGenerativeAI)  # Vertex builds on the Gemini API's folder
    assert [row.name for row in api_rows() if row.streams] == [
        "anthropic-messages",
        "openai-completions",
        "openai-responses",
        "google-generative-ai",
        "google-vertex",
        "mistral-conversations",
        "bedrock-converse-stream",
        "pi-messages",
    ]
    with pytest.raises(NotBuiltForEdition, match="no pi-messages API"):  # Pi's own API exists from Pi 1.6 on
        build_payload("pi-messages", {}, {}, {})
    for call in (
        lambda: build_payload("toy-messages", {}, {}, {}),
        lambda: build_wire("faux", {}, {}, {}),
        lambda: stream_decoder("azure-openai-responses"),
    ):
        with pytest.raises(ValueError, match="unsupported API"):
            call()


def test_registry_builds_a_payload_through_the_api_package() -> None:
    from pi_tools.providers.registry import build_payload
    from pi_tools.providers.table import find_row

    row = find_row("anthropic-messages")
    if row is None or importlib.util.find_spec(f"{row.folder}.payload") is None:
        pytest.skip("anthropic payload module not present in this checkout")
    model = find_model("anthropic/claude-sonnet-4-5")
    context = {
        "systemPrompt": None,
        "messages": [{"role": "user", "content": "hi", "timestamp": 1}],
        "tools": None,
    }
    payload = build_payload("anthropic-messages", model, context, {"apiKey": "k"})
    assert payload["model"] == "claude-sonnet-4-5"
    assert payload["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}
    ]


def test_registry_builds_azure_openai_responses_with_the_azure_variant() -> None:
    """Payload captured from Node (pi-ai's azure-openai-responses ``onPayload``) for the same context and options."""
    from pi_tools.providers import registry

    model = find_model("azure-openai-responses/gpt-4.1")
    context = {
        "systemPrompt": "Be brief.",
        "messages": [{"role": "user", "content": "hi", "timestamp": 1}],
        "tools": [{"name": "read", "description": "Read a file", "parameters": {
            "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}],
    }
    options = {"apiKey": "k", "sessionId": "sess-1", "env": {"AZURE_OPENAI_RESOURCE_NAME": "res"}}
    assert "azure-openai-responses" in registry.supported_apis()
    payload = registry.build_payload("azure-openai-responses", model, context, options)
    assert payload == {
        "model": "gpt-4.1",
        "input": [{"role": "system", "content": "Be brief."},
                  {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "stream": True,
        "prompt_cache_key": "sess-1",
        "store": False,
        "max_output_tokens": 32768,
        "tools": [{"type": "function", "name": "read", "description": "Read a file", "parameters": {
            "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}, "strict": False}],
    }
    wire = registry.build_wire("azure-openai-responses", model, payload, options)
    assert wire["url"] == "https://res.openai.azure.com/openai/v1/responses?api-version=v1"
    assert wire["headers"]["api-key"] == "<redacted>" and "authorization" not in wire["headers"]
    normalize = registry.normalize_tool_call_id_for("azure-openai-responses")
    assert normalize("call|item", model, {"provider": model["provider"], "api": model["api"]}) == "call|fc_item"
    with pytest.raises(ValueError, match="unsupported API"):
        registry.stream_decoder("azure-openai-responses")
