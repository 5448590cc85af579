"""A small Pi 1.x session (tests/data/payload16_others/corners.jsonl: system messages with sections and a later
update, a tool schema with `const`s, a whitespace-only tool result, an error tool result with an image, thinking
and tool calls from another model) and what the Pi 1.6 oracle built for it (corners.json: payload and wire for
google-generative-ai, google-vertex, mistral-conversations and bedrock-converse-stream, reasoning off and on)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model

CORNERS = Path(__file__).resolve().parents[1] / "data" / "payload16_others" / "corners.json"
VERSION = resolve("1.6")


def document() -> dict[str, Any]:
    with open(CORNERS, encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result


def build(key: str, variant: str = "payloads") -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(pi-tools' payload, its wire request, the oracle's entry) for one key of the document."""
    doc = document()
    entry = doc[variant][key]
    api = key.split("@", 1)[0]
    options = dict(doc["inputs"]["streamOptions"])
    if entry.get("reasoning") is not None:
        options["reasoning"] = entry["reasoning"]
    model = find_model(entry["model"], VERSION.requests.catalog)
    context = {"messages": doc["llm"]}
    payload = registry.build_payload(api, model, context, options, VERSION.requests)
    wire = registry.build_wire(api, model, payload, options, VERSION.requests)
    return payload, wire, entry


def unmasked(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if value != "<volatile>"}
