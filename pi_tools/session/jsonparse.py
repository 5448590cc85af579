"""Parse one session line the way JavaScript's JSON.parse would, fast when the line is ordinary.

orjson handles almost every line. It refuses a few things JSON.parse accepts: lone surrogate escapes
(``"\\ud800"``), numbers beyond double range (JSON.parse gives Infinity) and nesting deeper than its limit
(V8 parses 200,000 levels). Those lines take a slower path that accepts exactly what JSON.parse accepts:
the standard library's scanner for strings and numbers, driven by an explicit stack so depth costs no
recursion.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

import orjson

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_MAX_SAFE = 2**53


class JsonSyntaxError(ValueError):
    """The text is not JSON that JSON.parse would accept; `column` is 1-based."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column


def _js_number(text: str) -> int | float:
    """A JSON number as JavaScript holds it: one double (big integers lose precision, overflow is inf)."""
    if "." in text or "e" in text or "E" in text:
        return float(text)
    value = int(text)
    return value if -_MAX_SAFE <= value <= _MAX_SAFE else float(value)


def parse_js_json(text: str) -> Any:
    """Parse `text` with JSON.parse semantics (iteratively; raises JsonSyntaxError)."""
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    end = len(text)
    # Each stack frame: [container, pending key or None]
    stack: list[list[Any]] = []
    root: Any = None
    have_root = False
    expect_value = True
    while True:
        if expect_value:
            if pos >= end:
                raise JsonSyntaxError("Unexpected end of JSON input", pos + 1)
            ch = text[pos]
            value: Any
            if ch == "{":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                if pos < end and text[pos] == "}":
                    value, pos = {}, pos + 1
                else:
                    stack.append([{}, None])
                    pos = _read_key(text, pos, stack[-1])
                    continue
            elif ch == "[":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                if pos < end and text[pos] == "]":
                    value, pos = [], pos + 1
                else:
                    stack.append([[], None])
                    continue
            elif ch == '"':
                try:
                    value, pos = scanstring(text, pos + 1, True)
                except json.JSONDecodeError as exc:
                    raise JsonSyntaxError(f"Bad string: {exc.msg}", exc.pos + 1) from None
            elif text.startswith("true", pos):
                value, pos = True, pos + 4
            elif text.startswith("false", pos):
                value, pos = False, pos + 5
            elif text.startswith("null", pos):
                value, pos = None, pos + 4
            else:
                match = _NUMBER.match(text, pos)
                if not match:
                    raise JsonSyntaxError(f"Unexpected token {text[pos]!r}", pos + 1)
                value, pos = _js_number(match.group()), match.end()
            # Attach the finished value to its parent (or make it the root).
            if not stack:
                root, have_root = value, True
            else:
                frame = stack[-1]
                if isinstance(frame[0], dict):
                    frame[0][frame[1]] = value
                else:
                    frame[0].append(value)
            expect_value = False
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if not stack:
            if pos != end:
                raise JsonSyntaxError(f"Unexpected non-whitespace character {text[pos]!r} after JSON", pos + 1)
            assert have_root
            return root
        if pos >= end:
            raise JsonSyntaxError("Unexpected end of JSON input", pos + 1)
        frame = stack[-1]
        ch = text[pos]
        closer = "}" if isinstance(frame[0], dict) else "]"
        if ch == ",":
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            if closer == "}":
                pos = _read_key(text, pos, frame)
            expect_value = True
        elif ch == closer:
            stack.pop()
            finished = frame[0]
            pos += 1
            if not stack:
                root, have_root = finished, True
            else:
                parent = stack[-1]
                if isinstance(parent[0], dict):
                    parent[0][parent[1]] = finished
                else:
                    parent[0].append(finished)
        else:
            raise JsonSyntaxError(f"Expected ',' or '{closer}' but found {ch!r}", pos + 1)


def _read_key(text: str, pos: int, frame: list[Any]) -> int:
    """Read `"key" :` into the frame; returns the position of the value."""
    if pos >= len(text) or text[pos] != '"':
        raise JsonSyntaxError("Expected double-quoted property name", pos + 1)
    try:
        key, pos = scanstring(text, pos + 1, True)
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(f"Bad string: {exc.msg}", exc.pos + 1) from None
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if pos >= len(text) or text[pos] != ":":
        raise JsonSyntaxError("Expected ':' after property name", pos + 1)
    frame[1] = key
    return _WS.match(text, pos + 1).end()  # type: ignore[union-attr]


def loads_line(line: bytes | memoryview) -> Any:
    """orjson first; on refusal the JSON.parse-compatible path (raises JsonSyntaxError or UnicodeDecodeError)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        pass
    return parse_js_json(bytes(line).decode("utf-8"))


def loads_line_lenient(line: bytes | memoryview) -> Any:
    """loads_line, with invalid UTF-8 decoded to U+FFFD as Pi's reader does instead of failing."""
    try:
        return loads_line(line)
    except UnicodeDecodeError:
        return parse_js_json(bytes(line).decode("utf-8", "replace"))
