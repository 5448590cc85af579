"""The OTLP JSON encoder's fast path (trace/otlp_json.py: cached pairs, inline ints, the span's head in one
format) gives byte for byte what the plain encoding gives: protobuf's JSON mapping built as dicts and dumped by
orjson, on every fixture, the Pi 1.6 cases and a generated session, with and without content."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import ROOT

from pi_tools.pi import resolve
from pi_tools.session.reader import SessionReadError
from pi_tools.session.tree import PathCycleError
from pi_tools.trace.mapping import TraceOptions, session_trace
from pi_tools.trace.otlp_json import SCOPE_NAME, encode_resource_spans
from pi_tools.trace.spans import Attributes, SessionTrace
from pi_tools.trace.task import load_tree

FILES = sorted([*(ROOT / "fixtures").rglob("*.jsonl"), *(ROOT / "tests/data/pi16/cases").glob("*.jsonl")])


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(item) for item in value]}}
    return {"stringValue": str(value)}


def _attributes(attributes: Attributes) -> list[dict[str, Any]]:
    return [{"key": key, "value": _value(value)} for key, value in attributes.items()]


def plain_encoding(trace: SessionTrace, version: str, service: str) -> bytes:
    """The slow path: one `resourceSpans` element as dicts, dumped whole."""
    spans = []
    for span in trace.spans:
        encoded: dict[str, Any] = {"traceId": trace.trace_id, "spanId": span.span_id, "name": span.name,
                                   "kind": span.kind, "startTimeUnixNano": str(span.start),
                                   "endTimeUnixNano": str(span.end), "attributes": _attributes(span.attributes)}
        if span.parent_id is not None:
            encoded["parentSpanId"] = span.parent_id
        if span.events:
            encoded["events"] = [{"timeUnixNano": str(event.time), "name": event.name,
                                  "attributes": _attributes(event.attributes)} for event in span.events]
        status: dict[str, Any] = {}
        if span.status:
            status["code"] = span.status
        if span.status_message:
            status["message"] = span.status_message
        encoded["status"] = status
        spans.append(encoded)
    return orjson.dumps({"resource": {"attributes": _attributes({"service.name": service})},
                         "scopeSpans": [{"scope": {"name": SCOPE_NAME, "version": version}, "spans": spans}]})


def _traces(paths: list[Path], pi: str, content: str) -> list[SessionTrace]:
    options = TraceOptions(content=content, branches="all", spending=resolve(pi).spending)
    traces = []
    for path in paths:
        try:
            traces.append(session_trace(load_tree(str(path), pi, fast=content == "none"), options))
        except (SessionReadError, PathCycleError):
            continue
        except TypeError:
            continue  # (`--content full` on a lone surrogate fails in the mapping today: not this test's subject)
    return traces


@pytest.mark.parametrize("pi", ["0.85", "1.6"])
@pytest.mark.parametrize("content", ["none", "full"])
def test_the_fast_encoding_is_the_plain_one(pi: str, content: str) -> None:
    checked = 0
    for trace in _traces(FILES, pi, content):
        try:
            plain = plain_encoding(trace, "9.9.9", "svc")
        except TypeError:
            continue  # (a lone surrogate in content: neither encoding can write it)
        # Twice: the second time from the caches the first one filled.
        assert encode_resource_spans(trace, "9.9.9", "svc") == plain, trace.source
        assert encode_resource_spans(trace, "9.9.9", "svc") == plain, trace.source
        checked += 1
    assert checked >= 60


def test_the_fast_encoding_is_the_plain_one_on_a_generated_session(tmp_path: Path) -> None:
    import subprocess
    import sys

    generator = ROOT.parent / "shared" / "oracle" / "gen_corpus.py"
    if not generator.exists():
        generator = Path("/work/shared/oracle/gen_corpus.py")
    if not generator.exists():
        pytest.skip(f"session generator not found: {generator}")
    target = tmp_path / "s.jsonl"
    subprocess.run([sys.executable, str(generator), "--big", "--seed", "3", "--out", str(target),
                    "--target-mb", "1"], check=True, stdout=subprocess.DEVNULL)
    (trace,) = _traces([target], "0.85", "none")
    assert len(trace.spans) > 1000
    assert encode_resource_spans(trace, "9.9.9", "svc") == plain_encoding(trace, "9.9.9", "svc")
