"""`pi-tools payload`: the exact request body (and HTTP request) Pi (the --pi version) would send for a session."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pi_tools.cli.common import (
    before_exit,
    checked_api_and_model,
    fail,
    keep_until_exit,
    report,
    run_documents,
    run_file_tasks,
    stdin_or_files,
)
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import (
    PATHS_HELP,
    Pi,
    PiInstall,
    PromptCwd,
    SystemPrompt,
    ToolsFile,
    ToolsFileAlias,
    api_option,
    at_option,
    chosen_pi,
    last_option,
    leaf_option,
    model_option,
    paths_argument,
    reasoning_option,
)


def payload_command(
    files: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP}; stdin (context/llm documents or a session) when omitted or -.")] = None,
    api: Annotated[str | None, api_option("The provider API to build the request for (default: --model's, else the "
                                          "session's current model's).")] = None,
    model: Annotated[str | None, model_option("Catalog model (default: the session's current model, said on "
                                              "stderr).")] = None,
    system_prompt: SystemPrompt = None,
    tools_file: ToolsFile = None,
    prompt_cwd: PromptCwd = None,
    pi_install: PiInstall = None,
    reasoning: Annotated[str | None, reasoning_option("Thinking level (default: the session's), clamped to the model as Pi does.")] = None,
    session_id: Annotated[str | None, typer.Option("--session-id", metavar="ID", help="Prompt-cache session id (default: the session header's id).")] = None,
    wire: Annotated[bool, typer.Option("--wire", help="Also give the HTTP request the SDK would send (credentials redacted).")] = False,
    leaf: Annotated[str | None, leaf_option("For session files: the entry id to build the context from.")] = None,
    at: Annotated[str | None, at_option("For session files: rebuild the request that produced this stored assistant "
                                        "message (its context up to the message's parent, its model and API).")] = None,
    last: Annotated[bool, last_option("For session files: --at the last assistant message of the active path.")] = False,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
    tools_alias: ToolsFileAlias = None,
) -> None:
    """Build, offline and without an API key, the request body Pi would send (--pi): one `payload` document per session.

    Where Pi itself fails to build a payload, the failure is reported as an `error` document with Pi's message.

    Without --api and --model the request is built for the session's current model (the model of its last
    answer or model change), named on stderr. A note on stderr says when the request holds no system prompt or
    no tools (sessions that do not record them).

    --system-prompt pi sends Pi's own system prompt and default tools, rebuilt as that Pi version builds them for
    the session's working directory (--cwd DIR: a checkout whose AGENTS.md/CLAUDE.md files go in); a Pi 1.x
    session that records its own (system messages) keeps them, said on stderr.

    Examples: pi-tools payload --last s.jsonl (the request behind the session's last answer);
    pi-tools payload --system-prompt pi --cwd ~/src/project s.jsonl (with Pi's own prompt and tools);
    pi-tools payload --api anthropic-messages --model anthropic/claude-sonnet-4-5 --wire s.jsonl | jq .wire.headers
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

    if at is not None or last:
        _check_answer_options(at, last, api, model, leaf)
    if api is None and model is not None:
        api = _api_of(model, version)
    if api is not None:
        checked_api_and_model(api, model, version)
    from pi_tools.cli.prompt import request_prompt

    prompt = request_prompt(system_prompt, tools_file, tools_alias, prompt_cwd, pi_install)
    request = PayloadRequest(
        api=api, model=model, system_prompt=prompt.system_prompt, tools=prompt.tools, reasoning=reasoning,
        session_id=session_id, wire=wire, pi_prompt=prompt.pi_prompt,
    )
    options = PayloadOptions(request, leaf, split_threshold(), version.name if version is not None else None,
                             at, last)
    if several:
        run_file_tasks(payload_file, files or [], options, chosen)
    if worker is not None:
        index_elsewhere(worker)  # for every API: the index does not depend on it (the parts do, see can_split)
    build_elsewhere = worker.build_parts if worker is not None else None

    def build(item: Any) -> Any:
        notes: list[str] = []
        try:
            return build_payload(item, options, build_elsewhere, keep_until_exit, notes)
        finally:
            for note in notes:
                report(note)

    run_documents(files or [], build, diagnostics=False, pi=version)


def _check_answer_options(at: str | None, last: bool, api: str | None, model: str | None, leaf: str | None) -> None:
    """--at/--last rebuild a stored request: its model, API and context are the stored message's."""
    flag = "--last" if at is None else "--at"
    if at is not None and last:
        fail("--at and --last: give one (--last is --at the last assistant message)")
    for given, name in ((api, "--api"), (model, "--model"), (leaf, "--leaf")):
        if given is not None:
            fail(f"{flag} and {name}: {flag} rebuilds the stored request with the message's own model, API and "
                 "context; leave out " + name)


def _api_of(model: str, version: Any) -> str:
    """--model without --api: the API the catalog model speaks (usage error, exit 2, for an unknown model)."""
    from pi_tools.pi import resolve
    from pi_tools.providers.catalog import find_model
    from pi_tools.providers.errors import UnknownModelError

    try:
        return str(find_model(model, (version or resolve()).requests.catalog)["api"])
    except UnknownModelError as exc:
        fail(f"--model: {exc.args[0] if exc.args else exc}")
