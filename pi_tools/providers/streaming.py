"""Shared machinery for turning a provider's streamed HTTP response into pi-ai events and a settled message.

Every stream decoder (``pi_tools/providers/<api_module>/stream.py``) is built from these pieces so that the
behaviours Pi's retry and compaction logic depends on (exact error texts, where a stream is cut, which scratch
keys leak) are reproduced the same way for all APIs.

Decoder contract (what ``decode.py`` calls)::

    def decode(model: Model, *, status: int, headers: dict[str, str], chunks: Iterable[bytes],
               options: dict, now_ms: int, emitter: EventEmitter) -> dict   # the settled AssistantMessage

``chunks`` yields the body as the HTTP client would deliver it; when the connection is cut it raises
:class:`TransportError` after the last byte. ``emitter.emit(event)`` records an event the way the goldens
snapshot it (see :func:`snapshot_event`).

Public API (stable; other decoders rely on it):

- Transport and SSE framing: :class:`TransportError`, :class:`SseEvent`, :class:`SdkSseDecoder` (the Stainless
  SDKs: ``openai``, ``@anthropic-ai/sdk``), :class:`LineSseDecoder` (pi-ai's own line reader, Anthropic),
  :func:`iter_openai_sdk_stream` (the ``openai`` SDK's ``Stream`` values), :data:`NULL_BODY_STATUSES`.
- JSON with JavaScript semantics: :class:`JsJsonError`, :func:`js_json_parse` (``JSON.parse`` with V8's error
  texts), :func:`v8_json_error_message`, :func:`repair_json`, :func:`parse_json_with_repair`,
  :func:`partial_json_parse`, :func:`parse_streaming_json` (pi-ai ``parseStreamingJson``).
- JS value semantics for untrusted event shapes: :data:`ABSENT` (``undefined``, vs ``None`` = ``null``),
  :class:`JsTypeError`, :func:`js_member`, :func:`js_field`, :func:`js_prop`, :func:`assign_or_drop`,
  :func:`js_to_string`, :func:`js_strict_equal`, :func:`js_map_key`.
- Message and events: :func:`new_output`, :func:`zero_usage`, :class:`EventEmitter`, :func:`snapshot_event`,
  :func:`fail_output`, :data:`SCRATCH_KEYS`, :func:`error_text`, :class:`PiError`,
  :func:`grammar_input_json_delta`.
- Provider errors: :func:`read_body_text`, :func:`stainless_status_error`, :class:`SdkApiError`,
  :func:`openai_status_error`, :func:`format_provider_error` (pi-ai ``formatProviderError``),
  :func:`truncate_error_text`.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from pi_tools.providers.catalog import Model
from pi_tools.providers.jsonjs import js_length, js_number_str, js_stringify

# ---------------------------------------------------------------------------------------------------------------
# Transport


class TransportError(Exception):
    """The connection closed before the response was complete.

    The message is what Node's HTTP client reports to the adapter (undici says ``terminated``); Pi copies it
    into ``errorMessage``, where the retry regexes look at it.
    """

    def __init__(self, message: str = "terminated") -> None:
        super().__init__(message)


# ---------------------------------------------------------------------------------------------------------------
# Server-sent events


@dataclass
class SseEvent:
    """One dispatched server-sent event: ``event`` is ``None`` when the block had no ``event:`` field."""

    event: str | None
    data: str
    raw: list[str] = field(default_factory=list)


class _SseFields:
    """Accumulates ``event:``/``data:`` fields until a blank line dispatches them (same rules in every client)."""

    def __init__(self) -> None:
        self.event: str | None = None
        self.data: list[str] = []
        self.raw: list[str] = []

    def flush(self) -> SseEvent | None:
        # An empty ``event:`` value counts as absent, as JS truthiness does.
        if not self.event and not self.data:
            return None
        dispatched = SseEvent(self.event, "\n".join(self.data), self.raw)
        self.event = None
        self.data = []
        self.raw = []
        return dispatched

    def line(self, text: str) -> SseEvent | None:
        if text == "":
            return self.flush()
        self.raw.append(text)
        if text.startswith(":"):
            return None
        name, colon, value = text.partition(":")
        if not colon:
            value = ""
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self.event = value
        elif name == "data":
            self.data.append(value)
        return None


_UTF8_BOM = b"\xef\xbb\xbf"


def _decode_line_bytes(raw: bytes) -> str:
    # The SDKs decode each line with a fresh, non-streaming TextDecoder, which drops a leading BOM every time.
    if raw.startswith(_UTF8_BOM):
        raw = raw[3:]
    return raw.decode("utf-8", "replace")


def _find_double_newline(buffer: bytearray, start: int) -> int:
    """End index of the first ``\\n\\n``, ``\\r\\r`` or ``\\r\\n\\r\\n`` at or after ``start``, else -1."""
    best_start = -1
    best_end = -1
    for pattern in (b"\n\n", b"\r\r", b"\r\n\r\n"):
        found = buffer.find(pattern, start)
        if found != -1 and (best_start == -1 or found < best_start):
            best_start, best_end = found, found + len(pattern)
    return best_end


_NEWLINE_BYTES = re.compile(rb"[\r\n]")


class _SdkLineDecoder:
    """The Stainless ``LineDecoder``: byte lines ending in ``\\n``, ``\\r`` or ``\\r\\n``.

    A trailing ``\\r`` is held back until the next byte shows whether it starts a ``\\r\\n``.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._carriage_index: int | None = None

    def decode(self, chunk: bytes) -> list[str]:
        self._buffer += chunk
        lines: list[str] = []
        while True:
            match = _NEWLINE_BYTES.search(self._buffer, self._carriage_index or 0)
            if match is None:
                break
            preceding = match.start()
            after = preceding + 1
            is_carriage = self._buffer[preceding] == 0x0D
            if is_carriage and self._carriage_index is None:
                self._carriage_index = after
                continue
            if self._carriage_index is not None and (after != self._carriage_index + 1 or is_carriage):
                lines.append(_decode_line_bytes(bytes(self._buffer[: self._carriage_index - 1])))
                del self._buffer[: self._carriage_index]
                self._carriage_index = None
                continue
            end = preceding - 1 if self._carriage_index is not None else preceding
            lines.append(_decode_line_bytes(bytes(self._buffer[:end])))
            del self._buffer[:after]
            self._carriage_index = None
        return lines

    def flush(self) -> list[str]:
        if not self._buffer:
            return []
        return self.decode(b"\n")


