"""`pi-tools transform`: apply transformContext-stage transforms to context documents."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pi_tools.cli.common import fail, run_documents
from pi_tools.engine.early import read_ahead


def transform_command(
    files: Annotated[list[str] | None, typer.Argument(help="Session files; stdin (context documents or a session) when omitted.")] = None,
    keep_last: Annotated[int | None, typer.Option("--keep-last", metavar="N", help="Keep the last N turns (leading summaries stay).")] = None,
    block_images: Annotated[bool, typer.Option("--block-images", help="Replace images as Pi's blockImages setting does.")] = False,
    drop_role: Annotated[list[str] | None, typer.Option("--drop-role", metavar="ROLE", help="Drop messages of ROLE (repeatable); tool calls keep their results.")] = None,
    redact: Annotated[list[str] | None, typer.Option("--redact", metavar="REGEX", help="Replace matches with [REDACTED] in text, tool arguments and output (repeatable).")] = None,
    plugin: Annotated[list[str] | None, typer.Option("--plugin", metavar="MODULE:FUNCTION", help="Apply a Python function AgentMessage[] -> AgentMessage[] (repeatable).")] = None,
    use: Annotated[list[str] | None, typer.Option("--use", metavar="NAME[=VALUE]", help="Apply a transform registered under the pi_tools.transforms entry points.")] = None,
    leaf: Annotated[str | None, typer.Option("--leaf", help="For session files: the entry id to build the context from.")] = None,
) -> None:
    """Transform contexts (AgentMessage[] -> AgentMessage[]) and emit `context` documents.

    Order: --drop-role, --keep-last, --block-images, --redact, --use, --plugin. No transform ever separates a tool
    call from its result; a plugin that does is reported as an error.

    Example: pi-tools transform --keep-last 3 --redact 'sk-[A-Za-z0-9]+' s.jsonl | pi-tools payload --api openai-responses
    """
    read_ahead(files)
    from pi_tools.stages import as_context
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
        from pi_tools.docs import materialized

        document = as_context(item, leaf)
        messages = materialized(document.get("messages"))
        for step in pipeline:
            try:
                messages = step(messages)
            except TransformError as exc:
                from pi_tools.docs import DocumentError

                raise DocumentError(str(exc)) from None
        return {**document, "messages": messages, "transforms": [name for name, _ in steps]}

    run_documents(files or [], build)
