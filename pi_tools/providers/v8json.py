"""``JSON.parse`` with V8's error messages, for JSON that Pi parses out of stored session fields.

Pi replays stored reasoning items by parsing their signature strings; a corrupt one fails the request with V8's
``SyntaxError`` text, whose wording depends on the token class and on the position in UTF-16 code units. Values
come from orjson (or the stdlib for text orjson refuses); the scanner here only decides where and how V8 rejects.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from pi_tools.providers.errors import PayloadError
from pi_tools.providers.hashing import utf16_code_units
from pi_tools.providers.jstext import js_string

_WHITESPACE = frozenset((0x20, 0x09, 0x0A, 0x0D))
_DIGITS = frozenset(range(0x30, 0x3A))
_HEX_DIGITS = frozenset([*range(0x30, 0x3A), *range(0x41, 0x47), *range(0x61, 0x67)])
_SIMPLE_ESCAPES = frozenset(ord(c) for c in '"\\/bfnrt')
_SPECIAL_SOURCES = frozenset(("[object Object]", "undefined", "Infinity", "NaN"))
_CONTEXT_CHARS = 10
_TOKEN_OF = {ord('"'): "string", ord("-"): "number", **{d: "number" for d in _DIGITS}}


class _V8JsonError(Exception):
    """Internal: carries the position where V8 gives up and the message it reports."""


class _V8JsonScanner:
    """Walks a JSON text the way V8's parser does, only to find where and how it reports the first error.

    Values are produced elsewhere (orjson / the stdlib); this only needs to agree with V8 on rejection and on the
    message, whose wording depends on the token class and position (in UTF-16 code units).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.units = list(utf16_code_units(text))
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

    def _explicit(self, message: str, pos: int, where: str = "in JSON") -> _V8JsonError:
        return _V8JsonError(f"{message} {where} {self._location(pos)}")

    def _snippet(self, start: int, end: int) -> str:
        return b"".join(unit.to_bytes(2, "little") for unit in self.units[start:end]).decode(
            "utf-16-le", "surrogatepass"
        )

    def _unexpected(self, pos: int) -> _V8JsonError:
        units = self.units
        if pos >= len(units):
            return _V8JsonError("Unexpected end of JSON input")
        token = _TOKEN_OF.get(units[pos])
        if token == "number":
            return self._explicit("Unexpected number", pos)
        if token == "string":
            return self._explicit("Unexpected string", pos)
        if self.text in _SPECIAL_SOURCES:
            return _V8JsonError(f'"{self.text}" is not valid JSON')
        char = self._snippet(pos, pos + 1)
        length = len(units)
        if length <= _CONTEXT_CHARS * 2:
            return _V8JsonError(f"Unexpected token '{char}', \"{self.text}\" is not valid JSON")
        if pos < _CONTEXT_CHARS:
            context = self._snippet(0, pos + _CONTEXT_CHARS)
            return _V8JsonError(f"Unexpected token '{char}', \"{context}\"... is not valid JSON")
        if pos < length - _CONTEXT_CHARS:
            context = self._snippet(pos - _CONTEXT_CHARS, pos + _CONTEXT_CHARS)
            return _V8JsonError(f"Unexpected token '{char}', ...\"{context}\"... is not valid JSON")
        context = self._snippet(pos - _CONTEXT_CHARS, length)
        return _V8JsonError(f"Unexpected token '{char}', ...\"{context}\" is not valid JSON")

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
                    raise _V8JsonError("Unexpected end of JSON input")
                elif escape > 0xFF:
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
                raise _V8JsonError("Unexpected end of JSON input")
            if units[self.pos] != ord(char):
                raise self._unexpected(self.pos)
            self.pos += 1

    def _property_key(self, message: str) -> None:
        if self._peek() != 0x22:
            raise self._explicit(message, self.pos)
        self._string()
        self._expect(0x3A, "Expected ':' after property name")

    def scan(self) -> None:
        """Raise ``_V8JsonError`` exactly where V8 would; return quietly for text V8 accepts."""
        stack: list[int] = []  # 0x7B for an open object, 0x5B for an open array
        literals = {0x74: "true", 0x66: "false", 0x6E: "null"}
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
            elif unit in literals:
                self._literal(literals[unit])
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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _js_int(text: str) -> int | float:
    """Integers beyond 2**53 become doubles in JS, so keep them as floats to print them the same way."""
    value = int(text)
    return value if -(2**53) <= value <= 2**53 else float(text)


def js_json_parse(text: Any) -> Any:
    """``JSON.parse(text)``: the value, or ``PayloadError`` with V8's message for text it rejects.

    The argument is converted to a string first, as JS does, so a non-string signature fails the way it does in Pi.
    """
    source = text if isinstance(text, str) else js_string(text)
    try:
        return orjson.loads(source)
    except orjson.JSONDecodeError:
        pass  # lone surrogates, huge numbers and every real error take the careful path
    try:
        scanner = _V8JsonScanner(source)
        scanner.scan()
    except _V8JsonError as error:
        raise PayloadError(str(error)) from None
    except IndexError:
        raise PayloadError("Unexpected end of JSON input") from None
    try:
        return json.loads(source, parse_int=_js_int, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as error:
        raise PayloadError(f"{error}") from None
