"""`pi-tools payload`: the exact request body (and HTTP request) Pi 0.85 would send for a session."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pi_tools.cli.common import (
    before_exit,
    checked_api_and_model,
    fail,
    keep_until_exit,
    run_documents,
    run_file_tasks,
    stdin_or_files,
)
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import (
    PATHS_HELP,
    Pi,
    api_option,
    chosen_pi,
    leaf_option,
    model_option,
    paths_argument,
    reasoning_option,
)


def _load_tools(path: str) -> list[dict[str, Any]]:
    from pi_tools.js.errors import JsonSyntaxError
    from pi_tools.js.json_line import loads_line

    try:
        with open(path, "rb") as handle:
            value = loads_line(handle.read())
    except OSError as exc:
        fail(f"--tools {path}: cannot read: {exc.strerror or exc}")
    except (JsonSyntaxError, UnicodeDecodeError) as exc:
        fail(f"--tools {path}: not JSON: {exc}")
    if not isinstance(value, list) or not all(
        isinstance(t, dict) and isinstance(t.get("name"), str) and isinstance(t.get("parameters"), dict) for t in value
    ):
        fail(f"--tools {path}: expected a JSON array of {{name, description, parameters}} objects")
    return value


def payload_command(
    files: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP}; stdin (context/llm documents or a session) when omitted or -.")] = None,
    api: Annotated[str, api_option("The provider API to build the request for.")] = ...,  # type: ignore[assignment]
    model: Annotated[str | None, model_option("Catalog model (default: the session's current model).")] = None,
    system_prompt: Annotated[str | None, typer.Option("--system-prompt", metavar="TEXT", help="System prompt to send (default: none).")] = None,
    tools: Annotated[str | None, typer.Option("--tools", metavar="FILE", help="JSON array of {name, description, parameters}.")] = None,
    reasoning: Annotated[str | None, reasoning_option("Thinking level (default: the session's), clamped to the model as Pi does.")] = None,
    session_id: Annotated[str | None, typer.Option("--session-id", metavar="ID", help="Prompt-cache session id (default: the session header's id).")] = None,
    wire: Annotated[bool, typer.Option("--wire", help="Also give the HTTP request the SDK would send (credentials redacted).")] = False,
    leaf: Annotated[str | None, leaf_option("For session files: the entry id to build the context from.")] = None,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Build, offline and without an API key, the request body Pi would send (--pi): one `payload` document per session.

    Where Pi itself fails to build a payload, the failure is reported as an `error` document with Pi's message.

    Example: pi-tools payload --api anthropic-messages --model anthropic/claude-sonnet-4-5 --wire s.jsonl | jq .wire.headers
    """
    version = chosen_pi(pi, builds_requests=True, command="payload")
    files = stdin_or_files(files)
    chosen = chosen_engine(engine, scheduler, jobs, progress="payload")
    several = bool(files) and (len(files or []) > 1 or chosen.kind == "dask")
    worker = None
    if not several:  # one file: the engine's helper process builds half of a large payload beside this one
        from pi_tools.engine.early import payload_helper, read_ahead

        worker = payload_helper(files or [], wire)
        if worker is not None:
            before_exit(worker.close)
        read_ahead(files)
    from pi_tools.engine.helper import split_threshold
    from pi_tools.pipeline.stages import PayloadRequest
    from pi_tools.pipeline.tasks import PayloadOptions, build_payload, payload_file
    from pi_tools.session.bulk import index_elsewhere

    checked_api_and_model(api, model, version)
    request = PayloadRequest(
        api=api, model=model, system_prompt=system_prompt, tools=_load_tools(tools) if tools else None,
        reasoning=reasoning, session_id=session_id, wire=wire,
    )
    options = PayloadOptions(request, leaf, split_threshold(), version.name if version is not None else None)
    if several:
        run_file_tasks(payload_file, files or [], options, chosen)
    if worker is not None:
        index_elsewhere(worker)  # for every API: the index does not depend on it (the parts do, see can_split)
    build_elsewhere = worker.build_parts if worker is not None else None
    run_documents(files or [], lambda item: build_payload(item, options, build_elsewhere, keep_until_exit),
                  diagnostics=False, pi=version)
