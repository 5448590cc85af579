"""Pi 1.6 payload goldens for one API's keys: the cases of ../shared/conformance16 (support.oracle_path) and a check
that pi-tools builds each key's payload and wire request as the golden holds them (`<volatile>` headers skipped),
as scripts/conformance16_check.py compares them."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pi_tools.js.json_stringify import js_stringify
from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

from support.oracle_path import CONFORMANCE16

VERSION = resolve("1.6")
VARIANTS = ("payloads", "payloadsReasoning")


@cache
def golden(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result


def cases(prefixes: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """(case, variant, key) of every golden key naming one of `prefixes` (the API or API@model)."""
    found: list[tuple[str, str, str]] = []
    for path in sorted((CONFORMANCE16 / "expected").glob("*.json")) if CONFORMANCE16.is_dir() else ():
        doc = golden(path)
        for variant in VARIANTS:
            for key in doc.get(variant) or {}:
                if key.split("@", 1)[0] in prefixes:
                    found.append((path.stem, variant, key))
    return found


def document(case: str) -> dict[str, Any]:
    """The golden document of one conformance16 case (read once)."""
    return golden(CONFORMANCE16 / "expected" / f"{case}.json")


def inputs_of(doc: dict[str, Any], entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The context Pi 1.6's streamSimple got (a session with its own system messages has no systemPrompt and no
    tools) and the document's stream options with the entry's thinking level."""
    inputs = doc["inputs"]
    context: dict[str, Any] = {"messages": doc["llm"]}
    if inputs["systemPrompt"] is not None:
        context["systemPrompt"] = inputs["systemPrompt"]
    if inputs["tools"] is not None:
        context["tools"] = inputs["tools"]
    options = dict(inputs["streamOptions"])
    if entry.get("reasoning") is not None:
        options["reasoning"] = entry["reasoning"]
    return context, options


def unmasked(headers: dict[str, str]) -> dict[str, str]:
    """The headers the oracle did not mask (`<volatile>` values left out)."""
    return {name: value for name, value in headers.items() if value != "<volatile>"}


def assert_matches(case: str, variant: str, key: str) -> None:
    """pi-tools' payload and wire request for one golden key equal the golden's."""
    doc = golden(CONFORMANCE16 / "expected" / f"{case}.json")
    entry = doc[variant][key]
    api = key.split("@", 1)[0]
    context, options = inputs_of(doc, entry)
    model = find_model(entry["model"], VERSION.requests.catalog)
    try:
        payload = registry.build_payload(api, model, context, options, VERSION.requests)
    except PayloadError as exc:
        assert "error" in entry, f"failed: {exc}"
        assert str(exc) == entry["error"]
        return
    assert "error" not in entry
    assert payload == entry["payload"]
    assert js_stringify(payload) == js_stringify(entry["payload"])
    wire = entry.get("wire")
    if wire is None:
        return
    built = registry.build_wire(api, model, payload, options, VERSION.requests)
    assert (built["method"], built["url"]) == (wire["method"], wire["url"])
    assert unmasked(built["headers"]) == unmasked(wire["headers"])
    assert built["body"] == wire["body"]
