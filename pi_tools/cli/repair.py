"""`pi-tools repair`: write a repaired copy of a damaged session (the input is only replaced with --in-place)."""

from __future__ import annotations

from typing import Annotated

import typer

from pi_tools.cli.common import fail


def repair_command(
    file: Annotated[str, typer.Argument(help="The damaged session file (read only unless --in-place).")],
    out: Annotated[str | None, typer.Option("-o", "--output", metavar="OUT", help="Where to write the repaired session (must differ from FILE).")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Replace FILE, keeping the original as FILE.bak (or FILE.bak.N: never an existing name).")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUT (and OUT.rejected) if they exist.")] = False,
    close_orphans: Annotated[bool, typer.Option("--close-orphans", help="Store the `No result provided` results Pi would synthesise for unanswered tool calls.")] = False,
    header: Annotated[bool, typer.Option("--header", help="Give a file without a valid header one: id from Pi's file name <timestamp>_<uuid>.jsonl, the first entry's timestamp, cwd from --cwd or the session directory's name, version 3.")] = False,
    cwd: Annotated[str | None, typer.Option("--cwd", metavar="DIR", help="The cwd for --header.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the changes; write nothing.")] = False,
    output_format: Annotated[str, typer.Option("--format", help="text (one line per change) or json (one document per change, then a summary).")] = "text",
) -> None:
    """Repair a session into a new file that Pi loads: split concatenated objects, drop a torn tail, set aside
    unparseable lines in OUT.rejected (LINE<TAB>bytes), and optionally close orphaned tool calls.

    Each change is printed on stdout as FILE:LINE: what changed (LINE is the input line). Errors go to stderr
    with exit status 2. The output is written atomically (temporary file, fsync, rename).

    Example: pi-tools repair broken.jsonl -o fixed.jsonl --close-orphans && pi-tools audit fixed.jsonl
    """
    from pi_tools.cli.rewriting import check_format, check_target_options, print_changes
    from pi_tools.rewrite.repair import RepairError, repair_file
    from pi_tools.rewrite.writer import Change, free_backup_name

    check_format(output_format)
    check_target_options(out, in_place, dry_run)
    backup = free_backup_name(file) if in_place else None
    try:
        result = repair_file(file, out, force=force, close_orphaned_calls=close_orphans, in_place=in_place,
                             dry_run=dry_run, header=header, cwd=cwd)
    except RepairError as exc:
        fail(str(exc))
    target = file if in_place else out
    rejected_target = f"{backup}.rejected" if in_place else (f"{out}.rejected" if out is not None else None)
    rejected = rejected_target if result.rejected else None
    changes = [Change(line, message) for line, message in sorted(result.changes, key=lambda c: c[0])]
    summary: list[str] = []
    verb = "would write" if dry_run else "wrote"
    if not changes:
        summary.append(f"{file}: nothing to repair; {verb} an unchanged copy to {target}" if target is not None
                       else f"{file}: nothing to repair")
    elif rejected is not None:
        summary.append(f"{file}: {len(result.rejected)} line(s) set aside in {rejected}")
    elif result.rejected:
        summary.append(f"{file}: {len(result.rejected)} line(s) would be set aside")
    if backup is not None and not dry_run:
        summary.append(f"{file}: the original is kept as {backup}")
    print_changes(file, changes, output_format, summary, {
        "output": target, "rejected": rejected, "rejectedLines": len(result.rejected), "backup": backup,
        "changes": len(changes), "dryRun": dry_run,
    })