class SdkSseDecoder:
    """SSE framing exactly as the ``openai`` and ``@anthropic-ai/sdk`` clients do it.

    Bytes are first cut into blocks at blank lines, and only whole blocks reach the line decoder; at the end the
    rest is decoded too, but an event without its terminating blank line is never dispatched. When the
    connection is cut, the undelivered rest is simply lost (call :meth:`feed` only, not :meth:`finish`).
    """

    def __init__(self) -> None:
        self._pending = bytearray()
        self._scanned = 0
        self._lines = _SdkLineDecoder()
        self._fields = _SseFields()

    def _dispatch(self, lines: list[str], out: list[SseEvent]) -> None:
        for line in lines:
            # The SDK's field decoder drops one trailing carriage return per line.
            event = self._fields.line(line[:-1] if line.endswith("\r") else line)
            if event is not None:
                out.append(event)

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Events completed by ``chunk``."""
        out: list[SseEvent] = []
        self._pending += chunk
        while True:
            end = _find_double_newline(self._pending, self._scanned)
            if end == -1:
                # Patterns are at most 4 bytes long, so only the tail can start one that is still incomplete.
                self._scanned = max(0, len(self._pending) - 3)
                break
            block = bytes(self._pending[:end])
            del self._pending[:end]
            self._scanned = 0
            self._dispatch(self._lines.decode(block), out)
        return out

    def finish(self) -> list[SseEvent]:
        """Events dispatched when the response ends normally."""
        out: list[SseEvent] = []
        if self._pending:
            block = bytes(self._pending)
            self._pending.clear()
            self._dispatch(self._lines.decode(block), out)
        self._dispatch(self._lines.flush(), out)
        return out


_LINE_BREAK = re.compile(r"[\r\n]")


class LineSseDecoder:
    """pi-ai's own SSE reader (its Anthropic adapter): text lines split at ``\\r``, ``\\n`` or ``\\r\\n``.

    Unlike the SDKs it also dispatches a trailing event that lacks its blank line when the body ends, so a body
    cut inside an event reaches the JSON parser (and fails there). The UTF-8 decoder is a streaming one: a
    BOM is dropped only at the very start.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        # Text received since the last line break, in pieces: a long line arriving in small reads is joined
        # once, when its end arrives, instead of being copied on every read.
        self._pending: list[str] = []
        self._started = False
        self._fields = _SseFields()

    def _consume(self, text: str, out: list[SseEvent]) -> None:
        if _LINE_BREAK.search(text) is None:
            if text:
                self._pending.append(text)
            return
        if self._pending:
            self._pending.append(text)
            text = "".join(self._pending)
            self._pending = []
        position = 0
        length = len(text)
        while True:
            match = _LINE_BREAK.search(text, position)
            if match is None:
                break
            brk = match.start()
            following = brk + 1
            if text[brk] == "\r" and following < length and text[following] == "\n":
                following += 1
            event = self._fields.line(text[position:brk])
            if event is not None:
                out.append(event)
            position = following
        if position < length:
            self._pending.append(text[position:])

    def _decode(self, chunk: bytes, final: bool) -> str:
        text: str = self._decoder.decode(chunk, final)
        if not self._started and text:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        return text

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Events completed by ``chunk``."""
        out: list[SseEvent] = []
        self._consume(self._decode(chunk, False), out)
        return out

    def finish(self) -> list[SseEvent]:
        """Events dispatched when the body ends: the remaining lines, then any unterminated event."""
        out: list[SseEvent] = []
        self._consume(self._decode(b"", True), out)
        if self._pending:
            event = self._fields.line("".join(self._pending))
            self._pending = []
            if event is not None:
                out.append(event)
        trailing = self._fields.flush()
        if trailing is not None:
            out.append(trailing)
        return out


# ---------------------------------------------------------------------------------------------------------------
# JSON with JavaScript semantics


class JsJsonError(ValueError):
    """``JSON.parse`` failed; the message is V8's (Node 22), because Pi copies it into ``errorMessage``."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_MAX_SAFE = 2**53


