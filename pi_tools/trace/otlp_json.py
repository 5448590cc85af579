"""Traces as OTLP JSON (the OTLP/HTTP JSON encoding of ExportTraceServiceRequest): what `-o FILE` writes.

The encoding is protobuf's JSON mapping with OTLP's two exceptions: trace and span ids are hex strings, and enum
values are numbers. 64-bit integers (times, int attributes) are strings. One `resourceSpans` element per session,
so that each session is encoded on its own (by the worker that read it) and the file is their concatenation.
"""

from __future__ import annotations

import math
import os
from typing import Any

import orjson

from pi_tools.trace.spans import Attributes, SessionTrace, Span, well_formed

SCOPE_NAME = "pi-tools.trace"
SERVICE_NAME = "pi"


def service_name() -> str:
    """OTEL_SERVICE_NAME when set (as the SDK reads it), else `pi`."""
    return os.environ.get("OTEL_SERVICE_NAME") or SERVICE_NAME


_NOT_FINITE = {"inf": "Infinity", "-inf": "-Infinity", "nan": "NaN"}
"""Protobuf's JSON mapping spells a double that is no number as a string (orjson would write null)."""


def double_json(value: float) -> bytes:
    """A double as protobuf's JSON mapping writes it (`"Infinity"` for an infinite cost)."""
    return orjson.dumps(value if math.isfinite(value) else _NOT_FINITE[str(value)])


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value if math.isfinite(value) else _NOT_FINITE[str(value)]}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(item) for item in value]}}
    return {"stringValue": str(value)}


def _attributes(attributes: Attributes) -> list[dict[str, Any]]:
    return [{"key": key, "value": _value(value)} for key, value in attributes.items()]


_CACHED_TEXT = 256
"""String attributes up to this length are encoded once per run (names, models, stop reasons repeat across
spans)."""
_UNIQUE_KEYS = frozenset({"pi.entry.id", "pi.tool.result.entry_id", "gen_ai.tool.call.id", "gen_ai.response.id",
                          "pi.session.leaf_id", "gen_ai.conversation.id"})
"""Attributes whose values are ids (a session's, an entry's, a call's, a response's): encoded each time, never
cached, since a worker that cached them kept every id of every session it had traced (some 13 MB per generated
1 MB session: gigabytes over a corpus)."""
_CACHE_LIMIT = 100_000
"""The caches are emptied when they grow past this many entries (a corpus of many distinct models or names)."""
_pairs: dict[tuple[str, Any], bytes] = {}
_int_heads: dict[str, bytes] = {}
_str_heads: dict[str, bytes] = {}


def _unique_text(key: str, value: str) -> bytes:
    """A string attribute that is an id, encoded without the cache (the bytes `_attribute` gives for it)."""
    head = _str_heads.get(key)
    if head is None:
        head = _str_heads[key] = orjson.dumps(key).join((b'{"key":', b',"value":{"stringValue":'))
    return b"%s%s}}" % (head, orjson.dumps(value))


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


_names: dict[str, bytes] = {}


def _name(name: str) -> bytes:
    """A span's name as JSON (cached: `chat MODEL` and `execute_tool NAME` repeat across a run's spans)."""
    encoded = _names.get(name)
    if encoded is None:
        encoded = orjson.dumps(name)
        if len(name) <= _CACHED_TEXT:
            _names[name] = encoded
    return encoded


_EMPTY_STATUS = b',"status":{}}'
"""The tail of a span without a status (most of them): `"status":{}` and the closing brace."""


def _encoded_attributes(attributes: Attributes) -> bytes:
    """A span's attributes as the bytes of a JSON array's items: the cached pairs looked up inline (this runs
    some 20 times per span, and a call per attribute was most of the encoding's cost)."""
    pairs = _pairs
    heads = _int_heads
    parts: list[bytes] = []
    append = parts.append
    for pair in attributes.items():
        kind = type(pair[1])
        if kind is str:
            encoded = pairs.get(pair)
            if encoded is None:
                encoded = _unique_text(*pair) if pair[0] in _UNIQUE_KEYS else _attribute(*pair)
            append(encoded)
        elif kind is int and pair[0] in heads:
            append(b'%s%d"}}' % (heads[pair[0]], pair[1]))
        else:
            append(_attribute(*pair))
    return b",".join(parts)


def encode_span(trace_id: bytes, span: Span) -> bytes:
    """`_span`; a span holding a lone surrogate (orjson refuses it: UTF-8 cannot hold one) is encoded as
    `spans.well_formed` makes it, its surrogates as U+FFFD, as a JavaScript exporter's UTF-8 encoding would."""
    try:
        return _span(trace_id, span)
    except TypeError:  # orjson.JSONEncodeError
        return _span(trace_id, well_formed(span))


def _span(trace_id: bytes, span: Span) -> bytes:
    """One span as OTLP JSON bytes (ids in hex, enums as numbers, 64-bit integers as strings); `trace_id` the
    encoded head `{"traceId":"..","spanId":"` shared by the trace's spans."""
    parent = span.parent_id
    head = b'%s%s","name":%s,"kind":%d,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[%s]' % (
        trace_id, span.span_id.encode(), _name(span.name), span.kind, span.start, span.end,
        _encoded_attributes(span.attributes))
    if parent is not None and not span.events and not span.status and not span.status_message:
        return b'%s,"parentSpanId":"%s"%s' % (head, parent.encode(), _EMPTY_STATUS)
    parts = [head]
    if parent is not None:
        parts.append(b',"parentSpanId":"%s"' % parent.encode())
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


def resource_head(version: str, service: str) -> bytes:
    """The start of a session's `resourceSpans` element, up to its first span."""
    return b'{"resource":%s,"scopeSpans":[{"scope":%s,"spans":[' % (
        orjson.dumps({"attributes": _attributes({"service.name": service})}),
        orjson.dumps({"name": SCOPE_NAME, "version": version}))


def encode_resource_spans(trace: SessionTrace, version: str, service: str = SERVICE_NAME) -> bytes:
    """One session's `resourceSpans` element as JSON bytes (a worker's answer for `-o`)."""
    if len(_pairs) > _CACHE_LIMIT or len(_names) > _CACHE_LIMIT:
        _pairs.clear()
        _names.clear()
    head = b'{"traceId":"%s","spanId":"' % trace.trace_id.encode()
    return b"".join((resource_head(version, service), b",".join([encode_span(head, span) for span in trace.spans]),
                     b"]}]}"))
