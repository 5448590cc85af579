"""Audit a clean session file from its bulk index, without building its entries.

A clean file (session/bulk.py: every line one Pi-shaped JSON object, ids unique, parents earlier) has no line,
id or parent damage, so its findings come from what its lines hold. One msgspec pass decodes every line into
structs that check, in C, everything the per-entry checks would look at: block types and fields, the message
fields, the types of signatures. A line that passes and holds nothing worth reporting (a replayed assistant turn,
a plain user message, a tool result, ...) keeps only what the tree-wide checks need: its kind and tool call ids
for the tool walk, and for an assistant message with signatures its provider, model and counts. Every other line
(a struct that does not fit, an odd timestamp, an errored or pending turn, a visibility field) is parsed in full
and goes through the very checks the line-by-line reader's tree goes through, as do the few entries that are not
messages. The tool walk is the one of check_tools.py, over records made here; references and the context use the
index's paths. The findings are the same, in the same order, as the line-by-line audit gives (tests compare the
two on every fixture and on thousands of damaged variants).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import UNSET

from pi_tools.audit.check_blocks import check_entry_content, never_replayed
from pi_tools.audit.check_context import (
    branch_summary_finding,
    first_kept_finding,
    foreign_signature_finding,
    signatures,
)
from pi_tools.audit.check_secrets import check_secrets_in_clean_session
from pi_tools.audit.check_tools import (
    ASSISTANT,
    INTERRUPTS,
    RESULT,
    ToolRecords,
    ToolWalk,
    entry_record,
)
from pi_tools.audit.findings import FindingSink
from pi_tools.audit.rules import DIAGNOSTIC_RULES
from pi_tools.js.json_line import loads_line_lenient
from pi_tools.session.bulk import BulkSession, index_clean_session
from pi_tools.session.context import PI_085_RULES, ContextRules
from pi_tools.session.diagnostics import Diagnostic
from pi_tools.session.line_format import (
    DECODE_ERRORS,
    AuditAssistant,
    AuditBash,
    AuditCustom,
    AuditMessageLine,
    AuditText,
    AuditThinking,
    AuditToolResult,
    HeadMessageLine,
    entry_union_decoder,
)
from pi_tools.session.migrations import header_is_current
from pi_tools.session.reader import paused_gc, strictly_utf8
from pi_tools.session.tree import check_entry

_decode_lines = entry_union_decoder(AuditMessageLine).decode_lines
_decode_line = entry_union_decoder(AuditMessageLine).decode
_decode_head = entry_union_decoder(HeadMessageLine).decode  # what the index itself accepts
# Every string this matches passes the tree's timestamp check (_PI_TIMESTAMP and _plausible_date); a line with
# any other timestamp takes the full checks. The timestamps of a slice of lines are matched at once, joined.
_PLAIN_TIMESTAMP = (r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-4]):[0-5][0-9]:[0-5][0-9]"
                    r"(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})")
_plain_timestamp = re.compile(_PLAIN_TIMESTAMP).fullmatch
_plain_timestamps = re.compile(f"(?:{_PLAIN_TIMESTAMP}\n)*{_PLAIN_TIMESTAMP}").fullmatch
_SIGNATURE_NAMES = ("thinkingSignature", "textSignature", "thoughtSignature", "redacted thinking")
_QUIET_STOPS = frozenset({"stop", "length", "toolUse", "deferred"})  # StopReasons that are no finding


class LineCollector:
    """The index's slice decoder for audit: decodes each line as line_format.AuditMessageLine and keeps what the
    checks need.

    Per line: a kind and payload for the tool walk; the lines to parse in full (`full`); for assistant messages
    with signatures, (provider, model, counts).
    """

    def __init__(self) -> None:
        self.kinds = bytearray()
        self.payloads: list[Any] = []
        self.full: list[int] = []
        self.signed: dict[int, tuple[tuple[str, str], tuple[int, int, int, int]]] = {}
        """(provider, model) and counts of thinking, text and thought signatures and redacted thinking blocks"""
        self._origins: dict[tuple[str, str], tuple[str, str]] = {}  # one tuple (and two strings) per origin
        self._names: dict[str, str] = {}  # one string per tool name

    def __call__(self, lines: memoryview, first: int) -> list[Any]:
        try:
            heads = _decode_lines(lines)
        except DECODE_ERRORS:
            try:
                heads = self._one_by_one(lines, first)
            except UnicodeDecodeError as exc:
                raise msgspec.DecodeError(str(exc)) from None
        self._collect(heads, first)
        return heads

    def _one_by_one(self, lines: memoryview, first: int) -> list[Any]:
        """A slice with a line that does not fit AuditMessageLine: each line alone; the misfits must still be lines the
        index takes (else the whole file goes to the line-by-line reader), and are parsed in full."""
        heads: list[Any] = []
        for number, line in enumerate(bytes(lines).split(b"\n"), first):
            try:
                heads.append(_decode_line(line))
            except DECODE_ERRORS:
                heads.append(_decode_head(line))  # raises for a line the index refuses
                line.decode("utf-8")  # a string msgspec refused as UTF-8: the reader reports it (raises)
                self.full.append(number)
        return heads

    def _collect(self, heads: list[Any], first: int) -> None:
        kinds = bytearray(len(heads))  # PASSES: headers, other entries (classified from their parsed entries)
        payloads: list[Any] = [None] * len(heads)
        full, signed, origins, names = self.full, self.signed, self._origins, self._names
        message_line, assistant, tool_result, bash, custom = (AuditMessageLine, AuditAssistant, AuditToolResult, AuditBash,
                                                          AuditCustom)
        text_block, thinking_block, quiet = AuditText, AuditThinking, _QUIET_STOPS
        odd = _odd_timestamps(heads)
        for position, head in enumerate(heads):
            if type(head) is not message_line:
                continue
            message: Any = head.message
            kind = type(message)
            if odd and position in odd:
                full.append(first + position)
            elif kind is assistant:
                if message.stopReason not in quiet:
                    full.append(first + position)
                    continue
                calls = []
                thinking = text = thought = redacted = 0  # signatures (UNSET and "" are falsy, as in JavaScript)
                for block in message.content:
                    block_type = type(block)
                    if block_type is text_block:
                        if block.textSignature:
                            text += 1
                    elif block_type is thinking_block:
                        if block.thinkingSignature:
                            thinking += 1
                        if block.redacted is True:
                            redacted += 1
                    else:
                        name = block.name
                        calls.append((block.id, names.setdefault(name, name)))
                        if block.thoughtSignature:
                            thought += 1
                kinds[position] = ASSISTANT
                payloads[position] = tuple(calls)
                if thinking or text or thought or redacted:
                    origin = (message.provider, message.model)
                    signed[first + position] = (origins.setdefault(origin, origin), (thinking, text, thought, redacted))
            elif kind is tool_result:
                kinds[position] = RESULT
                name = message.toolName
                payloads[position] = (message.toolCallId, names.setdefault(name, name))
            elif (kind is bash and message.excludeFromContext is not UNSET) or \
                    (kind is custom and message.display is not UNSET):
                full.append(first + position)
            else:
                kinds[position] = INTERRUPTS
        self.kinds += kinds
        self.payloads += payloads


def _odd_timestamps(heads: list[Any]) -> set[int]:
    """The positions of message lines whose timestamp is not plainly Pi's (usually none: one match tells)."""
    stamps = [head.timestamp for head in heads if type(head) is AuditMessageLine]
    joined = "\n".join(stamps)
    if joined.count("\n") == len(stamps) - 1 and (not stamps or _plain_timestamps(joined)):
        return set()
    return {position for position, head in enumerate(heads)
            if type(head) is AuditMessageLine and not _plain_timestamp(head.timestamp)}


