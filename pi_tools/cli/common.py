"""Plumbing shared by the stage commands: stdin, stdout documents, stderr messages, exit codes.

Kept free of heavy imports so that `pi-tools --help` stays fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from pi_tools.engine import Engine

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


def report(message: str) -> None:
    """One line on stderr, prefixed with the program name."""
    sys.stderr.write(f"pi-tools: {message}\n")
    sys.stderr.flush()


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    report(message)
    raise SystemExit(code)


def default_session_folder() -> str:
    """Pi's own session folder, for a command run without a PATH (as ccusage does); said on stderr.

    A folder that is not there is an error (exit 2), never an empty report.
    """
    import os

    from pi_tools.session.agentdir import sessions_dir

    folder = sessions_dir()
    if not os.path.isdir(folder):
        problem = "is not a folder" if os.path.exists(folder) else "does not exist"
        fail(f"no PATH given, and Pi's session folder {folder} {problem} "
             "($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions): name session files or folders")
    report(f"no PATH given: reading Pi's session folder {folder}")
    return folder


def session_files(paths: list[str] | None, *, default_folder: bool = False, keep_going: bool = False) -> list[str]:
    """The one input contract of the commands that read sessions (csvkit's one base class, as a function):
    session files as named, folders (and URL prefixes) as the *.jsonl files under them, recursively and sorted,
    and, when nothing is named and `default_folder` is set, Pi's session folder (said on stderr).

    A folder without session files is an error (exit 2) rather than an empty report; a file is passed on as
    named, so that each command reads it and words its own problems (not a session: exit 2). `-` is passed on
    too: the document stages read stdin for it (stdin_or_files). `keep_going`: for the stages that report each
    input's problem and go on with the others, a folder without session files is reported the same way and the
    stage's exit status becomes 2 (exit_without_teardown).
    """
    from pi_tools.sources.errors import EngineUnavailable
    from pi_tools.sources.files import expand

    if not paths:
        if not default_folder:
            return []
        paths = [default_session_folder()]
    try:
        expanded = expand(paths)
    except EngineUnavailable as exc:
        fail(str(exc))
    files = []
    for name, error in expanded:
        if error is not None:
            if not keep_going:
                fail(error)
            report(error)
            _status_floor.append(EXIT_BAD_INPUT)
            continue
        files.append(name)
    return files


def check_session_folders(paths: list[str]) -> None:
    """session_files' refusal of a folder without session files, for the commands whose library walks the
    folders itself (usage, index): it stops at the first session file found, so a large corpus is not walked
    twice."""
    from pi_tools.sources.files import find_session_files, is_url

    for path in paths:
        if not is_url(path) and os.path.isdir(path) and next(find_session_files(path), None) is None:
            fail(f"{path}: no session files (*.jsonl) under this directory")


def stdin_or_files(paths: list[str] | None) -> list[str]:
    """The inputs of a document stage: nothing or `-` alone is stdin (an empty list); else session_files."""
    if not paths or paths == ["-"]:
        return []
    if "-" in paths:
        fail("-: stdin cannot be read beside session files; pipe it alone")
    return session_files(paths, keep_going=True)


def stdin_reader() -> Callable[[], bytes] | None:
    """A reader for stdin when something is piped in; None on a terminal (never wait for typing)."""
    if sys.stdin is None or sys.stdin.isatty():
        return None
    return lambda: sys.stdin.buffer.read()


def checked_api_and_model(api: str, model: str | None, pi: Any = None) -> Any:
    """Validate --api against the Pi version `pi` when one is chosen (an API that Pi does not have is refused:
    providers.registry.absent_api_refusal), then --model (when given) against --api in the catalog of `pi` (None:
    pi.resolve()'s): the catalog model, or None; usage errors exit 2.

    --api itself was checked while the command line was parsed (cli.options.api_option)."""
    from pi_tools.pi import resolve
    from pi_tools.providers.catalog import find_model
    from pi_tools.providers.errors import UnknownModelError
    from pi_tools.providers.registry import absent_api_refusal
    from pi_tools.providers.table import model_speaking

    if pi is not None:  # else the stage follows its documents' version, and refuses per document
        refusal = absent_api_refusal(api, pi.requests, f"Pi {pi.name}")
        if refusal is not None:
            fail(f"--api {api}: {refusal}")
    version = pi or resolve()
    if model is None:
        return None
    try:
        chosen = find_model(model, version.requests.catalog)
    except UnknownModelError as exc:
        fail(f"--model: {exc.args[0] if exc.args else exc}")
    speaking = model_speaking(api, chosen)
    if speaking is None:
        fail(f"--model {model} speaks {chosen.get('api')}, not {api}")
    return speaking


def run_documents(files: list[str], build: Callable[[Any], Any], *, need_input: bool = True,
                  diagnostics: bool = True, pi: Any = None) -> None:
    """Run a document-producing stage over files or stdin and exit with the stage's status.

    A stage whose documents carry no diagnostics passes `diagnostics=False`: sessions are then read without
    the checks that only produce them. `pi`: the Pi version sessions are read as (pi_tools.pi.PiVersion;
    None: pi.resolve()).
    """
    from pi_tools.pipe.documents import DocumentWriter
    from pi_tools.pipeline.stages import iter_inputs, run_stage

    reader = stdin_reader()
    if need_input and not files and reader is None:
        fail("no input: name session files or pipe documents into stdin (see --help)")
    writer = DocumentWriter()

    def build_and_keep(item: Any) -> Any:
        _kept.clear()  # the previous input's objects go now, so memory stays bounded by one input
        result = build(item)
        keep_until_exit(item, result)
        return result

    status = run_stage(iter_inputs(files, reader, check_all_lines=diagnostics, pi=pi), build_and_keep, writer.write,
                       report, pi)
    writer.flush()
    exit_without_teardown(status)


def run_file_tasks(task: Callable[[Any], Any], files: list[str], options: Any, engine: Engine) -> NoReturn:
    """Run a document stage's per-file task (pi_tools.pipeline.tasks) over several files on the engine, write each file's
    documents in input order, and exit with the stage's status."""
    from pi_tools.engine import EngineError, map_ordered
    from pi_tools.sources.files import size_of

    status = 0
    try:
        for output in map_ordered(task, [(name, options) for name in files], engine,
                                  weights=[size_of(name) for name in files]):
            try:
                sys.stdout.buffer.write(output.data)
                sys.stdout.buffer.flush()
            except BrokenPipeError:
                raise SystemExit(0) from None  # the reader went away (e.g. `| head`): stop quietly
            for problem in output.problems:
                report(problem)
            status = max(status, output.status)
    except EngineError as exc:
        fail(str(exc))
    exit_without_teardown(status)


_kept: list[Any] = []
_status_floor: list[int] = []
"""Exit statuses owed to inputs reported before the stage ran (session_files with keep_going)."""
_before_exit: list[Callable[[], None]] = []


def before_exit(callback: Callable[[], None]) -> None:
    """Run `callback` when the stage ends (exit_without_teardown skips atexit handlers and finally clauses)."""
    _before_exit.append(callback)


def keep_until_exit(*objects: Any) -> None:
    """Hold the current input's large objects (session index, messages, documents) until the process exits.

    Freeing a 100 MB session's objects one by one costs about 0.15 s, and exit_without_teardown hands the
    memory back at once; the next input releases them before it starts.
    """
    _kept.extend(objects)


def exit_without_teardown(status: int) -> NoReturn:
    """End a document stage at once: everything is written and flushed, nothing else is running.

    Tearing down the interpreter would free every object of a large session one by one (about 0.1 s for a
    100 MB file) only to hand the memory back to the system anyway.
    """
    import os

    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    sys.stderr.flush()
    for callback in _before_exit:
        callback()
    os._exit(max([status, *_status_floor]))


def output_paths(files: list[str], out: str, fmt: str) -> list[str]:
    """For render and export: one FILE: OUT is the page (or - for stdout). Several: OUT is a directory of <stem>.<format> pages."""
    if len(files) == 1:
        return [out]
    if out == "-":
        fail("-o -: several FILEs need an output directory")
    directory = Path(out)
    if directory.exists() and not directory.is_dir():
        fail(f"-o {out}: several FILEs need an output directory, and this is a file")
    directory.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    paths = []
    for name in files:
        stem = Path(name).stem or "session"
        candidate, counter = stem, 1
        while candidate in taken:
            counter += 1
            candidate = f"{stem}-{counter}"
        taken.add(candidate)
        paths.append(str(directory / f"{candidate}.{fmt}"))
    return paths


def _write_atomically(path: str, pieces: Iterable[str]) -> None:
    """Never leave a half-written page behind (a reader may have the old one open)."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            for piece in pieces:
                handle.write(piece)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def write_pieces(path: str, pieces: Iterable[str]) -> None:
    """A page made of pieces, to stdout for -, else atomically to `path` (a failed write is a clear error)."""
    if path == "-":
        for piece in pieces:
            sys.stdout.write(piece)
        sys.stdout.flush()
        return
    try:
        _write_atomically(path, pieces)
    except OSError as exc:
        fail(f"-o {path}: cannot write: {exc.strerror or exc}")
