"""`pi-tools transform`: apply transformContext-stage transforms to context documents."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pi_tools.cli.common import fail, run_documents, stdin_or_files
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_UNKNOWN_FORMAT,
    Pi,
    ReportFormat,
    chosen_pi,
    format_option,
    leaf_option,
    paths_argument,
)
from pi_tools.engine.early import read_ahead


def transform_command(
    files: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP}; stdin (context documents or a session) when omitted or -.")] = None,
    keep_last: Annotated[int | None, typer.Option("--keep-last", metavar="N", help="Keep the last N turns (leading summaries stay).")] = None,
    block_images: Annotated[bool, typer.Option("--block-images", help="Replace images as Pi's blockImages setting does.")] = False,
    drop_role: Annotated[list[str] | None, typer.Option("--drop-role", metavar="ROLE", help="Drop messages of ROLE (repeatable); tool calls keep their results.")] = None,
    redact: Annotated[list[str] | None, typer.Option("--redact", metavar="REGEX", help="Replace matches with [REDACTED] in text, tool arguments and output (repeatable).")] = None,
    plugin: Annotated[list[str] | None, typer.Option("--plugin", metavar="MODULE:FUNCTION", help="Apply a Python function AgentMessage[] -> AgentMessage[] (repeatable).")] = None,
    use: Annotated[list[str] | None, typer.Option("--use", metavar="NAME[=VALUE]", help="Apply a transform registered under the pi_tools.transforms entry points.")] = None,
    leaf: Annotated[str | None, leaf_option("For session files: the entry id to build the context from.")] = None,
    to_session: Annotated[str | None, typer.Option("--to-session", metavar="OUT", help="Write a session file (one FILE; --redact, --block-images, --drop-role, --keep-last) instead of context documents.")] = None,
    force: Annotated[bool, typer.Option("--force", help="With --to-session: overwrite OUT (and OUT.rejected).")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="With --to-session: print the changes; write nothing.")] = False,
    output_format: Annotated[ReportFormat | None, format_option(ReportFormat, "With --to-session: the report as text (one line per change) or json (one document per change, then a summary).", REFUSAL_UNKNOWN_FORMAT)] = None,
    pi: Pi = None,
) -> None:
    """Transform contexts (AgentMessage[] -> AgentMessage[]) and emit `context` documents.

    Order: --drop-role, --keep-last, --block-images, --redact, --use, --plugin. No transform ever separates a tool
    call from its result; a plugin that does is reported as an error.

    With --to-session OUT the transforms are written back as a session file (see docs/rewrite.md): --redact and
    --block-images change every entry of the file, --drop-role and --keep-last keep the chosen entries of the path
    (the rest goes to OUT.rejected); one line per change is printed.

    Example: pi-tools transform --keep-last 3 --redact 'sk-[A-Za-z0-9]+' s.jsonl | pi-tools payload --api openai-responses
    """
    files = stdin_or_files(files)
    if to_session is not None:
        _to_session(files or [], to_session, force, leaf, drop_role or [], keep_last, block_images, redact or [],
                    plugin or [], use or [], dry_run, output_format or "text", chosen_pi(pi))
        return
    for given, name in ((force, "--force"), (dry_run, "--dry-run"), (output_format is not None, "--format")):
        if given:
            fail(f"{name} only goes with --to-session")
    version = chosen_pi(pi)
    read_ahead(files)
    from pi_tools.pipeline.stages import as_context
    from pi_tools.transforms import TransformError, available_transforms, checked, load_plugin

    steps: list[tuple[str, Any]] = []
    try:
        registry = available_transforms()
        for role in drop_role or []:
            steps.append((f"drop-role={role}", registry["drop-role"].factory(role)))
        if keep_last is not None:
            steps.append((f"keep-last={keep_last}", registry["keep-last"].factory(keep_last)))
        if block_images:
            steps.append(("block-images", registry["block-images"].factory(True)))
        for pattern in redact or []:
            steps.append(("redact", registry["redact"].factory(pattern)))
        for spec_text in use or []:
            name, _, value = spec_text.partition("=")
            if name not in registry:
                fail(f"--use: no transform named {name!r} (available: {', '.join(sorted(registry))})")
            steps.append((name, registry[name].factory(value or None)))
        for reference in plugin or []:
            steps.append((reference, load_plugin(reference)))
    except (TransformError, ValueError) as exc:
        fail(str(exc))
    pipeline = [checked(name, step) for name, step in steps]

    def build(item: Any) -> dict[str, Any]:
        from pi_tools.pipe.documents import materialized

        document = as_context(item, leaf, version)
        messages = materialized(document.get("messages"))
        for step in pipeline:
            try:
                messages = step(messages)
            except TransformError as exc:
                from pi_tools.pipe.documents import DocumentError

                raise DocumentError(str(exc)) from None
        return {**document, "messages": messages, "transforms": [name for name, _ in steps]}

    run_documents(files or [], build, pi=version)


def _to_session(files: list[str], out: str, force: bool, leaf: str | None, drop_role: list[str],
                keep_last: int | None, block_images: bool, redact: list[str], plugin: list[str],
                use: list[str], dry_run: bool, output_format: ReportFormat, version: Any = None) -> None:
    """`transform FILE ... --to-session OUT`: the library does the work (pi_tools.rewrite.transformed)."""
    from pi_tools.cli.rewriting import print_changes
    from pi_tools.rewrite.transformed import Step, TransformSessionError, transform_session
    from pi_tools.transforms import TransformError, available_transforms, checked

    if plugin or use:
        fail(f"--to-session: {'--plugin' if plugin else '--use'} cannot be written to a session (its messages have "
             "no entries to store them in); only --redact, --block-images, --drop-role and --keep-last can")
    if len(files) != 1:
        fail("--to-session takes exactly one session FILE")
    registry = available_transforms()
    steps: list[Step] = []
    try:
        for role in drop_role:
            steps.append(Step("drop-role", f"drop-role={role}", registry["drop-role"].factory(role)))
        if keep_last is not None:
            steps.append(Step("keep-last", f"keep-last={keep_last}", registry["keep-last"].factory(keep_last)))
        if block_images:
            steps.append(Step("block-images", "block-images", registry["block-images"].factory(True)))
        for pattern in redact:
            steps.append(Step("redact", "redact", registry["redact"].factory(pattern)))
    except (TransformError, ValueError) as exc:
        fail(str(exc))
    if not steps:
        fail("--to-session: nothing to do: give --redact, --block-images, --drop-role or --keep-last")
    steps = [Step(step.name, step.label, checked(step.label, step.apply)) for step in steps]
    try:
        result = transform_session(files[0], out, steps, leaf=leaf, force=force, dry_run=dry_run, version=version)
    except (TransformSessionError, TransformError) as exc:
        fail(str(exc))
    aside = "would be set aside" if dry_run else "set aside"
    summary = [f"{files[0]}: {len(result.rejected)} line(s) {aside} in {out}.rejected"] if result.rejected else []
    summary.append(f"{files[0]}: {'would write' if dry_run else 'wrote'} {out}")
    rejected = f"{out}.rejected" if result.rejected else None
    print_changes(files[0], result.changes, output_format, summary, {
        "output": out, "rejected": rejected, "rejectedLines": len(result.rejected), "backup": None,
        "changes": len(result.changes), "dryRun": dry_run})
