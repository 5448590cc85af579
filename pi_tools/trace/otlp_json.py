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


_CACHED_TEXT = 256
"""String attributes up to this length are encoded once per run (names, models, ids repeat across spans)."""
_pairs: dict[tuple[str, Any], bytes] = {}
_int_heads: dict[str, bytes] = {}


def _attribute(key: str, value: Any) -> bytes:
    """One attribute as OTLP JSON bytes (what `_attributes` gives for it, encoded)."""
    kind = type(value)
    if kind is int:
        head = _int_heads.get(key)
        if head is None:
            head = _int_heads[key] = orjson.dumps(key).join((b'{"key":', b',"value":{"intValue":"'))
        return b"%s%d\"}}" % (head, value)
    if (kind is str and len(value) <= _CACHED_TEXT) or kind is bool:
        pair = (key, value)
        encoded = _pairs.get(pair)
        if encoded is None:
            encoded = _pairs[pair] = orjson.dumps({"key": key, "value": _value(value)})
        return encoded
    return orjson.dumps({"key": key, "value": _value(value)})


def _span(trace_id: str, span: Span) -> bytes:
    """One span as OTLP JSON bytes (ids in hex, enums as numbers, 64-bit integers as strings)."""
    parts = [b'{"traceId":"', trace_id.encode(), b'","spanId":"', span.span_id.encode(), b'","name":',
             orjson.dumps(span.name), b',"kind":%d,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":['
             % (span.kind, span.start, span.end),
             b",".join([_attribute(key, value) for key, value in span.attributes.items()]), b"]"]
    if span.parent_id is not None:
        parts.append(b',"parentSpanId":"%s"' % span.parent_id.encode())
    if span.events:
        parts.append(b',"events":')
        parts.append(orjson.dumps([{"timeUnixNano": str(event.time), "name": event.name,
                                    "attributes": _attributes(event.attributes)} for event in span.events]))
    status: dict[str, Any] = {}
    if span.status:
        status["code"] = span.status
    if span.status_message:
        status["message"] = span.status_message
    parts.append(b',"status":')
    parts.append(orjson.dumps(status))
    parts.append(b"}")
    return b"".join(parts)


def _resource_head(version: str, service: str) -> bytes:
    return b'{"resource":%s,"scopeSpans":[{"scope":%s,"spans":[' % (
        orjson.dumps({"attributes": _attributes({"service.name": service})}),
        orjson.dumps({"name": SCOPE_NAME, "version": version}))


def encode_resource_spans(trace: SessionTrace, version: str, service: str = SERVICE_NAME) -> bytes:
    """One session's `resourceSpans` element as JSON bytes (a worker's answer for `-o`)."""
    trace_id = trace.trace_id
    return b"".join((_resource_head(version, service), b",".join([_span(trace_id, span) for span in trace.spans]),
                     b"]}]}"))


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
