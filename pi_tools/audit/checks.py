"""Audit one session file: every enabled rule, findings in file order.

Line damage, ids, parents and message-level fields are detected once, by the session reader, whose
diagnostics are only classified here (DIAGNOSTIC_RULES); the check_* modules add what the reader does not
look at. A file that cannot be read at all (missing, a directory, unreadable) is not a finding but an error:
the caller exits 2 for it.
"""

from __future__ import annotations

from typing import Any

from pi_tools.audit.check_blocks import check_entries
from pi_tools.audit.check_context import check_context, check_references
from pi_tools.audit.check_edits import check_edits, has_edits
from pi_tools.audit.check_secrets import check_secrets
from pi_tools.audit.check_system import check_removed_tools
from pi_tools.audit.check_tools import check_tool_results
from pi_tools.audit.clean import audit_clean_bytes
from pi_tools.audit.findings import AuditResult, Finding, FindingSink
from pi_tools.audit.rules import DEFAULT_RULES, DIAGNOSTIC_RULES
from pi_tools.session.context import PI_085_RULES, ContextRules
from pi_tools.session.diagnostics import Diagnostic
from pi_tools.session.load import tree_from_raw
from pi_tools.session.reader import (
    RawSession,
    SessionReadError,
    parse_session_bytes,
    paused_gc,
    read_session_bytes,
    validate_header,
)
from pi_tools.session.tree import SessionTree


def audit_file(path: str, enabled: frozenset[str] | None = None, rules: ContextRules = PI_085_RULES) -> AuditResult:
    """Audit the session at `path` (never writes it) as the Pi version whose context rules are `rules` reads it."""
    try:
        data = read_session_bytes(path)
    except SessionReadError as exc:
        return AuditResult(path, error=str(exc))
    try:
        return AuditResult(path, audit_bytes(data, path, enabled, rules))
    except Exception as exc:  # a bug or an input shape nobody foresaw: reported for this file, the others go on
        return AuditResult(path, error=f"{path}: cannot audit ({type(exc).__name__}: {exc}); please report it")


def audit_bytes(data: bytes, source: str, enabled: frozenset[str] | None = None,
                rules: ContextRules = PI_085_RULES) -> list[Finding]:
    """Findings for a session file's bytes; `source` names it in every finding; `rules`: the Pi version's context
    rules (its vocabulary, projection and what its files may hold).

    A clean file is audited from its bulk index (audit/clean.py) when the index's plan is the version's
    (`rules.bulk_entries_fit`: every entry gives what the index reads of it), anything else line by line; both
    give the same findings.
    """
    sink = FindingSink(source, enabled if enabled is not None else DEFAULT_RULES)
    if audit_clean_bytes(sink, data, source, rules):
        return sink.sorted()
    return audit_bytes_line_by_line(data, source, enabled, rules)


def audit_bytes_line_by_line(data: bytes, source: str, enabled: frozenset[str] | None = None,
                             rules: ContextRules = PI_085_RULES) -> list[Finding]:
    """audit_bytes through the line-by-line reader, whatever the file."""
    sink = FindingSink(source, enabled if enabled is not None else DEFAULT_RULES)
    raw = parse_session_bytes(data, source)
    try:
        validate_header(raw, len(data))
    except SessionReadError:
        _map_diagnostics(sink, raw.diagnostics, None)
        _invalid_header(sink, raw, len(data))
        return sink.sorted()
    try:
        tree = tree_from_raw(raw, rules.vocabulary)
    except SessionReadError as exc:
        _map_diagnostics(sink, raw.diagnostics, None)
        sink.add("context-error", None, raw.line_numbers[0] if raw.line_numbers else None,
                 f"Pi fails while migrating this legacy file: {str(exc).removeprefix(source + ': ')}")
        return sink.sorted()
    with paused_gc():  # the checks build many small objects over a large, acyclic heap
        audit_tree(sink, tree, rules)
    return sink.sorted()


def audit_tree(sink: FindingSink, tree: SessionTree, rules: ContextRules = PI_085_RULES) -> None:
    """Every check on a loaded tree (reader diagnostics included), by the Pi version's context rules."""
    _map_diagnostics(sink, tree.diagnostics, tree)
    check_entries(sink, tree, rules)
    check_references(sink, tree, rules)
    if rules.context_edits and sink.wants("context-edit-no-effect") and has_edits(tree):
        check_edits(sink, tree, rules)
    if any(sink.wants(rule) for rule in (
        "tool-result-unmatched", "tool-result-name", "tool-result-order", "tool-result-interleaved",
        "orphaned-tool-call",
    )):
        check_tool_results(sink, tree, rules)
    if rules.declares_tools and sink.wants("removed-tool-called"):
        check_removed_tools(sink, tree)
    if any(sink.wants(rule) for rule in ("context-error", "pi-cannot-load", "foreign-signature")):
        check_context(sink, tree, rules)
    if sink.wants("secret-in-session"):
        check_secrets(sink, tree)


def _map_diagnostics(sink: FindingSink, diagnostics: list[Diagnostic], tree: SessionTree | None) -> None:
    entry_at: dict[int, Any] = {}
    if tree is not None:
        entry_at = {
            line: entry.get("id") for entry, line in zip(tree.entries, tree.line_numbers, strict=False)
            if isinstance(entry, dict)
        }
    torn = any(diag.get("code") == "torn-final-line" for diag in diagnostics)
    for diag in diagnostics:
        rule_id = DIAGNOSTIC_RULES.get(str(diag.get("code")))
        if rule_id is None or (torn and rule_id == "missing-final-newline"):
            continue  # a torn last line lacks its newline by definition: one finding says it
        line = diag.get("line")
        entry_id = diag.get("entryId")
        if entry_id is None and isinstance(line, int):
            entry_id = entry_at.get(line)
        sink.add(rule_id, entry_id, line, str(diag.get("message")))


def _invalid_header(sink: FindingSink, raw: RawSession, size: int) -> None:
    if size == 0:
        sink.add("invalid-header", None, None, "empty file: no session header (Pi would start a new session in it)")
        return
    if not raw.file_entries:
        sink.add("invalid-header", None, None,
                 "no line of the file parses as JSON, so there is no session header; Pi refuses the file")
        return
    first = raw.file_entries[0]
    line = raw.line_numbers[0]
    if not isinstance(first, dict) or first.get("type") != "session":
        what = "not an object" if not isinstance(first, dict) else f"an entry of type {first['type']!r}" \
            if "type" in first else "an object without a type"
        problem = f"the first JSON line is {what}, not a session header"
    else:
        problem = f"the session header's id is {_describe_id(first.get('id', _ABSENT))}, not a string"
    sink.add("invalid-header", None, line, f"{problem}; Pi refuses the file (not a valid pi session)")


_ABSENT = object()


def _describe_id(value: Any) -> str:
    from pi_tools.audit.check_blocks import describe

    return "missing" if value is _ABSENT else describe(value)
