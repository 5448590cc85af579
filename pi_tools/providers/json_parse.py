"""``JSON.parse`` as the stream decoders meet it: V8's error texts, and pi-ai's repair of tool-call JSON.

Pi copies a failed parse's message into ``errorMessage`` (where retry rules read it), and repairs the
arguments models stream (raw newlines, Windows paths) before parsing, so both the texts and the repaired values
are part of what a decoder settles.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson


class JsJsonError(ValueError):
    """``JSON.parse`` failed; the message is V8's (Node 22), because Pi copies it into ``errorMessage``."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_MAX_SAFE = 2**53


def _js_int(text: str) -> int | float:
    value = int(text)
    # JS numbers are doubles: integers beyond 2^53 lose precision the same way a float does.
    return value if -_MAX_SAFE <= value <= _MAX_SAFE else float(value)


def js_json_loads(text: str) -> Any:
    """``JSON.parse`` semantics without the error text (fast path for hot loops)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # orjson refuses lone surrogate escapes and huge integers, which JS accepts.
        return json.loads(text, parse_constant=_reject_constant, parse_int=_js_int)


def js_json_parse(text: str) -> Any:
    """``JSON.parse(text)``: the same value, or :class:`JsJsonError` carrying V8's message."""
    try:
        return js_json_loads(text)
    except (ValueError, RecursionError):
        raise JsJsonError(v8_json_error_message(text)) from None


