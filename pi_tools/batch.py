"""The stages over many files: one task per file, for the engine to run wherever it runs work.

Each task is a module-level function of one small item, (file name, the stage's options), so that it can go
to a worker process or a Dask worker; it reads its file where it runs (session.reader.read_session_bytes,
which reads through engine.inputs) and returns what the stage writes for that file: the encoded documents
(FileOutput) or the stage's result object. A file that cannot be read or built becomes that file's error
document or error, never an exception: one damaged file in a batch never hides the rest. A single file or
stdin does not come here: the CLI streams it (payload with its helper process), which is faster and holds
less.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_tools.docs import DocumentWriter, materialized
from pi_tools.session.load import load_context_source
from pi_tools.stages import (
    Document,
    PayloadRequest,
    StageInput,
    _loaded,
    as_context,
    as_llm,
    payload_document,
    payload_document_in_parts,
    run_stage,
)

if TYPE_CHECKING:
    from pi_tools.audit.preflight.check import PreflightRequest, PreflightResult
    from pi_tools.audit.preflight.replay import Options as ReplayOptions
    from pi_tools.audit.preflight.replay import ReplayResult
    from pi_tools.rewrite.secrets import Scanner
    from pi_tools.rewrite.writer import Change


@dataclass(frozen=True)
class FileOutput:
    """What a document stage writes for one file: its JSON lines as they go to stdout, the lines for stderr
    (each naming the file), and the exit status they call for (0, or 2 for an input that failed)."""

    data: bytes
    problems: tuple[str, ...] = ()
    status: int = 0


def _documents(name: str, build: Callable[[StageInput], Document | list[Document]],
               check_all_lines: bool) -> FileOutput:
    """One file through a document stage (stages.run_stage), written as the CLI writes it."""
    buffer = io.BytesIO()
    writer = DocumentWriter(buffer)
    problems: list[str] = []
    item = _loaded(name, lambda: load_context_source(name, check_all_lines))
    status = run_stage([item], build, writer.write, problems.append)
    writer.flush()
    return FileOutput(buffer.getvalue(), tuple(problems), status)


def context_file(item: tuple[str, str | None]) -> FileOutput:
    """`pi-tools context` for one file: (name, --leaf)."""
    name, leaf = item
    return _documents(name, lambda loaded: as_context(loaded, leaf), True)


def convert_file(item: tuple[str, str | None]) -> FileOutput:
    """`pi-tools convert` for one file: (name, --leaf)."""
    name, leaf = item
    return _documents(name, lambda loaded: as_llm(loaded, leaf), True)


@dataclass(frozen=True)
class PayloadOptions:
    request: PayloadRequest
    leaf: str | None = None
    split_threshold: int | None = None
    """engine.helper.split_threshold() of the command (PI_TOOLS_SPLIT_BYTES): large payloads built in parts."""


def build_payload(item: StageInput, options: PayloadOptions, build_elsewhere: Any = None,
                  keep: Callable[..., None] | None = None) -> Document:
    """The payload document for one input; large sessions in parts (with `build_elsewhere`, the helper process
    builds some of them). `keep` holds large objects past the build (see cli.common.keep_until_exit)."""
    from pi_tools.engine.helper import part_bytes

    llm = as_llm(item, options.leaf)
    # Drop the session index once the context is planned, and the file's bytes once the messages are built:
    # the encoder then works beside neither (about 200 MiB less at peak on a 100 MB session).
    item.tree = None
    threshold = options.split_threshold
    if threshold is not None:
        document = payload_document_in_parts(llm, options.request, build_elsewhere, threshold,
                                             part_bytes(threshold))
        if document is not None:
            if keep is not None:
                keep(llm)
            return document
    llm["messages"] = materialized(llm.get("messages"))
    if keep is not None:
        keep(llm)
    return payload_document(llm, options.request)


def payload_file(item: tuple[str, PayloadOptions]) -> FileOutput:
    """`pi-tools payload` for one file: (name, the request and options)."""
    name, options = item
    return _documents(name, lambda loaded: build_payload(loaded, options), False)


@dataclass(frozen=True)
class VisibilityOptions:
    leaf: str | None = None
    api: str | None = None
    fmt: str = "table"
    width: int = 120


def visibility_file(item: tuple[str, VisibilityOptions]) -> FileOutput:
    """`pi-tools visibility` for one file: the table or the JSON lines, or the one error line."""
    from pi_tools.audit.visibility import render_table, visibility_rows
    from pi_tools.js.values import UNDEFINED
    from pi_tools.session import SessionReadError, load_session
    from pi_tools.session.tree import PathCycleError

    name, options = item
    try:
        tree = load_session(name)
        if options.leaf is not None and options.leaf not in tree.by_id:
            return FileOutput(b"", (f"{name}: no entry with id {options.leaf!r} (see `pi-tools tree {name}`)",), 2)
        rows = list(visibility_rows(tree, UNDEFINED if options.leaf is None else options.leaf, options.api))
    except PathCycleError as exc:
        return FileOutput(b"", (f"{name}: {exc}",), 2)
    except (SessionReadError, ValueError) as exc:
        return FileOutput(b"", (str(exc),), 2)
    if options.fmt == "json":
        buffer = io.BytesIO()
        writer = DocumentWriter(buffer)
        for row in rows:
            writer.write(row.document(tree.source, options.api))
        writer.flush()
        return FileOutput(buffer.getvalue())
    return FileOutput(render_table(rows, options.width).encode("utf-8", "backslashreplace"))


def preflight_file(item: tuple[str, PreflightRequest]) -> PreflightResult:
    """`pi-tools preflight` for one file."""
    from pi_tools.audit.preflight.session import preflight_path

    return preflight_path(*item)


def preflight_helped(name: str, request: PreflightRequest, helper: Any,
                     keep: Callable[..., None] | None = None) -> PreflightResult:
    """`pi-tools preflight` for one named file with payload's helper process (engine.helper.PayloadWorker): it
    indexes the file's second half, then builds parts of a large payload from the back, as for `payload`.
    `keep` holds the check's large objects past it (cli.common.keep_until_exit)."""
    from pi_tools.audit.preflight.session import preflight_path
    from pi_tools.session.bulk import index_elsewhere

    index_elsewhere(helper)
    return preflight_path(name, request, build_elsewhere=helper.build_parts, keep=keep)


def replay_file(item: tuple[str, ReplayOptions]) -> ReplayResult:
    """`pi-tools preflight --replay` for one file."""
    from pi_tools.audit.preflight.replay import replay_path

    return replay_path(*item)


@dataclass(frozen=True)
class ScrubOptions:
    scanner: Scanner
    out: str | None = None
    in_place: bool = False
    force: bool = False
    dry_run: bool = False
    check: bool = False


@dataclass(frozen=True)
class ScrubOutcome:
    """What `pi-tools scrub` reports for one file: the changes (never the secrets), or why it failed."""

    changes: list[Change]
    backup: str | None = None
    error: str | None = None


def scrub_one(item: tuple[str, ScrubOptions]) -> ScrubOutcome:
    """`pi-tools scrub` for one file (its own output written where the task runs: this machine's files)."""
    from pi_tools.rewrite.scrub import scrub_file
    from pi_tools.rewrite.writer import WriteError, free_backup_name

    name, options = item
    backup = free_backup_name(name) if options.in_place else None
    try:
        result = scrub_file(name, options.out, options.scanner, in_place=options.in_place, force=options.force,
                            dry_run=options.dry_run, check=options.check)
    except WriteError as exc:
        return ScrubOutcome([], backup, str(exc))
    return ScrubOutcome([found.change(options.check) for found in result.found], backup)
