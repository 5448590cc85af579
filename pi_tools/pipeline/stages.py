"""The functions behind every stage, usable from Python without the CLI.

Each stage turns inputs (session files, or documents from an earlier stage) into documents of its own kind.
Inputs that cannot be processed become `error` documents and the others go on, so one damaged file in a
batch never hides the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from pi_tools.js.values import UNDEFINED, js_truthy
from pi_tools.messages import convert_to_llm, default_registry
from pi_tools.messages.convert import iter_llm_messages
from pi_tools.pi import PiVersion, UnknownPiVersion, resolve
from pi_tools.pipe.documents import (
    DocumentError,
    LazyMessages,
    error_document,
    iter_documents,
    looks_like_session,
    materialized,
)
from pi_tools.providers.credentials import OFFLINE_API_KEY  # handed to encoders that insist on a key
from pi_tools.session import ContextError, SessionReadError, SessionTree
from pi_tools.session.bulk import BulkSession
from pi_tools.session.context import iter_context_messages, plan_session_context
from pi_tools.session.load import context_source, load_context_source

if TYPE_CHECKING:
    from pi_tools.providers.edition import Edition

Document = dict[str, Any]


@dataclass
class StageInput:
    """One unit of work: a loaded session, a document from stdin, or an input that already failed."""

    source: str
    tree: SessionTree | BulkSession | None = None
    document: Document | None = None
    error: str | None = None


def iter_inputs(files: Iterable[str], stdin_data: Callable[[], bytes] | None,
                check_all_lines: bool = True, pi: PiVersion | None = None) -> Iterator[StageInput]:
    """Session files named on the command line, else stdin (a raw session file or stage documents).

    Sessions are read for context building only (see load_context_source): the entries of one context are all
    the context stages ever need. `check_all_lines=False` is for stages whose documents carry no diagnostics.
    `pi`: the Pi version the sessions are read as (default: pi.resolve()).
    """
    rules = (pi or resolve()).context
    names = list(files)
    if names:
        for name in names:
            yield loaded_input(name, partial(load_context_source, name, check_all_lines, rules))
        return
    if stdin_data is None:
        return
    data = stdin_data()
    if looks_like_session(data):
        yield loaded_input("<stdin>", lambda: context_source(data, "<stdin>", check_all_lines, rules))
        return
    try:
        for document in iter_documents(data):
            source = document.get("source", "<stdin>") if isinstance(document, dict) else "<stdin>"
            yield StageInput(str(source), document=document)
    except DocumentError as exc:
        yield StageInput("<stdin>", error=str(exc))


def loaded_input(source: str, load: Callable[[], SessionTree | BulkSession]) -> StageInput:
    """One session read for a stage; a file that cannot be read, or a reader bug, becomes that input's error."""
    try:
        return StageInput(source, tree=load())
    except SessionReadError as exc:
        return StageInput(source, error=str(exc))
    except Exception as exc:  # a bug or an input shape nobody foresaw: report it for this input, go on
        return StageInput(source, error=f"{source}: internal error ({type(exc).__name__}: {exc}); please report it")


def _json_leaf(leaf: Any) -> Any:
    return None if leaf is UNDEFINED else leaf


def context_document(tree: SessionTree | BulkSession, leaf: str | None = None,
                     pi: PiVersion | None = None) -> Document:
    """The `context` document for a session: Pi's buildSessionContext for its leaf (or `leaf`), as the Pi
    version `pi` builds it (default: pi.resolve()), which the document names (`pi`).

    For a lazily loaded session the messages are a LazyMessages sequence: parsed entry by entry while the
    document is written, so a 100 MB session is never held whole. (A BulkSession was made for this version:
    context_source gives one only where its plan is this version's.)
    """
    version = pi or resolve()
    rules = version.context
    if leaf is not None and leaf not in tree.by_id:
        raise ContextError(f"Entry {leaf} not found")
    wanted = UNDEFINED if leaf is None else leaf
    messages: Any
    if isinstance(tree, BulkSession):
        if tree.rules.vocabulary != rules.vocabulary or not rules.bulk_fits(tree):  # context_source never gives
            # one (its diagnostics are its own version's); a library caller might
            raise ContextError(f"{tree.source}: the bulk index does not plan Pi {version.name}'s context of this "
                               f"session; read it with session.load.context_source(..., rules)")
        plan = tree.plan(wanted, rules)
        planned = tree.planned_messages(plan)
        messages = LazyMessages(planned.__iter__, planned.json_items, planned=planned)
    else:
        plan = plan_session_context(tree, wanted, rules)
        if tree.data is not None:
            messages = LazyMessages(lambda: iter_context_messages(tree, plan.entries, rules))
        else:
            messages = list(iter_context_messages(tree, plan.entries, rules))
    document = {
        "kind": "context",
        "source": tree.source,
        "pi": version.name,
        "header": tree.header,
        "leafId": _json_leaf(plan.leaf_id),
        "thinkingLevel": plan.thinking_level,
        "model": plan.model,
        "messages": messages,
        "diagnostics": [*tree.diagnostics, *plan.diagnostics],
    }
    if plan.thinking_level is UNDEFINED:  # a change entry without its level: Pi's JSON leaves the key out
        del document["thinkingLevel"]
    return document