def _surely_not_clean(data: bytes) -> bool:
    """Signs, cheap to see, that the index would refuse the file, but only once it had decoded all of it: a header
    Pi migrates (legacy files are common) or none, a last line that does not decode (a torn tail)."""
    first_end = data.find(b"\n")
    try:
        header = loads_line_lenient(data[:first_end if first_end >= 0 else len(data)])
    except Exception:  # noqa: BLE001 - any failure: the line-by-line reader says what it is
        return True
    if not (isinstance(header, dict) and header.get("type") == "session" and isinstance(header.get("id"), str)
            and header_is_current(header)):
        return True
    body_end = len(data) - 1 if data.endswith(b"\n") else len(data)
    last_start = data.rfind(b"\n", 0, body_end) + 1
    if last_start > 0:
        last = data[last_start:body_end]
        try:
            _decode_line(last)
        except DECODE_ERRORS:
            try:
                _decode_head(last)  # as LineCollector takes a line
            except DECODE_ERRORS:
                return True
    return False


def audit_clean_bytes(sink: FindingSink, data: bytes, source: str, rules: ContextRules = PI_085_RULES) -> bool:
    """Every check on a clean file's bytes, into `sink`; False (nothing added) when the file is not clean, or when
    an entry of the file gives the context of the Pi version whose context rules are `rules` other than what the
    index reads of it (rules.bulk_entries_fit): the tree's checks then audit it."""
    if _surely_not_clean(data) or not strictly_utf8(data):
        return False  # an invalid byte anywhere, even in a field the index skips, is the reader's to report
    collector = LineCollector()
    with paused_gc():
        session = index_clean_session(data, source, decoder=collector)
    if session is None or not rules.bulk_entries_fit(session):
        return False
    with paused_gc():
        _audit(sink, session, collector)
    return True


