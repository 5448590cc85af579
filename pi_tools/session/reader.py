"""Read a Pi session file exactly as Pi 0.85's loadEntriesFromFile does, and say what it passed over.

Pi decodes the file as UTF-8 (bad bytes become U+FFFD), splits on "\\n" only, JSON.parses every line, drops
blank, malformed and falsy lines without a word, and keeps every other value (objects, but also `42` or `[]`).
The first kept value must be a `session` header with a string id or the file is "not a valid pi session".
pi-tools keeps the same entries and adds a diagnostic, with its line number, for everything Pi dropped or
would repair. The file is only ever opened for reading.
"""

from __future__ import annotations

import gc
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson

from pi_tools.js.errors import JsonSyntaxError
from pi_tools.js.json_parse import parse_js_json
from pi_tools.js.values import JS_WHITESPACE
from pi_tools.session.diagnostics import Diagnostic, diagnostic
from pi_tools.session.heads import message_head
from pi_tools.sources import readahead

APP_NAME = "pi"



class SessionReadError(Exception):
    """The file cannot be used as a session at all (missing, a directory, unreadable, not a pi session)."""


@dataclass
class RawSession:
    """Everything loadEntriesFromFile returns, plus where each value came from and what was dropped."""

    source: str
    file_entries: list[Any]
    line_numbers: list[int]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    data: bytes | None = None  # kept by lazy parsing, for heads parsed on demand
    refused_lines: list[int] = field(default_factory=list)
    """Lines orjson refused (read with JSON.parse's rules instead; the last line always is): the line-level
    scans that parse with orjson alone (usage's) skip them, and the index marks their usage uncounted."""


@contextmanager
def paused_gc() -> Iterator[None]:
    """Suspend the cyclic GC while building millions of acyclic JSON objects.

    Parsed session JSON holds no reference cycles, yet the collector would otherwise rescan the growing heap
    again and again; pausing it makes parsing a 100 MB session about three times faster.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _js_falsy(value: Any) -> bool:
    """JSON values Pi drops after parsing: null, false, 0, "" (arrays and objects are truthy)."""
    if value is None or value is False or value == "":
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == 0 or (isinstance(value, float) and math.isnan(value))
    return False


def _describe_failure(text: str, error: JsonSyntaxError, is_last: bool) -> tuple[str, str]:
    """Classify a line JSON.parse rejects: (code, human message)."""
    if is_last:
        return "torn-final-line", f"torn final line (no newline at end of file, not valid JSON: {error})"
    if "\x00" in text:
        return "nul-byte", "line contains NUL bytes; not valid JSON"
    if text.lstrip(JS_WHITESPACE) != text.lstrip(" \t\r") and text.startswith("\ufeff"):
        return "bom", "line starts with a UTF-8 byte-order mark, which JSON.parse rejects"
    stripped = text.strip(" \t\r")
    if stripped[:1] in "{[" and "after JSON" in str(error):
        return "concatenated-objects", (
            f"two JSON values on one line (the second starts at column {error.column})"  # "; Pi skips this line" follows
        )
    return "invalid-json", f"invalid JSON at column {error.column}: {error}"


def parse_session_bytes(data: bytes, source: str, lazy: bool = False) -> RawSession:
    """Parse a whole session file's bytes into Pi's file entries, recording diagnostics.

    With `lazy`, well-formed message lines become small heads (see heads.py) that keep a reference into `data`
    and are parsed fully only when needed; everything else is parsed as usual.
    """
    entries: list[Any] = []
    line_numbers: list[int] = []
    diagnostics: list[Diagnostic] = []
    refused: list[int] = []
    loads = orjson.loads
    append_entry = entries.append
    append_line = line_numbers.append
    view = memoryview(data)
    size = len(data)
    find = data.find
    # msgspec does not look inside the raw message content, so invalid UTF-8 there would slip past the heads;
    # such a file (rare) is read eagerly, where every bad byte is found and reported.
    head_of = message_head if lazy and valid_utf8(data) else None
    start = 0
    number = 0
    with paused_gc():
        while start < size:
            end = find(b"\n", start)
            is_last = end < 0
            if is_last:
                end = size
            number += 1
            line = view[start:end]
            if head_of is not None:
                head = head_of(line, start, end)
                if head is not None:
                    append_entry(head)
                    append_line(number)
                    start = end + 1
                    continue
            if is_last:
                value = _slow_parse(bytes(line), number, True, diagnostics)
            else:
                try:
                    value = loads(line)
                except orjson.JSONDecodeError:
                    refused.append(number)
                    value = _slow_parse(bytes(line), number, False, diagnostics)
            start = end + 1
            if value is _SKIP:
                continue
            if type(value) is not dict:
                if _js_falsy(value):
                    if not is_last:
                        diagnostics.append(diagnostic(
                            "falsy-value",
                            f"line holds the JSON value {bytes(line).strip().decode('utf-8', 'replace')[:20]}, which Pi drops",
                            number, "info"))
                    continue
                diagnostics.append(diagnostic(
                    "non-object", "line holds a JSON value that is not an object; Pi keeps it as an entry without id",
                    number, "warning"))
            append_entry(value)
            append_line(number)
    if size > 0 and not data.endswith(b"\n"):
        diagnostics.append(missing_final_newline(number))
    return RawSession(source, entries, line_numbers, diagnostics, data=data if lazy else None,
                      refused_lines=refused)


def missing_final_newline(line: int) -> Diagnostic:
    return diagnostic(
        "missing-final-newline",
        "file does not end with a newline; Pi would append one when it opens the file (pi-tools does not write)",
        line, "info")


_SKIP: Any = object()
_ASCII = bytes(range(128))


def valid_utf8(data: bytes) -> bool:
    """Cheap check that the non-ASCII bytes of a file decode as UTF-8 (about 1 ms per MB).

    Only the high bytes are kept (ASCII removed in C) and decoded. A contrived file could pass while holding an
    invalid sequence split around ASCII bytes; materialising such a line still decodes it as Pi does.
    """
    return _decodes(data.translate(None, _ASCII))


def strictly_utf8(data: bytes, chunk: int = 4096) -> bool:
    """Whether every byte of the file decodes as UTF-8, exactly (unlike valid_utf8, which a sequence split by an
    ASCII byte can pass).

    The file is taken in pieces of about `chunk` bytes, each cut before a byte that does not continue a
    sequence (at most three continuation bytes later), so that a valid file's pieces are valid on their own and
    an invalid one's are not; pieces that are all ASCII (most of a session's text) are not decoded at all. On
    the 100 MB benchmark session: 0.04 s instead of 0.37 s for decoding it all.
    """
    if data.isascii():
        return True
    size = len(data)
    start = 0
    while start < size:
        end = start + chunk
        if end < size:
            last = end + 3
            while end < last and end < size and 0x80 <= data[end] < 0xC0:
                end += 1
        piece = data[start:end]
        if not piece.isascii():
            try:
                piece.decode("utf-8")
            except UnicodeDecodeError:
                return False
        start = end
    return True


def _decodes(high: bytes) -> bool:
    try:
        high.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _slow_parse(line: bytes, line_number: int, is_last: bool, diagnostics: list[Diagnostic]) -> Any:
    """Parse a line orjson refused, with JSON.parse semantics; _SKIP when Pi would drop it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = line.decode("utf-8", "replace")
        diagnostics.append(diagnostic(
            "invalid-utf8", f"invalid UTF-8 at byte {exc.start + 1}; decoded with U+FFFD as Pi does", line_number))
    if not text.strip(JS_WHITESPACE):
        return _SKIP  # blank line: Pi skips it silently and so do we
    try:
        value = parse_js_json(text)
    except JsonSyntaxError as error:
        code, message = _describe_failure(text, error, is_last and not line.endswith(b"\r"))
        diagnostics.append(diagnostic(code, message + "; Pi skips this line", line_number, "error"))
        return _SKIP
    if _js_falsy(value):
        return _SKIP
    return value