def document_version(document: Document, pi: PiVersion | None = None) -> PiVersion:
    """The Pi version a stage document was made for: its `pi`, else (a document without one, such as an earlier
    pi-tools wrote) `pi`, else pi.resolve(). A document of another version than an explicitly given `pi` is
    refused (DocumentError): a stage never mixes two versions' rules."""
    named = document.get("pi")
    if named is None:
        return pi or resolve()
    if pi is not None and named != pi.name:
        raise DocumentError(f"{document.get('source', '<stdin>')}: the document was made for Pi {named}, "
                            f"not Pi {pi.name} (--pi)")
    try:
        return resolve(named if isinstance(named, str) else repr(named))
    except UnknownPiVersion as exc:
        raise DocumentError(f"{document.get('source', '<stdin>')}: {exc}") from None


def llm_document(context_doc: Document, pi: PiVersion | None = None) -> Document:
    """The `llm` document: the same session with messages passed through convertToLlm (lazily if they are), as
    the document's Pi version converts them (document_version)."""
    passed = document_version(context_doc, pi).passed_through
    messages = context_doc.get("messages")
    converted: Any
    if isinstance(messages, LazyMessages):
        registry = default_registry()
        converted = LazyMessages(lambda: iter_llm_messages(messages, registry, passed),
                                 lambda: iter_llm_messages(messages.json_items(), registry, passed),
                                 planned=messages.planned)
    else:
        converted = convert_to_llm(messages or [], None, passed)
    return {**context_doc, "kind": "llm", "messages": converted}


def as_context(item: StageInput, leaf: str | None = None, pi: PiVersion | None = None) -> Document:
    """A context document from any input (raises ContextError/DocumentError with a clear message); a session is
    read as the Pi version `pi` (default: pi.resolve()), a document must be of that version if `pi` is given."""
    if item.error is not None:
        raise DocumentError(item.error)
    if item.tree is not None:
        return context_document(item.tree, leaf, pi)
    document = item.document
    if not isinstance(document, dict) or document.get("kind") != "context":
        kind = document.get("kind") if isinstance(document, dict) else type(document).__name__
        raise DocumentError(f"{item.source}: expected a context document or a session file, got {kind!r}")
    document_version(document, pi)
    return document


def as_llm(item: StageInput, leaf: str | None = None, pi: PiVersion | None = None) -> Document:
    """An llm document from a session, a context document, or an llm document (passed through)."""
    if item.document is not None and isinstance(item.document, dict) and item.document.get("kind") == "llm":
        document_version(item.document, pi)
        return item.document
    return llm_document(as_context(item, leaf, pi), pi)


def run_stage(items: Iterable[StageInput], build: Callable[[StageInput], Document | list[Document]],
              emit: Callable[[Document], None], report: Callable[[str], None], pi: PiVersion | None = None) -> int:
    """Drive one stage as the Pi version `pi` (None: pi.resolve()): build documents for every input, turn failures
    into error documents (which name the version, as every document does); exit code."""
    status = 0
    name = (pi or resolve()).name
    for item in items:
        try:
            result = build(item)
        except (SessionReadError, ContextError, DocumentError) as exc:
            _fail_input(item, str(exc), emit, report, name)
            status = 2
            continue
        except Exception as exc:  # a bug or an input shape nobody foresaw: report it for this input, go on
            _fail_input(item, f"internal error ({type(exc).__name__}: {exc}); please report it", emit, report, name)
            status = 2
            continue
        for document in result if isinstance(result, list) else [result]:
            emit(document)
            if document.get("kind") == "error":
                report(f"{document.get('source')}: {document.get('error')}")
                status = 2
    return status


