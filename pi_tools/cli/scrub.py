"""`pi-tools scrub`: redact secrets in session files (or, with --check, only report them)."""

from __future__ import annotations

from typing import Annotated

import typer

from pi_tools.cli.common import EXIT_BAD_INPUT, EXIT_FINDINGS, fail, report, session_files
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_UNKNOWN_FORMAT,
    Pi,
    ReportFormat,
    chosen_pi,
    format_option,
    output_option,
    paths_argument,
)


def scrub_command(
    paths: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder).")] = None,
    out: Annotated[str | None, output_option("Where to write the scrubbed session (one PATH only).")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Rewrite each file that holds a secret, keeping the original as FILE.bak (or FILE.bak.N).")] = False,
    check: Annotated[bool, typer.Option("--check", help="Only report secrets; exit 1 when any is found (for CI and pre-commit hooks).")] = False,
    patterns: Annotated[list[str] | None, typer.Option("--pattern", metavar="REGEX", help="Also redact matches of REGEX (kind `pattern`; a group named `secret` narrows the match). Repeatable.")] = None,
    entropy: Annotated[bool, typer.Option("--entropy", help="Also redact high-entropy values assigned to a key, token, secret or password name (kind generic-api-key; finds unknown kinds, with false positives). Never hex digests, UUIDs, signatures, ids or images.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUT if it exists.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would be redacted; write nothing.")] = False,
    output_format: Annotated[ReportFormat, format_option(ReportFormat, "text (one line per secret) or json (one document per secret, then a summary per file).", REFUSAL_UNKNOWN_FORMAT)] = "text",
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Replace every secret in every string of every entry (all branches, summaries, custom entries, tool
    arguments, outputs and details) with [REDACTED:<kind>]. Signatures, encrypted reasoning, response ids and
    entry/call ids are never changed. Reports kind, line, entry id and JSON path, never the value.

    Every version's files are scrubbed alike (--pi is checked, and changes nothing): every string of every line is
    read, so Pi 1.x's system prompt sections, tool schemas (toolsAdded), context edits' replacements and usage
    entries are scrubbed as any other content; only ids (targetId included) and opaque fields are left alone.

    Detectors: every kind gitleaks' default rules and detect-secrets' default plugins find, plus every catalog
    provider's key (see docs/rewrite.md); --entropy adds the generic high-entropy rule.

    Example: pi-tools scrub --check ~/.pi/agent/sessions || pi-tools scrub s.jsonl --in-place
    """
    chosen_pi(pi)
    chosen = chosen_engine(engine, scheduler, jobs, progress="scrub")
    from pi_tools.cli.rewriting import check_target_options, print_changes
    from pi_tools.engine import EngineError, map_ordered
    from pi_tools.rewrite.scrub_task import ScrubOptions, scrub_one
    from pi_tools.secrets.detectors import PatternError, Scanner
    from pi_tools.sources.files import size_of

    if not check:
        check_target_options(out, in_place, dry_run)
    elif out is not None or in_place:
        fail("--check only reports: give no -o or --in-place with it")
    files = session_files(paths, default_folder=True)
    if out is not None and len(files) != 1:
        fail(f"-o OUT takes one session file; {len(files)} given (use --in-place or --check for several)")
    try:
        scanner = Scanner(patterns or (), entropy=entropy)
    except PatternError as exc:
        fail(str(exc))
    options = ScrubOptions(scanner, out, in_place=in_place, force=force, dry_run=dry_run, check=check)
    failed = False
    any_found = False
    try:
        outcomes = map_ordered(scrub_one, [(file, options) for file in files], chosen,
                               weights=[size_of(file) for file in files])
        for file, outcome in zip(files, outcomes, strict=True):
            if outcome.error is not None:
                report(outcome.error)
                failed = True
                continue
            changes = outcome.changes
            backup = outcome.backup
            any_found = any_found or bool(changes)
            wrote = not (check or dry_run) and (bool(changes) or not in_place)
            target = (file if in_place else out) if wrote else None
            summary = [f"{file}: {len(changes)} secret(s) {'found' if check else 'redacted'}"
                       + (f"; wrote {target}" if target else "")
                       + (f"; the original is kept as {backup}" if wrote and backup else "")]
            print_changes(file, changes, output_format, summary, {
                "output": target, "rejected": None, "rejectedLines": 0, "backup": backup if wrote else None,
                "changes": len(changes), "dryRun": dry_run, "check": check,
            })
    except EngineError as exc:
        fail(str(exc))
    if failed:
        raise SystemExit(EXIT_BAD_INPUT)
    if check and any_found:
        raise SystemExit(EXIT_FINDINGS)
