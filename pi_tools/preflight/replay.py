"""`--replay`: every request a session made, checked and compared with what the provider answered.

For each assistant message on the active path (or on every path), the request Pi (the chosen version) would have
sent before it
is the context up to its parent, built for that message's own provider, model and API. Building each of those
from scratch would be quadratic in the session's length, so requests are handled in runs that share everything
but their end: the same context epoch (latest compaction before them), the same model and whether thinking was on.
A run's longest request is built once; each shorter request is that payload's first `end` items (each item is
traced to its llm message, so `end` is the number of items made from the request's messages). `items` rules run
once per run, `tail` and `request` rules once per request on the cached indexes (see rules.py). A request the
rules would reject is then built exactly, alone, and checked again: its verdict and findings are always those of
the exact request.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_tools.preflight.check import finding, locate
from pi_tools.preflight.named import contradiction
from pi_tools.preflight.outcome import error_class, outcome_of
from pi_tools.preflight.provenance import Origin, convert_traced, map_origins
from pi_tools.preflight.rules import SEVERITY_RANK, iter_hits, rules_for
from pi_tools.providers.answered import request_model
from pi_tools.providers.rulebook.view import RequestView
from pi_tools.session import SessionTree
from pi_tools.session.diagnostics import describe_value

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

OUTCOMES = ("accepted", "rejected", "no-verdict")
PREDICTIONS = ("ok", "reject")


@dataclass
class Options:
    system_prompt: str | None = None
    tools: list[dict[str, Any]] | None = None
    all_branches: bool = False
    enabled: frozenset[str] | None = None
    pi: str | None = None
    """The Pi version's name (None: PI_TOOLS_PI, else the default), resolved where the replay runs."""

    @property
    def version(self) -> PiVersion:
        from pi_tools.pi import resolve

        return resolve(self.pi)


@dataclass
class _Request:
    entry: dict[str, Any]
    position: int  # on the path
    message: dict[str, Any]
    level: Any
    model: dict[str, Any]
    in_catalog: bool
    epoch: int
    count: int = 0  # llm messages in its context (filled per epoch)


@dataclass
class ReplayResult:
    source: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    pi: str | None = None  # the Pi version's name the requests were rebuilt for

    def matrix(self) -> dict[str, dict[str, int]]:
        """Recorded outcome x prediction, over the requests the file reproduces (the others say nothing of the
        rules: see `unreproducible`)."""
        counts = {outcome: dict.fromkeys(PREDICTIONS, 0) for outcome in OUTCOMES}
        for doc in self.requests:
            if doc.get("reproducible", True):
                counts[doc["outcome"]][doc["predicted"]] += 1
        return counts

    def unreproducible(self) -> int:
        """Requests whose rebuilt context crosses damage: the request the session made is not the one rebuilt."""
        return sum(1 for doc in self.requests if not doc.get("reproducible", True))

    def error_classes(self) -> dict[str, int]:
        """Recorded errors by class (outcome.error_class), among the reproducible requests."""
        counts: dict[str, int] = {}
        for doc in self.requests:
            if doc.get("errorClass") is not None and doc.get("reproducible", True):
                counts[doc["errorClass"]] = counts.get(doc["errorClass"], 0) + 1
        return counts


def _thinking_on(model: dict[str, Any], level: Any) -> bool:
    from pi_tools.providers.options import clamp_thinking_level

    return isinstance(level, str) and level != "off" and clamp_thinking_level(model, level) != "off"


def _collect(tree: SessionTree, path: list[Any], catalog: str | None = None) -> list[_Request]:
    """The requests on one path: assistant messages, each with the settings in force before it."""
    out: list[_Request] = []
    level: Any = "off"
    epoch = -1
    for position, entry in enumerate(path):
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if kind == "thinking_level_change":
            level = entry.get("thinkingLevel")
        elif kind == "compaction":
            epoch = position
        elif kind == "message":
            message = tree.materialize(entry).get("message")
            if isinstance(message, dict) and message.get("role") == "assistant" and position > 0:
                model, in_catalog = request_model(message, catalog)
                if model is not None:
                    out.append(_Request(entry, position, message, level, model, in_catalog, epoch))
    return out