def _fail_input(item: StageInput, message: str, emit: Callable[[Document], None],
                report: Callable[[str], None], pi: str) -> None:
    """An error document on stdout (naming the Pi version: the input document's own, else the stage's) and one
    line naming the input on stderr."""
    own = item.document.get("pi") if isinstance(item.document, dict) else None
    emit(error_document(item.source, message, own if isinstance(own, str) else pi))
    report(message if message.startswith(item.source) or item.source in message else f"{item.source}: {message}")


@dataclass
class PayloadRequest:
    """What `pi-tools payload` builds: the API, an optional model override and the Context/option inputs."""

    api: str | None
    """None: the API of the model built for (--model's, else the session's)."""
    model: str | None = None
    system_prompt: str | None = None
    tools: list[dict[str, Any]] | None = None
    reasoning: str | None = None
    session_id: str | None = None
    wire: bool = False
    answered: dict[str, Any] | None = None
    """The model that answered the stored message whose request is rebuilt (--at, --last), used as it is."""
    answered_at: str | None = None
    """Where that message is, for the note naming the model ("entry ID, line N")."""
    pi_prompt: Any = None
    """--system-prompt pi: providers.pi_prompt.PiPromptOptions; the request carries the Pi version's own prompt and
    tools for the session's working directory (a --tools-file still replaces the tools)."""


NO_SESSION_MODEL = "the session records no model (no assistant message or model change on its path names one)"
"""Why a command that builds for the session's model has none (payload, render)."""


def resolve_model(request: PayloadRequest, document: Document, catalog: str | None = None) -> Any:
    """The catalog model to build for: the answering model of --at, else --model, else the session's current
    model (which must speak the API when one is given, or be borrowed by it: providers.table.model_speaking); from
    `catalog` (the Pi version's; default the base edition's)."""
    from pi_tools.providers.catalog import DEFAULT_CATALOG, find_model, get_model, session_model_names
    from pi_tools.providers.errors import UnknownModelError
    from pi_tools.providers.table import model_speaking

    if request.answered is not None:
        return request.answered
    catalog = catalog or DEFAULT_CATALOG
    try:
        if request.model:
            model = find_model(request.model, catalog)
        else:
            names = session_model_names(document.get("model"))
            if names is None:
                wanted = "--model PROVIDER/ID" if request.api else "--api API and --model PROVIDER/ID"
                raise DocumentError(f"{NO_SESSION_MODEL}; pass {wanted}")
            model = get_model(*names, catalog)
    except UnknownModelError as exc:
        message = str(exc.args[0] if exc.args else exc)
        if not request.model:
            message = f"the session's model is not in the catalog ({message}); pass --api API and --model PROVIDER/ID"
        raise DocumentError(message) from None
    if request.api is None:
        return model
    speaking = model_speaking(request.api, model)
    if speaking is None:
        raise DocumentError(
            f"model {model['provider']}/{model['id']} speaks {model.get('api')}, not {request.api}; "
            f"pass --model with a model of that API (see pi-tools models --api {request.api})"
        )
    return speaking


def settled_request(llm_doc: Document, request: PayloadRequest,
                    notes: list[str] | None = None) -> tuple[PayloadRequest, Any]:
    """(the request with its API settled, the catalog model) for one session; where the model was not given
    (--model), a note in `notes` names the one taken and where it came from."""
    version = document_version(llm_doc)
    model = resolve_model(request, llm_doc, version.requests.catalog)
    if notes is not None and not request.model:
        reference = f"{model['provider']}/{model['id']}"
        origin = (f"the model that answered {request.answered_at}" if request.answered is not None
                  else "the session's current model; --model chooses another")
        notes.append(f"{llm_doc.get('source', '<stdin>')}: built for {reference} ({model['api']}), {origin}")
    if request.api is None:
        request = replace(request, api=str(model["api"]))
    return request, model


