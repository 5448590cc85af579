"""Sending traces over OTLP HTTP/protobuf with the OpenTelemetry SDK's exporter (the `otel` extra).

The exporter honours the standard environment: OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT,
_COMPRESSION, _CERTIFICATE, and OTEL_RESOURCE_ATTRIBUTES / OTEL_SERVICE_NAME for the resource. `--endpoint` is a
base URL as OTEL_EXPORTER_OTLP_ENDPOINT is (`/v1/traces` is appended unless the path already ends so), and
`--header K=V` adds to (or replaces) the headers the environment names.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pi_tools.trace.otlp_json import SCOPE_NAME
from pi_tools.trace.spans import KIND_CLIENT, STATUS_ERROR, SessionTrace, well_formed

INSTALL_HINT = "sending needs the otel extra: pip install 'pi-tools[otel]' (or write OTLP JSON with -o FILE)"
TRACES_PATH = "/v1/traces"
BATCH_SPANS = 2048
"""Spans per export request: a few sessions per request, far below receivers' body limits for metadata."""


class SendError(Exception):
    """The receiver could not be reached or refused the spans (the message names the endpoint)."""


class OtelMissing(SendError):
    """The `otel` extra is not installed."""


def has_endpoint(endpoint: str | None) -> bool:
    """Whether spans have somewhere to go: --endpoint, or the environment's OTLP endpoint."""
    return bool(endpoint or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


def traces_url(endpoint: str) -> str:
    """The traces URL of a base endpoint (as OTEL_EXPORTER_OTLP_ENDPOINT is read)."""
    trimmed = endpoint.rstrip("/")
    return trimmed if trimmed.endswith(TRACES_PATH) else trimmed + TRACES_PATH


def endpoint_shown(endpoint: str | None) -> str:
    """The URL the spans go to, for messages (from --endpoint or the environment)."""
    if endpoint:
        return traces_url(endpoint)
    direct = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if direct:
        return direct
    return traces_url(os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"))


def parse_headers(pairs: Iterable[str]) -> dict[str, str]:
    """`--header K=V` values as a dict (ValueError naming a pair without `=` or without a key)."""
    headers: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--header {pair!r}: expected KEY=VALUE")
        headers[key.strip().lower()] = value.strip()
    return headers


def ensure_otel() -> None:
    """OtelMissing (with the install hint) where the `otel` extra is not installed: asked once, before the
    run's workers start sending."""
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        raise OtelMissing(INSTALL_HINT) from None


@dataclass(frozen=True)
class SendTarget:
    """Where a run's spans go, as a job carries it to the process that sends them (see `deliver`)."""

    endpoint: str | None
    headers: tuple[tuple[str, str], ...]
    version: str


_senders: dict[SendTarget, Sender] = {}
_failures: dict[SendTarget, str] = {}
"""This process's exporter per target, and the first refusal it met: later sessions fail at once rather than
each waiting out the exporter's timeout and retries."""


def deliver(target: SendTarget, trace: SessionTrace) -> None:
    """Send one session's spans from this process (a local pool's worker: the SDK's encoding, most of what
    sending costs, then runs on every core instead of in the main process alone); SendError when the receiver
    does not take them, or did not take an earlier session's."""
    failed = _failures.get(target)
    if failed is not None:
        raise SendError(failed)
    sender = _senders.get(target)
    if sender is None:
        sender = _senders[target] = Sender(target.endpoint, dict(target.headers), target.version)
    try:
        sender.add(trace)
        sender.flush()
    except SendError as exc:
        sender.pending = []
        _failures[target] = str(exc)
        raise


def forget_senders() -> None:
    """Close this process's exporters and forget their refusals (the end of a run in the main process)."""
    for sender in _senders.values():
        sender.close()
    _senders.clear()
    _failures.clear()


class Sender:
    """An OTLP HTTP/protobuf exporter, fed sessions' span records in batches."""

    def __init__(self, endpoint: str | None, headers: dict[str, str], version: str) -> None:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.util.instrumentation import InstrumentationScope
        except ImportError:
            raise OtelMissing(INSTALL_HINT) from None
        merged: dict[str, str] | None = None
        if headers:
            from opentelemetry.util.re import parse_env_headers

            merged = dict(parse_env_headers(os.environ.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
                                            or os.environ.get("OTEL_EXPORTER_OTLP_HEADERS", ""), liberal=True))
            merged.update(headers)
        self.shown = endpoint_shown(endpoint)
        self.exporter = OTLPSpanExporter(endpoint=traces_url(endpoint) if endpoint else None, headers=merged)
        self.resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or "pi"})
        self.scope = InstrumentationScope(SCOPE_NAME, version)
        self.pending: list[Any] = []
        self.sent = 0

    def add(self, trace: SessionTrace) -> None:
        """Queue a session's spans, sending whenever a batch is full."""
        self.pending.extend(self._readable(trace))
        if len(self.pending) >= BATCH_SPANS:
            self.flush()

    def flush(self) -> None:
        """Send what is queued (SendError when the receiver does not take it)."""
        if not self.pending:
            return
        from opentelemetry.sdk.trace.export import SpanExportResult

        batch, self.pending = self.pending, []
        result = self.exporter.export(batch)
        if result is not SpanExportResult.SUCCESS:
            raise SendError(f"{self.shown}: the OTLP receiver did not accept {len(batch)} spans "
                            "(unreachable, or it answered with an error; see the warning above)")
        self.sent += len(batch)

    def close(self) -> None:
        self.exporter.shutdown()

    def _readable(self, trace: SessionTrace) -> list[Any]:
        from opentelemetry.sdk.trace import Event, ReadableSpan
        from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

        trace_number = int(trace.trace_id, 16)
        flags = TraceFlags(TraceFlags.SAMPLED)

        def context(span_hex: str) -> SpanContext:
            return SpanContext(trace_number, int(span_hex, 16), is_remote=False, trace_flags=flags)

        spans = []
        for span in map(well_formed, trace.spans):  # protobuf strings are UTF-8: no lone surrogate
            status = (Status(StatusCode.ERROR, span.status_message or None) if span.status == STATUS_ERROR
                      else Status(StatusCode.UNSET))
            spans.append(ReadableSpan(
                name=span.name,
                context=context(span.span_id),
                parent=context(span.parent_id) if span.parent_id else None,
                resource=self.resource,
                attributes=span.attributes,
                events=[Event(event.name, event.attributes, event.time) for event in span.events],
                kind=SpanKind.CLIENT if span.kind == KIND_CLIENT else SpanKind.INTERNAL,
                status=status,
                start_time=span.start,
                end_time=span.end,
                instrumentation_scope=self.scope,
            ))
        return spans
