"""``JSON.parse`` as Pi runs it (V8 in Node 22): the same values and the same ``SyntaxError`` texts.

Stream decoders copy a failed parse's message into ``errorMessage`` (where retry rules read it) and payload
builders fail a request with it, so the wording, which depends on the token class and on the position in UTF-16
code units, is part of what Pi produces. Values come from orjson, or the stdlib for the texts orjson refuses
(lone surrogate escapes, huge numbers); the scanner only decides where and how V8 rejects. V8 parses without
recursion, so nesting deeper than Python's stack allows still yields a value here: such texts take
:func:`parse_js_json`, an explicit-stack parser, which also serves the session reader (its errors carry the column
that the reader's diagnostics name).
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

import orjson

from pi_tools.js.errors import JsJsonError, JsonSyntaxError
from pi_tools.js.strings import utf16_code_units


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_MAX_SAFE = 2**53
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def _js_int(text: str) -> int | float:
    """Integers beyond 2**53 are doubles in JS; ``float(text)`` also copes with digit runs ``int`` refuses."""
    if len(text) < 16:
        return int(text)
    value = float(text)
    return int(text) if -_MAX_SAFE <= value <= _MAX_SAFE else value


def js_json_loads(text: str) -> Any:
    """``JSON.parse`` semantics without the error text (fast path for hot loops); raises ``ValueError``."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass  # lone surrogate escapes, huge numbers, deep nesting and real errors
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=_js_int)
    except RecursionError:
        return parse_js_json(text)  # nesting deeper than the recursive parsers' stack


def js_json_parse(text: str) -> Any:
    """``JSON.parse(text)``: the same value, or :class:`JsJsonError` carrying V8's message."""
    try:
        return js_json_loads(text)
    except ValueError:
        raise JsJsonError(v8_json_error_message(text)) from None




_WHITESPACE = frozenset((0x20, 0x09, 0x0A, 0x0D))
_DIGITS = frozenset(range(0x30, 0x3A))
_HEX_DIGITS = frozenset([*range(0x30, 0x3A), *range(0x41, 0x47), *range(0x61, 0x67)])
_SIMPLE_ESCAPES = frozenset(ord(c) for c in '"\\/bfnrt')
_SPECIAL_SOURCES = frozenset(("[object Object]", "undefined", "Infinity", "NaN"))
_CONTEXT_CHARS = 10
_TOKEN_OF = {ord('"'): "string", ord("-"): "number", **{d: "number" for d in _DIGITS}}
_LITERAL_WORDS = {0x74: "true", 0x66: "false", 0x6E: "null"}


class _V8Rejection(Exception):
    """Internal: V8's message for the first error the scanner meets."""


