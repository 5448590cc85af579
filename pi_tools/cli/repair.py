"""`pi-tools repair`: write a repaired copy of a damaged session (the input is only replaced with --in-place)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from pi_tools.cli.common import fail
from pi_tools.cli.options import (
    REFUSAL_UNKNOWN_FORMAT,
    Pi,
    ReportFormat,
    chosen_pi,
    format_option,
    output_option,
    reasoning_option,
)

if TYPE_CHECKING:
    from pi_tools.rewrite.repair import RepairResult

EXIT_NOTHING_TO_REPAIR = 3
"""The repair would change no byte of FILE: nothing is written (not an error, not a success that made a file)."""


def repair_command(
    file: Annotated[str, typer.Argument(metavar="FILE", help="The damaged session file (read only unless --in-place).")],
    out: Annotated[str | None, output_option("Where to write the repaired session (must differ from FILE).")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Replace FILE, keeping the original as FILE.bak (or FILE.bak.N: never an existing name).")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUT (and OUT.rejected) if they exist.")] = False,
    close_orphans: Annotated[bool, typer.Option("--close-orphans", help="Store the `No result provided` results Pi would synthesise for unanswered tool calls.")] = False,
    header: Annotated[bool, typer.Option("--header", help="Give a file without a valid header one: id from Pi's file name <timestamp>_<uuid>.jsonl, the first entry's timestamp, cwd from --cwd or the session directory's name, version 3.")] = False,
    cwd: Annotated[str | None, typer.Option("--cwd", metavar="DIR", help="The cwd for --header.")] = None,
    relink: Annotated[bool, typer.Option("--relink", help="Move messages stored between tool calls and their results behind the last result, and put results in call order (re-parenting; ids never change).")] = False,
    trim_failed: Annotated[bool, typer.Option("--trim-failed", help="Move the errored or aborted assistant turns at the leaf to OUT.rejected, so the last good entry is the leaf.")] = False,
    drop_malformed_calls: Annotated[bool, typer.Option("--drop-malformed-calls", help="Remove tool calls with an empty or non-string id or name, or non-object arguments, with their results.")] = False,
    fix: Annotated[bool, typer.Option("--fix", help="Apply the repairs that clear what `pi-tools preflight` finds for the session's own model (or --for-model): pairing of calls and results, a new turn for another model; say what cannot be fixed.")] = False,
    for_model: Annotated[str | None, typer.Option("--for-model", metavar="PROVIDER/ID", help="Fix what preflight says this model would refuse, where a rewrite can; say what cannot be fixed.")] = None,
    reasoning: Annotated[str | None, reasoning_option("With --fix or --for-model: the thinking level of the request to check (default: the session's).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the changes; write nothing.")] = False,
    output_format: Annotated[ReportFormat, format_option(ReportFormat, "text (one line per change) or json (one document per change, then a summary).", REFUSAL_UNKNOWN_FORMAT)] = "text",
    pi: Pi = None,
) -> None:
    """Repair a session into a new file that Pi loads: split concatenated objects, drop a torn tail, set aside
    unparseable lines in OUT.rejected (LINE<TAB>bytes), and optionally fix the conversation (--relink,
    --trim-failed, --drop-malformed-calls, --close-orphans) and what a model would refuse (--fix for the
    session's own model, --for-model for another).

    Each change is printed on stdout as FILE:LINE: what changed [rule] (LINE is the input line, rule the audit or
    preflight rule it clears); what was asked for but not done follows as FILE:LINE: note: .... Errors go to
    stderr with exit status 2. When the repaired copy would equal FILE, nothing is written: stderr says
    `FILE: nothing to repair; wrote nothing` and the exit status is 3. The output is written atomically (temporary file, fsync, rename).

    Example: pi-tools repair broken.jsonl -o fixed.jsonl --relink --close-orphans && pi-tools audit fixed.jsonl
    """
    version = chosen_pi(pi, builds_requests=for_model is not None or fix)
    from pi_tools.cli.rewriting import check_target_options, print_changes
    from pi_tools.rewrite.repair import ConversationFixes, RepairError, repair_file
    from pi_tools.rewrite.writer import free_backup_name

    check_target_options(out, in_place, dry_run)
    if reasoning is not None and for_model is None and not fix:
        fail("--reasoning only goes with --fix or --for-model")
    if for_model is not None:
        from pi_tools.providers.catalog import find_model
        from pi_tools.providers.errors import UnknownModelError

        try:
            find_model(for_model)
        except UnknownModelError as exc:
            fail(f"--for-model {for_model}: {exc.args[0] if exc.args else exc}")
    backup = free_backup_name(file) if in_place else None
    fixes = ConversationFixes(relink=relink, trim_failed=trim_failed, drop_malformed_calls=drop_malformed_calls,
                              for_model=for_model, reasoning=reasoning, fix=fix)
    try:
        result = repair_file(file, out, force=force, close_orphaned_calls=close_orphans, in_place=in_place,
                             dry_run=dry_run, header=header, cwd=cwd, fixes=fixes, version=version)
    except RepairError as exc:
        fail(str(exc))
    if result.unchanged:
        _nothing_to_repair(file, result, output_format, dry_run)
    target = file if in_place else out
    rejected_target = f"{backup}.rejected" if in_place else (f"{out}.rejected" if out is not None else None)
    rejected = rejected_target if result.rejected else None
    changes = sorted(result.changes, key=lambda c: c.line)
    summary: list[str] = []
    if rejected is not None:
        summary.append(f"{file}: {len(result.rejected)} line(s) set aside in {rejected}")
    elif result.rejected:
        summary.append(f"{file}: {len(result.rejected)} line(s) would be set aside")
    if backup is not None and not dry_run:
        summary.append(f"{file}: the original is kept as {backup}")
    print_changes(file, changes, output_format, summary, {
        "output": target, "rejected": rejected, "rejectedLines": len(result.rejected), "backup": backup,
        "changes": len(changes), "dryRun": dry_run, "notes": len(result.notes),
    }, notes=sorted(result.notes, key=lambda c: c.line), rules=True)


def _nothing_to_repair(file: str, result: RepairResult, output_format: str, dry_run: bool) -> NoReturn:
    """The repaired bytes equal FILE's: nothing was (or would be) written; the notes (what was asked for but cannot
    be done) still go to stdout, the verdict to stderr, and the exit status says it (EXIT_NOTHING_TO_REPAIR)."""
    from pi_tools.cli.rewriting import print_changes

    notes = sorted(result.notes, key=lambda c: c.line)
    if notes or output_format == "json":
        print_changes(file, [], output_format, [], {
            "output": None, "rejected": None, "rejectedLines": 0, "backup": None, "changes": 0, "dryRun": dry_run,
            "notes": len(notes)}, notes=notes, rules=True)
    fail(f"{file}: nothing to repair; wrote nothing", EXIT_NOTHING_TO_REPAIR)
