"""Differential comparison with the reference oracle: what pi-tools answers for one session file, stage by
stage, set against the oracle's document for the same file, as a list of differences (empty when pi-tools
gives Pi's answer everywhere).

pi-tools runs in this process through the very functions its CLI runs (pi_tools.pipeline.stages: the inputs, the stage
driver that turns failures into error documents, the document writer), so an `internal error` document or an
exception escaping the driver (a traceback for a CLI user) shows up here as it would there. The library path
(load_session, build_session_context, convert_to_llm) is compared too, as the conformance tests compare it.

Shared by scripts/fuzz_oracle.py (the differential fuzzer) and tests/conformance/test_fuzz_cases.py (its fixed
sample).
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from pi_tools.engine.depth import allow_deep_values

allow_deep_values()  # the recursion limit every process running pi-tools' stages has (the CLI's, its workers')

VARIANTS = ("payloads", "payloadsReasoning")
# Headers that name the machine, the runtime or the SDK build, and values the oracle masked.
TELEMETRY_PREFIXES = ("user-agent", "x-stainless-", "x-amz-user-agent", "amz-sdk-", "x-goog-api-client")
INTERNAL = re.compile(r"internal error \((\w+): (.*)\); please report it", re.S)
# Pi 0.85 grows an array until V8 gives up on a parent cycle; pi-tools stops at once and says so (deliberate).
CYCLE_ERRORS = ("Invalid array length",)


@dataclass
class Difference:
    """One place where pi-tools' answer is not Pi's.

    where: the document part (`context`, `llm`, `entries`, `branch:ID/llm`, `payloads/KEY`, `wire/...`);
    kind: `differs` (values), `key-order`, `pi-tools-failed` (Pi answered), `pi-failed` (pi-tools answered),
    `error-text` (both failed, other words), `internal-error`, `traceback` (an exception escaped the stage
    driver), `hang`, `crash`; path: the first differing JSON path; ours/pi: short renderings there.
    """

    where: str
    kind: str
    path: str = ""
    ours: str = ""
    pi: str = ""

    def signature(self) -> str:
        """The class of this difference: where (without leaf ids, API or model), what, and the path's shape
        or the message's (quoted words and numbers left out)."""
        where = _PAYLOAD_KEY.sub("payload", re.sub(r"^branch:[^/]*", "branch", self.where))
        if self.kind in ("internal-error", "traceback"):
            return f"{where}|{self.kind}|{_shape_of_message(self.ours)}"
        if self.kind == "error-text":
            return f"{where}|{self.kind}|{_shape_of_message(self.pi)}"
        if self.kind in ("pi-tools-failed", "pi-failed"):
            text = self.ours if self.kind == "pi-tools-failed" else self.pi
            return f"{where}|{self.kind}|{_shape_of_message(text)}"
        return f"{where}|{self.kind}|{_INDEX.sub('[*]', self.path)}"

    def as_json(self) -> dict[str, str]:
        return asdict(self)


_INDEX = re.compile(r"\[\d+\]")
_PAYLOAD_KEY = re.compile(r"^payloads(?:Reasoning)?/.*?(?=/wire|$)")


def _shape_of_message(text: str) -> str:
    text = re.sub(r'"[^"]*"', '"…"', text)
    text = re.sub(r"'[^']*'", "'…'", text)
    return re.sub(r"\d+", "N", text)[:120]


