"""A source file's JSON Lines read tolerantly: every line that is not a JSON object is a note, never a crash.

Agents append their transcripts line by line, so a file copied while the agent wrote holds a torn last line, and
a hand-edited or damaged one holds anything. The importers read what can be read and say, per line, what could
not; a file with no record at all cannot be imported (ImportFailed names it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from pi_tools.importers.report import ImportReport


class ImportFailed(Exception):
    """This file cannot be imported at all (the message says why, naming the line where there is one)."""


@dataclass(frozen=True)
class Record:
    """One source line that parsed to a JSON object: its 1-based line number and value."""

    line: int
    value: dict[str, Any]


def read_bytes(path: str) -> bytes:
    """The file's bytes; ImportFailed when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except IsADirectoryError:
        raise ImportFailed("is a directory, not a session file") from None
    except FileNotFoundError:
        raise ImportFailed("no such file") from None
    except OSError as exc:
        raise ImportFailed(f"cannot read: {exc.strerror or exc}") from None


def first_lines(data: bytes, count: int = 20) -> list[bytes]:
    """The first `count` non-blank lines (what detection looks at)."""
    lines: list[bytes] = []
    for raw in data.split(b"\n"):
        if raw.strip():
            lines.append(raw.strip())
            if len(lines) == count:
                break
    return lines


def parse_records(data: bytes, report: ImportReport) -> list[Record]:
    """Every line that is a JSON object; each other non-blank line is dropped with a note saying why."""
    records: list[Record] = []
    lines = data.split(b"\n")
    torn_at = len(lines) if lines and lines[-1].strip() else None  # no newline after the last line
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            report.dropped["unreadable line"] += 1
            if number == torn_at:
                report.note(number, "the last line is cut off (the file was copied while it was written); "
                                    "dropped")
            else:
                report.note(number, f"not JSON ({_reason(exc)}); dropped")
            continue
        if not isinstance(value, dict):
            report.dropped["unreadable line"] += 1
            report.note(number, f"a JSON {_json_kind(value)}, not an object; dropped")
            continue
        records.append(Record(number, value))
    if not records:
        if not data.strip():
            raise ImportFailed("empty file")
        raise ImportFailed(f"no line is a JSON object ({report.dropped['unreadable line']} unreadable "
                           "lines)")
    return records


def _reason(exc: orjson.JSONDecodeError) -> str:
    text = str(exc)
    return text.split(":", 1)[0] if text else "invalid JSON"


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"