def _js_int(text: str) -> int | float:
    value = int(text)
    # JS numbers are doubles: integers beyond 2^53 lose precision the same way a float does.
    return value if -_MAX_SAFE <= value <= _MAX_SAFE else float(value)


def _loads(text: str) -> Any:
    """``JSON.parse`` semantics without the error text (fast path for hot loops)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # orjson refuses lone surrogate escapes and huge integers, which JS accepts.
        return json.loads(text, parse_constant=_reject_constant, parse_int=_js_int)


def js_json_parse(text: str) -> Any:
    """``JSON.parse(text)``: the same value, or :class:`JsJsonError` carrying V8's message."""
    try:
        return _loads(text)
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
        return _loads(text)
    except (ValueError, RecursionError):
        repaired = repair_json(text)
        if repaired != text:
            return js_json_parse(repaired)
        raise JsJsonError(v8_json_error_message(text)) from None


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


_JS_TRIM = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
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
                return _loads(self.s[start : self.i])
            except (ValueError, RecursionError) as error:
                raise _MalformedJson(str(error)) from None
        try:
            return _loads(self.s[start : end - int(escape)] + '"')
        except (ValueError, RecursionError):
            return _loads(_js_substring(self.s, start, self.s.rfind("\\")) + '"')

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
                return _loads(s)
            except (ValueError, RecursionError):
                try:
                    return _loads(_js_substring(s, 0, s.rfind("e")))
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
            return _loads(token)
        except (ValueError, RecursionError):
            if token == "-":
                raise _PartialJson("Not sure what '-' is") from None
            try:
                return _loads(_js_substring(s, start, s.rfind("e")))
            except (ValueError, RecursionError):
                raise _MalformedJson("number") from None