def _entry_id(entry: dict[str, Any]) -> str | None:
    """An entry's id as findings give it everywhere (check.py, audit): the string, or null for a damaged one (a
    list, an object), which no reader could look up and no table could show."""
    value = entry.get("id")
    return value if isinstance(value, str) else None


def _doc(source: str, request: _Request, line: int | None, predicted: str, findings: list[dict[str, Any]],
         ) -> dict[str, Any]:
    outcome, error = outcome_of(request.message)
    stop = request.message.get("stopReason")
    return {
        "kind": "request", "source": source, "entryId": _entry_id(request.entry), "line": line,
        "api": request.model.get("api"), "model": f"{request.model.get('provider')}/{request.model.get('id')}",
        "outcome": outcome, "providerError": error,
        "errorClass": error_class(error, stop) if stop in ("error", "aborted") else None,
        "predicted": predicted, "reproducible": True, "notReproducible": None, "findings": findings,
    }


def _payload(model: dict[str, Any], llm: list[Any], level: Any, session_id: Any, options: Options) -> Any:
    from pi_tools.pipeline.stages import OFFLINE_API_KEY, sent_context
    from pi_tools.providers import registry

    stream: dict[str, Any] = {"apiKey": OFFLINE_API_KEY}
    if isinstance(session_id, str):
        stream["sessionId"] = session_id
    if _thinking_on(model, level):
        from pi_tools.providers.options import clamp_thinking_level

        stream["reasoning"] = clamp_thinking_level(model, level)
    context: dict[str, Any] = {"systemPrompt": options.system_prompt, "messages": llm}
    if options.tools:
        context["tools"] = options.tools
    edition = options.version.requests
    return registry.build_payload(str(model["api"]), model, sent_context(context, edition), stream, edition)


def _estimate(llm: list[Any], options: Options) -> int | None:
    from pi_tools.pipeline.stages import sent_context

    context: dict[str, Any] = {"systemPrompt": options.system_prompt, "messages": llm}
    if options.tools:
        context["tools"] = options.tools
    edition = options.version.requests
    try:
        estimate: int | None = edition.estimate(sent_context(context, edition))
        return estimate
    except Exception:  # noqa: BLE001 - damaged content: no estimate, the other rules still run
        return None


def _blocking(findings: list[dict[str, Any]]) -> bool:
    """Whether a finding (graded for the provider) is an error: the request is predicted rejected."""
    return any(SEVERITY_RANK[f["severity"]] >= SEVERITY_RANK["error"] for f in findings)


class _Epoch:
    """One context epoch of a path: its context messages (traced) and each path position's message count."""

    def __init__(self, tree: SessionTree, path: list[Any], upto: int, version: PiVersion | None = None) -> None:
        if version is None:
            from pi_tools.pi import resolve

            version = resolve()
        rules = version.context
        entries = rules.context_entries(path[:upto])
        position_of = {id(entry): index for index, entry in enumerate(path)}
        messages: list[Any] = []
        origins: list[Origin] = []
        positions: list[int] = []
        for entry, (_, produced, _) in zip(entries, rules.projected(entries, tree.materialize), strict=True):
            entry_id = entry.get("id") if isinstance(entry, dict) else None
            origin = (entry_id if isinstance(entry_id, str) else None, tree.line_of(entry))
            position = position_of.get(id(entry), -1)
            for message in produced:
                messages.append(message)
                origins.append(origin)
                positions.append(position)
        converted: list[Any] = []
        self.origins: list[Origin] = []
        self.positions: list[int] = []
        for message, origin, position in zip(messages, origins, positions, strict=True):
            llm, kept = convert_traced([message], [origin], version.passed_through)
            converted.extend(llm)
            self.origins.extend(kept)
            self.positions.extend([position] * len(llm))
        self.llm = converted
        self.compaction = entries[0] if entries and entries is not path else None

    def count_before(self, position: int, epoch: int) -> int:
        """llm messages of the context whose entry comes before `position` on the path (the compaction's summary
        and the kept entries always do)."""
        return sum(1 for p in self.positions if p < position or (epoch >= 0 and p <= epoch))


