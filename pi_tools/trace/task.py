"""The per-file task the engine runs: read one session, map it to spans, and hand back its OTLP JSON element
(for `-o`) or its span records (for sending), minus the spans an earlier run already delivered.

A module-level function of one small, picklable item, so that it can run in a pool worker or on Dask; a file
that cannot be traced comes back as its error message, never as an exception that would end the batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_tools.trace.mapping import TraceOptions, session_trace
from pi_tools.trace.spans import SessionTrace


@dataclass(frozen=True)
class TraceJob:
    """One file to trace: its path, the run's options, the Pi version's name (resolved where the job runs),
    whether to answer with encoded JSON (`encode`), and the ids of the spans already delivered (`sent`)."""

    path: str
    options: TraceOptions
    pi: str
    encode: bool
    version: str
    service: str
    sent: frozenset[str] = frozenset()


@dataclass
class TraceResult:
    """A file's answer: its new spans (`trace`, or encoded as one `resourceSpans` element: `encoded`), the ids of
    every span it holds (for the manifest), or `error`, a message naming the file."""

    path: str
    trace: SessionTrace | None = None
    encoded: bytes | None = None
    span_ids: tuple[str, ...] = ()
    spans: int = 0
    error: str | None = None


def load_tree(path: str, pi: str, fast: bool = False):  # type: ignore[no-untyped-def]
    """The session's tree as the Pi version reads it (with `fast`, the fast reading where the file allows it:
    fast.py); SessionReadError (naming the file and line) when Pi would not open it as a session."""
    from pi_tools.pi import resolve
    from pi_tools.session.header_check import header_problem
    from pi_tools.session.load import tree_from_raw
    from pi_tools.session.reader import (
        SessionReadError,
        parse_session_bytes,
        read_session_bytes,
        validate_header,
    )

    data = read_session_bytes(path)
    problem = header_problem(data)
    if problem is not None:
        raise SessionReadError(f"{path}: {problem}")
    if fast:
        from pi_tools.trace.fast import fast_tree

        tree = fast_tree(data, path)
        if tree is not None:
            return tree
    raw = validate_header(parse_session_bytes(data, path), len(data))
    return tree_from_raw(raw, resolve(pi).context.vocabulary)


def trace_file(job: TraceJob) -> TraceResult:
    """Worker entry: one session file traced (see the module's docstring)."""
    from pi_tools.session.reader import SessionReadError
    from pi_tools.session.tree import PathCycleError
    from pi_tools.trace.otlp_json import encode_resource_spans

    try:
        tree = load_tree(job.path, job.pi, fast=job.options.content == "none")
        trace = session_trace(tree, job.options)
    except (SessionReadError, PathCycleError) as exc:
        text = str(exc)
        return TraceResult(job.path, error=text if job.path in text else f"{job.path}: {text}")
    # A tool call still waiting for its result is not recorded as delivered: the next run sends it finished.
    ids = tuple(span.span_id for span in trace.spans if span.attributes.get("pi.tool.result") != "missing")
    if job.sent:
        trace.spans = [span for span in trace.spans if span.span_id not in job.sent]
    result = TraceResult(job.path, span_ids=ids, spans=len(trace.spans))
    if not trace.spans:
        return result
    if job.encode:
        result.encoded = encode_resource_spans(trace, job.version, job.service)
    else:
        result.trace = trace
    return result
