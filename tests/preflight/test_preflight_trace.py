"""The Gemini payload mapping read off the conversion (provenance.traced_origins, from the ContentTrace that
google_generative_ai.payload.build_history_traced records) is exactly the mapping render's walk makes
(provenance.map_origins over the same contents), label by label and item by item, on every real session,
conformance case and fuzz case, for Gemini 3 (images inside function responses) and Gemini 2.5 (images in a
"Tool result image:" content of their own); and where the walk's expectations do not hold, it declines (None), so
that the parts path maps that part with map_origins instead."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pi_tools.js.values import UNDEFINED
from pi_tools.pipe.documents import dump_items
from pi_tools.preflight.provenance import convert_traced, map_origins, trace_context, traced_origins
from pi_tools.providers.catalog import find_model
from pi_tools.providers.google_generative_ai.payload import build_history, build_history_traced
from pi_tools.providers.split import ContentTrace
from pi_tools.session import SessionReadError
from pi_tools.session.load import load_session

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SESSIONS = sorted([*(FIXTURES / "realworld").glob("*.jsonl"), *(FIXTURES / "conformance" / "cases").glob("*.jsonl"),
                   *(FIXTURES / "fuzz" / "cases").glob("*.jsonl")])
MODELS = ["google/gemini-3-flash-preview", "google/gemini-2.5-flash", "google-vertex/gemini-3.1-pro-preview"]


def _llm(path: Path) -> list[Any] | None:
    try:
        tree = load_session(str(path))
        traced = trace_context(tree, UNDEFINED)
    except (SessionReadError, ValueError):
        return None
    llm, _ = convert_traced(traced.messages, traced.origins)
    return llm


def _both(model: dict[str, Any], llm: list[Any]) -> tuple[Any, Any] | None:
    """(traced_origins, map_origins) of one conversion, or None where Pi cannot build it."""
    trace = ContentTrace()
    try:
        contents, _ = build_history_traced(model, {"messages": llm}, {}, trace)
    except Exception:  # noqa: BLE001 - a request Pi refuses to build has nothing to map
        return None
    assert contents == build_history(model, {"messages": llm}, {})[0]  # recording changes nothing of the build
    try:  # the contents as the parts path hands them to map_origins: decoded from their JSON text
        decoded = orjson.loads(b"[" + dump_items(contents) + b"]") if contents else []
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None  # nested deeper than orjson reads (a fuzz case): the parts path builds such a session whole
    return traced_origins(llm, contents, trace), map_origins(model["api"], model, llm, {"contents": decoded}, False)


def _conversions() -> Iterator[tuple[str, str, Any, Any]]:
    """(session name, model, traced_origins, map_origins) of every fixture session Pi builds, for every model."""
    for path in SESSIONS:
        llm = _llm(path)
        if llm is None:
            continue
        for reference in MODELS:
            both = _both(find_model(reference), llm)
            if both is not None:
                yield path.name, reference, *both


def test_traced_mapping_equals_the_walk_on_every_fixture_session() -> None:
    compared = declined = 0
    for name, reference, traced, walked in _conversions():
        if traced is None:
            declined += 1
            continue
        assert traced.item_origin == walked.item_origin, (name, reference)
        assert traced.by_label == walked.by_label, (name, reference)
        compared += 1
    # 269 conversions compared and none declined when this test was written (every session Pi builds, three models)
    assert compared > 250 and declined < compared // 20, (compared, declined)


def _probe_paths(labels: list[str]) -> list[str]:
    """Every label, paths below and beside each, and paths no label is a prefix of."""
    paths = ["contents", "contents[", "contents[05]", "contents[0]x", "contents[1].parts[01]", "messages[0]",
             "contents[99999]", "contents[3].parts[9].functionResponse.parts[0]", "contents[-1]", ""]
    for label in labels:
        paths += [label, f"{label}.text", f"{label}[0]", f"{label}.parts[0]", f"{label}.parts[0].inlineData",
                  f"{label}x", f"{label}.functionResponse.parts[1]"]
    return paths


def test_traced_paths_are_answered_as_the_labels_answer_them() -> None:
    """TracedOrigins.llm_index walks the recorded places instead of making every label: it must give, for any path,
    what the labels give (the walk's own mapping, which the test above holds equal to the traced labels)."""
    from pi_tools.preflight.provenance import PayloadOrigins, TracedOrigins

    asked = 0
    for name, reference, traced, walked in _conversions():
        if traced is None:
            continue
        assert isinstance(traced, TracedOrigins)
        labelled = PayloadOrigins(walked.by_label, walked.item_origin)
        for probe in _probe_paths(list(walked.by_label)):
            assert traced.llm_index(probe) == labelled.llm_index(probe), (name, reference, probe)
            asked += 1
        assert traced._by_label is None  # answered without making the labels
    assert asked > 50_000, asked

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def _assistant(content: list[Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "provider": "google", "model": "gemini-3-flash-preview",
            "api": "google-generative-ai", "stopReason": "toolUse", "usage": USAGE, "timestamp": 1}


def _result(call_id: str, text: str = "out") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 2}


CALLS = _assistant([{"type": "toolCall", "id": "a", "name": "bash", "arguments": {}},
                    {"type": "toolCall", "id": "b", "name": "bash", "arguments": {}}])


@pytest.mark.parametrize(("case", "llm"), [
    # a user message that converts to nothing between two results: Gemini joins the second result to the first
    # one's turn, where the walk closes the turn at the user message
    ("nothing between results", [CALLS, _result("a"), {"role": "user", "content": [], "timestamp": 3}, _result("b")]),
    # a user content that opens as a tool image content does: the walk takes it for one
    ("user text like a tool image turn", [CALLS, _result("a"), _result("b"),
                                          {"role": "user", "content": "Tool result image:", "timestamp": 3}]),
    # a blank text with a signature Gemini cannot take: the walk expects a content, the conversion makes none
    ("blank text with a foreign signature", [
        {"role": "user", "content": "hi", "timestamp": 1},
        {**_assistant([{"type": "text", "text": " ", "textSignature": "not base64!"}]), "stopReason": "stop"},
        {"role": "user", "content": "again", "timestamp": 3}]),
])
def test_traced_mapping_declines_where_the_walk_expects_otherwise(case: str, llm: list[Any]) -> None:
    model = find_model("google/gemini-3-flash-preview")
    both = _both(model, llm)
    assert both is not None, case
    traced, _ = both
    assert traced is None, case


def test_traced_mapping_of_tool_image_contents_and_synthetic_results() -> None:
    """Gemini 2.5 puts a result's images in a content of their own after the response turn: it belongs to that
    result; an unanswered call's synthetic result points at the assistant message that made the call."""
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    llm = [{"role": "user", "content": "look", "timestamp": 1}, CALLS,
           {**_result("a"), "content": [{"type": "text", "text": "shot"}, image]},
           {"role": "user", "content": "next", "timestamp": 3}]
    model = find_model("google/gemini-2.5-flash")
    both = _both(model, llm)
    assert both is not None
    traced, walked = both
    assert traced is not None and traced.by_label == walked.by_label and traced.item_origin == walked.item_origin
    # contents: user, model, a's response turn, a's image content, a new turn for b's synthetic response (the
    # image content closed a's), user
    assert traced.by_label == {"contents[0]": 0, "contents[1]": 1, "contents[2].parts[0]": 2, "contents[3]": 2,
                               "contents[4].parts[0]": 1, "contents[5]": 3}
    assert json.dumps(traced.item_origin) == "[0, 1, 2, 2, 1, 3]"


def test_traced_mapping_of_signed_blank_parts_and_empty_messages() -> None:
    """A blank text or thinking kept for its signature (the model's own), an assistant message with nothing to
    send and an empty user message: each placed (or not) as the walk places it."""
    signed = {**_assistant([{"type": "thinking", "thinking": " ", "thinkingSignature": "c2lnbmVk"},
                            {"type": "text", "text": "", "textSignature": "c2lnbmVk"}]), "stopReason": "stop"}
    llm = [{"role": "user", "content": "hi", "timestamp": 1}, signed,
           {"role": "user", "content": [], "timestamp": 3},
           {**_assistant([{"type": "text", "text": "  "}]), "stopReason": "stop"},
           {"role": "user", "content": "again", "timestamp": 4}]
    both = _both(find_model("google/gemini-3-flash-preview"), llm)
    assert both is not None
    traced, walked = both
    assert traced is not None and traced.by_label == walked.by_label and traced.item_origin == walked.item_origin
    assert traced.by_label == {"contents[0]": 0, "contents[1]": 1, "contents[2]": 4}
