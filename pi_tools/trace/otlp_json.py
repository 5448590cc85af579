"""Traces as OTLP JSON (the OTLP/HTTP JSON encoding of ExportTraceServiceRequest): what `-o FILE` writes.

The encoding is protobuf's JSON mapping with OTLP's two exceptions: trace and span ids are hex strings, and enum
values are numbers. 64-bit integers (times, int attributes) are strings. One `resourceSpans` element per session,
so that each session is encoded on its own (by the worker that read it) and the file is their concatenation.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import orjson

from pi_tools.trace.spans import Attributes, SessionTrace, Span

SCOPE_NAME = "pi-tools.trace"
SERVICE_NAME = "pi"


def service_name() -> str:
    """OTEL_SERVICE_NAME when set (as the SDK reads it), else `pi`."""
    return os.environ.get("OTEL_SERVICE_NAME") or SERVICE_NAME


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


def _span(trace_id: str, span: Span) -> dict[str, Any]:
    encoded: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": span.span_id,
        "name": span.name,
        "kind": span.kind,
        "startTimeUnixNano": str(span.start),
        "endTimeUnixNano": str(span.end),
        "attributes": _attributes(span.attributes),
    }
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
    return encoded


def resource_spans(trace: SessionTrace, version: str, service: str = SERVICE_NAME) -> dict[str, Any]:
    """One session's `resourceSpans` element."""
    return {
        "resource": {"attributes": _attributes({"service.name": service})},
        "scopeSpans": [{
            "scope": {"name": SCOPE_NAME, "version": version},
            "spans": [_span(trace.trace_id, span) for span in trace.spans],
        }],
    }


def encode_resource_spans(trace: SessionTrace, version: str, service: str = SERVICE_NAME) -> bytes:
    """`resource_spans` as JSON bytes (a worker's answer for `-o`)."""
    return orjson.dumps(resource_spans(trace, version, service))


def document_pieces(encoded: Iterable[bytes]) -> Iterable[bytes]:
    """The whole ExportTraceServiceRequest from the sessions' encoded `resourceSpans` elements."""
    yield b'{"resourceSpans":['
    first = True
    for piece in encoded:
        if not first:
            yield b","
        first = False
        yield piece
    yield b"]}\n"
