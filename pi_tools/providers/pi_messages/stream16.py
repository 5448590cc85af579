"""Decoder for pi-messages streams, as pi-ai 1.6's ``pi-messages`` adapter settles them.

The backend speaks Pi's own events: an SSE stream whose blocks each carry one ``data:`` line holding a serialized
assistant-message event (``start``, ``text_*``, ``thinking_*``, ``toolcall_*``) and a terminal ``done`` or
``error`` carrying the stop reason, usage and response id. The adapter reads the body with its own reader: each
read is decoded, appended, every CRLF of the buffer made LF, and blocks are cut at blank lines (a remainder that is
not blank is parsed at the end); only the first ``data:`` line of a block counts, ``[DONE]`` and empty data are
skipped, and so is data that parses to a falsy value. Each event is applied to one growing message (content indices are checked first) and pushed as the event
the backend sent with that message as its ``partial``; ``done``/``error`` settle it.

Any failure (no key, an HTTP error, a body-less answer, malformed JSON, a bad index, a stream without a terminal
event) is reported with a fresh message: no content, zero usage, the error's text, and for an HTTP error a
``pi_messages_response_failure`` diagnostic (its JavaScript stack trace, which names the machine's files, is
left out).

Partial tool arguments: pi-ai 1.6 parses them with its incremental ``StreamingJsonParser``; this decoder shows
them as pi-ai's ``parseStreamingJson`` reads the text so far (the same value for well-formed prefixes). The
settled arguments are the ``toolcall_end`` event's own, as in Pi.
"""

from __future__ import annotations

import codecs
import math
from collections.abc import Iterable, Iterator
from typing import Any

from pi_tools.js.access import ABSENT, assign_or_drop
from pi_tools.js.errors import JsTypeError
from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.values import JS_WHITESPACE, js_add, js_to_string, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.node_http import node_status_text
from pi_tools.providers.streaming import (
    NULL_BODY_STATUSES,
    EventEmitter,
    JsJsonError,
    PiError,
    TransportError,
    error_text,
    js_json_parse,
    new_output,
    parse_streaming_json,
    read_body_text,
    zero_usage,
)

DIAGNOSTIC_BODY_CHARS = 8192


