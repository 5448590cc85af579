"""OpenAI Responses request building (payload and HTTP request) against what the reference produced.

Sources of truth, all written by the reference itself:
- the conformance goldens (openai/gpt-5.1, with and without reasoning; payload and wire);
- ``tests/data/openai_responses/oracle_*.json``: the oracle on conformance sessions for other Responses models
  (github-copilot/gpt-5.4, xai/grok-4.3, opencode/gpt-5, openai/gpt-5.4, openai/gpt-4.1);
- ``tests/data/openai_responses/synthetic_cases.json``: pi-ai's ``streamSimple`` run directly
  (``gen_synthetic.mjs``, onPayload and fetch captured, bare pi-ai without coding-agent headers) on contexts the
  session corpus cannot express: grammar/strict tools, deferred tools, cache retention, reasoning-item and
  text-signature replay, V8 ``JSON.parse`` failures, header overrides, other providers;
- ``tests/data/openai_responses/azure_cases.json``: the same generator for ``azure-openai-responses``
  (endpoint, deployment map and api version from the ``env`` option);
- ``tests/data/openai_responses/v8_json_parse.json``: Node's ``JSON.parse`` on mutated JSON texts;
- ``tests/data/openai_responses/urls.json``: Node's URL parsing of unusual base URLs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.mistral_conversations import wire as mistral_wire
from pi_tools.providers.openai_responses import payload as responses_payload
from pi_tools.providers.openai_responses import wire as responses_wire

from support.golden import expected, payload_entries
from support.payloadcases import (
    assert_request_line,
    assert_same_json,
    build_unless_reference_failed,
    doc_entries,
    golden_context,
    golden_options,
    golden_params,
    json_loader,
    synthetic_model,
)

API = "openai-responses"
DATA = Path(__file__).resolve().parents[1] / "data" / "openai_responses"
GOLDEN = list(payload_entries(API))
ORACLE_DOCS = sorted(p.name for p in DATA.glob("oracle_*.json"))
ENV_VARIABLES = (
    "PI_CACHE_RETENTION",
    "AZURE_OPENAI_API_VERSION",
    "AZURE_OPENAI_BASE_URL",
    "AZURE_OPENAI_RESOURCE_NAME",
    "AZURE_OPENAI_DEPLOYMENT_NAME_MAP",
)


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference ran without ``PI_CACHE_RETENTION`` or Azure endpoint variables."""
    for name in ENV_VARIABLES:
        monkeypatch.delenv(name, raising=False)


_data = json_loader(DATA)


def _synthetic() -> dict[str, dict[str, Any]]:
    return {case["name"]: case for case in _data("synthetic_cases.json")}


def _assert_wire(wire: dict[str, Any], reference: dict[str, Any]) -> None:
    """Machine-dependent and SDK telemetry headers are not compared; every other header is, exactly."""
    assert_request_line(wire, reference, names={"user-agent"}, prefixes=("x-stainless-",))
    assert_same_json(wire["body"], reference["body"])


def _check_doc_entry(doc: dict[str, Any], entry: dict[str, Any]) -> None:
    model = find_model(entry["model"])
    context, options = golden_context(doc), golden_options(doc, entry)
    payload = build_unless_reference_failed(entry, responses_payload.build_payload, model, context, options)
    if payload is None:
        return
    assert_same_json(payload, entry["payload"])
    _assert_wire(responses_wire.build_wire(model, payload, options, context), entry["wire"])


# --- conformance goldens ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "variant", "key"), golden_params(API))
def test_golden(case: str, variant: str, key: str) -> None:
    doc = expected(case)
    _check_doc_entry(doc, doc[variant][key])


def test_goldens_cover_both_variants_and_the_error_case() -> None:
    variants = {v for _, v, _, _ in GOLDEN}
    assert variants == {"payloads", "payloadsReasoning"}
    assert any("error" in entry for *_, entry in GOLDEN)


def test_wire_without_context_infers_the_same_request() -> None:
    """Outside Copilot the context is not needed to build the HTTP request."""
    for case, variant, key, entry in GOLDEN[:6]:
        if "error" in entry:
            continue
        doc = expected(case)
        model = find_model(entry["model"])
        context, options = golden_context(doc), golden_options(doc, entry)
        payload = responses_payload.build_payload(model, context, options)
        assert responses_wire.build_wire(model, payload, options) == responses_wire.build_wire(
            model, payload, options, context
        ), (case, variant, key)