def _payload_inputs(llm_doc: Document, request: PayloadRequest, notes: list[str] | None = None,
                    ) -> tuple[PayloadRequest, Any, dict[str, Any], dict[str, Any]]:
    """The request with its API settled (settled_request), the model, the stream options and the context (without
    messages) Pi's streamSimple gets for a session."""
    from pi_tools.pi import requests_refusal
    from pi_tools.providers.options import clamp_thinking_level

    version = document_version(llm_doc)
    refusal = requests_refusal(version, "payload")
    if refusal is not None:
        raise DocumentError(refusal)
    from pi_tools.providers.registry import absent_api_refusal

    if request.api is not None:
        refusal = absent_api_refusal(request.api, version.requests, f"Pi {version.name}")
        if refusal is not None:
            raise DocumentError(refusal)
    request, model = settled_request(llm_doc, request, notes)
    header = llm_doc.get("header") or {}
    session_id = request.session_id if request.session_id is not None else header.get("id")
    requested = request.reasoning if request.reasoning is not None else llm_doc.get("thinkingLevel")
    options: dict[str, Any] = {"apiKey": OFFLINE_API_KEY}
    if isinstance(session_id, str):
        options["sessionId"] = session_id
    if js_truthy(requested) and requested != "off":  # any value: pi-ai clamps an unknown one to the weakest level
        level = clamp_thinking_level(model, requested)
        if level != "off":
            options["reasoning"] = level
    context: dict[str, Any] = {"systemPrompt": request.system_prompt}
    if request.tools:
        context["tools"] = request.tools
    if request.pi_prompt is not None:
        _add_pi_prompt(llm_doc, request, version, context)
    return request, model, options, context


def _add_pi_prompt(llm_doc: Document, request: PayloadRequest, version: PiVersion, context: dict[str, Any]) -> None:
    """--system-prompt pi: the version's own prompt and default tools (providers.pi_prompt) into `context`."""
    from pi_tools.providers.pi_prompt import session_pi_prompt

    header = llm_doc.get("header") or {}
    try:
        prompt, tools = session_pi_prompt(version.requests.prompt, request.pi_prompt,
                                          header.get("cwd") if isinstance(header, dict) else None)
    except ValueError as exc:
        raise DocumentError(str(exc)) from None
    context["systemPrompt"] = prompt
    if not request.tools:
        context["tools"] = tools


PI_PROMPT_KEPT = ("note: the session records its own system prompt and tools (system messages): sent as recorded, "
                  "--system-prompt pi is not applied")
"""Said where a Pi 1.x transcript keeps its recorded prompt over --system-prompt pi (pi_prompt_kept)."""


def pi_prompt_note(llm_doc: Document, options: Any) -> str:
    """The stderr line saying the request carries Pi's own prompt, and from what it was rebuilt."""
    from pi_tools.providers.pi_prompt import INSTALL_PLACEHOLDER

    origin = (f"--cwd {options.cwd}, its context files read" if options.cwd is not None
              else "the session header's cwd, no context files read (--cwd DIR reads a checkout's)")
    install = "" if options.install is not None else f"; its docs named at {INSTALL_PLACEHOLDER} (--pi-install DIR)"
    return (f"{llm_doc.get('source', '<stdin>')}: system prompt and tools: Pi {document_version(llm_doc).name}'s "
            f"own, for {origin}{install}")


def _note_pi_prompt(llm_doc: Document, request: PayloadRequest, notes: list[str] | None) -> None:
    if notes is not None and request.pi_prompt is not None:
        notes.append(pi_prompt_note(llm_doc, request.pi_prompt))


def pi_prompt_parts(llm_doc: Document, options: Any, given_tools: list[dict[str, Any]] | None,
                    version: PiVersion) -> tuple[str | None, list[dict[str, Any]] | None, str]:
    """--system-prompt pi for a document whose messages are a list (render): (prompt, tools, the note), the
    tools given (--tools-file) replacing Pi's; (None, None, note) where a Pi 1.x transcript keeps its own
    (pi_prompt_kept). DocumentError when no working directory is known."""
    from pi_tools.providers.transcript import has_system_messages

    source = llm_doc.get("source", "<stdin>")
    if version.requests.records_prompt and has_system_messages(llm_doc.get("messages") or []):
        return None, None, f"{source}: {PI_PROMPT_KEPT}"
    context: dict[str, Any] = {}
    _add_pi_prompt(llm_doc, PayloadRequest(api=None, tools=given_tools, pi_prompt=options), version, context)
    return context["systemPrompt"], given_tools or context.get("tools"), pi_prompt_note(llm_doc, options)


