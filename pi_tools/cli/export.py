"""`pi-tools export`: a session as a transcript people read (md, html) or as web ChatMessages (chat)."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from pi_tools.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    exit_without_teardown,
    fail,
    output_paths,
    report,
    session_files,
    write_pieces,
)
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_UNKNOWN_FORMAT,
    REFUSAL_UNKNOWN_VALUE,
    ExportBranches,
    ExportFormat,
    ExportOnly,
    Pi,
    choice_option,
    chosen_pi,
    format_option,
    leaf_option,
    output_option,
    paths_argument,
)

_EXTENSIONS = {"md": "md", "html": "html", "chat": "jsonl"}


def _format_for(out: str, fmt: ExportFormat | None) -> ExportFormat:
    if fmt is not None:
        return fmt
    lowered = out.lower()
    if lowered.endswith((".md", ".markdown")):
        return "md"
    if lowered.endswith((".jsonl", ".ndjson")):
        return "chat"
    return "html"


def export_command(
    files: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP}, one output each (default: Pi's session folder).")] = None,
    out: Annotated[str | None, output_option("Output file (- for stdout); a directory when PATH... holds several sessions (required).")] = None,
    fmt: Annotated[ExportFormat | None, format_option(ExportFormat, "Output format (default: from OUT's extension: .md, .jsonl, else html).", REFUSAL_UNKNOWN_FORMAT)] = None,
    leaf: Annotated[str | None, leaf_option("Entry id whose path to show (default: the session's leaf).")] = None,
    branches: Annotated[ExportBranches, choice_option("--branches", ExportBranches, "The active path only, or the whole tree (abandoned branches marked; md and html).", REFUSAL_UNKNOWN_VALUE)] = "active",
    no_tools: Annotated[bool, typer.Option("--no-tools", help="Leave out tool calls and tool results.")] = False,
    no_thinking: Annotated[bool, typer.Option("--no-thinking", help="Leave out thinking.")] = False,
    only: Annotated[ExportOnly | None, choice_option("--only", ExportOnly, "Show only user messages, or only assistant messages (with their tool calls).", REFUSAL_UNKNOWN_VALUE)] = None,
    redact: Annotated[list[str] | None, typer.Option("--redact", metavar="REGEX", help="Replace matches with [REDACTED] in every session string shown (repeatable).")] = None,
    scrub: Annotated[bool, typer.Option("--scrub", help="Replace detected credentials (API keys, tokens, private keys, URL passwords) with [REDACTED:<kind>].")] = False,
    pi: Pi = None,
) -> None:
    """Export a session to read or to show: a transcript in reading order (user, assistant text and thinking,
    tool calls beside their results, bash executions, custom messages, compaction and branch summaries, with
    timestamps and each turn's model, tokens and cost), as Markdown or one self-contained HTML page; or the
    conversation as AI SDK UI messages, one ChatMessage per line (chat), for web front ends.

    History before a compaction is shown, marked as not in the model's context. --branches all shows every entry
    once, abandoned branches collapsed where they leave the active path. All session text is escaped.

    Example: pi-tools export s.jsonl --branches all --no-thinking --scrub -o s.html
    """
    version = chosen_pi(pi)
    if out is None:
        fail("-o OUT: name the output file (- for stdout)")
    files = session_files(files, default_folder=True)
    from pi_tools.export import ExportError, ExportOptions, export_session
    from pi_tools.export.redaction import RedactError, make_rewrite
    from pi_tools.output.templates import MissingTemplateError
    from pi_tools.pi import resolve
    from pi_tools.session import ContextError, SessionReadError, load_session

    chosen = _format_for(out, fmt)
    if chosen == "chat" and branches == "all":
        fail("--branches all: a chat export is one conversation; pick a branch with --leaf ID "
             "(md and html show the whole tree)")
    try:
        make_rewrite(redact or [], False)
    except RedactError as exc:
        fail(str(exc))
    options = ExportOptions(leaf=leaf, branches=branches, tools=not no_tools, thinking=not no_thinking, only=only,
                            redact=tuple(redact or ()), scrub=scrub, pi=version or resolve(pi))
    rules = resolve(pi).context
    status = EXIT_OK
    for name, path in zip(files, output_paths(files, out, _EXTENSIONS[chosen]), strict=True):
        sidecars: list[tuple[str, str]] = []
        try:
            pieces = export_session(load_session(name, rules=rules), chosen,
                                    replace(options, page=None if path == "-" else path), sidecars)
        except MissingTemplateError as exc:
            fail(str(exc))
        except (SessionReadError, ContextError, ExportError) as exc:
            message = str(exc)
            report(message if name in message else f"{name}: {message}")
            status = EXIT_BAD_INPUT
            continue
        for sidecar, text in sidecars:  # the full texts cut out of the page, beside it, before it
            write_pieces(sidecar, [text])
        write_pieces(path, pieces)
    # The session, the model and the page are freed with the process, not object by object.
    exit_without_teardown(status)
