"""The spans of one session as plain records: what the OTLP JSON writer and the OTLP exporter both encode.

Kept free of the OpenTelemetry SDK (an extra) so that `-o` needs nothing beyond the base install, and small and
picklable so that the engine's workers can hand them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KIND_INTERNAL = 1
KIND_CLIENT = 3
"""OTLP's SpanKind numbers (SPAN_KIND_INTERNAL, SPAN_KIND_CLIENT)."""
STATUS_UNSET = 0
STATUS_ERROR = 2
"""OTLP's StatusCode numbers (STATUS_CODE_UNSET, STATUS_CODE_ERROR)."""

Attributes = dict[str, Any]
"""Attribute values are str, bool, int, float or a list of str (GenAI's string arrays)."""


@dataclass(slots=True)
class Event:
    """A span event: a moment of the session that is no request of its own (a compaction, a model change)."""

    name: str
    time: int
    """Unix nanoseconds."""
    attributes: Attributes


@dataclass(slots=True)
class Span:
    """One span: ids in hex as OTLP JSON spells them, times in Unix nanoseconds."""

    span_id: str
    parent_id: str | None
    name: str
    kind: int
    start: int
    end: int
    attributes: Attributes
    events: list[Event] = field(default_factory=list)
    status: int = STATUS_UNSET
    status_message: str = ""


@dataclass(slots=True)
class SessionTrace:
    """One session's trace: its id, its spans (the root first), and the session it came from."""

    source: str
    session_id: str
    trace_id: str
    spans: list[Span]


def _well_formed_text(text: str) -> str:
    """`text` with each lone surrogate (which JSON.parse lets a session hold but UTF-8, and so OTLP's protobuf
    strings, cannot) replaced by U+FFFD, as JavaScript's `String.prototype.toWellFormed` does."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _well_formed_value(value: Any) -> Any:
    if isinstance(value, str):
        return _well_formed_text(value)
    if isinstance(value, list):
        return [_well_formed_value(item) for item in value]
    return value


def _well_formed_attributes(attributes: Attributes) -> Attributes:
    return {_well_formed_text(key): _well_formed_value(value) for key, value in attributes.items()}


def well_formed(span: Span) -> Span:
    """A copy of `span` whose every string is valid Unicode (lone surrogates as U+FFFD): what an encoder sends
    when the span as mapped holds text no UTF-8 encoder takes."""
    return Span(span.span_id, span.parent_id, _well_formed_text(span.name), span.kind, span.start, span.end,
                _well_formed_attributes(span.attributes),
                [Event(_well_formed_text(event.name), event.time, _well_formed_attributes(event.attributes))
                 for event in span.events],
                span.status, _well_formed_text(span.status_message))
