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
    """What a run did: sessions traced, spans delivered, files unchanged since the manifest, sessions with nothing
    since `--since`, errors per file."""

    sessions: int = 0
    spans: int = 0
    unchanged: int = 0
    quiet: int = 0
    """Sessions with nothing since `--since` (left out)."""
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
    target = None
    if not encode and engine.kind == "local":  # each process sends what it traced (send.deliver)
        from pi_tools.trace.send import SendTarget, ensure_otel

        ensure_otel()
        target = SendTarget(run.endpoint, tuple(sorted(run.headers.items())), _version())
    elif not encode:
        from pi_tools.trace.send import Sender

        sender = Sender(run.endpoint, run.headers, _version())
    summary = TraceSummary()
    results: list[TraceResult] = []
    writer = _Writer(run.out, parts=engine.kind == "local") if run.out is not None else None
    try:
        jobs: list[TraceJob] = []
        weights: list[int] = []
        for path in run.files:
            if manifest is not None and manifest.unchanged(path, run.options, run.pi):
                summary.unchanged += 1
                continue
            sent = manifest.sent(path, run.options, run.pi) if manifest is not None else frozenset()
            jobs.append(TraceJob(path, run.options, run.pi, encode, _version(), service_name(), sent,
                                 writer.parts if writer is not None else None, target))
            try:
                weights.append(size_of(path))
            except OSError:
                weights.append(0)
        for result in map_ordered(trace_file, jobs, engine, weights=weights):
            if result.undelivered is not None:
                from pi_tools.trace.send import SendError

                raise SendError(result.undelivered)
            if result.error is not None:
                summary.errors.append(result.error)
                continue
            if manifest is not None:
                results.append(result)
            if run.options.since is not None and not result.spans and not result.span_ids:
                summary.quiet += 1  # (recorded in the manifest all the same: nothing to send until it grows)
                continue
            summary.sessions += 1
            summary.spans += result.spans
            if writer is not None and result.part is not None:
                writer.add_part(result.part)
                result.part = None
            elif writer is not None and result.encoded is not None:
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
        if target is not None:
            from pi_tools.trace.send import forget_senders

            forget_senders()  # (this process's, where it traced files itself)
        if writer is not None:
            writer.discard()
    if manifest is not None:
        for result in results:
            manifest.record(result.path, run.options, run.pi, result.span_ids)
        manifest.save()
    return summary


class _Writer:
    """The OTLP JSON document written piece by piece: to stdout for `-`, else to a temporary file beside `out`
    that replaces it only once complete (a reader never sees half of it). With `parts`, a folder beside it
    (or, for stdout, in the temporary folder) where workers on this machine leave their pieces as files
    (TraceJob.parts), copied in by the kernel (copy_file_range) rather than through this process."""

    def __init__(self, out: str, parts: bool = False) -> None:
        import sys
        import tempfile

        self.out = out
        self.temporary: str | None = None
        self.parts: str | None = None
        self.first = True
        try:
            if out == "-":
                sys.stdout.flush()
                self.handle = sys.stdout.buffer
                folder = None
            else:
                folder = os.path.dirname(out) or "."
                self.temporary = os.path.join(folder, f".{os.path.basename(out)}.{os.getpid()}.tmp")
                self.handle = open(self.temporary, "wb", buffering=0)  # closed by finish or discard
            self.handle.write(b'{"resourceSpans":[')
            if parts:
                self.parts = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.", suffix=".parts", dir=folder)
        except OSError as exc:
            raise TraceError(f"-o {out}: cannot write: {exc.strerror or exc}") from None

    def _separate(self) -> None:
        if not self.first:
            self.handle.write(b",")
        self.first = False

    def add(self, piece: bytes) -> None:
        try:
            self._separate()
            self.handle.write(piece)
        except OSError as exc:
            raise TraceError(f"-o {self.out}: cannot write: {exc.strerror or exc}") from None

    def add_part(self, part: str) -> None:
        """A worker's piece, from its file (removed once copied)."""
        try:
            self._separate()
            with open(part, "rb") as source:
                _copy(source, self.handle)
            os.unlink(part)
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
        """Remove the temporary file of a document that was not finished, and the workers' pieces."""
        if self.temporary is not None:
            self.handle.close()
            if os.path.exists(self.temporary):
                os.unlink(self.temporary)
            self.temporary = None
        if self.parts is not None:
            import shutil

            shutil.rmtree(self.parts, ignore_errors=True)
            self.parts = None


def _copy(source, target) -> None:  # type: ignore[no-untyped-def]
    """All of `source` appended to `target` (both binary files; `target` unbuffered or flushed): in the kernel
    where it can (copy_file_range between regular files), else through a buffer."""
    size = os.fstat(source.fileno()).st_size
    copied = 0
    if hasattr(os, "copy_file_range"):
        target.flush()
        try:
            while copied < size:
                step = os.copy_file_range(source.fileno(), target.fileno(), size - copied)
                if step == 0:
                    break
                copied += step
        except OSError:
            pass  # (a pipe, an older kernel: the rest goes through a buffer)
        if copied == size:
            return
        source.seek(copied)
    import shutil

    shutil.copyfileobj(source, target)
