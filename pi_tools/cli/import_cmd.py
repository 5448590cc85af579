"""`pi-tools import`: Claude Code transcripts and Codex rollouts as Pi sessions, in Pi's folder layout."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from pi_tools.cli.common import EXIT_BAD_INPUT, fail, report
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import (
    REFUSAL_UNKNOWN_FORMAT,
    REFUSAL_UNKNOWN_VALUE,
    Pi,
    ReportFormat,
    choice_option,
    chosen_pi,
    format_option,
    output_option,
    paths_argument,
)

SourceKind = Literal["claude-code", "codex"]


def import_command(
    paths: Annotated[list[str] | None, paths_argument("Claude Code transcripts or Codex rollouts, files or folders (searched recursively for *.jsonl; default: both tools' session folders).")] = None,
    out: Annotated[str | None, output_option("The folder to write into, in Pi's layout (--<cwd>--/<timestamp>_<id>.jsonl): ~/.pi/agent/sessions makes them `pi --resume`'s.", "OUT")] = None,
    source: Annotated[SourceKind | None, choice_option("--from", SourceKind, "What the files are (default: told from each file's content).", REFUSAL_UNKNOWN_VALUE)] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an imported file that has changed since (by default it is refused: Pi may have appended to it).")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Convert and report; write nothing.")] = False,
    output_format: Annotated[ReportFormat, format_option(ReportFormat, "text (per file: what was written, the counts, the notes) or json (one document per file).", REFUSAL_UNKNOWN_FORMAT)] = "text",
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Import other agents' sessions into Pi: each Claude Code transcript or Codex rollout becomes a Pi session
    file (sidechains: sessions of their own, linked to theirs) that the chosen Pi version loads and resumes.

    Every turn, tool call and result, signed thinking, image, model change, usage and compaction carries over;
    what Pi has no place for is kept as custom entries the model never sees. Per file, the report counts what
    was imported, mapped, kept as custom entries and dropped, and says why for each value filled in or left out.

    A file that cannot be imported is reported (stderr: FILE: why) and the others are still written; the exit
    status is then 2. Files are written atomically; importing again writes nothing new (the same ids).

    Example: pi-tools import ~/.claude/projects/-home-me-app -o ~/.pi/agent/sessions
    """
    import os

    from pi_tools.pi import resolve

    version = chosen_pi(pi) or resolve(None)
    if out is None:
        fail("no output folder: give -o OUT (~/.pi/agent/sessions to make the sessions Pi's own)")
    if os.path.exists(out) and not os.path.isdir(out):
        fail(f"-o {out}: is not a folder")
    chosen = chosen_engine(engine, scheduler, jobs, progress="import")
    from pi_tools.engine import EngineError, map_ordered
    from pi_tools.importers.discover import import_files
    from pi_tools.importers.kinds import default_folders
    from pi_tools.importers.task import ImportOptions, import_one

    defaulted = not paths
    if not paths:
        paths = []
        for kind, folder in default_folders():
            if source is not None and kind != source:
                continue
            if os.path.isdir(folder):
                report(f"no PATH given: reading {kind}'s folder {folder}")
                paths.append(folder)
            else:
                report(f"no PATH given: {kind}'s folder {folder} does not exist; skipped")
        if not paths:
            fail("no PATH given and no session folder found: name transcript files or folders")
    files, problems = import_files(paths)
    for problem in problems:
        report(problem)
    if defaulted:  # an empty default folder is one tool the user does not use, not a failure of the run
        if not files:
            fail("no PATH given and no sessions in the tools' folders: name transcript files or folders")
        problems = []
    options = ImportOptions(out=out, pi=version.name, kind=source, force=force, dry_run=dry_run)
    failed = bool(problems)
    try:
        results = map_ordered(import_one, [(file, options) for file in files], chosen,
                              weights=[os.path.getsize(file) for file in files])
        for result in results:
            if result.error is not None:
                report(f"{result.source}: {result.error}")
                failed = True
            if output_format == "json":
                import orjson

                typer.echo(orjson.dumps(result.document()).decode())
            else:
                typer.echo(result.text())
    except EngineError as exc:
        fail(str(exc))
    if failed:
        raise SystemExit(EXIT_BAD_INPUT)
