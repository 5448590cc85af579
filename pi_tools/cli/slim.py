"""`pi-tools slim`: a smaller copy of a bloated session (large images and tool outputs cut, branches dropped)."""

from __future__ import annotations

from typing import Annotated

import typer

from pi_tools.cli.common import fail
from pi_tools.cli.options import (
    REFUSAL_UNKNOWN_FORMAT,
    Pi,
    ReportFormat,
    chosen_pi,
    format_option,
    output_option,
)


def slim_command(
    file: Annotated[str, typer.Argument(metavar="FILE", help="The session file (read only unless --in-place).")],
    out: Annotated[str | None, output_option("Where to write the slimmed session.")] = None,
    max_image_kb: Annotated[int | None, typer.Option("--max-image-kb", metavar="N", min=0, help="Replace images over N KB (decoded) with a text placeholder naming them.")] = None,
    max_tool_output_kb: Annotated[int | None, typer.Option("--max-tool-output-kb", metavar="N", min=1, help="Keep only the first and last N/2 KB of tool and bash outputs over N KB.")] = None,
    drop_branches: Annotated[bool, typer.Option("--drop-branches", help="Keep only the active path (and the entries it refers to); the rest goes to OUT.rejected.")] = False,
    in_place: Annotated[bool, typer.Option("--in-place", help="Replace FILE, keeping the original as FILE.bak (or FILE.bak.N).")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUT (and OUT.rejected) if they exist.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the changes and sizes; write nothing.")] = False,
    output_format: Annotated[ReportFormat, format_option(ReportFormat, "text (one line per change) or json (one document per change, then a summary).", REFUSAL_UNKNOWN_FORMAT)] = "text",
    pi: Pi = None,
) -> None:
    """Slim a session into a file Pi resumes with the same conversation: the context of OUT equals FILE's except
    for the slimmed blocks. Prints one line per change and the bytes before and after.

    Example: pi-tools slim big.jsonl -o small.jsonl --max-image-kb 100 --max-tool-output-kb 64
    """
    version = chosen_pi(pi)
    from pi_tools.cli.rewriting import check_target_options, print_changes
    from pi_tools.rewrite.slim import SlimError, SlimOptions, slim_file
    from pi_tools.rewrite.writer import WriteError, free_backup_name

    check_target_options(out, in_place, dry_run)
    if max_image_kb is None and max_tool_output_kb is None and not drop_branches:
        fail("nothing to do: give --max-image-kb, --max-tool-output-kb or --drop-branches")
    backup = free_backup_name(file) if in_place else None
    try:
        result, before = slim_file(file, out, SlimOptions(max_image_kb, max_tool_output_kb, drop_branches),
                                   in_place=in_place, force=force, dry_run=dry_run, version=version)
    except (SlimError, WriteError) as exc:
        fail(str(exc))
    after = len(result.data())
    target = None if dry_run else (file if in_place else out)
    rejected = None
    if result.rejected and not dry_run:
        rejected = f"{backup}.rejected" if in_place else f"{out}.rejected"
    percent = f"{100 * after / before:.1f}%" if before else "100%"
    summary = [f"{file}: {before} bytes -> {after} bytes ({percent})"
               + (f"; wrote {target}" if target else "; nothing written (--dry-run)")]
    if rejected:
        summary.append(f"{file}: {len(result.rejected)} line(s) set aside in {rejected}")
    if backup is not None and not dry_run:
        summary.append(f"{file}: the original is kept as {backup}")
    print_changes(file, result.changes, output_format, summary, {
        "output": target, "rejected": rejected, "rejectedLines": len(result.rejected),
        "backup": backup if not dry_run else None, "changes": len(result.changes), "dryRun": dry_run,
        "bytesBefore": before, "bytesAfter": after,
    })
