"""`pi-tools payload`: the exact request body (and HTTP request) Pi 0.85 would send for a session."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pi_tools.cli.common import (
    before_exit,
    checked_api_and_model,
    fail,
    keep_until_exit,
    read_ahead,
    run_documents,
)


def _load_tools(path: str) -> list[dict[str, Any]]:
    from pi_tools.js.errors import JsonSyntaxError
    from pi_tools.session.jsonparse import loads_line

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


def _start_worker(files: list[str], wire: bool) -> Any:
    """The helper process that builds part of each large payload (pi_tools.worker), when one can be used.

    Usually started by pi_tools.cli.entry before the imports; otherwise here, before anything else (no thread
    may exist when it forks, and the session read starts next). Not for --wire, whose HTTP request holds the
    whole payload at once. For an API whose payloads are not built in parts it only indexes the second half.
    """
    from pi_tools.cli.entry import take_early_worker
    from pi_tools.worker import PayloadWorker

    started_early, worker = take_early_worker(files)
    if not started_early and not wire:
        worker = PayloadWorker.start(files)
    if worker is not None:
        before_exit(worker.close)
    return worker


def payload_command(
    files: Annotated[list[str] | None, typer.Argument(help="Session files; stdin (context/llm documents or a session) when omitted.")] = None,
    api: Annotated[str, typer.Option("--api", help="anthropic-messages, openai-completions, openai-responses, google-generative-ai, google-vertex, mistral-conversations or bedrock-converse-stream.")] = ...,  # type: ignore[assignment]
    model: Annotated[str | None, typer.Option("--model", metavar="PROVIDER/ID", help="Catalog model (default: the session's current model).")] = None,
    system_prompt: Annotated[str | None, typer.Option("--system-prompt", metavar="TEXT", help="System prompt to send (default: none).")] = None,
    tools: Annotated[str | None, typer.Option("--tools", metavar="FILE", help="JSON array of {name, description, parameters}.")] = None,
    reasoning: Annotated[str | None, typer.Option("--reasoning", metavar="LEVEL", help="Thinking level (default: the session's), clamped to the model as Pi does.")] = None,
    session_id: Annotated[str | None, typer.Option("--session-id", metavar="ID", help="Prompt-cache session id (default: the session header's id).")] = None,
    wire: Annotated[bool, typer.Option("--wire", help="Also give the HTTP request the SDK would send (credentials redacted).")] = False,
    leaf: Annotated[str | None, typer.Option("--leaf", help="For session files: the entry id to build the context from.")] = None,
) -> None:
    """Build, offline and without an API key, the request body Pi 0.85 would send: one `payload` document per session.

    Where Pi itself fails to build a payload, the failure is reported as an `error` document with Pi's message.

    Example: pi-tools payload --api anthropic-messages --model anthropic/claude-sonnet-4-5 --wire s.jsonl | jq .wire.headers
    """
    worker = _start_worker(files or [], wire)
    read_ahead(files)
    from pi_tools.docs import materialized
    from pi_tools.session.bulk import index_elsewhere
    from pi_tools.stages import PayloadRequest, as_llm, payload_document, payload_document_in_parts
    from pi_tools.worker import part_bytes, split_threshold

    checked_api_and_model(api, model)
    if worker is not None:
        index_elsewhere(worker)  # for every API: the index does not depend on it (the parts do, see can_split)
    threshold = split_threshold()
    request = PayloadRequest(
        api=api, model=model, system_prompt=system_prompt, tools=_load_tools(tools) if tools else None,
        reasoning=reasoning, session_id=session_id, wire=wire,
    )
    def build(item: Any) -> dict[str, Any]:
        llm = as_llm(item, leaf)
        # Drop the session index once the context is planned, and the file's bytes once the messages are built:
        # the encoder then works beside neither (about 200 MiB less at peak on a 100 MB session).
        item.tree = None
        if threshold is not None:
            document = payload_document_in_parts(llm, request, worker.build_parts if worker else None, threshold,
                                                 part_bytes(threshold))
            if document is not None:
                keep_until_exit(llm)
                return document
        llm["messages"] = materialized(llm.get("messages"))
        keep_until_exit(llm)
        return payload_document(llm, request)

    run_documents(files or [], build, diagnostics=False)