def test_registry_dispatches_here() -> None:
    case, variant, key, entry = next(item for item in GOLDEN if "payload" in item[3])
    doc = expected(case)
    model = find_model(entry["model"])
    context, options = golden_context(doc), golden_options(doc, entry)
    payload = registry.build_payload(API, model, context, options)
    assert_same_json(payload, entry["payload"])
    assert registry.build_wire(API, model, payload, options)["body"] == entry["wire"]["body"]
    assert registry.normalize_tool_call_id_for(API) is responses_payload.normalize_tool_call_id


# --- oracle documents for other Responses models ---------------------------------------------------------------


def _oracle_entries() -> list[tuple[str, str, str]]:
    return doc_entries(ORACLE_DOCS, _data)


@pytest.mark.parametrize(("name", "variant", "key"), _oracle_entries())
def test_oracle_models(name: str, variant: str, key: str) -> None:
    doc = _data(name)
    _check_doc_entry(doc, doc[variant][key])


def test_oracle_docs_cover_other_providers() -> None:
    keys = {key for _, _, key in _oracle_entries()}
    assert {
        "openai-responses@github-copilot/gpt-5.4",
        "openai-responses@xai/grok-4.3",
        "openai-responses@opencode/gpt-5",
        "openai-responses@openai/gpt-4.1",
    } <= keys


# --- synthetic streamSimple cases ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(_synthetic()))
def test_synthetic(name: str) -> None:
    case = _synthetic()[name]
    model = synthetic_model(case)
    options = dict(case["options"])
    build = responses_payload.build_payload
    payload = build_unless_reference_failed(case, build, model, case["context"], options)
    if payload is None:
        return
    assert_same_json(payload, case["payload"])
    wire = build_unless_reference_failed(
        case,
        responses_wire.build_wire,
        model,
        payload,
        options,
        case["context"],
        coding_agent_headers=False,
        error_key="wireError",
    )
    if wire is not None:
        _assert_wire(wire, case["wire"])


def _azure() -> dict[str, dict[str, Any]]:
    return {case["name"]: case for case in _data("azure_cases.json")}


@pytest.mark.parametrize("name", sorted(_azure()))
def test_azure(name: str) -> None:
    """azure-openai-responses shares the item conversion; deployment, endpoint and auth are Azure's own."""
    case = _azure()[name]
    model = synthetic_model(case)
    options = dict(case["options"])
    build = responses_payload.build_azure_payload
    payload = build_unless_reference_failed(case, build, model, case["context"], options)
    if payload is None:
        return
    assert_same_json(payload, case["payload"])
    wire = responses_wire.build_azure_wire(
        model, payload, options, case["context"], coding_agent_headers=False
    )
    _assert_wire(wire, case["wire"])


def test_azure_endpoint_from_process_env(monkeypatch: pytest.MonkeyPatch) -> None:
    case = _azure()["azure base url cognitive"]
    options = {k: v for k, v in case["options"].items() if k != "env"}
    for name, value in case["options"]["env"].items():
        monkeypatch.setenv(name, value)
    model = synthetic_model(case)
    payload = responses_payload.build_azure_payload(model, case["context"], options)
    assert_same_json(payload, case["payload"])
    assert responses_wire.build_azure_wire(model, payload, options)["url"] == case["wire"]["url"]


def test_process_env_long_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    """``PI_CACHE_RETENTION=long`` in the process environment acts like the ``env`` option the reference saw."""
    case = _synthetic()["cache long env"]
    assert case["payload"]["prompt_cache_retention"] == "24h"
    options = {k: v for k, v in case["options"].items() if k != "env"}
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    payload = responses_payload.build_payload(synthetic_model(case), case["context"], options)
    assert_same_json(payload, case["payload"])


def test_copilot_headers_inferred_from_payload() -> None:
    """Without the context, Copilot's initiator and vision headers are read back from the payload items."""
    for name in ("copilot", "copilot user last", "copilot images"):
        case = _synthetic()[name]
        model = synthetic_model(case)
        wire = responses_wire.build_wire(
            model, case["payload"], dict(case["options"]), coding_agent_headers=False
        )
        _assert_wire(wire, case["wire"])


def test_coding_agent_attribution_headers() -> None:
    """Pi's coding agent tags OpenCode requests with its session; bare pi-ai does not."""
    case = _synthetic()["opencode"]
    model = synthetic_model(case)
    options = dict(case["options"])
    with_agent = responses_wire.build_wire(model, case["payload"], options)["headers"]
    bare = responses_wire.build_wire(model, case["payload"], options, coding_agent_headers=False)["headers"]
    assert with_agent["x-opencode-session"] == options["sessionId"]
    assert with_agent["x-opencode-client"] == "pi"
    assert "x-opencode-session" not in bare


