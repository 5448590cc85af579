"""`trace` over many sessions: the files on the engine (with progress), then their spans written as one OTLP
JSON file (atomically: a reader never sees half of it) or sent to an OTLP receiver, and the manifest that makes
the next run incremental brought up to date only once the spans are delivered."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pi_tools.trace.mapping import TraceOptions
from pi_tools.trace.task import TraceJob, TraceResult, trace_file

if TYPE_CHECKING:
    from pi_tools.engine import Engine


class TraceError(Exception):
    """A run that cannot go on (an output that cannot be written, a bad manifest); the message names the file."""


@dataclass
class TraceRun:
    """What one run is asked: the files, the options, where the spans go (`out`, else `endpoint` or the
    environment), and the manifest of an incremental run."""

    files: list[str]
    options: TraceOptions
    pi: str
    out: str | None = None
    endpoint: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    manifest: str | None = None


@dataclass
class TraceSummary:
    """What a run did: sessions traced, spans delivered, files unchanged since the manifest, errors per file."""

    sessions: int = 0
    spans: int = 0
    unchanged: int = 0
    errors: list[str] = field(default_factory=list)


def _version() -> str:
    from pi_tools import __version__

    return __version__


def run_trace(run: TraceRun, engine: Engine) -> TraceSummary:
    """Trace the files (see the module's docstring); per-file problems are collected, not raised."""
    from pi_tools.engine import map_ordered
    from pi_tools.sources.files import size_of
    from pi_tools.trace.content import Content
    from pi_tools.trace.manifest import Manifest
    from pi_tools.trace.otlp_json import service_name

    Content(run.options.content)  # the redacted mode's detectors load here, once, before the engine's workers start
    manifest = Manifest.load(run.manifest) if run.manifest else None
    encode = run.out is not None
    sender = None
    if not encode:
        from pi_tools.trace.send import Sender

        sender = Sender(run.endpoint, run.headers, _version())
    summary = TraceSummary()
    jobs: list[TraceJob] = []
    weights: list[int] = []
    for path in run.files:
        if manifest is not None and manifest.unchanged(path, run.options, run.pi):
            summary.unchanged += 1
            continue
        sent = manifest.sent(path, run.options, run.pi) if manifest is not None else frozenset()
        jobs.append(TraceJob(path, run.options, run.pi, encode, _version(), service_name(), sent))
        try:
            weights.append(size_of(path))
        except OSError:
            weights.append(0)
    results: list[TraceResult] = []
    writer = _Writer(run.out) if run.out is not None else None
    try:
        for result in map_ordered(trace_file, jobs, engine, weights=weights):
            if result.error is not None:
                summary.errors.append(result.error)
                continue
            summary.sessions += 1
            summary.spans += result.spans
            results.append(result)
            if result.encoded is not None and writer is not None:
                writer.add(result.encoded)  # written as it comes: a corpus's JSON is never held whole
                result.encoded = None
            elif result.trace is not None and sender is not None:
                sender.add(result.trace)
                result.trace = None
        if sender is not None:
            sender.flush()
        if writer is not None:
            writer.finish()
    finally:
        if sender is not None:
            sender.close()
        if writer is not None:
            writer.discard()
    if manifest is not None:
        for result in results:
            manifest.record(result.path, run.options, run.pi, result.span_ids)
        manifest.save()
    return summary


class _Writer:
    """The OTLP JSON document written piece by piece: to stdout for `-`, else to a temporary file beside `out`
    that replaces it only once complete (a reader never sees half of it)."""

    def __init__(self, out: str) -> None:
        import sys

        self.out = out
        self.temporary: str | None = None
        self.first = True
        try:
            if out == "-":
                self.handle = sys.stdout.buffer
            else:
                self.temporary = os.path.join(os.path.dirname(out) or ".",
                                              f".{os.path.basename(out)}.{os.getpid()}.tmp")
                self.handle = open(self.temporary, "wb")  # closed by finish or discard
            self.handle.write(b'{"resourceSpans":[')
        except OSError as exc:
            raise TraceError(f"-o {out}: cannot write: {exc.strerror or exc}") from None

    def add(self, piece: bytes) -> None:
        try:
            if not self.first:
                self.handle.write(b",")
            self.first = False
            self.handle.write(piece)
        except OSError as exc:
            raise TraceError(f"-o {self.out}: cannot write: {exc.strerror or exc}") from None

    def finish(self) -> None:
        try:
            self.handle.write(b"]}\n")
            self.handle.flush()
            if self.temporary is not None:
                self.handle.close()
                os.replace(self.temporary, self.out)
                self.temporary = None
        except OSError as exc:
            raise TraceError(f"-o {self.out}: cannot write: {exc.strerror or exc}") from None

    def discard(self) -> None:
        """Remove the temporary file of a document that was not finished."""
        if self.temporary is not None:
            self.handle.close()
            if os.path.exists(self.temporary):
                os.unlink(self.temporary)
            self.temporary = None
