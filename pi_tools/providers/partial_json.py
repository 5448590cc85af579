"""pi-ai ``parseStreamingJson``: the tool-call arguments Pi shows while their JSON is still arriving.

Pi re-parses the whole argument text on every delta, falling back to the npm ``partial-json`` reader, whose
quirks decide what ``toolcall_delta`` partials and the settled ``arguments`` hold.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

from pi_tools.js.json_parse import js_json_loads
from pi_tools.js.values import JS_WHITESPACE, js_to_string
from pi_tools.providers.json_repair import repair_json

_JSON_WS = " \t\n\r"


class _PartialJson(Exception):
    """The text ended inside a value (partial-json ``PartialJSON``)."""


class _MalformedJson(Exception):
    """The text cannot be JSON however it continues (partial-json ``MalformedJSON``)."""


def _js_substring(text: str, start: int, end: int) -> str:
    n = len(text)
    start = min(max(start, 0), n)
    end = min(max(end, 0), n)
    if start > end:
        start, end = end, start
    return text[start:end]


_STRING_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)
_PARTIAL_LITERALS: tuple[tuple[str, Any, int], ...] = (
    ("null", None, 1),
    ("true", True, 1),
    ("false", False, 1),
    ("Infinity", math.inf, 1),
    ("-Infinity", -math.inf, 2),
    ("NaN", math.nan, 1),
)


class _PartialParser:
    """The npm ``partial-json`` parser with every kind of value allowed to be partial (what pi-ai uses).

    Ported quirk for quirk: e.g. a property name is read from wherever the cursor is, even without a quote, and
    an unfinished escape drops the string back to its last backslash.
    """

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0

    def at(self, index: int) -> str:
        return self.s[index] if 0 <= index < self.n else ""

    def blank(self) -> None:
        while self.i < self.n and self.s[self.i] in _JSON_WS:
            self.i += 1

    def any(self) -> Any:
        self.blank()
        if self.i >= self.n:
            raise _PartialJson("Unexpected end of input")
        c = self.s[self.i]
        if c == '"':
            return self.string()
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        rest = self.n - self.i
        for literal, value, min_rest in _PARTIAL_LITERALS:
            size = len(literal)
            head = self.s[self.i : self.i + size]
            if head == literal or (min_rest <= rest < size and literal.startswith(head)):
                self.i += size
                return value
        return self.num()

    def string(self) -> Any:
        start = self.i
        body_end = _STRING_BODY.match(self.s, start + 1)
        end = body_end.end() if body_end else start + 1
        escape = False
        if end < self.n and self.s[end] == "\\":
            # A lone backslash at the very end: the scan swallows it and stops in escape state.
            end = self.n
            escape = True
        self.i = end
        if self.at(end) == '"':
            self.i = end + 1
            try:
                return js_json_loads(self.s[start : self.i])
            except (ValueError, RecursionError) as error:
                raise _MalformedJson(str(error)) from None
        try:
            return js_json_loads(self.s[start : end - int(escape)] + '"')
        except (ValueError, RecursionError):
            return js_json_loads(_js_substring(self.s, start, self.s.rfind("\\")) + '"')

    def obj(self) -> dict[str, Any]:
        self.i += 1
        self.blank()
        result: dict[str, Any] = {}
        try:
            while self.at(self.i) != "}":
                self.blank()
                if self.i >= self.n:
                    return result
                key = self.string()
                self.blank()
                self.i += 1
                try:
                    value = self.any()
                except Exception:
                    return result
                result[key if isinstance(key, str) else js_to_string(key)] = value
                self.blank()
                if self.at(self.i) == ",":
                    self.i += 1
        except Exception:
            return result
        self.i += 1
        return result

    def arr(self) -> list[Any]:
        self.i += 1
        result: list[Any] = []
        try:
            while self.at(self.i) != "]":
                before = self.i
                result.append(self.any())
                self.blank()
                if self.at(self.i) == ",":
                    self.i += 1
                if self.i == before:
                    # JS would spin forever here; no progress means nothing more can be read.
                    return result
        except Exception:
            return result
        self.i += 1
        return result

    def num(self) -> Any:
        s = self.s
        if self.i == 0:
            if s == "-":
                raise _MalformedJson("Not sure what '-' is")
            try:
                return js_json_loads(s)
            except (ValueError, RecursionError):
                try:
                    return js_json_loads(_js_substring(s, 0, s.rfind("e")))
                except (ValueError, RecursionError):
                    pass
                raise _MalformedJson("number") from None
        start = self.i
        if self.at(self.i) == "-":
            self.i += 1
        while self.i < self.n and s[self.i] not in ",]}":
            self.i += 1
        token = s[start : self.i]
        try:
            return js_json_loads(token)
        except (ValueError, RecursionError):
            if token == "-":
                raise _PartialJson("Not sure what '-' is") from None
            try:
                return js_json_loads(_js_substring(s, start, s.rfind("e")))
            except (ValueError, RecursionError):
                raise _MalformedJson("number") from None


def partial_json_parse(text: str) -> Any:
    """npm ``partial-json`` ``parse(text)``: the value of the longest readable prefix; raises when unreadable."""
    trimmed = text.strip(JS_WHITESPACE)
    if not trimmed:
        raise _MalformedJson(f"{text} is empty")
    return _PartialParser(trimmed).any()


def _parse_with_repair_quiet(text: str) -> Any:
    """:func:`parse_json_with_repair` without building V8's error text (hot path while streaming).

    A text that is valid up to its end but incomplete (the usual state mid-stream) cannot be completed by
    the repair, which only rewrites string contents; skipping it keeps the per-delta cost low.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        if error.msg == "unexpected end of data":
            raise
    try:
        return js_json_loads(text)
    except (ValueError, RecursionError):
        repaired = repair_json(text)
        if repaired == text:
            raise
        return js_json_loads(repaired)


def parse_streaming_json(text: str | None) -> Any:
    """pi-ai ``parseStreamingJson``: tool-call arguments so far; ``{}`` when nothing can be read."""
    if not text or not text.strip(JS_WHITESPACE):
        return {}
    try:
        return _parse_with_repair_quiet(text)
    except Exception:
        pass
    try:
        result = partial_json_parse(text)
        return {} if result is None else result
    except Exception:
        pass
    try:
        result = partial_json_parse(repair_json(text))
        return {} if result is None else result
    except Exception:
        return {}
