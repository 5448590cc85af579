"""Mistral chat-completions request building (payload and HTTP request) against what the reference produced.

Sources of truth, all written by the reference itself:
- the conformance goldens (mistral/mistral-medium-latest, mistral/magistral-medium-latest; payload and wire);
- ``tests/data/mistral/oracle_*.json``: the oracle on conformance sessions for mistral-small-latest
  (``reasoningEffort`` instead of ``promptMode``) and devstral-medium-latest (no reasoning, text only);
- ``tests/data/mistral/synthetic_cases.json``: pi-ai's ``streamSimple`` run directly
  (``tests/data/openai_responses/gen_synthetic.mjs mistral-conversations``, onPayload and fetch captured, bare
  pi-ai without coding-agent headers): id collisions, blank/whitespace blocks, images for text-only models, tool
  choices, cache retention, header overrides, custom base URLs, strict tools, every reasoning model family.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.mistral_conversations import payload as mistral_payload
from pi_tools.providers.mistral_conversations import wire as mistral_wire

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

API = "mistral-conversations"
DATA = Path(__file__).resolve().parents[1] / "data" / "mistral"
GOLDEN = list(payload_entries(API))
ORACLE_DOCS = sorted(p.name for p in DATA.glob("oracle_*.json"))


@pytest.fixture(autouse=True)
def _no_cache_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference ran with ``PI_CACHE_RETENTION`` unset (Mistral ignores it anyway; the test proves that)."""
    monkeypatch.delenv("PI_CACHE_RETENTION", raising=False)


_data = json_loader(DATA)


def _synthetic() -> dict[str, dict[str, Any]]:
    return {case["name"]: case for case in _data("synthetic_cases.json")}


def _assert_wire(wire: dict[str, Any], reference: dict[str, Any]) -> None:
    assert_request_line(wire, reference, names={"user-agent"}, prefixes=())
    assert_same_json(wire["body"], reference["body"])


def _check_doc_entry(doc: dict[str, Any], entry: dict[str, Any]) -> None:
    model = find_model(entry["model"])
    context, options = golden_context(doc), golden_options(doc, entry)
    payload = mistral_payload.build_payload(model, context, options)
    assert_same_json(payload, entry["payload"])
    _assert_wire(mistral_wire.build_wire(model, payload, options, context), entry["wire"])


# --- conformance goldens ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "variant", "key"), golden_params(API))
def test_golden(case: str, variant: str, key: str) -> None:
    doc = expected(case)
    _check_doc_entry(doc, doc[variant][key])


def test_goldens_cover_both_models_and_variants() -> None:
    assert {k for _, _, k, _ in GOLDEN} == {API, f"{API}@mistral/magistral-medium-latest"}
    assert {v for _, v, _, _ in GOLDEN} == {"payloads", "payloadsReasoning"}


def test_registry_dispatches_here() -> None:
    case, variant, key, entry = GOLDEN[0]
    doc = expected(case)
    model = find_model(entry["model"])
    context, options = golden_context(doc), golden_options(doc, entry)
    payload = registry.build_payload(API, model, context, options)
    assert_same_json(payload, entry["payload"])
    assert_same_json(registry.build_wire(API, model, payload, options)["body"], entry["wire"]["body"])


def test_pi_cache_retention_env_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mistral reads only the ``cacheRetention`` option, never ``PI_CACHE_RETENTION``."""
    case, variant, key, entry = GOLDEN[0]
    doc = expected(case)
    monkeypatch.setenv("PI_CACHE_RETENTION", "none")
    _check_doc_entry(doc, entry)


# --- oracle documents for other Mistral models -----------------------------------------------------------------


def _oracle_entries() -> list[tuple[str, str, str]]:
    return doc_entries(ORACLE_DOCS, _data)


@pytest.mark.parametrize(("name", "variant", "key"), _oracle_entries())
def test_oracle_models(name: str, variant: str, key: str) -> None:
    doc = _data(name)
    _check_doc_entry(doc, doc[variant][key])


def test_reasoning_effort_model_is_covered() -> None:
    efforts = {
        _data(name)[variant][key]["payload"].get("reasoningEffort")
        for name, variant, key in _oracle_entries()
        if "payload" in _data(name)[variant][key]
    }
    assert "high" in efforts


# --- synthetic streamSimple cases ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(_synthetic()))
def test_synthetic(name: str) -> None:
    case = _synthetic()[name]
    model = synthetic_model(case)
    options = dict(case["options"])
    build = mistral_payload.build_payload
    payload = build_unless_reference_failed(case, build, model, case["context"], options)
    if payload is None:
        return
    assert_same_json(payload, case["payload"])
    wire = mistral_wire.build_wire(model, payload, options, coding_agent_headers=False)
    _assert_wire(wire, case["wire"])


def test_wire_renames_move_keys_to_the_end() -> None:
    payload = {
        "model": "m",
        "maxTokens": 5,
        "stream": True,
        "messages": [
            {"role": "tool", "toolCallId": "a", "name": "n", "content": [{"imageUrl": "u", "type": "x"}]}
        ],
        "responseFormat": {"jsonSchema": {"schemaDefinition": {}, "name": "s"}, "type": "json_schema"},
        "max_tokens": 1,
    }
    body = mistral_wire.wire_body(payload)
    assert list(body) == ["model", "stream", "messages", "max_tokens", "response_format"]
    assert body["max_tokens"] == 5
    assert list(body["messages"][0]) == ["role", "name", "content", "tool_call_id"]
    assert list(body["messages"][0]["content"][0]) == ["type", "image_url"]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "s", "schema": {}}}


@pytest.mark.parametrize("index", range(len(_data("malformed_contexts.json")["cases"])))
def test_malformed_contexts(index: int) -> None:
    """Damaged stored data: the same payload as the reference, or a failure where the reference fails."""
    case = _data("malformed_contexts.json")["cases"][index]
    model = find_model(case["model"])
    if "error" in case:
        with pytest.raises(PayloadError):
            registry.build_payload("mistral-conversations", model, case["context"], dict(case["options"]))
        return
    payload = mistral_payload.build_payload(model, case["context"], dict(case["options"]))
    assert_same_json(payload, case["payload"])


# --- tool-call ids ---------------------------------------------------------------------------------------------


def test_tool_call_id_normalizer_avoids_collisions() -> None:
    normalize = mistral_payload.make_tool_call_id_normalizer()
    first = normalize("abc-def-ghi")
    assert first == "abcdefghi"
    second = normalize("abcdefghi")
    assert second != first and len(second) == 9 and second.isalnum()
    assert second == mistral_payload.derive_tool_call_id("abcdefghi", 1)
    assert normalize("abc-def-ghi") == first
    assert normalize("abcdefghi") == second
    assert len(normalize("call_1|fc_1")) == 9


def test_js_trim_matches_javascript_whitespace() -> None:
    assert mistral_payload.js_trim("\ufeff\u00a0 x \u2029") == "x"
    assert mistral_payload.js_trim("\x1c x") == "\x1c x"