def replay_tree(tree: SessionTree, source: str, options: Options) -> ReplayResult:
    """Every request of the session (the active path, or every path), in path order."""
    result = ReplayResult(source, pi=options.version.name)
    leaves = tree.leaves() if options.all_branches else [tree.leaf_id]
    seen: set[Any] = set()
    session_id = (tree.header or {}).get("id")
    from pi_tools.session.tree import PathCycleError

    skipped = _skipped_lines(tree)
    for leaf in leaves:
        try:
            path = tree.path(leaf)
        except PathCycleError as exc:
            cyclic = [r for r in _collect(tree, _walk_to_cycle(tree, leaf), options.version.requests.catalog)
                      if id(r.entry) not in seen]
            seen.update(id(r.entry) for r in cyclic)
            for request in cyclic:
                doc = _doc(source, request, tree.line_of(request.entry), "ok", [])
                _not_reproducible(doc, f"its path runs into a parent cycle: {exc}")
                result.requests.append(doc)
            continue
        requests = [r for r in _collect(tree, path, options.version.requests.catalog) if id(r.entry) not in seen]
        seen.update(id(r.entry) for r in requests)
        note = _truncation_note(tree, source, path)
        outside = {id(r.entry): r for r in requests if not r.in_catalog}
        for doc, request in zip(_replay_path(tree, source, path, requests, session_id, options), requests,
                                strict=True):
            if note is not None:
                doc["findings"].append({**note, "api": doc["api"], "model": doc["model"]})
                _not_reproducible(doc, note["message"])
            elif path and not isinstance(path[0], dict):
                _not_reproducible(doc, f"the context starts at line {tree.line_of(path[0])}, which holds no entry "
                                       "(a damaged line): the history before it is lost")
            elif (lost := _skipped_within(tree, path, request, skipped)) is not None:
                _not_reproducible(doc, f"line {lost}, skipped as damaged, stood in its context (the session has "
                                       "no parent ids: Pi links each entry to the line before)")
            if id(request.entry) in outside:
                doc["findings"].append(_catalog_note(source, request, doc, tree.line_of(request.entry),
                                                     options.version.name))
            result.requests.append(doc)
    return result


def _not_reproducible(doc: dict[str, Any], reason: str) -> None:
    """Mark a request the file cannot reproduce: reported with its reason, kept out of the confusion matrix."""
    doc["reproducible"] = False
    doc["notReproducible"] = reason


def _walk_to_cycle(tree: SessionTree, leaf: Any) -> list[Any]:
    """The entries from `leaf` towards the root until one repeats (a cyclic path), root-most first."""
    from pi_tools.session.tree import id_key

    walked: list[Any] = []
    seen: set[int] = set()
    current = tree.by_id.get(id_key(leaf)) if leaf is not None else None
    while isinstance(current, dict) and id(current) not in seen:
        seen.add(id(current))
        walked.append(current)
        parent = current.get("parentId")
        current = tree.by_id.get(id_key(parent)) if parent is not None else None
    walked.reverse()
    return walked


def _skipped_lines(tree: SessionTree) -> list[int]:
    """The lines Pi skips as damaged (unparseable), in file order."""
    lines = [d.get("line") for d in tree.diagnostics if d.get("severity") == "error" and "skips" in d.get("message", "")]
    return sorted(line for line in lines if isinstance(line, int))