class _V8Error(Exception):
    def __init__(self, kind: str, position: int, token: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.position = position
        self.token = token


_V8_TEMPLATES = {
    "prop_or_rbrace": "Expected property name or '}'",
    "comma_or_rbrack": "Expected ',' or ']' after array element",
    "comma_or_rbrace": "Expected ',' or '}' after property value",
    "colon": "Expected ':' after property name",
    "quoted_prop": "Expected double-quoted property name",
    "unterminated_string": "Unterminated string",
    "bad_control": "Bad control character in string literal",
    "bad_unicode": "Bad Unicode escape",
    "bad_escape": "Bad escaped character",
    "minus": "No number after minus sign",
    "fraction": "Unterminated fractional number",
    "exponent": "Exponent part is missing a number",
    "number": "Unexpected number",
    "string": "Unexpected string",
    "trailing": "Unexpected non-whitespace character after JSON",
}
_JSON_WS = " \t\n\r"
_SPECIAL_SOURCES = {"NaN", "Infinity", "undefined", "[object Object]"}
_CONTEXT_CHARS = 10


class _V8Scanner:
    """Walks invalid JSON the way V8's JsonParser does, to find which error it reports and where."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)

    def ws(self, i: int) -> int:
        while i < self.n and self.text[i] in _JSON_WS:
            i += 1
        return i

    def value(self, i: int) -> int:
        i = self.ws(i)
        if i >= self.n:
            raise _V8Error("eos", i)
        c = self.text[i]
        if c == '"':
            return self.string(i)
        if c == "{":
            return self.obj(i)
        if c == "[":
            return self.arr(i)
        if c == "-" or c.isdigit() and c.isascii():
            return self.number(i)
        for literal in ("true", "false", "null"):
            if c == literal[0]:
                for k, expected in enumerate(literal):
                    if i + k >= self.n:
                        raise _V8Error("eos", i + k)
                    if self.text[i + k] != expected:
                        raise _V8Error("token", i + k, self.text[i + k])
                return i + len(literal)
        raise _V8Error("token", i, c)

    def obj(self, i: int) -> int:
        i = self.ws(i + 1)
        if i < self.n and self.text[i] == "}":
            return i + 1
        if i >= self.n or self.text[i] != '"':
            raise _V8Error("prop_or_rbrace", i)
        while True:
            i = self.ws(self.string(i))
            if i >= self.n or self.text[i] != ":":
                raise _V8Error("colon", i)
            i = self.ws(self.value(i + 1))
            if i < self.n and self.text[i] == "}":
                return i + 1
            if i >= self.n or self.text[i] != ",":
                raise _V8Error("comma_or_rbrace", i)
            i = self.ws(i + 1)
            if i >= self.n or self.text[i] != '"':
                raise _V8Error("quoted_prop", i)

    def arr(self, i: int) -> int:
        i = self.ws(i + 1)
        if i < self.n and self.text[i] == "]":
            return i + 1
        while True:
            i = self.ws(self.value(i))
            if i < self.n and self.text[i] == "]":
                return i + 1
            if i >= self.n or self.text[i] != ",":
                raise _V8Error("comma_or_rbrack", i)
            i += 1

    def digits(self, i: int) -> int:
        while i < self.n and "0" <= self.text[i] <= "9":
            i += 1
        return i

    def number(self, i: int) -> int:
        if self.text[i] == "-":
            i += 1
            if i >= self.n or not "0" <= self.text[i] <= "9":
                raise _V8Error("minus", i)
        if self.text[i] == "0":
            i += 1
            if i < self.n and "0" <= self.text[i] <= "9":
                raise _V8Error("number", i)
        else:
            i = self.digits(i)
        if i < self.n and self.text[i] == ".":
            i += 1
            if i >= self.n or not "0" <= self.text[i] <= "9":
                raise _V8Error("fraction", i)
            i = self.digits(i)
        if i < self.n and self.text[i] in "eE":
            i += 1
            if i < self.n and self.text[i] in "+-":
                i += 1
            if i >= self.n or not "0" <= self.text[i] <= "9":
                raise _V8Error("exponent", i)
            i = self.digits(i)
        return i

    def string(self, i: int) -> int:
        i += 1
        text = self.text
        while True:
            if i >= self.n:
                raise _V8Error("unterminated_string", i)
            c = text[i]
            if c == '"':
                return i + 1
            if c == "\\":
                i += 1
                if i >= self.n:
                    raise _V8Error("eos", i)
                escape = text[i]
                if escape == "u":
                    for k in range(1, 5):
                        if i + k >= self.n or text[i + k] not in "0123456789abcdefABCDEF":
                            raise _V8Error("bad_unicode", i + k)
                    i += 5
                    continue
                if ord(escape) > 0xFFFF:
                    raise _V8Error("token", i, escape)
                if escape not in '"\\/bfnrt':
                    raise _V8Error("bad_escape", i)
                i += 1
                continue
            if ord(c) < 0x20:
                raise _V8Error("bad_control", i)
            i += 1


def _utf16_index(text: str, index: int) -> int:
    head = text[:index]
    if head.isascii():
        return index
    return index + sum(1 for ch in head if ord(ch) > 0xFFFF)


def _utf16_slice(text: str, start: int, end: int) -> str:
    if text.isascii():
        return text[start:end]
    units = text.encode("utf-16-le", "surrogatepass")
    return units[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")


def _line_and_column(text: str, index: int) -> tuple[int, int]:
    line = 1
    last_break = 0
    i = 0
    while i < index:
        c = text[i]
        if c == "\r" and i < index - 1 and text[i + 1] == "\n":
            i += 1
            c = "\n"
        if c in "\r\n":
            line += 1
            last_break = i + 1
        i += 1
    return line, 1 + _utf16_index(text, i) - _utf16_index(text, last_break)


def v8_json_error_message(text: str) -> str:
    """The message of the ``SyntaxError`` that ``JSON.parse(text)`` throws in Node 22 (``""`` if it parses)."""
    scanner = _V8Scanner(text)
    try:
        end = scanner.ws(scanner.value(0))
        if end < len(text):
            raise _V8Error("trailing", end)
    except _V8Error as error:
        return _format_v8_error(text, error)
    except RecursionError:
        return "Maximum call stack size exceeded"
    return ""


def _format_v8_error(text: str, error: _V8Error) -> str:
    if error.kind == "eos":
        return "Unexpected end of JSON input"
    position = _utf16_index(text, error.position)
    kind = error.kind
    if kind == "token" and error.token == '"':
        kind = "string"
    elif kind == "token" and (error.token == "-" or "0" <= error.token <= "9"):
        kind = "number"
    if kind == "token":
        if text in _SPECIAL_SOURCES:
            return f'"{text}" is not valid JSON'
        length = _utf16_index(text, len(text))
        # An astral character shows as its first UTF-16 unit, as V8 reads one code unit.
        token = (
            error.token if ord(error.token) <= 0xFFFF else chr(0xD800 + ((ord(error.token) - 0x10000) >> 10))
        )
        if length <= 2 * _CONTEXT_CHARS:
            return f"Unexpected token '{token}', \"{text}\" is not valid JSON"
        if position < _CONTEXT_CHARS:
            snippet = _utf16_slice(text, 0, position + _CONTEXT_CHARS)
            return f"Unexpected token '{token}', \"{snippet}\"... is not valid JSON"
        if position < length - _CONTEXT_CHARS:
            snippet = _utf16_slice(text, position - _CONTEXT_CHARS, position + _CONTEXT_CHARS)
            return f"Unexpected token '{token}', ...\"{snippet}\"... is not valid JSON"
        snippet = _utf16_slice(text, position - _CONTEXT_CHARS, length)
        return f"Unexpected token '{token}', ...\"{snippet}\" is not valid JSON"
    line, column = _line_and_column(text, error.position)
    if kind == "trailing":
        return f"{_V8_TEMPLATES[kind]} at position {position} (line {line} column {column})"
    return f"{_V8_TEMPLATES[kind]} in JSON at position {position} (line {line} column {column})"


# A string literal as repairJson delimits it: a backslash always pairs with the next character (an invalid
# escape character is never a quote), and an unterminated literal runs to the end of the text.
_STRING_LITERAL = re.compile(r'"([^"\\]*+(?:\\[\s\S][^"\\]*+)*+\\?)("|\Z)')
_NEEDS_REPAIR = re.compile(r"[\\\x00-\x1f]")
_CLEAN_BODY = re.compile(r'[^\\\x00-\x1f]*+(?:\\["\\/bfnrtu][^\\\x00-\x1f]*+)*+')
# Valid content, then a backslash that starts no valid escape (or the end): that backslash gets doubled.
_STRAY_BACKSLASH = re.compile(r'([^\\]*+(?:\\["\\/bfnrtu][^\\]*+)*+)(\\|\Z)')
_CONTROL_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x20)} | {
    0x08: "\\b",
    0x0C: "\\f",
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
}


def _repair_body(body: str) -> str:
    if _CLEAN_BODY.fullmatch(body):
        return body
    return _STRAY_BACKSLASH.sub(_double_stray, body).translate(_CONTROL_ESCAPES)


def _double_stray(match: re.Match[str]) -> str:
    # Matches tile the body from its start, so a backslash here never sits inside a valid escape pair.
    return match.group(1) + ("\\\\" if match.group(2) else "")


def repair_json(text: str) -> str:
    """pi-ai ``repairJson``: escape raw control characters inside strings and double stray backslashes.

    Models often emit Windows paths or literal newlines inside tool-call arguments; this is what makes those
    arguments parse in Pi, so the repaired value is part of the settled message. Runs at regex speed because
    Pi re-parses the whole argument text on every streamed delta.
    """
    if _NEEDS_REPAIR.search(text) is None:
        return text
    out: list[str] = []
    position = 0
    for literal in _STRING_LITERAL.finditer(text):
        body = literal.group(1)
        repaired = _repair_body(body)
        if repaired is body:
            continue
        out.append(text[position : literal.start(1)])
        out.append(repaired)
        position = literal.end(1)
    if not out:
        return text
    out.append(text[position:])
    return "".join(out)


def parse_json_with_repair(text: str) -> Any:
    """pi-ai ``parseJsonWithRepair``: ``JSON.parse``, retried once on the repaired text.

    The error raised is the one for whichever text was parsed last, as in Pi (its message can end up in
    ``errorMessage``).
    """
    try:
        return js_json_loads(text)
    except (ValueError, RecursionError):
        repaired = repair_json(text)
        if repaired != text:
            return js_json_parse(repaired)
        raise JsJsonError(v8_json_error_message(text)) from None


def js_json_or_none(text: str) -> Any:
    """``JSON.parse`` where the SDK swallows the failure (``safeJSON``): ``None`` for text that is not JSON."""
    try:
        return js_json_loads(text)
    except (ValueError, RecursionError):
        return None