def short(value: Any, limit: int = 160) -> str:
    """A bounded rendering of a JSON value for reports (never a giant or deeply nested dump)."""
    try:
        with deep_json():
            text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(type(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


@contextmanager
def deep_json() -> Iterator[None]:
    """Let the stdlib JSON code of this harness recurse deeply (fuzzed values nest thousands of levels); callers
    run on a thread with a large stack (run_with_big_stack). pi-tools' own code never runs inside this."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 1_000_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def loads(data: bytes | str) -> Any:
    with deep_json():
        return json.loads(data)


def run_with_big_stack(function: Callable[[], Any], stack_bytes: int = 1 << 30) -> Any:
    """Run `function` on a thread with a large C stack (for the deep recursion deep_json allows)."""
    import threading

    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = function()
        except BaseException as exc:  # handed to the caller's thread
            result["error"] = exc

    previous = threading.stack_size(stack_bytes)
    try:
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
    finally:
        threading.stack_size(previous)
    thread.join()
    if "error" in result:
        raise result["error"]
    return result.get("value")


# ------------------------------------------------------------------------------------------------------------
# Exact JSON comparison


def first_difference(ours: Any, pi: Any, path: str = "$", order: bool = False) -> tuple[str, Any, Any] | None:
    """The first place where two parsed JSON values differ, or None. Iterative (values nest deeply). Booleans
    are not numbers (Python's True == 1 would hide a difference); integral floats equal ints, as JSON has one
    number type. With `order`, object keys must come in the same order (the bytes JSON.stringify writes)."""
    stack: list[tuple[str, Any, Any]] = [(path, ours, pi)]
    while stack:
        where, a, b = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            if a.keys() != b.keys():
                missing = [k for k in b if k not in a]
                extra = [k for k in a if k not in b]
                key = (missing or extra)[0]
                return f"{where}.{key}", a.get(key, "<absent>"), b.get(key, "<absent>")
            if order and list(a) != list(b):
                return f"{where}{{order}}", list(a), list(b)
            stack.extend((f"{where}.{k}", a[k], b[k]) for k in reversed(list(b)))
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return f"{where}.length", len(a), len(b)
            stack.extend((f"{where}[{i}]", a[i], b[i]) for i in range(len(b) - 1, -1, -1))
        elif not _same_scalar(a, b):
            return where, a, b
    return None


def _same_scalar(a: Any, b: Any) -> bool:
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def compare(where: str, ours: Any, pi: Any, out: list[Difference], order: bool = False) -> bool:
    """Append a difference for `where` when the values differ (key order too, with `order`); True if equal."""
    found = first_difference(ours, pi)
    kind = "differs"
    if found is None and order:
        found = first_difference(ours, pi, order=True)
        kind = "key-order"
    if found is None:
        return True
    path, a, b = found
    out.append(Difference(where, kind, path, short(a), short(b)))
    return False


# ------------------------------------------------------------------------------------------------------------
# pi-tools, run as its CLI runs it


@dataclass
class StageRun:
    documents: list[Any]
    escaped: str | None  # an exception that got past the stage driver: a traceback for a CLI user


def run_stage_on(path: str, build: Callable[[Any], Any], check_all_lines: bool) -> StageRun:
    """One stage over one session file, in this process, as `pi-tools STAGE FILE` runs it; the documents it
    writes, parsed back."""
    from pi_tools.pipe.documents import DocumentWriter
    from pi_tools.pipeline.stages import iter_inputs, run_stage

    buffer = io.BytesIO()
    writer = DocumentWriter(buffer)
    escaped = None
    try:
        run_stage(iter_inputs([path], None, check_all_lines=check_all_lines), build, writer.write, lambda _m: None)
        writer.flush()
    except Exception as exc:  # noqa: BLE001 - exactly what the fuzzer looks for
        escaped = f"{type(exc).__name__}: {exc}"
    try:
        documents = [loads(line) for line in buffer.getvalue().splitlines() if line.strip()]
    except ValueError as exc:
        documents = []
        escaped = escaped or f"unreadable output: {exc}"
    return StageRun(documents, escaped)


def _one_document(where: str, run: StageRun, out: list[Difference]) -> tuple[dict[str, Any] | None, str | None]:
    """(document, error text) of a stage run over one file, noting tracebacks and internal errors."""
    if run.escaped is not None:
        out.append(Difference(where, "traceback", ours=run.escaped[:300]))
        return None, None
    if len(run.documents) != 1 or not isinstance(run.documents[0], dict):
        out.append(Difference(where, "traceback", ours=f"{len(run.documents)} documents"))
        return None, None
    document = run.documents[0]
    if document.get("kind") == "error":
        error = str(document.get("error"))
        internal = INTERNAL.search(error)
        if internal:
            out.append(Difference(where, "internal-error", ours=f"{internal.group(1)}: {internal.group(2)}"[:300]))
            return None, None
        return None, error
    return document, None


def _error_against(where: str, ours_error: str | None, pi_error: str | None, out: list[Difference]) -> None:
    if ours_error is not None and pi_error is None:
        out.append(Difference(where, "pi-tools-failed", ours=ours_error[:300]))
    elif ours_error is None and pi_error is not None:
        out.append(Difference(where, "pi-failed", pi=pi_error[:300]))
    elif ours_error != pi_error:
        out.append(Difference(where, "error-text", ours=str(ours_error)[:300], pi=str(pi_error)[:300]))


def _context_of(document: dict[str, Any]) -> dict[str, Any]:
    context = {"messages": document.get("messages"), "thinkingLevel": document.get("thinkingLevel"),
               "model": document.get("model")}
    if "thinkingLevel" not in document:
        del context["thinkingLevel"]
    return context


def _context_and_llm(item: Any, leaf: str | None) -> list[Any]:
    from pi_tools.pipe.documents import materialized
    from pi_tools.pipeline.stages import as_context, llm_document

    context = as_context(item, leaf)
    context = {**context, "messages": materialized(context.get("messages"))}
    return [context, llm_document(context)]


def _payload_builder(request: Any) -> Callable[[Any], Any]:
    """What `pi-tools payload` does per input (for sessions below the size that builds payloads in parts)."""
    from pi_tools.pipe.documents import materialized
    from pi_tools.pipeline.stages import as_llm, payload_document

    def build(item: Any) -> Any:
        llm = as_llm(item)
        item.tree = None
        llm["messages"] = materialized(llm.get("messages"))
        return payload_document(llm, request)

    return build


def _reasoning_for(variant: str, inputs: dict[str, Any]) -> str | None:
    """The --reasoning the CLI gets so that it passes what the oracle passed: none for `payloads`; for
    `payloadsReasoning` the session's own level (pi-tools reads it, clamps it) or Pi's fallback level."""
    if variant == "payloads":
        return "off"
    return None if inputs.get("reasoningRequestedFrom") == "session" else str(inputs.get("reasoningRequested"))


def comparable_headers(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if not k.startswith(TELEMETRY_PREFIXES) and v != "<volatile>"}


def _compare_payload(where: str, run: StageRun, entry: dict[str, Any], out: list[Difference]) -> None:
    document, error = _one_document(where, run, out)
    if document is None and error is None:
        return
    _error_against(where, error, entry.get("error"), out)
    if document is None or "error" in entry:
        return
    if not compare(where, document.get("payload"), entry.get("payload"), out, order=True):
        return
    wire, pi_wire = document.get("wire") or {}, entry.get("wire") or {}
    if "error" in wire or "error" in pi_wire:
        _error_against(f"{where}/wire", wire.get("error"), pi_wire.get("error"), out)
        return
    ours_headers = comparable_headers(wire.get("headers") or {})
    pi_headers = comparable_headers(pi_wire.get("headers") or {})
    if ours_headers.get("chatgpt-account-id") == OFFLINE_ACCOUNT and "chatgpt-account-id" in pi_headers:
        pi_headers["chatgpt-account-id"] = OFFLINE_ACCOUNT  # (Codex: the oracle's dummy sign-in names an account)
    ours_line = {"method": wire.get("method"), "url": wire.get("url"), "headers": ours_headers}
    pi_line = {"method": pi_wire.get("method"), "url": pi_wire.get("url"), "headers": pi_headers}
    compare(f"{where}/wire", ours_line, pi_line, out)
    compare(f"{where}/wire.body", wire.get("body"), _wire_body(pi_wire), out, order=True)


OFFLINE_ACCOUNT = "<account-id>"
"""The ChatGPT account pi-tools names offline, where the oracle signed in with a dummy token."""


def _wire_body(wire: dict[str, Any]) -> Any:
    """The oracle's body as JSON: recorded as is, or (Codex) only as the zstd-compressed bytes Pi sent."""
    if "body" in wire or "bodyBase64" not in wire:
        return wire.get("body")
    import base64

    import zstandard

    return loads(zstandard.ZstdDecompressor().decompress(base64.b64decode(wire["bodyBase64"])))


def _library(name: str, pi: dict[str, Any], out: list[Difference]) -> list[str] | None:
    """The library path (eager load, buildSessionContext, convertToLlm, entries); the other leaves, or None."""
    from pi_tools.js.values import UNDEFINED
    from pi_tools.messages import convert_to_llm
    from pi_tools.pipe.documents import dumps_document
    from pi_tools.session import ContextError, SessionReadError, build_session_context, load_session

    def as_json(value: Any) -> Any:
        return loads(dumps_document(value))

    from pi_tools.pi import resolve

    version = resolve()  # (the version the run reproduces: PI_TOOLS_PI, as the stages take it)
    try:
        tree = load_session(name, rules=version.context)
    except SessionReadError as exc:
        if "error" not in pi:
            out.append(Difference("library", "pi-tools-failed", ours=str(exc)[:300]))
        elif str(exc) != pi["error"]:
            out.append(Difference("library", "error-text", ours=str(exc)[:300], pi=pi["error"][:300]))
        return None
    except Exception as exc:  # noqa: BLE001 - a library user would get this exception
        out.append(Difference("library", "internal-error", ours=f"{type(exc).__name__}: {exc}"[:300]))
        return None
    try:
        context = build_session_context(tree, rules=version.context)
        document = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
        if context.thinking_level is UNDEFINED:  # JSON.stringify leaves an undefined member out
            del document["thinkingLevel"]
        ours_context = as_json(document)
        ours_llm = as_json(convert_to_llm(context.messages, passed_through=version.passed_through))
        ours_entries = as_json([tree.materialize(entry) for entry in tree.entries])
        ours_header = as_json(tree.header)
    except ContextError as exc:
        if "error" not in pi:
            out.append(Difference("library", "pi-tools-failed", ours=str(exc)[:300]))
        elif str(exc) != pi["error"] and not pi["error"].startswith(CYCLE_ERRORS):
            out.append(Difference("library", "error-text", ours=str(exc)[:300], pi=pi["error"][:300]))
        return None
    except Exception as exc:  # noqa: BLE001
        out.append(Difference("library", "internal-error", ours=f"{type(exc).__name__}: {exc}"[:300]))
        return None
    if "error" in pi:
        return None  # Pi failed later (convertToLlm, a branch); the stage comparison says whether pi-tools does
    compare("library/header", ours_header, pi["header"], out)
    compare("library/entries", ours_entries, pi["entries"], out)
    compare("library/context", ours_context, pi["context"], out)
    compare("library/llm", ours_llm, pi["llm"], out)
    try:
        return branch_keys([leaf for leaf in tree.leaves() if leaf != pi["leafId"]])
    except Exception as exc:  # noqa: BLE001
        out.append(Difference("library/leaves", "internal-error", ours=f"{type(exc).__name__}: {exc}"[:300]))
        return None


MAX_BRANCHES = 16


def branch_keys(leaves: list[str]) -> list[str]:
    """The keys of the oracle's `branches` object for these other leaves, as JavaScript gives them: it assigns
    `branches[id]` in file order until it holds 16 keys, so a repeated id is one key, `__proto__` sets the
    prototype instead of a key, and Object.keys lists array-index keys ("0", "1") first, ascending."""
    from pi_tools.js.json_stringify import js_own_keys

    return js_own_keys(dict.fromkeys(leaf for leaf in branch_leaves_built(leaves) if leaf != "__proto__"))


def branch_leaves_built(leaves: list[str]) -> list[str]:
    """The other leaves whose contexts the oracle builds, in its order (it stops once `branches` holds 16 keys;
    `__proto__` is built but is no key)."""
    keys: set[str] = set()
    built = []
    for leaf in leaves:
        if len(keys) >= MAX_BRANCHES:
            break
        built.append(leaf)
        if leaf != "__proto__":
            keys.add(leaf)
    return built


def _branch_fails_as_pi(name: str, pi_error: str) -> bool:
    """Whether pi-tools, building the contexts the oracle builds for the other leaves, fails one as Pi failed
    (a parentId cycle where Pi says V8's 'Invalid array length', or Pi's own words): the oracle's whole document
    is then that error, though the session's own leaf builds."""
    from pi_tools.session import load_session

    tree = load_session(name)
    for other in branch_leaves_built([leaf for leaf in tree.leaves() if leaf != tree.leaf_id]):
        run = run_stage_on(name, lambda item, other=other: _context_and_llm(item, other), True)
        error = str(run.documents[0].get("error", "")) if run.documents and isinstance(run.documents[0], dict) \
            else ""
        if error and (error == pi_error or (pi_error.startswith(CYCLE_ERRORS) and "parentId cycle" in error)):
            return True
    return False


def differences(name: str, pi: dict[str, Any], keys: set[str] | None = None, branches: bool = True,
                library: bool = True) -> list[Difference]:
    """Everything in which pi-tools' answer for the session file `name` (a path relative to the current
    directory, so that error texts name it as Pi names it) differs from the oracle's document `pi`.

    `keys` limits the payload comparison to those `VARIANT/KEY`s (None: all of the document's)."""
    from pi_tools.pipeline.stages import PayloadRequest, as_context, as_llm

    for variable in [v for v in os.environ if v.startswith("PI_")]:  # the oracle scrubs Pi's own variables too
        if not variable.startswith("PI_TOOLS_"):  # pi-tools' own (the version, the split size) stay
            del os.environ[variable]
    out: list[Difference] = []
    other_leaves = _library(name, pi, out) if library else None
    context_doc, context_error = _one_document("context", run_stage_on(name, as_context, True), out)
    llm_doc, llm_error = _one_document("llm", run_stage_on(name, as_llm, True), out)
    if "error" in pi:
        errors = [e for e in (context_error, llm_error) if e is not None]
        if any(e == pi["error"] for e in errors):
            return out
        if pi["error"].startswith(CYCLE_ERRORS) and any("parentId cycle" in e for e in errors):
            return out
        if errors:
            out.append(Difference("context", "error-text", ours=errors[0][:300], pi=pi["error"][:300]))
        elif context_doc is not None and llm_doc is not None and not (
                branches and _branch_fails_as_pi(name, pi["error"])):
            out.append(Difference("context", "pi-failed", pi=pi["error"][:300]))
        return out
    if context_error is not None or (context_doc is None and llm_error is None and llm_doc is None):
        if context_error is not None:
            out.append(Difference("context", "pi-tools-failed", ours=context_error[:300]))
        return out
    if context_doc is not None:
        compare("header", context_doc.get("header"), pi["header"], out)
        compare("leafId", context_doc.get("leafId"), pi["leafId"], out)
        compare("context", _context_of(context_doc), pi["context"], out)
    if llm_error is not None:
        out.append(Difference("llm", "pi-tools-failed", ours=llm_error[:300]))
    elif llm_doc is not None:
        compare("llm", llm_doc.get("messages"), pi["llm"], out)
    if branches and pi.get("branches") is not None:
        if other_leaves is not None:
            compare("branches", other_leaves, list(pi["branches"]), out)
        for leaf, branch in pi["branches"].items():
            run = run_stage_on(name, lambda item, leaf=leaf: _context_and_llm(item, leaf), True)
            if run.escaped is not None or len(run.documents) != 2:
                document, error = _one_document(f"branch:{leaf}", run, out)
                if error is not None:
                    out.append(Difference(f"branch:{leaf}", "pi-tools-failed", ours=error[:300]))
                continue
            compare(f"branch:{leaf}/context", _context_of(run.documents[0]), branch["context"], out)
            compare(f"branch:{leaf}/llm", run.documents[1].get("messages"), branch["llm"], out)
    inputs = pi.get("inputs") or {}
    for variant in VARIANTS:
        for key, entry in (pi.get(variant) or {}).items():
            if keys is not None and f"{variant}/{key}" not in keys:
                continue
            request = PayloadRequest(api=key.split("@", 1)[0], model=entry["model"],
                                     system_prompt=inputs.get("systemPrompt"), tools=inputs.get("tools"),
                                     reasoning=_reasoning_for(variant, inputs), wire=True)
            run = run_stage_on(name, _payload_builder(request), False)
            _compare_payload(f"{variant}/{key}", run, entry, out)
    return out
