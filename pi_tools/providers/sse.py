"""Reading a provider's HTTP body: the connection, server-sent-event framing, and the SDK stream on top.

Each client frames SSE a little differently (where a cut body stops, whether an unterminated last event is
dispatched, how a BOM is handled), and those differences decide which error a broken stream settles with.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pi_tools.js.access import js_field
from pi_tools.js.json_parse import js_json_parse
from pi_tools.js.values import js_truthy
from pi_tools.providers.provider_errors import (
    SdkApiError,
    error_text,
    openai_status_error,
    sdk_error_message,
)
from pi_tools.providers.stream_message import EventEmitter, PiError

#: Statuses for which ``fetch`` exposes no body at all (``response.body === null``).
NULL_BODY_STATUSES = frozenset({204, 205, 304})


class TransportError(Exception):
    """The connection closed before the response was complete.

    The message is what Node's HTTP client reports to the adapter (undici says ``terminated``); Pi copies it
    into ``errorMessage``, where the retry regexes look at it.
    """

    def __init__(self, message: str = "terminated") -> None:
        super().__init__(message)


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
                    raise SdkApiError(sdk_error_message(error, None), error=error)
                yield data
            else:
                if sse.event == "error":
                    raise SdkApiError(sdk_error_message(js_field(data, "error"), js_field(data, "message")))
                yield {"event": sse.event, "data": data}

    for chunk in chunks:
        yield from convert(decoder.feed(chunk))
    yield from convert(decoder.finish())


def open_openai_sdk_stream(
    status: int, chunks: Iterable[bytes], output: dict[str, Any], emitter: EventEmitter
) -> Iterable[Any]:
    """What awaiting ``client.<api>.create({stream: true})`` gives Pi's OpenAI adapters.

    A non-2xx status throws the SDK's error before anything is pushed; otherwise ``start`` is pushed, a response
    without a body fails on iteration, and the rest are the SDK stream's values.
    """
    if not 200 <= status < 300:
        raise openai_status_error(status, read_body_text(chunks))
    emitter.emit({"type": "start", "partial": output})
    if status in NULL_BODY_STATUSES:
        raise PiError("Attempted to iterate over a response with no body")
    return iter_openai_sdk_stream(chunks)