def _skipped_within(tree: SessionTree, path: list[Any], request: _Request, skipped: list[int]) -> int | None:
    """A skipped line between a migrated session's first path entry and the request (such a session links
    entries by file order, so the lost line was part of the context); None for sessions with parent ids, where
    a lost line shows as a dangling parent instead."""
    if not skipped or tree.migrated_from is None or not path:
        return None
    first, last = tree.line_of(path[0]), tree.line_of(request.entry)
    if first is None or last is None:
        return None
    at = bisect_left(skipped, first)
    return skipped[at] if at < len(skipped) and skipped[at] < last else None


def _catalog_note(source: str, request: _Request, doc: dict[str, Any], line: int | None, pi: str) -> dict[str, Any]:
    """An info finding for a request whose model the Pi version's catalog does not have (or has with another
    API)."""
    return {"kind": "finding", "source": source, "rule": "replay-model-not-in-catalog", "severity": "info",
            "entryId": _entry_id(request.entry), "line": line,
            "message": f"{doc['model']} ({doc['api']}) is not in Pi {pi}'s model catalog: checked with the rules of "
                       f"{doc['api']}, built as that API's representative model renamed (no context window known)",
            "api": doc["api"], "model": doc["model"], "payloadPath": None,
            "fix": "no repair: nothing to fix; pass --model with a catalog model to check the next request for a "
                   "known model"}


def _truncation_note(tree: SessionTree, source: str, path: list[Any]) -> dict[str, Any] | None:
    """An info finding for a path whose root names a parent missing from the file (see replay-truncated-path)."""
    root = path[0] if path else None
    if not isinstance(root, dict):
        return None
    parent = root.get("parentId")
    if parent is None or (isinstance(parent, str) and parent in tree.by_id):
        return None
    line = tree.line_of(root)
    # A damaged parentId may be any JSON value, nested beyond what formatting it would survive: only a string is
    # shown as it is.
    shown = parent if isinstance(parent, str) else f"({describe_value(parent)})"
    return {"kind": "finding", "source": source, "rule": "replay-truncated-path", "severity": "info",
            "entryId": root.get("id") if isinstance(root.get("id"), str) else None, "line": line,
            "message": f"the context starts at line {line}: its parent {shown} is not in the file (a damaged line "
                       "lost it), so the request the session made held history this one lacks",
            "payloadPath": None,
            "fix": "no repair: the lost line's entry is gone (`pi-tools repair` keeps a damaged line aside); restore "
                   "it by hand to rebuild the request the session made"}


def _replay_path(tree: SessionTree, source: str, path: list[Any], requests: list[_Request], session_id: Any,
                 options: Options) -> Iterator[dict[str, Any]]:
    by_epoch: dict[int, list[_Request]] = {}
    for request in requests:
        by_epoch.setdefault(request.epoch, []).append(request)
    docs: dict[int, dict[str, Any]] = {}
    for epoch, members in by_epoch.items():
        context = _Epoch(tree, path, members[-1].position, options.version)
        positions = context.positions
        for request in members:
            request.count = _count(positions, request.position, epoch)
        runs: dict[tuple[Any, ...], list[_Request]] = {}
        for request in members:
            key = (request.model.get("api"), request.model.get("provider"), request.model.get("id"),
                   _thinking_on(request.model, request.level))
            runs.setdefault(key, []).append(request)
        for run in runs.values():
            for request, doc in _replay_run(tree, source, context, run, session_id, options):
                docs[id(request)] = doc
    for request in requests:
        yield docs[id(request)]


def _count(positions: list[int], position: int, epoch: int) -> int:
    """How many llm messages the request at `position` holds: those from entries before it (positions ascend
    after the compaction's own summary and kept entries, which all come first)."""
    if epoch < 0:
        return bisect_left(positions, position)
    head = next((i for i, p in enumerate(positions) if p > epoch), len(positions))
    return head + bisect_left(positions, position, lo=head) - head