class ResponseError(Exception):
    """pi-ai's PiMessagesResponseError: a non-2xx answer, with the details its diagnostic records."""

    def __init__(self, message: str, code: Any, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.code = code
        self.details = details


def _error_body(body: str) -> dict[str, Any] | None:
    """The body when it is JSON whose ``error`` is an object (not an array), else None."""
    try:
        parsed = js_json_parse(body)
    except JsJsonError:
        return None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        return parsed
    return None


def response_error(model: Model, url: str, status: int, body: str, now_ms: int) -> ResponseError:
    """`<status> <statusText>: <error.message or the body>[ (<error.code>)]`, with the diagnostic's details."""
    status_text = node_status_text(status)
    parsed = _error_body(body)
    error = parsed["error"] if parsed is not None else {}
    message = error.get("message") if isinstance(error.get("message"), str) else None
    code = error.get("code") if isinstance(error.get("code"), str) else None
    text = f"{status} {status_text}: {message if message is not None else body}" + (f" ({code})" if code else "")
    details: dict[str, Any] = {
        "version": 1,
        "provider": model.get("provider"),
        "model": model.get("id"),
        "url": url,
        "status": status,
        "statusText": status_text,
    }
    if parsed is not None:
        details["error"] = parsed["error"]
    else:
        details["body"] = body if len(body) <= DIAGNOSTIC_BODY_CHARS else body[:DIAGNOSTIC_BODY_CHARS] + "…"
    details["timestampMs"] = now_ms
    return ResponseError(text, code, details)


def read_events(chunks: Iterable[bytes]) -> Iterator[Any]:
    """pi-ai ``readPiMessagesEvents``: the parsed data of each block, in order, read by read (a falsy value,
    such as ``null`` or ``0``, is skipped)."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    buffer = ""
    started = False
    iterator = iter(chunks)
    while True:
        try:
            chunk, done = next(iterator), False
        except StopIteration:
            chunk, done = b"", True
        text: str = decoder.decode(chunk, done)
        if not started and text:
            started = True
            if text.startswith("\ufeff"):  # TextDecoder drops a leading byte-order mark
                text = text[1:]
        buffer = (buffer + text).replace("\r\n", "\n")
        split = buffer.find("\n\n")
        while split != -1:
            event = parse_event(buffer[:split])
            if js_truthy(event):
                yield event
            buffer = buffer[split + 2:]
            split = buffer.find("\n\n")
        if done:
            break
    if buffer.strip(JS_WHITESPACE):
        event = parse_event(buffer)
        if js_truthy(event):
            yield event


def parse_event(raw: str) -> Any:
    """The first ``data:`` line's JSON (ABSENT for none, empty data or ``[DONE]``)."""
    line = next((line for line in raw.split("\n") if line.startswith("data:")), None)
    if line is None:
        return ABSENT
    data = line[5:].strip(JS_WHITESPACE)
    if not data or data == "[DONE]":
        return ABSENT
    return js_json_parse(data)


def _type_name(value: Any) -> str:
    """How V8 prints the right operand of a failed ``in``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return js_to_string(value)


class Converter:
    """pi-ai's event converter: one message, grown by the backend's events."""

    def __init__(self, model: Model, now_ms: int) -> None:
        self.partial = new_output(model, now_ms)
        self.now_ms = now_ms
        self.arguments: dict[int, str] = {}  # argument text so far per tool-call index

    def _check_index(self, event: Any) -> None:
        if isinstance(event, dict):
            if "contentIndex" not in event:
                return
        elif isinstance(event, list):
            return
        else:
            raise JsTypeError(f"Cannot use 'in' operator to search for 'contentIndex' in {_type_name(event)}")
        kind = event.get("type", ABSENT)
        if not isinstance(kind, str):
            if kind is ABSENT or kind is None:
                raise JsTypeError(f"Cannot read properties of {'undefined' if kind is ABSENT else 'null'} "
                                  "(reading 'endsWith')")
            raise JsTypeError("event.type.endsWith is not a function")
        length = len(self.partial["content"])
        limit = length if kind.endswith("_start") else length - 1
        index = event["contentIndex"]
        if isinstance(index, bool) or not isinstance(index, int | float) or not math.isfinite(index) \
                or index != int(index) or index < 0 or index > limit:
            shown = js_stringify(index)
            raise PiError(f"Invalid contentIndex {shown} in pi-messages {kind} event")

    def _settle(self, event: dict[str, Any], error: bool) -> None:
        partial = self.partial
        assign_or_drop(partial, "stopReason", event.get("reason", ABSENT))
        assign_or_drop(partial, "usage", event.get("usage", ABSENT))
        if error:
            assign_or_drop(partial, "errorMessage", event.get("errorMessage", ABSENT))
        assign_or_drop(partial, "responseId", event.get("responseId", ABSENT))
        for key in ("responseModel", "providerThinkingLevel"):
            if key in event:
                partial[key] = event[key]
        rewrite = event.get("rewrite", ABSENT)
        if js_truthy(rewrite):
            details = dict(rewrite) if isinstance(rewrite, dict) else {}
            partial["diagnostics"] = [*(partial.get("diagnostics") or []),
                                      {"type": "pi_messages_rewrite", "timestamp": self.now_ms, "details": details}]

    def convert(self, event: Any) -> dict[str, Any]:
        """The event pi-ai pushes for one backend event (the message is its ``partial``, ``message`` or
        ``error``)."""
        self._check_index(event)
        if not isinstance(event, dict):
            spread = {str(i): item for i, item in enumerate(event)} if isinstance(event, list) else {}
            return {**spread, "partial": self.partial}
        kind = event.get("type")
        content: list[Any] = self.partial["content"]
        index = int(event["contentIndex"]) if "contentIndex" in event else -1
        if kind == "done":
            self._settle(event, error=False)
            return {"type": "done", "reason": event.get("reason", ABSENT), "message": self.partial}
        if kind == "error":
            self._settle(event, error=True)
            return {"type": "error", "reason": event.get("reason", ABSENT), "error": self.partial}
        if kind == "text_start":
            _place(content, index, {"type": "text", "text": ""})
        elif kind == "thinking_start":
            _place(content, index, {"type": "thinking", "thinking": ""})
        elif kind in ("text_delta", "thinking_delta"):
            field = "text" if kind == "text_delta" else "thinking"
            growing = content[index]
            growing[field] = js_add(growing.get(field, ABSENT), event.get("delta", ABSENT))
        elif kind == "text_end":
            assign_or_drop(content[index], "text", event.get("content", ABSENT))
            assign_or_drop(content[index], "textSignature", event.get("contentSignature", ABSENT))
        elif kind == "thinking_end":
            assign_or_drop(content[index], "thinking", event.get("content", ABSENT))
            assign_or_drop(content[index], "thinkingSignature", event.get("contentSignature", ABSENT))
            assign_or_drop(content[index], "redacted", event.get("redacted", ABSENT))
        elif kind == "toolcall_start":
            block: dict[str, Any] = {"type": "toolCall"}
            assign_or_drop(block, "id", event.get("id", ABSENT))
            assign_or_drop(block, "name", event.get("toolName", ABSENT))
            block["arguments"] = {}
            _place(content, index, block)
            self.arguments[index] = ""
        elif kind == "toolcall_delta":
            if index in self.arguments:
                self.arguments[index] = js_add(self.arguments[index], event.get("delta", ABSENT))
                parsed = parse_streaming_json(self.arguments[index])
                content[index]["arguments"] = parsed if isinstance(parsed, dict) else {}
        elif kind == "toolcall_end":
            _assign_all(content[index], event.get("toolCall", ABSENT))
            self.arguments.pop(index, None)
            return {"type": "toolcall_end", "contentIndex": event["contentIndex"], "toolCall": content[index],
                    "partial": self.partial}
        return {**event, "partial": self.partial}


def _place(content: list[Any], index: int, block: dict[str, Any]) -> None:
    if index == len(content):
        content.append(block)
    else:
        content[index] = block


def _assign_all(target: Any, source: Any) -> None:
    """``Object.assign(target, source)`` for JSON values: an object's keys, a string's or array's indices."""
    if not isinstance(target, dict):
        return
    if isinstance(source, dict):
        for key, value in source.items():
            target[key] = value
    elif isinstance(source, list | str):
        for position, item in enumerate(source):
            target[str(position)] = item


def error_message(model: Model, error: BaseException, now_ms: int) -> dict[str, Any]:
    """pi-ai ``createErrorEvent``'s message: nothing of the stream kept, the error's text."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": [],
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
        "usage": zero_usage(),
        "stopReason": "error",
        "errorMessage": error_text(error),
        "timestamp": now_ms,
    }
    if isinstance(error, ResponseError):
        info: dict[str, Any] = {"name": "PiMessagesResponseError", "message": error_text(error)}
        if error.code is not None:
            info["code"] = error.code
        message["diagnostics"] = [{"type": "pi_messages_response_failure", "timestamp": now_ms, "error": info,
                                   "details": error.details}]
    return message


def decode(
    model: Model,
    *,
    status: int,
    headers: dict[str, str],
    chunks: Iterable[bytes],
    options: dict[str, Any],
    now_ms: int,
    emitter: EventEmitter,
) -> dict[str, Any]:
    """Replay one pi-messages response; returns the settled AssistantMessage."""
    from pi_tools.providers.pi_messages.wire16 import request_url

    converter = Converter(model, now_ms)
    try:
        if not js_truthy(options.get("apiKey", ABSENT)):
            raise PiError(f'No API key provided for provider "{js_to_string(model.get("provider", ABSENT))}"')
        if not 200 <= status <= 299:
            body = read_body_text(chunks)
            raise response_error(model, request_url(model, options), status, body, now_ms)
        if status in NULL_BODY_STATUSES:
            raise PiError(f"{js_to_string(model.get('provider', ABSENT))} response has no body")
        for backend_event in read_events(chunks):
            event = converter.convert(backend_event)
            emitter.emit(event)
            if event.get("type") == "done":
                return converter.partial
            if event.get("type") == "error":
                return converter.partial
        raise PiError(f"{js_to_string(model.get('provider', ABSENT))} stream ended without a terminal event")
    except (PiError, ResponseError, JsJsonError, JsTypeError, TransportError) as error:
        failed = error_message(model, error, now_ms)
        emitter.emit({"type": "error", "reason": "error", "error": failed})
        return failed
