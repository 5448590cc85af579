"""Preflight of a session's next request (`pi-tools preflight` without --replay)."""

from __future__ import annotations

from typing import Any

from pi_tools.js.values import UNDEFINED
from pi_tools.preflight.check import (
    LazyOrigins,
    PreflightRequest,
    PreflightResult,
    check_payload,
    findings_for,
)
from pi_tools.preflight.provenance import convert_traced, trace_context
from pi_tools.session import ContextError, SessionReadError


class PreflightError(ValueError):
    """An input that cannot be checked (the message names it and says why)."""


def resolve_target(reference: str | None, session_model: Any, catalog: str | None = None) -> dict[str, Any]:
    """The catalog model to check for: --model, else the session's current model (from `catalog`, the Pi
    version's; default the base edition's)."""
    from pi_tools.providers.catalog import DEFAULT_CATALOG, find_model, get_model, session_model_names
    from pi_tools.providers.errors import UnknownModelError
    from pi_tools.providers.registry import supported_apis
    from pi_tools.providers.table import is_api

    catalog = catalog or DEFAULT_CATALOG
    try:
        if reference:
            return find_model(reference, catalog)
        names = session_model_names(session_model)
        if names is None:
            raise PreflightError("the session has no model; pass --model PROVIDER/ID")
        model = get_model(*names, catalog)
    except UnknownModelError as exc:
        raise PreflightError(f"{exc.args[0] if exc.args else exc}; pass --model PROVIDER/ID") from None
    if not is_api(str(model.get("api"))):
        raise PreflightError(f"the session's model {names[0]}/{names[1]} speaks {model.get('api')}, which pi-tools "
                             f"does not build requests for ({', '.join(supported_apis())}); pass --model PROVIDER/ID")
    return model


def preflight_tree(tree: Any, source: str, request: PreflightRequest, release: bool = False,
                   build_elsewhere: Any = None, keep: Any = None) -> PreflightResult:
    """Build the next request for `tree` (a SessionTree or BulkSession) and check it; with `release` (the caller
    owns the tree and needs it no more) the session's bytes and index are dropped once its messages are built,
    as `payload` does, so the encoder works beside neither. A large clean session is then checked through
    payload's parts path (parts.py), never holding its payload whole; `build_elsewhere` (payload's helper, see
    parts.preflight_in_parts) then builds some of the parts in another process, and `keep` holds the large
    objects of that check past it."""
    if request.leaf is not None and request.leaf not in tree.by_id:
        raise ContextError(f"Entry {request.leaf} not found")
    if request.pi_prompt is not None:
        request = with_pi_prompt(request, source, tree.header)
    if release:
        from pi_tools.preflight.parts import preflight_in_parts

        checked = preflight_in_parts(tree, source, request, build_elsewhere=build_elsewhere, keep=keep)
        if checked is not None:
            return checked
    from pi_tools.pi import resolve

    traced = trace_context(tree, UNDEFINED if request.leaf is None else request.leaf, resolve(request.pi).context)
    header = tree.header
    if release:
        tree.__dict__.clear()
        del tree
    return check_whole(source, request, header, traced.plan, traced.messages, traced.origins)


def with_pi_prompt(request: PreflightRequest, source: str, header: Any) -> PreflightRequest:
    """--system-prompt pi: the request with the version's own prompt and tools for the session's working
    directory (pipeline.stages.pi_prompt_parts; raises PreflightError when none is known)."""
    from dataclasses import replace

    from pi_tools.pi import resolve
    from pi_tools.pipe.documents import DocumentError
    from pi_tools.pipeline.stages import pi_prompt_parts

    version = resolve(request.pi)
    try:
        prompt, tools, _ = pi_prompt_parts({"source": source, "pi": version.name, "header": header, "messages": []},
                                           request.pi_prompt, request.tools, version)
    except DocumentError as exc:
        raise PreflightError(str(exc)) from None
    return replace(request, system_prompt=prompt, tools=tools, pi_prompt=None, given_tools=request.tools,
                   pi_prompt_applied=True)


def check_whole(source: str, request: PreflightRequest, header: Any, plan: Any, messages: list[Any],
                origins: list[Any]) -> PreflightResult:
    """The check of a request built whole from its context messages (AgentMessage[]) and their origins; the list
    of messages is emptied once they are converted."""
    from pi_tools.pi import resolve
    from pi_tools.pipeline.stages import PayloadRequest, payload_document, sent_context
    from pi_tools.providers.transcript import has_system_messages

    version = resolve(request.pi)
    edition = version.requests
    llm, llm_origins = convert_traced(messages, origins, version.passed_through)
    messages.clear()
    if request.pi_prompt_applied and edition.records_prompt and has_system_messages(llm):
        from dataclasses import replace  # a Pi 1.x transcript keeps its own prompt (as `payload` does)

        request = replace(request, system_prompt=None, tools=request.given_tools, pi_prompt_applied=False)
    model = resolve_target(request.model, plan.model, edition.catalog)
    api = str(model.get("api"))
    reference = f"{model['provider']}/{model['id']}"
    result = PreflightResult(source, api, reference)
    llm_doc = {"kind": "llm", "source": source, "pi": version.name, "header": header,
               "thinkingLevel": plan.thinking_level, "model": plan.model, "messages": llm}
    document = payload_document(llm_doc, PayloadRequest(
        api=api, model=reference, system_prompt=request.system_prompt, tools=request.tools,
        reasoning=request.reasoning, session_id=request.session_id))
    if document.get("kind") != "payload":
        result.error = f"{source}: Pi {version.name} cannot build this request: {document.get('error')}"
        return result
    payload = document["payload"]
    context: dict[str, Any] = {"systemPrompt": request.system_prompt, "messages": llm}
    if request.tools:
        context["tools"] = request.tools
    try:
        estimate: int | None = edition.estimate(sent_context(context, edition))
    except Exception:  # noqa: BLE001 - damaged content: the estimate is then unknown, the other rules still run
        estimate = None
    # The payload opens with the system prompt where one is given, or (a transcript that records it) where the
    # transcript has system messages.
    has_system = bool(request.system_prompt) or has_system_messages(llm)
    lazy = LazyOrigins(api, model, llm, payload, has_system, edition)
    hits = check_payload(api, model, payload, estimate, request.enabled, lazy.source)
    result.findings = findings_for(source, api, model, payload, hits, llm, llm_origins, has_system, lazy,
                                   version.context)
    return result


def preflight_path(path: str, request: PreflightRequest, build_elsewhere: Any = None,
                   keep: Any = None) -> PreflightResult:
    """Preflight of one session file; unreadable input or an impossible target becomes the result's error.
    `build_elsewhere`, `keep`: see preflight_tree."""
    from pi_tools.pi import resolve
    from pi_tools.session.load import load_context_source

    try:
        return preflight_tree(load_context_source(path, False, resolve(request.pi).context), path, request,
                              release=True,
                              build_elsewhere=build_elsewhere, keep=keep)
    except (SessionReadError, ContextError, PreflightError) as exc:
        message = str(exc)
        return PreflightResult(path, error=message if path in message else f"{path}: {message}")
    except Exception as exc:  # a bug or an input shape nobody foresaw: reported for this file, the others go on
        return PreflightResult(path, error=f"{path}: cannot check ({type(exc).__name__}: {exc}); please report it")
