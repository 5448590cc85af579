"""`pi-tools repair`: write a repaired copy of a damaged session (the input is never touched)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pi_tools.cli.common import fail


def repair_command(
    file: Annotated[str, typer.Argument(help="The damaged session file (read only).")],
    out: Annotated[str, typer.Option("-o", "--output", metavar="OUT", help="Where to write the repaired session (must differ from FILE).")] = ...,  # type: ignore[assignment]
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUT (and OUT.rejected) if they exist.")] = False,
    close_orphans: Annotated[bool, typer.Option("--close-orphans", help="Store the `No result provided` results Pi would synthesise for unanswered tool calls.")] = False,
) -> None:
    """Repair a session into a new file that Pi loads: split concatenated objects, drop a torn tail, set aside
    unparseable lines in OUT.rejected (LINE<TAB>bytes), and optionally close orphaned tool calls.

    Each change is printed on stdout as FILE:LINE: what changed (LINE is the input line). Errors go to stderr
    with exit status 2. The output is written atomically (temporary file, fsync, rename).

    Example: pi-tools repair broken.jsonl -o fixed.jsonl --close-orphans && pi-tools audit fixed.jsonl
    """
    from pi_tools.audit.repair import RepairError, repair_file

    try:
        result = repair_file(file, out, force=force, close_orphaned_calls=close_orphans)
    except RepairError as exc:
        fail(str(exc))
    lines = [f"{file}:{line}: {change}" for line, change in sorted(result.changes, key=lambda c: c[0])]
    if not lines:
        lines.append(f"{file}: nothing to repair; wrote an unchanged copy to {out}")
    elif result.rejected:
        lines.append(f"{file}: {len(result.rejected)} line(s) set aside in {out}.rejected")
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise SystemExit(0) from None