def partial_json_parse(text: str) -> Any:
    """npm ``partial-json`` ``parse(text)``: the value of the longest readable prefix; raises when unreadable."""
    trimmed = text.strip(_JS_TRIM)
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
        return _loads(text)
    except (ValueError, RecursionError):
        repaired = repair_json(text)
        if repaired == text:
            raise
        return _loads(repaired)


def parse_streaming_json(text: str | None) -> Any:
    """pi-ai ``parseStreamingJson``: tool-call arguments so far; ``{}`` when nothing can be read."""
    if not text or not text.strip(_JS_TRIM):
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


# ---------------------------------------------------------------------------------------------------------------
# Output message and events

#: Keys adapters keep on content blocks while streaming; snapshots never show them.
SCRATCH_KEYS = ("index", "partialJson", "partialArgs", "streamIndex", "customInput", "redactedChunks")

_BLOCK_SNAPSHOT_EVENTS = frozenset({"text_start", "thinking_start", "toolcall_start", "toolcall_delta"})


def new_output(model: Model, now_ms: int, *, after_model: dict[str, Any] | None = None) -> dict[str, Any]:
    """The AssistantMessage every adapter creates before the request: nothing received yet.

    ``after_model`` holds keys some adapters insert right after ``model`` (e.g. Anthropic's
    ``providerThinkingLevel``), kept there because key order shows in serialised sessions.
    """
    output: dict[str, Any] = {
        "role": "assistant",
        "content": [],
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
    }
    if after_model:
        output.update(after_model)
    output["usage"] = zero_usage()
    output["stopReason"] = "pending"
    output["timestamp"] = now_ms
    return output


def zero_usage() -> dict[str, Any]:
    """Usage before any token count arrived."""
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def clone_json(value: Any) -> Any:
    """Deep copy of plain JSON data (dicts, lists, scalars); faster than ``copy.deepcopy`` for this shape."""
    if isinstance(value, dict):
        return {key: clone_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone_json(item) for item in value]
    return value


def _without_scratch(block: Any) -> Any:
    if not isinstance(block, dict):
        return clone_json(block)
    return {key: clone_json(item) for key, item in block.items() if key not in SCRATCH_KEYS}


def snapshot_event(event: dict[str, Any]) -> dict[str, Any]:
    """The golden form of an event at the moment it is pushed.

    The live ``partial`` keeps changing after the push, so it is dropped, except that ``start`` keeps it (the
    initial message) and block starts / tool-call deltas keep the affected block as ``partialBlock``.
    """
    kind = event.get("type")
    snapshot: dict[str, Any] = {}
    for key, value in event.items():
        if key == "partial":
            if kind == "start":
                snapshot["partial"] = clone_json(value)
            continue
        snapshot[key] = clone_json(value)
    if kind in _BLOCK_SNAPSHOT_EVENTS:
        partial = event.get("partial")
        index = event.get("contentIndex")
        if isinstance(partial, dict) and isinstance(index, int):
            content = partial.get("content") or []
            if 0 <= index < len(content):
                snapshot["partialBlock"] = _without_scratch(content[index])
    return snapshot


