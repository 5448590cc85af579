"""The document stages (context, convert, payload) over many files: one task per file, for the engine to run wherever it runs work.

Each task is a module-level function of one small item, (file name, the stage's options), so that it can go
to a worker process or a Dask worker; it reads its file where it runs (session.reader.read_session_bytes,
which reads through sources.files) and returns what the stage writes for that file: the encoded documents
(FileOutput) or the stage's result object. A file that cannot be read or built becomes that file's error
document or error, never an exception: one damaged file in a batch never hides the rest. A single file or
stdin does not come here: the CLI streams it (payload with its helper process), which is faster and holds
less.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_tools.pi import PiVersion, resolve
from pi_tools.pipe.documents import DocumentWriter, materialized
from pi_tools.pipeline.stages import (
    Document,
    PayloadRequest,
    StageInput,
    as_context,
    as_llm,
    loaded_input,
    part_bytes,
    payload_document,
    payload_document_in_parts,
    run_stage,
)
from pi_tools.session.load import load_context_source


@dataclass(frozen=True)
class FileOutput:
    """What a document stage writes for one file: its JSON lines as they go to stdout, the lines for stderr
    (each naming the file), and the exit status they call for (0, or 2 for an input that failed)."""

    data: bytes
    problems: tuple[str, ...] = ()
    status: int = 0


def _documents(name: str, build: Callable[[StageInput], Document | list[Document]],
               check_all_lines: bool, pi: PiVersion | None = None) -> FileOutput:
    """One file through a document stage (stages.run_stage), written as the CLI writes it; the session read as
    the Pi version `pi` (default: pi.resolve())."""
    buffer = io.BytesIO()
    writer = DocumentWriter(buffer)
    problems: list[str] = []
    rules = (pi or resolve()).context
    item = loaded_input(name, lambda: load_context_source(name, check_all_lines, rules))
    status = run_stage([item], build, writer.write, problems.append, pi)
    writer.flush()
    return FileOutput(buffer.getvalue(), tuple(problems), status)


def context_file(item: tuple[str, tuple[str | None, str]]) -> FileOutput:
    """`pi-tools context` for one file: (name, (--leaf, the Pi version's name))."""
    name, (leaf, pi_name) = item
    pi = resolve(pi_name)
    return _documents(name, lambda loaded: as_context(loaded, leaf, pi), True, pi)


def convert_file(item: tuple[str, tuple[str | None, str]]) -> FileOutput:
    """`pi-tools convert` for one file: (name, (--leaf, the Pi version's name))."""
    name, (leaf, pi_name) = item
    pi = resolve(pi_name)
    return _documents(name, lambda loaded: as_llm(loaded, leaf, pi), True, pi)


@dataclass(frozen=True)
class PayloadOptions:
    request: PayloadRequest
    leaf: str | None = None
    split_threshold: int | None = None
    """engine.helper.split_threshold() of the command (PI_TOOLS_SPLIT_BYTES): large payloads built in parts."""
    pi_name: str | None = None
    """--pi (None: the input documents' version, else pi.resolve()); a name, so that the options pickle small."""
    at: str | None = None
    """--at: the stored assistant message whose request is rebuilt (pipeline.answer)."""
    last: bool = False
    """--last: the active path's last assistant message's request."""

    @property
    def pi(self) -> PiVersion | None:
        return resolve(self.pi_name) if self.pi_name is not None else None


def build_payload(item: StageInput, options: PayloadOptions, build_elsewhere: Any = None,
                  keep: Callable[..., None] | None = None, notes: list[str] | None = None) -> Document:
    """The payload document for one input; large sessions in parts (with `build_elsewhere`, the helper process
    builds some of them). `keep` holds large objects past the build (see cli.common.keep_until_exit); `notes`
    gets the lines for stderr (the model taken, a missing system prompt or tools)."""
    request, leaf = options.request, options.leaf
    if options.at is not None or options.last:
        request, leaf = _answered(item, options)
    llm = as_llm(item, leaf, options.pi)
    # Drop the session index once the context is planned, and the file's bytes once the messages are built:
    # the encoder then works beside neither (about 200 MiB less at peak on a 100 MB session).
    item.tree = None
    threshold = options.split_threshold
    if threshold is not None:
        document = payload_document_in_parts(llm, request, build_elsewhere, threshold,
                                             part_bytes(threshold), notes=notes)
        if document is not None:
            if keep is not None:
                keep(llm)
            return document
    llm["messages"] = materialized(llm.get("messages"))
    if keep is not None:
        keep(llm)
    return payload_document(llm, request, notes)


def _answered(item: StageInput, options: PayloadOptions) -> tuple[PayloadRequest, str]:
    """The request and leaf of --at/--last: the context up to the message's parent, its answering model."""
    from dataclasses import replace

    from pi_tools.pipe.documents import DocumentError
    from pi_tools.pipeline.answer import find_answer

    flag = f"--at {options.at}" if options.at is not None else "--last"
    if item.error is not None:
        raise DocumentError(item.error)
    if item.tree is None:
        raise DocumentError(f"{item.source}: {flag} needs a session file, not a stage document "
                            "(a document holds no stored answers)")
    version = options.pi or resolve()
    answer = find_answer(item.tree, options.at, version.requests.catalog)
    where = f"entry {answer.entry_id}, line {answer.line}" if answer.line is not None else f"entry {answer.entry_id}"
    request = replace(options.request, api=str(answer.model["api"]), model=None, answered=answer.model,
                      answered_at=where)
    return request, answer.parent


def payload_file(item: tuple[str, PayloadOptions]) -> FileOutput:
    """`pi-tools payload` for one file: (name, the request and options)."""
    name, options = item
    notes: list[str] = []
    output = _documents(name, lambda loaded: build_payload(loaded, options, notes=notes), False, options.pi)
    return FileOutput(output.data, (*notes, *output.problems), output.status)