def _audit(sink: FindingSink, session: BulkSession, collector: LineCollector) -> None:
    ids = session.line_ids
    kinds, payloads, stops = collector.kinds, collector.payloads, {}
    diagnostics = list(session.diagnostics)
    full = {number: loads_line_lenient(session.line_text(number)) for number in sorted(collector.full)}
    for number, entry in full.items():
        check_entry(entry, entry["type"], entry["id"], number + 1, diagnostics)
    for number, entry in [*session.parsed_entries.items(), *full.items()]:
        kinds[number], payloads[number], stop = entry_record(entry)
        if stop is not None:
            stops[number] = stop
    # The order of the line-by-line audit: diagnostics, entry content, references, tool walk, context.
    _map_diagnostics(sink, diagnostics, ids)
    for number, entry in sorted([*session.parsed_entries.items(), *full.items()]):
        check_entry_content(sink, entry, number + 1)
    _check_references(sink, session)
    if any(sink.wants(rule) for rule in (
        "tool-result-unmatched", "tool-result-name", "tool-result-order", "tool-result-interleaved",
        "orphaned-tool-call",
    )):
        ToolWalk(_records(session, kinds, payloads, stops), sink).run()
    if sink.wants("pi-cannot-load") or sink.wants("foreign-signature"):
        _check_context(sink, session, collector, full)
    if sink.wants("secret-in-session"):
        check_secrets_in_clean_session(sink, session)


def _map_diagnostics(sink: FindingSink, diagnostics: list[Diagnostic], ids: list[Any]) -> None:
    """checks._map_diagnostics for the index: a line's entry id is its id (the header is not an entry)."""
    for diag in diagnostics:
        rule_id = DIAGNOSTIC_RULES.get(str(diag.get("code")))
        if rule_id is None:
            continue
        line = diag.get("line")
        entry_id = diag.get("entryId")
        if entry_id is None and isinstance(line, int) and 2 <= line <= len(ids):
            entry_id = ids[line - 1]
        sink.add(rule_id, entry_id, line, str(diag.get("message")))


def _check_references(sink: FindingSink, session: BulkSession) -> None:
    """check_context.check_references on the entries that can hold references (never message lines)."""
    want_compaction = sink.wants("compaction-first-kept")
    want_branch = sink.wants("branch-summary-from")
    if not (want_compaction or want_branch):
        return
    for number, entry in session.parsed_entries.items():
        entry_type = entry.get("type")
        if entry_type == "compaction" and want_compaction:
            first_kept = entry.get("firstKeptEntryId")
            if not isinstance(first_kept, str):
                continue
            target = session.by_id.get(first_kept)
            if target is not None and session.is_ancestor(number, target):
                continue
            first_kept_finding(sink, entry.get("id"), number + 1, first_kept,
                               None if target is None else target + 1, target is not None)
        elif entry_type == "branch_summary" and want_branch:
            from_id = entry.get("fromId")
            if isinstance(from_id, str) and from_id != "root" and from_id not in session.by_id:
                branch_summary_finding(sink, entry.get("id"), number + 1, from_id)


def _records(session: BulkSession, kinds: bytearray, payloads: list[Any], stops: dict[int, Any]) -> ToolRecords:
    """The tool walk's view of the index: positions are lines; a line's first child is the next line when that
    continues it, its other children the lines that name it as parent from further away (jumps)."""
    parent_index = session.parent_lines
    count = len(parent_index)
    first_kid = list(range(1, count + 1))
    first_kid[-1] = -1
    further: dict[int, list[int]] = {}
    roots = [1] if count > 1 else []
    for line in session.jump_lines:
        first_kid[line - 1] = -1  # a jump does not continue the line before it
        parent = parent_index[line]
        if parent > 0:
            further.setdefault(parent, []).append(line)
        elif line != 1:
            roots.append(line)
    more_kids: dict[int, list[int]] = {}
    for parent, lines in further.items():
        if first_kid[parent] < 0:
            first_kid[parent] = lines[0]
            lines = lines[1:]
        if lines:
            more_kids[parent] = lines
    return ToolRecords(kinds, payloads, stops, session.line_ids, range(1, count + 1), roots, first_kid, more_kids,
                       revisits=False)


def _check_context(sink: FindingSink, session: BulkSession, collector: LineCollector,
                   full: dict[int, dict[str, Any]]) -> None:
    """check_context.check_context for the index: a clean file's context never fails to build."""
    plan = session.plan()
    for diag in plan.diagnostics:
        if diag.get("code") == "pi-cannot-load":
            sink.add("pi-cannot-load", diag.get("entryId"), diag.get("line"), str(diag.get("message")))
    model = plan.model
    if not sink.wants("foreign-signature") or not model:
        return
    current = (model.get("provider"), model.get("modelId"))
    ids, signed = session.line_ids, collector.signed
    for number in plan.entries:  # context order, as the context's messages
        hit = signed.get(number)
        if hit is not None:  # a plain assistant message with signatures
            origin, counts = hit
            if origin == current:
                continue
            found = {name: count for name, count in zip(_SIGNATURE_NAMES, counts, strict=True) if count}
        elif number in full:
            message = full[number]["message"]
            if message.get("role") != "assistant" or never_replayed(message.get("stopReason")):
                continue
            origin = (message.get("provider"), message.get("model"))
            found = signatures(message)
            if origin == current or not found:
                continue
        else:
            continue
        foreign_signature_finding(sink, ids[number], number + 1, origin, found, current)


__all__ = ["LineCollector", "audit_clean_bytes"]
