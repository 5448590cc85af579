"""`pi-tools visibility`: for every stored entry, whether the context, the model and Pi's TUI get it, and why not."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pi_tools.cli.common import fail


def visibility_command(
    file: Annotated[str, typer.Argument(help="A session file (.jsonl).")],
    leaf: Annotated[str | None, typer.Option(
        "--leaf", help="Entry id of the leaf to look from (default: the session's own leaf).")] = None,
    api: Annotated[str | None, typer.Option(
        "--api", help="Also apply this API's transformMessages (e.g. anthropic-messages): errored or aborted "
                      "assistant turns are then not sent.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table (for people) or json (one JSON line per entry).")]
    = "table",
    width: Annotated[int, typer.Option("--width", help="Table width.")] = 120,
) -> None:
    """Show which readers get each entry: storage (always), the runtime context, the model, Pi's terminal UI.

    A "no" always comes with a reason: other-branch, compacted-away, settings-entry, label-entry,
    session-info-entry, custom-entry, empty-summary, excludeFromContext, display:false, errored-turn-skipped
    (with --api), no-text, unmatched-tool-result, unknown-role, unknown-entry-type, not-an-entry, bad-message.
    --format json writes one line per entry: {"kind":"visibility","source","entryId","line","type","role",
    "stored","context","model","tui","reasons":{"context"?,"model"?,"tui"?}} (plus "api" with --api).

    Example: pi-tools visibility session.jsonl --api anthropic-messages --format json
    """
    from pi_tools.audit.visibility import render_table, visibility_rows
    from pi_tools.js.values import UNDEFINED
    from pi_tools.session import SessionReadError, load_session
    from pi_tools.session.tree import PathCycleError

    if fmt not in ("table", "json"):
        fail(f"--format {fmt!r}: expected table or json")
    if api is not None:
        from pi_tools.providers.registry import supported_apis

        if api not in supported_apis():
            fail(f"--api {api!r}: expected one of {', '.join(supported_apis())}")
    try:
        tree = load_session(file)
    except SessionReadError as exc:
        fail(str(exc))
    if leaf is not None and leaf not in tree.by_id:
        fail(f"{file}: no entry with id {leaf!r} (see `pi-tools tree {file}`)")
    try:
        rows = list(visibility_rows(tree, UNDEFINED if leaf is None else leaf, api))
    except PathCycleError as exc:
        fail(f"{file}: {exc}")
    except ValueError as exc:
        fail(str(exc))
    if fmt == "json":
        from pi_tools.docs import DocumentWriter

        writer = DocumentWriter()
        for row in rows:
            writer.write(row.document(tree.source, api))
        writer.flush()
        return
    try:
        sys.stdout.write(render_table(rows, width))
        sys.stdout.flush()
    except BrokenPipeError:
        raise SystemExit(0) from None
