"""The Gemini item scan (providers/google_generative_ai/preflight_rules.py `_scan_items`) against the plain one-pass reading it replaced.

The scan runs over every content of a payload, so it asks each part only what its content's role can make it;
these tests hold it to the reading that asks every part everything: on the Gemini payload of every conformance
case and real session, and on contents of shapes no converter writes (non-dict parts, images inside function
responses of model contents, empty and missing parts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tools.pipeline.stages import PayloadRequest, context_document, llm_document, payload_document
from pi_tools.providers.google_generative_ai.preflight_rules import _decoded_size, _scan_items
from pi_tools.session import SessionReadError
from pi_tools.session.load import load_session

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = sorted((ROOT / "fixtures" / "conformance" / "cases").glob("*.jsonl")) + sorted(
    (ROOT / "fixtures" / "realworld").glob("*.jsonl"))


def plain_scan(items: list[Any]) -> dict[str, list[tuple[Any, ...]]]:
    """Every part asked everything, in one pass (the scan as first written)."""
    calls, responses, models, turn_starts, images = [], [], [], [], []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        parts = item.get("parts")
        if not isinstance(parts, list):
            parts = []
        model = item.get("role") == "model"
        marker = "functionCall" if model else "functionResponse"
        first, found, other = -1, 0, False
        for j, part in enumerate(parts):
            if not isinstance(part, dict):
                other = True
                continue
            if marker in part:
                if not found:
                    first = j
                found += 1
            else:
                other = True
            inline = part.get("inlineData")
            if isinstance(inline, dict):
                images.append((i, ("parts", j), inline.get("mimeType"), _decoded_size(inline.get("data"))))
            response = part.get("functionResponse")
            if isinstance(response, dict) and (inner_parts := response.get("parts")):
                for k, inner in enumerate(inner_parts if isinstance(inner_parts, list) else ()):
                    if isinstance(inner, dict):
                        inline = inner.get("inlineData")
                        if isinstance(inline, dict):
                            images.append((i, ("parts", j, "functionResponse", "parts", k), inline.get("mimeType"),
                                           _decoded_size(inline.get("data"))))
        if model:
            models.append((i,))
            if found:
                calls.append((i, first, found, bool(parts[first].get("thoughtSignature"))))
        else:
            if found:
                responses.append((i, first, found))
            if other or not parts:
                turn_starts.append((i,))
    return {"calls": calls, "responses": responses, "models": models, "turn_starts": turn_starts, "images": images}


@pytest.mark.parametrize("model", ["google/gemini-3-flash-preview", "google/gemini-2.5-flash"])
def test_scan_equals_the_plain_reading_on_every_fixture_payload(model: str) -> None:
    request = PayloadRequest(api="google-generative-ai", model=model)
    compared = 0
    for path in SESSIONS:
        try:
            tree = load_session(str(path))
        except SessionReadError:
            continue  # a file Pi refuses: no payload
        document = payload_document(llm_document(context_document(tree)), request)
        if document.get("kind") != "payload":
            continue
        contents = document["payload"]["contents"]
        assert _scan_items(contents) == plain_scan(contents), path.name
        compared += len(contents)
    assert compared > 1000  # the fixtures' payloads, not a handful of contents


IMAGE = {"inlineData": {"mimeType": "image/gif", "data": "AAAA"}}
ODD_CONTENTS: list[Any] = [
    "not a content",
    {"role": "user"},
    {"role": "user", "parts": "text"},
    {"role": "user", "parts": []},
    {"role": "model", "parts": []},
    {"role": "user", "parts": [7, {"functionResponse": {"name": "a"}}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "a", "parts": [IMAGE, 3, {"text": "x"}]}}, IMAGE]},
    {"role": "user", "parts": [{"functionResponse": "odd", "inlineData": {"mimeType": "image/png", "data": "AA"}}]},
    {"role": "user", "parts": [{"functionResponse": {"parts": "odd"}}, {"functionResponse": {"parts": []}}]},
    {"role": "model", "parts": [{"text": "t"}, {"functionCall": {"name": "a"}}, {"functionCall": {"name": "b"},
                                                                               "thoughtSignature": "s"}]},
    {"role": "model", "parts": [{"functionCall": {"name": "a"}, "thoughtSignature": "s"}, IMAGE,
                                {"functionResponse": {"parts": [IMAGE]}}, None]},
    {"role": "model", "parts": [{"functionCall": {}, "inlineData": "no"}]},
    {"role": "system", "parts": [{"functionCall": {"name": "a"}}]},
    {"parts": [{"text": "no role"}]},
]


def test_scan_equals_the_plain_reading_on_odd_contents() -> None:
    assert _scan_items(ODD_CONTENTS) == plain_scan(ODD_CONTENTS)
    # and piece by piece, so that every shape is compared alone as well
    for content in ODD_CONTENTS:
        assert _scan_items([content]) == plain_scan([content]), content
