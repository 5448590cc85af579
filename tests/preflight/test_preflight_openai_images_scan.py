"""The OpenAI image scan (providers/openai_responses/image_rules.py `_scan_items`) against the plain reading it replaced:
every part of every item asked for its data URL. On the Chat Completions and Responses payloads of every
conformance case and real session, and on items of shapes no converter writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tools.pipeline.stages import PayloadRequest, context_document, llm_document, payload_document
from pi_tools.providers.openai_responses.image_rules import _data_url, _scan_items
from pi_tools.providers.rulebook.view import blocks
from pi_tools.session import SessionReadError
from pi_tools.session.load import load_session

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = sorted((ROOT / "fixtures" / "conformance" / "cases").glob("*.jsonl")) + sorted(
    (ROOT / "fixtures" / "realworld").glob("*.jsonl"))


def plain_scan(items: list[Any]) -> dict[str, list[tuple[Any, ...]]]:
    found = []
    for i, item in enumerate(items):
        places = [("content", blocks(item))]
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            places.append(("output", blocks(item, "output")))
        for key, parts in places:
            for j, part in enumerate(parts):
                url = _data_url(part)
                if not isinstance(url, str) or not url.startswith("data:"):
                    continue
                head, _, data = url.partition(",")
                found.append((i, (key, j), head[5:].split(";", 1)[0], len(data) * 3 // 4))
    return {"images": found}


@pytest.mark.parametrize(("api", "model", "key"), [("openai-completions", "baseten/moonshotai/Kimi-K2.5", "messages"),
                                                   ("openai-responses", "openai/gpt-5.1", "input")])
def test_scan_equals_the_plain_reading_on_every_fixture_payload(api: str, model: str, key: str) -> None:
    request = PayloadRequest(api=api, model=model)
    compared = images = 0
    for path in SESSIONS:
        try:
            tree = load_session(str(path))
        except SessionReadError:
            continue
        document = payload_document(llm_document(context_document(tree)), request)
        if document.get("kind") != "payload":
            continue
        items = document["payload"][key]
        scanned = _scan_items(items)
        assert scanned == plain_scan(items), path.name
        compared += len(items)
        images += len(scanned["images"])
    assert compared > 1000 and images > 10, (compared, images)


URL = "data:image/bmp;base64,AAAA"
ODD_ITEMS: list[Any] = [
    "not an item", None, {"content": "text"}, {"content": [None, 3, {"type": ["list"]}, {"type": {"a": 1}}]},
    {"content": [{"type": "image_url", "image_url": {"url": URL}}, {"type": "image_url", "image_url": URL}]},
    {"content": [{"type": "input_image", "image_url": URL}, {"type": "input_image", "image_url": "https://x"}]},
    {"type": "function_call_output", "output": [{"type": "input_image", "image_url": URL}], "content": [
        {"type": "input_image", "image_url": "data:image/png,AA"}]},
    {"type": "function_call_output", "output": "text"},
    {"type": "message", "output": [{"type": "input_image", "image_url": URL}]},
    {"content": [{"type": "input_image", "image_url": 7}, {"type": "input_image"}]},
]


def test_scan_equals_the_plain_reading_on_odd_items() -> None:
    assert _scan_items(ODD_ITEMS) == plain_scan(ODD_ITEMS)
    for item in ODD_ITEMS:
        assert _scan_items([item]) == plain_scan([item]), item
