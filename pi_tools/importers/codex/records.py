"""A Codex rollout read into records of one shape, whatever layout wrote it, with each damaged line explained.

Codex has written three layouts (a file is one of them; `layout` names it in the report):
- `rollout`: Codex CLI 0.3x on (autumn 2025 to now): JSON Lines, each line `{timestamp, type, payload}` with
  `type` one of `session_meta`, `response_item`, `event_msg`, `turn_context`, `compacted`.
- `rollout-bare`: the first Rust Codex CLI (mid 2025): JSON Lines whose first line is the session's metadata itself
  (`{id, timestamp, instructions, git?}`), then bare response items (`{"type":"message",...}`) and
  `{"record_type":"state"}` markers; no line carries a time.
- `rollout-json`: the TypeScript Codex CLI (spring 2025): one pretty-printed JSON object
  `{"session": {timestamp, id, instructions}, "items": [...]}` in `rollout-YYYY-MM-DD-<id>.json`.

Every layout becomes a list of `Record`s, each with the 1-based line it came from, so that the mapper's notes
name source lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from pi_tools.importers.records import ImportFailed, parse_records
from pi_tools.importers.records import Record as JsonLine
from pi_tools.importers.report import ImportReport

LAYOUTS = {
    "rollout": "Codex's JSON Lines of {timestamp, type, payload}",
    "rollout-bare": "the first Rust Codex CLI's bare items, summer 2025",
    "rollout-json": "the TypeScript Codex CLI's one JSON document, spring 2025",
}
"""Each layout, as the report names it."""

WRAPPED_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
"""The `type`s of a current rollout line (codex-rs protocol `RolloutItem`)."""


@dataclass
class Record:
    """One rollout item: `kind` is the `RolloutItem` type (`session_meta`, `response_item`, ...)."""

    line: int
    timestamp: str | None
    kind: str
    payload: Any


@dataclass
class Rollout:
    """A file's records and which layout wrote them."""

    layout: str
    records: list[Record]


def _looks_bare_meta(value: Any) -> bool:
    """The first line of a `rollout-bare` file: the session's metadata with no `type` of its own."""
    return (isinstance(value, dict) and "type" not in value and isinstance(value.get("id"), str)
            and isinstance(value.get("timestamp"), str))


def _first_value(lines: list[bytes]) -> Any:
    for raw in lines:
        if raw.strip():
            try:
                return orjson.loads(raw)
            except orjson.JSONDecodeError:
                return None
    return None


def detect(first_lines: list[bytes]) -> bool:
    """Whether these first lines start a Codex rollout of any layout (for `pi-tools import` without `--from`)."""
    value = _first_value(first_lines)
    if isinstance(value, dict):
        if value.get("type") in WRAPPED_TYPES and "payload" in value:
            return True
        return _looks_bare_meta(value) and ("instructions" in value or "git" in value or "originator" in value)
    # rollout-json: `{` alone on the first line, the "session" key next.
    stripped = [raw.strip() for raw in first_lines if raw.strip()]
    return len(stripped) >= 2 and stripped[0] == b"{" and stripped[1].startswith(b'"session": {')


def read(data: bytes, report: ImportReport) -> Rollout:
    """The records of a rollout's bytes; unreadable lines are noted and counted as dropped (as every source's
    are, importers/records.py). Raises ImportFailed when the file is no rollout of any layout."""
    stripped = data.lstrip()
    if stripped.startswith((b"{\n", b"{\r\n")):
        whole = _whole_json(data)
        if whole is not None:
            return _json_layout(whole)
    values = parse_records(data, report)
    first = values[0].value
    if first.get("type") in WRAPPED_TYPES and "payload" in first:
        return Rollout("rollout", _wrapped(values, report))
    if _looks_bare_meta(first):
        return Rollout("rollout-bare", _bare(values, report))
    raise ImportFailed(f"line {values[0].line}: not a Codex rollout (neither a rollout line {{timestamp, type, "
                       "payload} nor a session's metadata {id, timestamp, ...})")


def _whole_json(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None


def _wrapped(values: list[JsonLine], report: ImportReport) -> list[Record]:
    records: list[Record] = []
    for line, value in ((v.line, v.value) for v in values):
        if not isinstance(value.get("type"), str):
            report.note(line, "not a rollout line (no `type`); left out")
            report.dropped["unreadable line"] += 1
            continue
        if value["type"] not in WRAPPED_TYPES:
            # An item type a later Codex added: kept aside, never guessed at.
            records.append(Record(line, _time(value), value["type"], value.get("payload", value)))
            continue
        records.append(Record(line, _time(value), value["type"], value.get("payload")))
    return records


def _time(value: dict[str, Any]) -> str | None:
    stamp = value.get("timestamp")
    return stamp if isinstance(stamp, str) else None


def _bare(values: list[JsonLine], report: ImportReport) -> list[Record]:
    first_line, meta = values[0].line, values[0].value
    records = [Record(first_line, meta.get("timestamp"), "session_meta", meta)]
    for line, value in ((v.line, v.value) for v in values[1:]):
        if value.get("record_type") == "state":
            records.append(Record(line, None, "state", value))
        elif isinstance(value.get("type"), str):
            records.append(Record(line, _time(value), "response_item", value))
        else:
            report.note(line, "neither a response item nor a state marker; left out")
            report.dropped["unreadable line"] += 1
    return records


def _json_layout(whole: Any) -> Rollout:
    if not isinstance(whole, dict) or not isinstance(whole.get("session"), dict) or not isinstance(
            whole.get("items"), list):
        raise ImportFailed("a JSON document without the `session` and `items` of a TypeScript Codex CLI rollout")
    session = whole["session"]
    records = [Record(1, session.get("timestamp") if isinstance(session.get("timestamp"), str) else None,
                      "session_meta", session)]
    # A one-document layout has no lines to name: a record's `line` is its place (the session 1, items from 2).
    for place, item in enumerate(whole["items"], start=2):
        records.append(Record(place, None, "response_item", item))
    return Rollout("rollout-json", records)