def pi_prompt_kept(context: dict[str, Any], request: PayloadRequest, edition: Edition) -> str | None:
    """Under a version that records its prompt (Pi 1.x), a transcript with system messages keeps them with
    --system-prompt pi: Pi itself would rebuild its prompt from the user's own install, skills and settings,
    which the session does not record, so the recorded prompt is the truer one. Drops Pi's rebuilt prompt from
    `context` and returns the note saying so (None when nothing is dropped)."""
    from pi_tools.providers.transcript import has_system_messages

    if request.pi_prompt is None or not edition.records_prompt or not has_system_messages(context["messages"]):
        return None
    context["systemPrompt"] = request.system_prompt
    if request.tools:
        context["tools"] = request.tools
    else:
        context.pop("tools", None)
    return PI_PROMPT_KEPT


def _as_recorded(context: dict[str, Any]) -> dict[str, Any]:
    """The context of a request from a transcript that records its prompt and tools (Pi 1.x): sent as recorded,
    with a system message after it where --system-prompt or --tools differ from what it records (docs: "Which
    Pi"); a transcript without system messages takes them as Pi 0.85 did."""
    import time

    from pi_tools.providers.transcript import has_system_messages, resumed_prompt_update

    messages = context["messages"]
    if not has_system_messages(messages):
        return context
    update = resumed_prompt_update(messages, context.get("systemPrompt"), context.get("tools"),
                                   time.time_ns() // 1_000_000)
    return {"messages": [*messages, update] if update is not None else messages}


def sent_context(context: dict[str, Any], edition: Edition) -> dict[str, Any]:
    """The context `edition`'s streamSimple gets for {systemPrompt, tools?, messages} (what payload_document
    builds from): as given, or as recorded by a transcript that records its prompt and tools (_as_recorded)."""
    return _as_recorded(context) if edition.records_prompt else context


def _payload_result(llm_doc: Document, request: PayloadRequest, model: Any, build: Callable[[], Any],
                    options: dict[str, Any]) -> Document:
    """A payload document from `build()`, or the error document for the failure Pi reports."""
    from pi_tools.providers import registry
    from pi_tools.providers.errors import PayloadError

    source = llm_doc.get("source", "<stdin>")
    reference = f"{model['provider']}/{model['id']}"
    version = document_version(llm_doc)
    try:
        payload = build()
    except PayloadError as exc:
        return {"kind": "error", "source": source, "pi": version.name, "api": request.api, "model": reference,
                "error": str(exc)}
    document: Document = {"kind": "payload", "source": source, "pi": version.name,
                          "api": request.api, "model": reference, "payload": payload}
    if request.wire:
        try:
            document["wire"] = registry.build_wire(str(request.api), model, payload, options, version.requests)
        except PayloadError as exc:
            document["wire"] = {"error": str(exc)}
    return document


def payload_document(llm_doc: Document, request: PayloadRequest, notes: list[str] | None = None) -> Document:
    """The exact request body the document's Pi version would build for this session (and, with `wire`, the HTTP
    request); `notes` gets the lines for stderr (settled_request's, missing_parts_note's)."""
    from pi_tools.providers import registry

    request, model, options, context = _payload_inputs(llm_doc, request, notes)
    context["messages"] = materialized(llm_doc.get("messages"))
    edition = document_version(llm_doc).requests
    kept = pi_prompt_kept(context, request, edition)
    if kept is None:
        _note_pi_prompt(llm_doc, request, notes)
    elif notes is not None:
        notes.append(f"{llm_doc.get('source', '<stdin>')}: {kept}")
    context = sent_context(context, edition)
    api = str(request.api)
    document = _payload_result(llm_doc, request, model,
                               lambda: registry.build_payload(api, model, context, options, edition), options)
    _note_missing_parts(llm_doc, context, notes)
    return document


def missing_parts_note(context: dict[str, Any]) -> str | None:
    """What a request context lacks of what Pi sends with every request (its system prompt, its tools), and how
    to add it; None when it holds both. A transcript that records them (system messages) is read for them."""
    from pi_tools.providers.transcript import current_system_prompt, current_tools, has_system_messages

    messages = context.get("messages") or []
    prompt: Any
    tools: Any
    if has_system_messages(messages):
        from pi_tools.providers.errors import JS_FAILURES

        try:
            prompt, tools = current_system_prompt(messages), current_tools(messages)
        except JS_FAILURES:
            return None  # a system message Pi cannot read: the request fails on it, and says so
    else:
        prompt, tools = context.get("systemPrompt"), context.get("tools")
    if prompt and tools:
        return None
    if not prompt and not tools:
        return ("the request holds no system prompt and no tools: the session does not record them; pass "
                "--system-prompt pi (Pi's own) or --system-prompt TEXT and --tools-file FILE")
    if not prompt:
        return ("the request holds no system prompt: the session does not record it; pass --system-prompt TEXT "
                "(or pi: Pi's own)")
    return "the request holds no tools: the session does not record them; pass --tools-file FILE"


def _note_missing_parts(llm_doc: Document, context: dict[str, Any], notes: list[str] | None) -> None:
    if notes is None:
        return
    note = missing_parts_note(context)
    if note is not None:
        notes.append(f"{llm_doc.get('source', '<stdin>')}: note: {note}")


class Claims(Protocol):
    """Who builds which part: one process takes parts from the front, the other from the back, until they meet,
    so that neither waits for the other whatever their speeds."""

    def front(self) -> int | None:
        """The next part from the front, or None when none is left."""

    def back(self) -> int | None:
        """The next part from the back, or None when none is left."""


class LocalClaims:
    """Claims for parts all built in this process."""

    def __init__(self, count: int) -> None:
        self._next, self._last = 0, count - 1

    def front(self) -> int | None:
        if self._next > self._last:
            return None
        self._next += 1
        return self._next - 1

    def back(self) -> int | None:
        if self._last < self._next:
            return None
        self._last -= 1
        return self._last + 1


PartsBuilder = Callable[[str, Any, dict[str, Any], dict[str, Any], list[Any], str], tuple[Claims, Callable[[], Any]]]
"""Starts build_claimed_parts elsewhere (another process, taking parts from the back) for (api, model, options,
context without messages, planned parts, the session's source), and, as keywords where they apply, build_claimed_parts'
`scan` and `pi`; returns the claims to take this process's parts from the front with, and the function
that waits for the other's built parts (None if building failed)."""


def build_claimed_parts(api: str, model: Any, options: dict[str, Any], context: dict[str, Any],
                        planned_parts: list[Any], claim: Callable[[], int | None],
                        scan: Callable[..., Any] | None = None, pi: str | None = None) -> dict[int, Any] | None:
    """The parts `claim` hands out, built in turn ({index: Part}, the last part as the Tail): only one part's
    messages exist at a time. None where a part cannot be built apart (raises what building one raises).
    `scan`: see split.build_part. `pi`: the name of the Pi version whose requests are built (default: the base
    edition's, with convertToLlm's default roles).

    Under a version whose requests are built from a transcript (Edition.records_prompt) the parts are built from
    the context's systemPrompt and tools, the transcript's leading system message: a part holding a system message
    of its own is not built apart (None), since where a later system message lands, or what it collapses into,
    depends on the whole transcript, and a recorded prompt is sent as recorded (sent_context). (The bulk index,
    the parts' only source, never plans such a file under those rules: ContextRules.bulk_fits.)"""
    from pi_tools.providers import split
    from pi_tools.providers.edition import BASE

    registry = default_registry()
    if pi is None:
        edition, passed = BASE, None
    else:
        version = resolve(pi)
        edition, passed = version.requests, version.passed_through
    last = len(planned_parts) - 1
    built: dict[int, Any] = {}
    while (index := claim()) is not None:
        if passed is None:
            messages = list(iter_llm_messages(planned_parts[index], registry))
        else:
            messages = list(iter_llm_messages(planned_parts[index], registry, passed))
        if edition.records_prompt and _holds_system_message(messages):
            return None
        if index == last:
            built[index] = split.build_tail(api, model, {**context, "messages": messages}, options, scan, edition)
        else:
            part = split.build_part(api, model, {**context, "messages": messages}, options, scan, edition)
            if part is None:
                return None
            built[index] = part
    return built


def _holds_system_message(messages: list[Any]) -> bool:
    return "system" in {message.get("role") for message in messages if type(message) is dict}


def part_bytes(threshold: int) -> int:
    """providers.split.PART_BYTES, or less under a smaller threshold (PI_TOOLS_SPLIT_BYTES=0 cuts before every
    user message, as the tests do)."""
    from pi_tools.providers.split import PART_BYTES

    return max(1, min(PART_BYTES, threshold // 4))


def payload_document_in_parts(llm_doc: Document, request: PayloadRequest, build_elsewhere: PartsBuilder | None,
                              min_text_bytes: int = 0, part_bytes: int | None = None,
                              scan: Callable[..., Any] | None = None,
                              joined: Callable[[list[Any]], None] | None = None,
                              notes: list[str] | None = None) -> Document | None:
    """payload_document for a large session, its conversation built in parts of about `part_bytes` of message
    text (default split.PART_BYTES), so that its messages never all exist at once; with `build_elsewhere`, another
    process builds parts from the back while this one builds them from the front.

    None, before anything is built, when the session is not a clean file's context, has fewer than
    `min_text_bytes` of message lines, or cannot be cut. Where the parts do not join into exactly the whole
    payload (or building one fails), the payload is built whole, as payload_document does.

    For preflight: every part's payload messages go through `scan` (split.build_part), in whichever process
    builds the part, and `joined` is given the built parts in order (split.Part..., split.Tail) when they join.
    """
    from pi_tools.providers import split
    from pi_tools.providers.edition import BASE

    messages = llm_doc.get("messages")
    planned = messages.planned if isinstance(messages, LazyMessages) else None
    if planned is None or request.wire or planned.text_size() < min_text_bytes:
        return None
    if request.api is None:  # the session's model decides the API: settled once, quietly (the build notes it)
        request, _ = settled_request(llm_doc, request)
    if not split.can_split(str(request.api)):
        return None
    version = document_version(llm_doc)
    edition = version.requests
    planned_parts = planned.parts(part_bytes or split.PART_BYTES)
    count = len(planned_parts)
    if count < 2:
        return None
    given_model = request.model
    request, model, options, context = _payload_inputs(llm_doc, request)
    api = str(request.api)
    try:
        if split.build_part(api, model, {**context, "messages": []}, options, None, edition) is None:
            return None  # this model's payload is never built in parts
    except Exception:  # noqa: BLE001 - payload_document reports it
        return None
    extra: dict[str, Any] = {}
    if scan is not None:
        extra["scan"] = scan
    if edition is not BASE:
        extra["pi"] = version.name
    if build_elsewhere is None:
        claims: Claims = LocalClaims(count)
        waiting: Callable[[], Any] = dict
    else:
        claims, waiting = build_elsewhere(api, model, options, context, planned_parts, str(llm_doc.get("source")),
                                          **extra)
    try:
        here = build_claimed_parts(api, model, options, context, planned_parts, claims.front, scan,
                                   extra.get("pi"))
    except Exception:  # noqa: BLE001 - the whole build below reports it exactly as Pi does
        here = None
    there = waiting()  # always collected, so that the other process is ready for the next task
    if there is None and here is not None and len(here) == count:
        there = {}  # the other process took nothing (it is gone): this one built every part
    del planned_parts
    payload = None
    if here is not None and there is not None and len(here) + len(there) == count:
        built = {**here, **there}
        payload = split.join(api, [built[index] for index in range(count - 1)], built[count - 1], edition)
        if payload is not None and joined is not None:
            joined([built[index] for index in range(count)])
    if payload is None:
        return payload_document(llm_doc, replace(request, model=given_model), notes)
    if notes is not None:
        settled_request(llm_doc, replace(request, model=given_model), notes)
        _note_pi_prompt(llm_doc, request, notes)
        _note_missing_parts(llm_doc, context, notes)  # the bulk index plans no file with system messages
    return _payload_result(llm_doc, request, model, lambda: payload, options)
