"""Gemini request building (google-generative-ai and google-vertex) against what the reference produced.

Three sources of truth, all written by the reference itself:
- the conformance goldens (google/gemini-2.5-flash, google/gemini-3-flash-preview; payload and wire);
- ``tests/data/google/oracle_*.json``: oracle documents (``--wire``); ``oracle_vertex_*`` ran
  ``--apis google-vertex=google-vertex/ID`` (API-key mode) on conformance sessions, some rewritten so their Gemini
  turns count as same-model for Vertex; ``oracle_edge_text_hygiene`` is a hand-made session (lone surrogates,
  JS-vs-Python whitespace, signature validity, null arguments, image-only tool results, orphaned calls);
- ``tests/data/google/synthetic_cases.json``: pi-ai's ``streamSimple`` run directly (Node, onPayload and the
  SDK's fetch captured) on contexts the session corpus cannot express: tool choice, constrained-sampling tools,
  Gemma 4 / Gemini 3.1 Pro / 2.5 Pro / flash-lite thinking tables, custom budgets, errors, custom base URLs and
  headers, Vertex ADC endpoints (google-auth stubbed to a fixed token, redacted like the goldens).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers import registry
from pi_tools.providers.catalog import Model, find_model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.google_generative_ai import payload as gemini_payload
from pi_tools.providers.google_generative_ai import wire as gemini_wire

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

DATA = Path(__file__).resolve().parents[1] / "data" / "google"
# Machine-dependent headers (platform, Node version); every other header is compared exactly.
IGNORED_HEADERS = ("user-agent", "x-goog-api-client")
GOOGLE_ENV = ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")

GOLDEN = list(payload_entries("google-generative-ai"))
ORACLE_DOCS = sorted(p.name for p in DATA.glob("oracle_*.json"))

Builder = Callable[[Model, dict[str, Any], dict[str, Any]], dict[str, Any]]


@pytest.fixture(autouse=True)
def _no_google_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Vertex reads project/location from the process environment; the recorded cases ran without any."""
    for name in GOOGLE_ENV:
        monkeypatch.delenv(name, raising=False)


_data = json_loader(DATA)


def _builders(model: Model) -> tuple[Builder, Builder]:
    """The registry's entry points for the model's API (google-vertex shares this package)."""
    return (
        partial(registry.build_payload, model["api"]),  # type: ignore[return-value]
        partial(registry.build_wire, model["api"]),
    )


def _check_wire(actual: dict[str, Any], reference: dict[str, Any]) -> None:
    assert_request_line(actual, reference, names=IGNORED_HEADERS, prefixes=())
    assert list(actual["headers"]) == sorted(actual["headers"])
    for name in IGNORED_HEADERS:
        assert name in actual["headers"]
    assert_same_json(actual["body"], reference["body"])
    body_bytes = js_stringify(actual["body"]).encode("utf-8")
    if "bodyBytes" in reference:
        assert len(body_bytes) == reference["bodyBytes"]
        assert hashlib.sha256(body_bytes).hexdigest() == reference["bodySha256"]
    if "bodyText" in reference:
        assert body_bytes.decode("utf-8") == reference["bodyText"]


def _check_entry(doc: dict[str, Any], entry: dict[str, Any]) -> None:
    model = find_model(entry["model"])
    build_payload, build_wire = _builders(model)
    options = golden_options(doc, entry)
    built = build_unless_reference_failed(entry, build_payload, model, golden_context(doc), options)
    if built is None:
        return
    assert_same_json(built, entry["payload"])
    wire = build_unless_reference_failed(entry["wire"], build_wire, model, built, options)
    if wire is not None:
        _check_wire(wire, entry["wire"])


@pytest.mark.parametrize(("case", "variant", "key"), golden_params("google-generative-ai"))
def test_golden(case: str, variant: str, key: str) -> None:
    doc = expected(case)
    _check_entry(doc, doc[variant][key])


def _oracle_entries() -> list[tuple[str, str, str]]:
    return doc_entries(ORACLE_DOCS, _data)


@pytest.mark.parametrize(("name", "variant", "key"), _oracle_entries())
def test_oracle_document(name: str, variant: str, key: str) -> None:
    doc = _data(name)
    _check_entry(doc, doc[variant][key])


def _synthetic_names() -> list[str]:
    return [case["name"] for case in _data("synthetic_cases.json")]


@pytest.mark.parametrize("name", _synthetic_names())
def test_synthetic(name: str) -> None:
    case = next(c for c in _data("synthetic_cases.json") if c["name"] == name)
    model = synthetic_model(case)
    build_payload, build_wire = _builders(model)
    built = build_unless_reference_failed(case, build_payload, model, case["context"], case["options"])
    if built is None:
        return
    assert_same_json(built, case["payload"])
    _check_wire(build_wire(model, built, case["options"]), case["wire"])


def test_goldens_present() -> None:
    """Both golden models and the Vertex oracle data are really exercised (guards an empty parametrisation)."""
    models = {entry["model"] for _, _, _, entry in GOLDEN}
    assert {"google/gemini-2.5-flash", "google/gemini-3-flash-preview"} <= models
    assert len(ORACLE_DOCS) >= 5
    assert any(
        case.get("wire", {}).get("url", "").startswith("https://europe-west4")
        for case in _data("synthetic_cases.json")
    )


def test_tool_call_id_normalisation_counts_utf16_units() -> None:
    """The JS regex replaces each UTF-16 unit, so an emoji costs two underscores; 2.5 models keep ids as-is."""
    gemini3 = find_model("google/gemini-3-flash-preview")
    gemini25 = find_model("google/gemini-2.5-flash")
    assert gemini_payload.normalize_tool_call_id("a\U0001f600b.c|d", gemini3) == "a__b_c_d"
    assert gemini_payload.normalize_tool_call_id("x" * 70, gemini3) == "x" * 64
    assert gemini_payload.normalize_tool_call_id("a.b", gemini25) == "a.b"


def test_empty_contents_refused_by_sdk() -> None:
    model = find_model("google/gemini-2.5-flash")
    context: dict[str, Any] = {"systemPrompt": "s", "messages": [], "tools": None}
    built = gemini_payload.build_payload(model, context, {"apiKey": "k"})
    assert built["contents"] == []
    with pytest.raises(PayloadError, match="^contents are required$"):
        gemini_wire.build_wire(model, built, {"apiKey": "k"})