def read_session_bytes(path: str) -> bytes:
    """A session file's bytes; SessionReadError for paths that cannot be session files at all."""
    if os.path.isdir(path):
        raise SessionReadError(f"{path}: is a directory, not a session file")
    data = readahead.take(path)
    if data is not None:
        return data
    from pi_tools.sources.files import (
        read_bytes,  # where a batch's inputs are read (with the dask extra: URLs too)
    )

    try:
        return read_bytes(path)
    except FileNotFoundError:
        raise SessionReadError(f"{path}: no such file") from None
    except OSError as exc:
        raise SessionReadError(f"{path}: cannot read: {exc.strerror or exc}") from None


def read_session_file(path: str, lazy: bool = False) -> RawSession:
    """Read and parse a session file; raise SessionReadError for files that cannot be sessions at all."""
    data = read_session_bytes(path)
    return validate_header(parse_session_bytes(data, path, lazy), len(data))


def require_session_start(data: bytes, source: str) -> None:
    """For readers that scan a file without parsing it (usage): refuse, in validate_header's words, a file whose
    first line is not a session header, so that a non-session file is an error (exit 2) there too, not zeros."""
    from pi_tools.pipe.documents import looks_like_session

    if not data:
        raise SessionReadError(f"empty session file: {source} (Pi would start a new session in it)")
    if not looks_like_session(data):
        raise SessionReadError(f"Session file is not a valid {APP_NAME} session: {source}")


def require_session_file(path: str) -> None:
    """require_session_start for a local file by its first lines only (scrub rewrites any JSON Lines file, but
    refuses one that is not a session before it reads the rest)."""
    try:
        with open(path, "rb") as handle:
            head = b""
            for _ in range(64):
                line = handle.readline()
                head += line
                if not line or line.strip():
                    break
    except FileNotFoundError:
        raise SessionReadError(f"{path}: no such file") from None
    except OSError as exc:
        raise SessionReadError(f"{path}: cannot read: {exc.strerror or exc}") from None
    require_session_start(head, path)


def validate_header(raw: RawSession, size: int) -> RawSession:
    """Apply Pi's header rule: the first kept value must be a `session` header with a string id."""
    if not raw.file_entries:
        if size == 0:
            raise SessionReadError(f"empty session file: {raw.source} (Pi would start a new session in it)")
        raise SessionReadError(f"Session file is not a valid {APP_NAME} session: {raw.source}")
    header = raw.file_entries[0]
    if not isinstance(header, dict) or header.get("type") != "session" or not isinstance(header.get("id"), str):
        raise SessionReadError(f"Session file is not a valid {APP_NAME} session: {raw.source}")
    return raw
