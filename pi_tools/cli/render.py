"""`pi-tools render`: a readable preview of what Pi stores, converts and sends, side by side per provider API."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pi_tools.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    fail,
    output_paths,
    report,
    session_files,
    write_pieces,
)
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_UNKNOWN_FORMAT,
    Pi,
    PiInstall,
    PromptCwd,
    RenderFormat,
    SystemPrompt,
    ToolsFile,
    ToolsFileAlias,
    api_option,
    chosen_pi,
    format_option,
    leaf_option,
    model_option,
    output_option,
    paths_argument,
    reasoning_option,
)


def render_command(
    files: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP}, one page each (default: Pi's session folder).")] = None,
    out: Annotated[str | None, output_option("Output file (- for stdout); a directory when PATH... holds several sessions (required).")] = None,
    api: Annotated[list[str] | None, api_option("Provider API to preview (repeat to compare side by side; default: the session's current model and its API, said on stderr).")] = None,
    model: Annotated[list[str] | None, model_option("Catalog model: pairs with --api by position when given as often, else goes to the --api it speaks.")] = None,
    fmt: Annotated[RenderFormat | None, format_option(RenderFormat, "Output format (default: from OUT's extension, else html).", REFUSAL_UNKNOWN_FORMAT)] = None,
    system_prompt: SystemPrompt = None,
    tools_file: ToolsFile = None,
    prompt_cwd: PromptCwd = None,
    pi_install: PiInstall = None,
    reasoning: Annotated[str | None, reasoning_option("Thinking level (default: the session's), clamped per model as Pi does.")] = None,
    leaf: Annotated[str | None, leaf_option("Entry id to build the context from (default: the session's leaf).")] = None,
    block_images: Annotated[bool, typer.Option("--block-images", help="Apply Pi's images.blockImages setting after convertToLlm.")] = False,
    pi: Pi = None,
    tools_alias: ToolsFileAlias = None,
) -> None:
    """Render, for each message, the stored AgentMessage, what convertToLlm made of it and what each API's payload
    holds for it, naming every change Pi makes (thinking replayed as text, signatures dropped, failed turns
    skipped, synthetic tool results, images replaced, tool-call ids renamed, max tokens clamped).

    Without --model each API uses the session's model when it speaks that API, else a representative model.
    The HTML page is self-contained (no network) and escapes all session text. Payloads are built offline.

    Example: pi-tools render s.jsonl --api anthropic-messages --api openai-responses -o s.html
    """
    from pi_tools.output.templates import MissingTemplateError
    from pi_tools.pi import resolve
    from pi_tools.pipe.documents import DocumentError
    from pi_tools.render import RenderRequest, TargetError, pair_targets, render_session
    from pi_tools.session import ContextError, SessionReadError, load_session

    chosen_pi(pi, builds_requests=True, command="render")
    if out is None:
        fail("-o OUT: name the output file (- for stdout)")
    files = session_files(files, default_folder=True)
    version = resolve(pi)
    chosen = fmt or ("md" if out.lower().endswith((".md", ".markdown")) else "html")
    from_session = not api and not model  # each session's own model and API (named on stderr)
    targets = []
    if not from_session:
        try:
            targets = pair_targets(api or [], model or [], version)
        except TargetError as exc:
            fail(str(exc))
    from pi_tools.cli.prompt import request_prompt

    prompt = request_prompt(system_prompt, tools_file, tools_alias, prompt_cwd, pi_install)
    status = EXIT_OK
    for name, path in zip(files, output_paths(files, out, chosen), strict=True):
        request = RenderRequest(targets=list(targets), system_prompt=prompt.system_prompt, tools=prompt.tools,
                                reasoning=reasoning, block_images=block_images, leaf=leaf, pi=version.name,
                                pi_prompt=prompt.pi_prompt)
        try:
            tree = load_session(name, rules=version.context)
            if leaf is not None and leaf not in tree.by_id:
                raise ContextError(f"Entry {leaf} not found")
            if from_session:
                request.targets = [_session_target(tree, name, version)]
            pieces = render_session(tree, request, chosen)
            for note in request.notes:
                report(note)
        except MissingTemplateError as exc:
            fail(str(exc))
        except (SessionReadError, ContextError, TargetError, DocumentError) as exc:
            message = str(exc)
            report(message if name in message else f"{name}: {message}")
            status = EXIT_BAD_INPUT
            continue
        write_pieces(path, pieces)
    raise SystemExit(status)


def _session_target(tree: Any, name: str, version: Any) -> Any:
    """Without --api/--model: the session's current model and its API, said on stderr."""
    from pi_tools.pipeline.answer import current_model
    from pi_tools.render import Target

    model = current_model(tree, version)
    reference = f"{model['provider']}/{model['id']}"
    report(f"{name}: previewed for {reference} ({model['api']}), the session's current model; --api/--model "
           "choose others")
    return Target(str(model["api"]), reference)
