"""Find and redact secrets in every string of every line of a session file, into a session Pi still resumes.

Every line is looked at, not only the active path: abandoned branches, compaction and branch summaries, custom
entries, tool arguments, outputs and `details` all stay on disk and leak alike. Provider opaque fields and ids
are never changed: signatures and encrypted reasoning look like high-entropy secrets but are the provider's
own data, and changing them (or an id) breaks the replay. Lines without a secret are copied byte for byte;
a line with one is written again as Pi writes it (JSON.stringify of the parsed entry, key order kept), so only
the redacted strings differ. An unparseable line (Pi skips it, but its bytes are on disk) has its secrets
replaced in its text, and stays the unparseable line it was.

Reports carry kind, line, entry id and JSON path, never the value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_tools.js.errors import JsonSyntaxError
from pi_tools.js.json_line import loads_line
from pi_tools.js.json_stringify import js_stringify
from pi_tools.rewrite.writer import Change, WriteError, commit, plan_targets, read_snapshot
from pi_tools.secrets.detectors import Scanner
from pi_tools.secrets.values import RULE, find_in_value, redact_text, redact_value


@dataclass(frozen=True)
class Found:
    """One secret: its kind and where it is (1-based input line, entry id, JSON path); never its value."""

    kind: str
    line: int
    entry_id: str | None
    path: str

    def change(self, check: bool) -> Change:
        where = f"entry {self.entry_id}: " if self.entry_id else ""
        verb = "found" if check else "redacted"
        return Change(self.line, f"{where}{verb} {self.kind} at {self.path}", self.entry_id, RULE)


@dataclass
class ScrubResult:
    """The scrubbed lines and every secret found (in file order)."""

    lines: list[bytes]
    found: list[Found] = field(default_factory=list)
    ending: bytes = b""

    def data(self) -> bytes:
        return b"\n".join(self.lines) + self.ending


def scrub_bytes(data: bytes, scanner: Scanner) -> ScrubResult:
    """Scrub a session file's bytes; the line structure (and a missing final newline) is kept as it is."""
    lines = data.split(b"\n")
    ending = b""
    if lines and lines[-1] == b"":
        lines.pop()
        ending = b"\n"
    result = ScrubResult([], [], ending)
    # One multi-anchor pass over all lines (most hold no anchor at all), one more over those that do to know
    # which anchors each holds, so that their strings are tested for those alone.
    holds = scanner.may_hold_many(lines)
    picked = [index for index, line in enumerate(lines) if holds[index] or b"\\u" in line or b"\\/" in line]
    escaped = [b"\\u" in lines[index] or b"\\/" in lines[index] for index in picked]
    anchors = scanner.present_many([lines[index] for index in picked])
    present: list[frozenset[str] | None] = list(anchors) if anchors is not None else [None] * len(picked)
    within: dict[int, frozenset[str] | None] = {
        index: None if was_escaped else anchors for index, anchors, was_escaped in zip(picked, present, escaped,
                                                                                     strict=True)}
    for number, line in enumerate(lines, start=1):
        if number - 1 in within:
            result.lines.append(_scrub_line(line, number, scanner, result.found, within[number - 1]))
        else:
            result.lines.append(line)
    return result


def _scrub_line(line: bytes, number: int, scanner: Scanner, found: list[Found],
                within: frozenset[str] | None) -> bytes:
    """A line that may hold a secret (an anchor in its bytes, or a `\\u` or `\\/` escape that could spell an
    anchor's characters differently; JSON.stringify writes neither for ASCII)."""
    try:
        value = loads_line(line)
    except (JsonSyntaxError, UnicodeDecodeError, RecursionError, ValueError):
        return _scrub_text_line(line, number, scanner, found)
    hits = list(find_in_value(value, scanner, within=within))
    if not hits:
        return line
    entry_id = value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None
    found.extend(Found(kind, number, entry_id, path) for kind, path in hits)
    return js_stringify(redact_value(value, scanner, within)).encode("utf-8")


def _scrub_text_line(line: bytes, number: int, scanner: Scanner, found: list[Found]) -> bytes:
    """An unparseable line: its secrets replaced in its text (invalid UTF-8 bytes kept where no secret is)."""
    text = line.decode("utf-8", "surrogateescape")
    secrets = scanner.find(text)
    if not secrets:
        return line
    found.extend(Found(secret.kind, number, None, "(unparseable line)") for secret in secrets)
    return redact_text(text, secrets).encode("utf-8", "surrogateescape")


def scrub_file(source: str, out: str | None, scanner: Scanner, *, in_place: bool = False, force: bool = False,
               dry_run: bool = False, check: bool = False) -> ScrubResult:
    """Scrub `source` into `out` (or in place) through the session writer; `check`/`dry_run` write nothing.

    With -o, OUT is always written (an unchanged copy when nothing is found, so scripts can rely on it);
    in place, a file without secrets is left alone (no rewrite, no backup).
    """
    writes = not (check or dry_run)
    targets = plan_targets(source, out, in_place=in_place, force=force) if writes else None
    snapshot = read_snapshot(source)
    result = scrub_bytes(snapshot.data, scanner)
    if targets is not None and (result.found or not in_place):
        commit(snapshot, targets, result.data(), b"")
    return result


__all__ = ["Found", "ScrubResult", "WriteError", "find_in_value", "redact_value", "scrub_bytes", "scrub_file"]