def _replay_run(tree: SessionTree, source: str, context: _Epoch, run: list[_Request], session_id: Any,
                options: Options) -> Iterator[tuple[_Request, dict[str, Any]]]:
    last = max(run, key=lambda r: r.count)
    model = last.model
    api = str(model["api"])
    llm = context.llm[:last.count]
    try:
        payload = _payload(model, llm, last.level, session_id, options)
    except Exception as exc:  # noqa: BLE001 - Pi fails to build it: every request of the run fails the same way
        for request in run:
            yield request, _cannot_build(source, request, tree.line_of(request.entry), exc, options.version.name)
        return
    from pi_tools.providers.transcript import has_system_messages

    origins = map_origins(api, model, llm, payload, bool(options.system_prompt) or has_system_messages(llm),
                          edition=options.version.requests)
    item_origin = origins.item_origin

    def stored(index: int) -> Any:
        return llm[item_origin[index]] if index < len(item_origin) and item_origin[index] < len(llm) else None

    view = RequestView(api, model, payload, source=stored)
    item_hits = list(iter_hits(rules_for(api, model, ("items",), options.enabled), view))
    per_request = rules_for(api, model, ("tail", "request"), options.enabled)
    ascending = all(a <= b for a, b in zip(item_origin, item_origin[1:], strict=False))
    reference = f"{model.get('provider')}/{model.get('id')}"
    for request in run:
        view.end = bisect_left(item_origin, request.count) if ascending \
            else sum(1 for o in item_origin if o < request.count)
        view.estimate = _estimate(context.llm[:request.count], options)
        hits = [hit for hit in item_hits if (hit.needs if hit.needs is not None else (hit.item or 0)) < view.end]
        hits.extend(iter_hits(per_request, view))
        found = (finding(source, hit, api, reference, locate(hit, origins, context.origins)) for hit in hits)
        findings = [f for f in found if f is not None]
        doc = _doc(source, request, tree.line_of(request.entry), "reject" if _blocking(findings) else "ok", findings)
        if doc["outcome"] == "rejected":
            def line_of(item: int) -> int | None:
                index = item_origin[item] if item < len(item_origin) else None
                return context.origins[index][1] if index is not None and index < len(context.origins) else None

            if reason := contradiction(payload, view.end, doc["providerError"], line_of):
                _not_reproducible(doc, reason)
        yield request, doc


def _cannot_build(source: str, request: _Request, line: int | None, exc: Exception, pi: str) -> dict[str, Any]:
    doc = _doc(source, request, line, "reject", [])
    doc["findings"] = [{"kind": "finding", "source": source, "rule": "pi-cannot-build", "severity": "error",
                        "entryId": None, "line": None, "message": _cannot_build_message(exc, pi),
                        "api": doc["api"], "model": doc["model"], "payloadPath": None,
                        "fix": "no repair: Pi itself cannot build this request; report it if pi-tools is wrong"}]
    return doc


def _cannot_build_message(exc: Exception, pi: str) -> str:
    from pi_tools.providers.registry import NotBuiltForEdition

    if isinstance(exc, NotBuiltForEdition):
        return str(exc)  # pi-tools' gap, not Pi's failure
    return f"Pi {pi} fails to build this request: {exc}"


def replay_path(path: str, options: Options) -> ReplayResult:
    """--replay of one session file (read with the line-by-line reader, so damaged files work too)."""
    from pi_tools.session import ContextError, SessionReadError
    from pi_tools.session.load import load_session

    try:
        tree = load_session(path, rules=options.version.context)
        return replay_tree(tree, path, options)
    except (SessionReadError, ContextError) as exc:
        message = str(exc)
        return ReplayResult(path, error=message if path in message else f"{path}: {message}")
    except Exception as exc:  # a bug or an input shape nobody foresaw: reported for this file, the others go on
        return ReplayResult(path, error=f"{path}: cannot replay ({type(exc).__name__}: {exc}); please report it")