class _V8Scanner:
    """Walks a JSON text the way V8's parser does, only to find where and how it reports the first error.

    Works on UTF-16 code units, as V8 does: positions, the quoted context and the offending token are all
    counted and cut in those units. Iterative, like V8, so any nesting depth is scanned.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.units = utf16_code_units(text)
        self.pos = 0

    # error reporting ---------------------------------------------------------------------------------------

    def _location(self, pos: int) -> str:
        line = 1
        last_break = 0
        index = 0
        units = self.units
        while index < pos:
            unit = units[index]
            if unit == 0x0D and index < pos - 1 and units[index + 1] == 0x0A:
                index += 1
                unit = 0x0A
            if unit in (0x0A, 0x0D):
                line += 1
                last_break = index + 1
            index += 1
        return f"at position {pos} (line {line} column {1 + index - last_break})"

    def _explicit(self, message: str, pos: int, where: str = "in JSON") -> _V8Rejection:
        return _V8Rejection(f"{message} {where} {self._location(pos)}")

    def _snippet(self, start: int, end: int) -> str:
        return b"".join(unit.to_bytes(2, "little") for unit in self.units[start:end]).decode(
            "utf-16-le", "surrogatepass"
        )

    def _unexpected(self, pos: int) -> _V8Rejection:
        units = self.units
        if pos >= len(units):
            return _V8Rejection("Unexpected end of JSON input")
        token = _TOKEN_OF.get(units[pos])
        if token == "number":
            return self._explicit("Unexpected number", pos)
        if token == "string":
            return self._explicit("Unexpected string", pos)
        if self.text in _SPECIAL_SOURCES:
            return _V8Rejection(f'"{self.text}" is not valid JSON')
        char = self._snippet(pos, pos + 1)
        length = len(units)
        if length <= _CONTEXT_CHARS * 2:
            return _V8Rejection(f"Unexpected token '{char}', \"{self.text}\" is not valid JSON")
        if pos < _CONTEXT_CHARS:
            context = self._snippet(0, pos + _CONTEXT_CHARS)
            return _V8Rejection(f"Unexpected token '{char}', \"{context}\"... is not valid JSON")
        if pos < length - _CONTEXT_CHARS:
            context = self._snippet(pos - _CONTEXT_CHARS, pos + _CONTEXT_CHARS)
            return _V8Rejection(f"Unexpected token '{char}', ...\"{context}\"... is not valid JSON")
        context = self._snippet(pos - _CONTEXT_CHARS, length)
        return _V8Rejection(f"Unexpected token '{char}', ...\"{context}\" is not valid JSON")

    # scanning ----------------------------------------------------------------------------------------------

    def _peek(self) -> int:
        """Skip whitespace; the next code unit, or -1 at the end."""
        units = self.units
        while self.pos < len(units) and units[self.pos] in _WHITESPACE:
            self.pos += 1
        return units[self.pos] if self.pos < len(units) else -1

    def _expect(self, unit: int, message: str) -> None:
        if self._peek() != unit:
            raise self._explicit(message, self.pos)
        self.pos += 1

    def _string(self) -> None:
        units = self.units
        end = len(units)
        self.pos += 1
        while True:
            if self.pos >= end:
                raise self._explicit("Unterminated string", end)
            unit = units[self.pos]
            if unit == 0x22:
                self.pos += 1
                return
            if unit == 0x5C:
                self.pos += 1
                escape = units[self.pos] if self.pos < end else -1
                if escape in _SIMPLE_ESCAPES:
                    self.pos += 1
                elif escape == 0x75:
                    for offset in range(1, 5):
                        at = self.pos + offset
                        if at >= end or units[at] not in _HEX_DIGITS:
                            raise self._explicit("Bad Unicode escape", min(at, end))
                    self.pos += 5
                elif escape == -1:
                    raise _V8Rejection("Unexpected end of JSON input")
                elif escape > 0xFF:
                    # V8 only names Latin-1 escape characters; anything wider is an unexpected token.
                    raise self._unexpected(self.pos)
                else:
                    raise self._explicit("Bad escaped character", self.pos)
            elif unit < 0x20:
                raise self._explicit("Bad control character in string literal", self.pos)
            else:
                self.pos += 1

    def _digits(self) -> None:
        units = self.units
        while self.pos < len(units) and units[self.pos] in _DIGITS:
            self.pos += 1

    def _at_digit(self) -> bool:
        return self.pos < len(self.units) and self.units[self.pos] in _DIGITS

    def _number(self) -> None:
        units = self.units
        if units[self.pos] == 0x2D:
            self.pos += 1
            if not self._at_digit():
                raise self._explicit("No number after minus sign", self.pos)
        if units[self.pos] == 0x30:
            self.pos += 1
            if self._at_digit():
                raise self._unexpected(self.pos)
        else:
            self._digits()
        if self.pos < len(units) and units[self.pos] == 0x2E:
            self.pos += 1
            if not self._at_digit():
                raise self._explicit("Unterminated fractional number", self.pos)
            self._digits()
        if self.pos < len(units) and units[self.pos] in (0x45, 0x65):
            self.pos += 1
            if self.pos < len(units) and units[self.pos] in (0x2B, 0x2D):
                self.pos += 1
            if not self._at_digit():
                raise self._explicit("Exponent part is missing a number", self.pos)
            self._digits()

    def _literal(self, word: str) -> None:
        units = self.units
        self.pos += 1
        for char in word[1:]:
            if self.pos >= len(units):
                raise _V8Rejection("Unexpected end of JSON input")
            if units[self.pos] != ord(char):
                raise self._unexpected(self.pos)
            self.pos += 1

    def _property_key(self, message: str) -> None:
        if self._peek() != 0x22:
            raise self._explicit(message, self.pos)
        self._string()
        self._expect(0x3A, "Expected ':' after property name")

    def scan(self) -> None:
        """Raise ``_V8Rejection`` exactly where V8 would; return quietly for text V8 accepts."""
        stack: list[int] = []  # 0x7B for an open object, 0x5B for an open array
        while True:
            unit = self._peek()
            if unit == 0x22:
                self._string()
            elif unit == 0x2D or unit in _DIGITS:
                self._number()
            elif unit == 0x7B:
                self.pos += 1
                if self._peek() == 0x7D:
                    self.pos += 1
                else:
                    stack.append(0x7B)
                    self._property_key("Expected property name or '}'")
                    continue
            elif unit == 0x5B:
                self.pos += 1
                if self._peek() == 0x5D:
                    self.pos += 1
                else:
                    stack.append(0x5B)
                    continue
            elif unit in _LITERAL_WORDS:
                self._literal(_LITERAL_WORDS[unit])
            else:
                raise self._unexpected(self.pos)
            if self._close_containers(stack):
                return

    def _close_containers(self, stack: list[int]) -> bool:
        """After a value: close what ends here; True when the whole text is done, False when a value follows."""
        while stack:
            unit = self._peek()
            if unit == 0x2C:
                self.pos += 1
                if stack[-1] == 0x7B:
                    self._property_key("Expected double-quoted property name")
                return False
            if stack[-1] == 0x7B:
                self._expect(0x7D, "Expected ',' or '}' after property value")
            else:
                self._expect(0x5D, "Expected ',' or ']' after array element")
            stack.pop()
        if self._peek() != -1:
            raise self._explicit("Unexpected non-whitespace character", self.pos, "after JSON")
        return True


def v8_json_error_message(text: str) -> str:
    """The message of the ``SyntaxError`` that ``JSON.parse(text)`` throws in Node 22 (``""`` if it parses)."""
    try:
        _V8Scanner(text).scan()
    except _V8Rejection as rejection:
        return str(rejection)
    except IndexError:
        return "Unexpected end of JSON input"
    return ""


def js_json_or_none(text: str) -> Any:
    """``JSON.parse`` where the SDK swallows the failure (``safeJSON``): ``None`` for text that is not JSON."""
    try:
        return js_json_loads(text)
    except (ValueError, RecursionError):
        return None


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
                number = match.group()
                value = float(number) if "." in number or "e" in number or "E" in number else _js_int(number)
                pos = match.end()
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