class EventEmitter:
    """Records pushed events as snapshots, with pi-ai ``EventStream`` semantics.

    Once ``done`` or ``error`` has been pushed the stream is closed and later pushes are ignored, just as Pi's
    consumers never see them.
    """

    def __init__(self, on_event: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.events: list[dict[str, Any]] = []
        self.closed = False
        self._on_event = on_event

    def emit(self, event: dict[str, Any]) -> None:
        if self.closed:
            return
        if event.get("type") in ("done", "error"):
            self.closed = True
        snapshot = snapshot_event(event)
        self.events.append(snapshot)
        if self._on_event is not None:
            self._on_event(snapshot)


def fail_output(
    output: dict[str, Any],
    emitter: EventEmitter,
    message: str,
    *,
    aborted: bool = False,
    scratch_keys: Iterable[str] = ("index", "partialJson"),
) -> dict[str, Any]:
    """Pi's common failure path: scratch keys go, ``stopReason`` becomes error/aborted, an error event is pushed.

    ``scratch_keys`` differs per adapter (each deletes only the keys it knows), and what it leaves behind is
    visible in the settled message.
    """
    keys = tuple(scratch_keys)
    for block in output["content"]:
        if isinstance(block, dict):
            for key in keys:
                block.pop(key, None)
    output["stopReason"] = "aborted" if aborted else "error"
    output["errorMessage"] = message
    emitter.emit({"type": "error", "reason": output["stopReason"], "error": output})
    return output


def error_text(error: BaseException) -> str:
    """``error.message`` as Pi reads it from a thrown error."""
    return str(error.args[0]) if error.args else ""


# ---------------------------------------------------------------------------------------------------------------
# JavaScript property reads and HTTP error bodies


class JsTypeError(Exception):
    """What V8 throws for a property read on ``null``/``undefined``; adapters report its message."""


_MISSING = object()


def js_member(container: dict[str, Any], key: str, reading: str) -> Any:
    """``container[key]`` that must be an object because the adapter goes on to read ``reading`` from it.

    Pi does not validate event shapes, so a missing object surfaces as V8's ``TypeError`` text in
    ``errorMessage``; this reproduces that text. Non-object values read as themselves (their properties are
    then ``undefined``, see :func:`js_field`).
    """
    value = container.get(key, _MISSING) if isinstance(container, dict) else _MISSING
    if value is _MISSING:
        raise JsTypeError(f"Cannot read properties of undefined (reading '{reading}')")
    if value is None:
        raise JsTypeError(f"Cannot read properties of null (reading '{reading}')")
    return value


def js_field(value: Any, key: str) -> Any:
    """``value?.[key]`` for plain JSON data: ``None`` for anything that is not an object holding ``key``."""
    return value.get(key) if isinstance(value, dict) else None


def read_body_text(chunks: Iterable[bytes]) -> str:
    """``await response.text()`` as the SDKs do for error responses; a cut connection yields its message."""
    parts: list[bytes] = []
    try:
        for chunk in chunks:
            parts.append(chunk)
    except TransportError as error:
        return error_text(error)
    text = b"".join(parts).decode("utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text


def _safe_json(text: str) -> Any:
    try:
        return _loads(text)
    except (ValueError, RecursionError):
        return None


def stainless_status_error(status: int, body_text: str, *, unwrap_error: bool) -> str:
    """``APIError.message`` of the Stainless SDKs for a non-2xx response.

    The body is parsed as JSON when possible; the Anthropic SDK keeps the whole document
    (``unwrap_error=False``), the OpenAI SDK takes its ``error`` member. The result is ``"<status> <text>"``
    where the text is the object's ``message`` or its JSON, or the raw body when it is not JSON.
    """
    parsed = _safe_json(body_text)
    raw_message: str | None = None if js_truthy(parsed) else body_text
    error = js_field(parsed, "error") if unwrap_error else parsed
    inner = js_field(error, "message")
    if js_truthy(inner):
        text: str | None = inner if isinstance(inner, str) else js_stringify(inner)
    elif js_truthy(error):
        text = js_stringify(error)
    else:
        text = raw_message
    if status and text:
        return f"{status} {text}"
    if status:
        return f"{status} status code (no body)"
    return text or "(no status code or body)"


def js_truthy(value: Any) -> bool:
    """JS truthiness of a JSON value: empty objects and arrays are truthy, ``0``/``""``/``null`` are not."""
    if value is None or value is False or value is ABSENT:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


# ---------------------------------------------------------------------------------------------------------------
# Vendor SDK errors as Pi formats them (pi-ai utils/error-body.ts)

MAX_PROVIDER_ERROR_BODY_CHARS = 4000


class SdkApiError(Exception):
    """An error object as a vendor SDK throws it: message plus the fields Pi probes for a status and body.

    ``body`` is a raw body string (Mistral's ``body``), ``error`` a parsed error object (the ``openai`` SDK's
    ``error``); Pi prefers them over the message when the message does not already contain them.
    """

    def __init__(
        self, message: str, *, status: int | None = None, body: str | None = None, error: Any = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.body = body
        self.error = error


def truncate_error_text(text: str, max_chars: int) -> str:
    """pi-ai ``truncateErrorText`` (lengths in UTF-16 units, as in JS)."""
    length = js_length(text)
    if length <= max_chars:
        return text
    units = text.encode("utf-16-le", "surrogatepass")
    head = units[: 2 * max_chars].decode("utf-16-le", "surrogatepass")
    return f"{head}... [truncated {length - max_chars} chars]"


def _error_body_text(error: SdkApiError) -> str | None:
    if isinstance(error.body, str):
        text: str | None = error.body
    elif isinstance(error.error, dict) and error.error:
        text = js_stringify(error.error)
    else:
        text = None
    if text is None:
        return None
    trimmed = text.strip(_JS_TRIM)
    if not trimmed:
        return None
    return truncate_error_text(trimmed, MAX_PROVIDER_ERROR_BODY_CHARS)


def format_provider_error(error: BaseException, prefix: str | None = None) -> str:
    """pi-ai ``formatProviderError(normalizeProviderError(error), prefix)``.

    ``"<status>: <body>"`` (or ``"<prefix> (<status>): <body>"``) when the SDK error carries a body its message
    does not already contain; otherwise the message, prefixed with the status when a prefix is given.
    """
    message = error_text(error)
    status = error.status if isinstance(error, SdkApiError) else None
    body = _error_body_text(error) if isinstance(error, SdkApiError) else None
    carries_body = body is None or body in message
    if carries_body or status is None or body is None:
        if prefix is not None and status is not None:
            return f"{prefix} ({status}): {message}"
        return message
    if prefix is not None:
        return f"{prefix} ({status}): {body}"
    return f"{status}: {body}"


def openai_status_error(status: int, body_text: str) -> SdkApiError:
    """What the ``openai`` SDK throws for a non-2xx response (``APIError.generate``)."""
    parsed = _safe_json(body_text)
    inner = js_field(parsed, "error")
    message = stainless_status_error(status, body_text, unwrap_error=True)
    return SdkApiError(message, status=status, error=inner)


def _sdk_message(error: Any, fallback: str | None) -> str:
    inner = js_field(error, "message")
    if js_truthy(inner):
        text: str | None = inner if isinstance(inner, str) else js_stringify(inner)
    elif js_truthy(error):
        text = js_stringify(error)
    else:
        text = fallback
    return text or "(no status code or body)"


def iter_openai_sdk_stream(chunks: Iterable[bytes]) -> Iterable[Any]:
    """The values the ``openai`` SDK's ``Stream`` yields for an SSE body (``Stream.fromSSEResponse``).

    ``[DONE]`` ends the stream (later events are read but ignored); a JSON ``error`` member becomes an
    :class:`SdkApiError` without status; unparsable data raises :class:`JsJsonError` with V8's text.
    """
    decoder = SdkSseDecoder()
    done = False

    def convert(events: list[SseEvent]) -> Iterable[Any]:
        nonlocal done
        for sse in events:
            if done:
                continue
            if sse.data.startswith("[DONE]"):
                done = True
                continue
            data = js_json_parse(sse.data)
            if sse.event is None or not sse.event.startswith("thread."):
                error = js_field(data, "error")
                if js_truthy(data) and js_truthy(error):
                    raise SdkApiError(_sdk_message(error, None), error=error)
                yield data
            else:
                if sse.event == "error":
                    raise SdkApiError(_sdk_message(js_field(data, "error"), js_field(data, "message")))
                yield {"event": sse.event, "data": data}

    for chunk in chunks:
        yield from convert(decoder.feed(chunk))
    yield from convert(decoder.finish())


class PiError(Exception):
    """An ``Error`` the adapter throws with its own text (``errorMessage`` is exactly this message)."""


def grammar_input_json_delta(buffer: dict[str, Any], prop: str, next_input: str, close: bool) -> str | None:
    """pi-ai ``appendGrammarToolInputJsonDelta``: free-form tool input re-expressed as JSON argument text.

    ``buffer`` is ``{"input": str, "started": bool, "closed": bool}`` and is updated in place; the returned
    piece (``None`` when there is nothing to emit) is what the ``toolcall_delta`` event carries.
    """
    if buffer["closed"]:
        if close and next_input == buffer["input"]:
            return None
        raise PiError(f'grammar tool input for property "{prop}" changed after it was closed')
    if not next_input.startswith(buffer["input"]):
        raise PiError(f'grammar tool input for property "{prop}" changed non-monotonically')
    addition = next_input[len(buffer["input"]) :]
    if not close and not addition:
        return None
    delta = ""
    if not buffer["started"]:
        delta += "{" + js_stringify(prop) + ':"'
        buffer["started"] = True
    delta += js_stringify(addition)[1:-1]
    buffer["input"] = next_input
    if close:
        delta += '"}'
        buffer["closed"] = True
    return delta


#: Marks a member that is absent (JS ``undefined``), as opposed to present with JSON ``null`` (``None``).
ABSENT: Any = _MISSING


def js_to_string(value: Any) -> str:
    """``String(value)`` for JSON data, as ``+=`` and template literals convert what providers send."""
    if value is ABSENT:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number_str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if item is None else js_to_string(item) for item in value)
    return str(value)


def js_strict_equal(left: Any, right: Any) -> bool:
    """``left === right`` for JSON values (objects and arrays are only identical to themselves)."""
    if left is ABSENT or right is ABSENT:
        return left is right
    if isinstance(left, (dict, list)) or isinstance(right, (dict, list)):
        return left is right
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, str) != isinstance(right, str):
        return False
    return bool(left == right)


def js_map_key(value: Any) -> Any:
    """A dict key with JS ``Map`` identity (SameValueZero): ``1`` and ``1.0`` match, ``true`` and ``1`` do not,
    and an object or array only matches itself (a fresh key is never found again)."""
    if value is ABSENT:
        return ("undefined",)
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    return ("object", object())


def js_prop(value: Any, key: str) -> Any:
    """``value[key]`` for a non-nullish JSON value: :data:`ABSENT` when it is not an object holding ``key``."""
    return value.get(key, ABSENT) if isinstance(value, dict) else ABSENT


def assign_or_drop(target: dict[str, Any], key: str, value: Any) -> None:
    """``target[key] = value`` where assigning ``undefined`` makes the key vanish from the JSON."""
    if value is ABSENT:
        target.pop(key, None)
    else:
        target[key] = value


#: Statuses for which ``fetch`` exposes no body at all (``response.body === null``).
NULL_BODY_STATUSES = frozenset({204, 205, 304})
