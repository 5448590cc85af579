"""The per-file task the engine runs: read one session, map it to spans, and hand back its OTLP JSON element
(for `-o`) or its span records (for sending), minus the spans an earlier run already delivered.

A module-level function of one small, picklable item, so that it can run in a pool worker or on Dask; a file
that cannot be traced comes back as its error message, never as an exception that would end the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_tools.trace.mapping import TraceOptions, session_trace
from pi_tools.trace.since import since_then
from pi_tools.trace.spans import SessionTrace

if TYPE_CHECKING:
    from pi_tools.trace.send import SendTarget


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
    parts: str | None = None
    """A folder this machine's workers share with the run (the engine is local): the encoded element is written
    there as a file of its own and its name handed back, not its bytes (some 2 MB per generated 1 MB session,
    which a pool would otherwise pickle, pipe and unpickle)."""
    send: SendTarget | None = None
    """Where the process running the job sends the file's spans itself (the engine is local), rather than handing
    them back to be sent from the run's process."""


@dataclass
class TraceResult:
    """A file's answer: its new spans (`trace`, or encoded as one `resourceSpans` element: `encoded`), the ids of
    every span it holds (for the manifest), or `error`, a message naming the file."""

    path: str
    trace: SessionTrace | None = None
    encoded: bytes | None = None
    part: str | None = None
    """The file holding `encoded` (TraceJob.parts), to be appended to the output and removed."""
    span_ids: tuple[str, ...] = ()
    spans: int = 0
    error: str | None = None
    undelivered: str | None = None
    """Why the receiver did not take the spans the job sent (TraceJob.send): the run stops there."""


def load_tree(path: str, pi: str, fast: bool = False, data: bytes | None = None):  # type: ignore[no-untyped-def]
    """The session's tree as the Pi version reads it (with `fast`, the fast reading where the file allows it:
    fast.py); SessionReadError (naming the file and line) when Pi would not open it as a session. `data`: the
    file's bytes, when already read."""
    from pi_tools.pi import resolve
    from pi_tools.session.header_check import header_problem
    from pi_tools.session.load import tree_from_raw
    from pi_tools.session.reader import (
        SessionReadError,
        parse_session_bytes,
        read_session_bytes,
        validate_header,
    )

    if data is None:
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
    result = _traced(job)
    if job.parts is not None and result.encoded is not None:
        result.part = _parked(job.parts, result.encoded)
        result.encoded = None
    return result


def _parked(folder: str, encoded: bytes) -> str:
    """`encoded` in a new file in `folder`; its name."""
    import os
    import tempfile

    handle, name = tempfile.mkstemp(dir=folder, suffix=".json")
    with os.fdopen(handle, "wb") as stream:
        stream.write(encoded)
    return name


def _traced(job: TraceJob) -> TraceResult:
    from pi_tools.session.reader import SessionReadError, read_session_bytes
    from pi_tools.session.tree import PathCycleError
    from pi_tools.trace.otlp_json import encode_resource_spans

    data: bytes | None = None
    try:
        if job.encode and job.options.content == "none" and job.options.since is None:
            data = read_session_bytes(job.path)
            direct = _direct(job, data)
            if direct is not None:
                return direct
        tree = load_tree(job.path, job.pi, fast=job.options.content == "none", data=data)
        trace = session_trace(tree, job.options)
    except (SessionReadError, PathCycleError) as exc:
        text = str(exc)
        return TraceResult(job.path, error=text if job.path in text else f"{job.path}: {text}")
    if job.options.since is not None:
        trace = since_then(trace, job.options.since)
    # A tool call still waiting for its result is not recorded as delivered: the next run sends it finished.
    ids = tuple(span.span_id for span in trace.spans if span.attributes.get("pi.tool.result") != "missing")
    if job.sent:
        trace.spans = [span for span in trace.spans if span.span_id not in job.sent]
    result = TraceResult(job.path, span_ids=ids, spans=len(trace.spans))
    if not trace.spans:
        return result
    if job.encode:
        result.encoded = encode_resource_spans(trace, job.version, job.service)
    elif job.send is not None:
        from pi_tools.trace.send import SendError, deliver

        try:
            deliver(job.send, trace)
        except SendError as exc:
            result.undelivered = str(exc)
    else:
        result.trace = trace
    return result


def _direct(job: TraceJob, data: bytes) -> TraceResult | None:
    """The file's answer by direct.py's path (the usual one for `-o` without content), or None when that path
    does not take it (then the general path reads it, and says what is wrong with it, if anything)."""
    from pi_tools.session.header_check import header_problem
    from pi_tools.trace.direct import direct_resource_spans

    if header_problem(data) is not None:
        return None
    done = direct_resource_spans(data, job.options, job.version, job.service, job.sent)
    if done is None:
        return None
    encoded, ids, spans = done
    return TraceResult(job.path, encoded=encoded, span_ids=ids, spans=spans)
