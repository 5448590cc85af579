"""`pi-tools visibility`: for every stored entry, whether the context, the model and Pi's TUI get it, and why not."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pi_tools.cli.common import exit_without_teardown, fail, report, session_files
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_VALUE_EXPECTED,
    REFUSAL_VALUE_EXPECTED_ONE_OF,
    Pi,
    TableOrJson,
    api_option,
    chosen_pi,
    format_option,
    leaf_option,
    paths_argument,
)


def visibility_command(
    files: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder).")] = None,
    leaf: Annotated[str | None, leaf_option("Entry id of the leaf to look from (default: the session's own leaf).")]
    = None,
    api: Annotated[str | None, api_option(
        "The API whose transformMessages the model column applies (errored or aborted assistant turns are then not "
        "sent; default: the API of the session's current model, said on stderr, as payload takes it).",
        REFUSAL_VALUE_EXPECTED_ONE_OF)] = None,
    fmt: Annotated[TableOrJson, format_option(TableOrJson, "table (for people) or json (one JSON line per entry).",
                                              REFUSAL_VALUE_EXPECTED)] = "table",
    width: Annotated[int, typer.Option("--width", help="Table width.")] = 120,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Show which readers get each entry: storage (always), the runtime context, the model, Pi's terminal UI.

    A "no" always comes with a reason: other-branch, compacted-away, settings-entry, label-entry,
    session-info-entry, custom-entry, empty-summary, excludeFromContext, display:false, errored-turn-skipped
    (with --api), no-text, unmatched-tool-result, unknown-role, unknown-entry-type, not-an-entry, bad-message.
    --format json writes one line per entry: {"kind":"visibility","source","entryId","line","type","role",
    "stored","context","model","tui","reasons":{"context"?,"model"?,"tui"?}} (plus "api" with --api).
    Several files: their lines in the order given (tables each under a `==> FILE <==` line); a file that cannot
    be read is named on stderr, the others go on, and the exit status is 2.

    Example: pi-tools visibility session.jsonl --api anthropic-messages --format json
    """
    version = chosen_pi(pi, builds_requests=api is not None, command="visibility --api")
    files = session_files(files, default_folder=True)
    chosen = chosen_engine(engine, scheduler, jobs, progress="visibility")
    from pi_tools.engine import EngineError, map_ordered
    from pi_tools.sources.files import size_of
    from pi_tools.visibility.tasks import VisibilityOptions, visibility_file

    options = VisibilityOptions(leaf, api, fmt, width, version.name if version is not None else None,
                                session_api=True)
    headed = fmt == "table" and len(files) > 1
    status = 0
    try:
        for name, output in zip(files, map_ordered(visibility_file, [(name, options) for name in files], chosen,
                                                   weights=[size_of(name) for name in files]), strict=True):
            for problem in output.problems:
                report(problem)
            status = max(status, output.status)
            if output.status == 0:
                _write((f"==> {name} <==\n".encode("utf-8", "backslashreplace") if headed else b"") + output.data)
    except EngineError as exc:
        fail(str(exc))
    exit_without_teardown(status)


def _write(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise SystemExit(0) from None