@pytest.mark.parametrize("index", range(len(_data("malformed_contexts.json")["cases"])))
def test_malformed_contexts(index: int) -> None:
    """Damaged stored data: the same payload as the reference, or a failure where the reference fails."""
    case = _data("malformed_contexts.json")["cases"][index]
    model = find_model(case["model"])
    if "error" in case:
        with pytest.raises(PayloadError):
            registry.build_payload("openai-responses", model, case["context"], dict(case["options"]))
        return
    payload = responses_payload.build_payload(model, case["context"], dict(case["options"]))
    assert_same_json(payload, case["payload"])


# --- URLs ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(len(_data("urls.json")["cases"])))
def test_request_urls(index: int) -> None:
    """Base URLs are joined and parsed like the SDK (and pi-ai's Mistral adapter) does with WHATWG URLs."""
    case = _data("urls.json")["cases"][index]
    model = {"baseUrl": case["base"]}
    assert responses_wire.request_url(model) == case["responses"]
    assert mistral_wire.request_url(model) == case["mistral"]


# --- JSON.parse error texts ------------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(len(_data("v8_json_parse.json")["cases"])))
def test_v8_json_parse(index: int) -> None:
    case = _data("v8_json_parse.json")["cases"][index]
    if "err" in case:
        with pytest.raises(PayloadError) as failure:
            responses_payload.js_json_parse(case["text"])
        assert str(failure.value) == case["err"]
    else:
        assert js_stringify(responses_payload.js_json_parse(case["text"])) == case["ok"]


def test_non_string_signature_is_stringified_first() -> None:
    with pytest.raises(PayloadError, match=r'^"\[object Object\]" is not valid JSON$'):
        responses_payload.js_json_parse({"type": "reasoning"})
    assert responses_payload.js_json_parse(12) == 12


# --- tool-call ids ---------------------------------------------------------------------------------------------


def test_normalize_tool_call_id_rules() -> None:
    openai = find_model("openai/gpt-5.1")
    same_api = {"provider": "openai", "api": "openai-responses"}
    foreign = {"provider": "anthropic", "api": "anthropic-messages"}
    normalize = responses_payload.normalize_tool_call_id
    # Same provider and API: both halves sanitised, trailing underscores dropped, item id forced to fc_.
    assert normalize("call a|fc b__", openai, same_api) == "call_a|fc_b"
    assert normalize("call|item", openai, same_api) == "call|fc_item"
    # Foreign source: the item id is replaced by a hash.
    assert normalize("call|item", openai, foreign) == "call|fc_" + responses_payload.short_hash("item")
    # An astral character is two UTF-16 code units, hence two underscores before truncation.
    assert normalize("a\U0001f600b", openai, foreign) == "a__b"
    assert normalize("x" * 70 + "_", openai, foreign) == "x" * 64
    # Providers outside the call|item family get one sanitised id.
    xai = find_model("xai/grok-4.3")
    assert normalize("call|item", xai, same_api) == "call_item"


def test_payload_cli_builds_azure_openai_responses(cli: Any) -> None:
    """``pi-tools payload --api azure-openai-responses`` goes through the Azure builders.

    Without an endpoint Pi fails the request; the error text is what the oracle reports for this session.
    """
    session = "fixtures/conformance/cases/c000_linear.jsonl"
    args = ("payload", "--api", "azure-openai-responses", "--model", "azure-openai-responses/gpt-4.1", "--wire", session)
    unset = {name: "" for name in ("AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_RESOURCE_NAME")}
    failed = cli(*args, env=unset).documents()
    assert [(doc["kind"], doc["error"]) for doc in failed] == [(
        "error",
        "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, "
        "or pass azureBaseUrl, azureResourceName, or model.baseUrl.",
    )]
    [document] = cli(*args, env={**unset, "AZURE_OPENAI_RESOURCE_NAME": "res"}).documents()
    assert document["kind"] == "payload" and document["api"] == "azure-openai-responses"
    assert document["payload"]["model"] == "gpt-4.1" and document["payload"]["store"] is False
    assert document["wire"]["url"] == "https://res.openai.azure.com/openai/v1/responses?api-version=v1"
    assert document["wire"]["body"] == document["payload"]
