"""Decoder for ``streamGenerateContent?alt=sse`` responses, as pi-ai's Google adapter settles them.

Pi reads Gemini through ``@google/genai``, whose stream reader is not a standard SSE parser: it cuts the text at
the first blank line of any flavour (``\\n\\n``, ``\\r\\r``, ``\\r\\n\\r\\n``), keeps only blocks that start with
``data:``, and fails with ``Incomplete JSON segment at the end`` when anything but whitespace is left over. It
also tries to read every raw network chunk as a JSON error object. Those quirks decide where a broken stream
fails, so they are reproduced here rather than delegated to a generic SSE parser.
"""

from __future__ import annotations

import codecs
import http
import math
import re
from collections.abc import Iterable
from typing import Any

import orjson

from pi_tools.providers.catalog import Model, calculate_cost
from pi_tools.providers.jsonjs import js_number_str, js_stringify
from pi_tools.providers.streaming import (
    EventEmitter,
    error_text,
    fail_output,
    js_json_parse,
    new_output,
)

# The earliest of the SDK's three delimiters; two of them never start at the same index, so the leftmost
# regex match is the one the SDK picks.
_DELIMITER = re.compile("\n\n|\r\r|\r\n\r\n")
_DATA_PREFIX = "data:"
_JS_WHITESPACE = (
    " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

# @google/genai FinishReason values that pi-ai maps to an error; anything outside the enum makes it throw.
_ERROR_FINISH_REASONS = frozenset(
    {
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "SAFETY",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "IMAGE_OTHER",
        "RECITATION",
        "FINISH_REASON_UNSPECIFIED",
        "OTHER",
        "LANGUAGE",
        "MALFORMED_FUNCTION_CALL",
        "UNEXPECTED_TOOL_CALL",
        "NO_IMAGE",
    }
)

# Node's reason phrases where they differ from Python's (the replay server is Node's http module).
_NODE_REASON_PHRASES = {
    413: "Payload Too Large",
    414: "URI Too Long",
    416: "Range Not Satisfiable",
    509: "Bandwidth Limit Exceeded",
}


class GoogleApiError(Exception):
    """The SDK's ``ApiError``: its message is the whole error body, which Pi shows unchanged."""


class _StreamFailure(Exception):
    """A failure whose message Pi copies verbatim into ``errorMessage``."""


def node_status_text(status: int) -> str:
    """The reason phrase a Node HTTP server sends, which the SDK folds into non-JSON error bodies."""
    if status in _NODE_REASON_PHRASES:
        return _NODE_REASON_PHRASES[status]
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "unknown"


def js_string(value: Any) -> str:
    """``String(value)`` for JSON-shaped values, used where Pi concatenates or interpolates raw fields."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_str(value) if not (isinstance(value, float) and math.isnan(value)) else "NaN"
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


def _js_truthy(value: Any) -> bool:
    if isinstance(value, dict | list):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def _js_to_number(value: Any) -> float:
    """``Number(value)`` for the primitives an error ``code`` field can hold."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip(_JS_WHITESPACE)
        if not text:
            return 0.0
        try:
            return float(text)
        except ValueError:
            return math.nan
    return math.nan


def _is_ok_status(status: int) -> bool:
    return 200 <= status <= 299


def _read_body(chunks: Iterable[bytes]) -> bytes:
    return b"".join(chunks)


def _http_error_message(status: int, headers: dict[str, str], body: bytes) -> str:
    """What ``throwErrorIfNotOK`` puts in the ApiError: the JSON body re-serialised, or a wrapped text body."""
    text = body.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    content_type = next((value for key, value in headers.items() if key.lower() == "content-type"), "")
    if "application/json" in content_type:
        parsed = js_json_parse(text)
        return js_stringify(parsed)
    wrapped = {"error": {"message": text, "code": status, "status": node_status_text(status)}}
    return js_stringify(wrapped)


def _raw_chunk_error(chunk_text: str) -> GoogleApiError | None:
    """The SDK parses every raw network chunk as JSON and throws when it is an error object with an HTTP code."""
    try:
        parsed = orjson.loads(chunk_text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(parsed, dict) or "error" not in parsed:
        return None
    error = parsed["error"]
    if not isinstance(error, dict):
        return None
    code = _js_to_number(error.get("code"))
    if not 400 <= code < 600:
        return None
    status = error["status"] if "status" in error else None
    status_text = "undefined" if "status" not in error else js_string(status)
    return GoogleApiError(f"got status: {status_text}. {js_stringify(parsed)}")


class _SseReader:
    """@google/genai's ``processStreamResponse``: blank-line framing over a streaming UTF-8 decode."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._buffer = ""
        self._scan_from = 0

    def feed(self, chunk: bytes) -> list[str]:
        text: str = self._decoder.decode(chunk, False)
        error = _raw_chunk_error(text) if text.lstrip(_JS_WHITESPACE).startswith("{") else None
        if error is not None:
            raise error
        self._buffer += text
        payloads: list[str] = []
        position = 0
        buffer = self._buffer
        while True:
            match = _DELIMITER.search(buffer, max(position, self._scan_from))
            if match is None:
                break
            event = buffer[position : match.start()].strip(_JS_WHITESPACE)
            position = match.end()
            self._scan_from = position
            if event.startswith(_DATA_PREFIX):
                payloads.append(event[len(_DATA_PREFIX) :].strip(_JS_WHITESPACE))
        self._buffer = buffer[position:]
        # A delimiter is at most 4 characters, so a partial one can only sit in the last 3.
        self._scan_from = max(0, len(self._buffer) - 3)
        return payloads

    def finish(self) -> None:
        if self._buffer.strip(_JS_WHITESPACE):
            raise _StreamFailure("Incomplete JSON segment at the end")


def _map_stop_reason(reason: Any) -> str:
    if reason == "STOP":
        return "stop"
    if reason == "MAX_TOKENS":
        return "length"
    if isinstance(reason, str) and reason in _ERROR_FINISH_REASONS:
        return "error"
    raise _StreamFailure(f"Unhandled stop reason: {js_string(reason)}")


def _retain_signature(existing: Any, incoming: Any) -> Any:
    if isinstance(incoming, str) and incoming:
        return incoming
    return existing


class _GoogleStream:
    """pi-ai's per-chunk handling: text/thinking blocks by ``thought``, whole function calls, usage, finish."""

    def __init__(self, model: Model, output: dict[str, Any], emitter: EventEmitter, now_ms: int) -> None:
        self.model = model
        self.output = output
        self.emitter = emitter
        self.now_ms = now_ms
        self.current: dict[str, Any] | None = None
        # Deltas of the open block, joined only when someone can observe the block (its end, a terminal event):
        # appending to a growing str stored in a dict would copy it on every delta.
        self.pieces: list[str] = []
        self.tool_call_counter = 0

    def flush_text(self) -> None:
        """Write the open block's buffered deltas into it."""
        block = self.current
        if block is not None and self.pieces:
            key = "text" if block["type"] == "text" else "thinking"
            block[key] += "".join(self.pieces)
            self.pieces.clear()

    def _emit(self, event: dict[str, Any]) -> None:
        event["partial"] = self.output
        self.emitter.emit(event)

    def _last_index(self) -> int:
        return len(self.output["content"]) - 1

    def close_current(self) -> None:
        block = self.current
        if block is None:
            return
        self.flush_text()
        if block["type"] == "text":
            self._emit({"type": "text_end", "contentIndex": self._last_index(), "content": block["text"]})
        else:
            self._emit(
                {"type": "thinking_end", "contentIndex": self._last_index(), "content": block["thinking"]}
            )

    def handle_chunk(self, chunk: Any) -> None:
        if not isinstance(chunk, dict):
            # The SDK's field copier reads nothing from a non-object, so Pi sees an empty response.
            chunk = {}
        output = self.output
        if not _js_truthy(output.get("responseId")):
            response_id = chunk.get("responseId")
            if response_id is None:
                output.pop("responseId", None)
            else:
                output["responseId"] = response_id
        candidates = chunk.get("candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else None
        if candidate is not None and not isinstance(candidate, dict):
            candidate = {}
        if candidate is not None:
            content = candidate.get("content")
            parts = content.get("parts") if isinstance(content, dict) else None
            if _js_truthy(parts):
                if not isinstance(parts, list):
                    raise _StreamFailure("candidate.content.parts is not iterable")
                for part in parts:
                    self._handle_part(part)
            finish_reason = candidate.get("finishReason")
            if _js_truthy(finish_reason):
                output["rawStopReason"] = finish_reason
                output["stopReason"] = _map_stop_reason(finish_reason)
                has_tool_call = any(block.get("type") == "toolCall" for block in output["content"])
                if has_tool_call and output["stopReason"] == "stop":
                    output["stopReason"] = "toolUse"
        usage = chunk.get("usageMetadata")
        if _js_truthy(usage) and isinstance(usage, dict):
            self._apply_usage(usage)

    def _handle_part(self, part: Any) -> None:
        if part is None:
            raise _StreamFailure("Cannot read properties of null (reading 'text')")
        if not isinstance(part, dict):
            return
        if "text" in part:
            self._handle_text(part)
        function_call = part.get("functionCall")
        if _js_truthy(function_call):
            self._handle_function_call(part, function_call)

    def _handle_text(self, part: dict[str, Any]) -> None:
        text = part["text"]
        is_thinking = part.get("thought") is True
        block = self.current
        wanted = "thinking" if is_thinking else "text"
        if block is None or block["type"] != wanted:
            self.close_current()
            block = {"type": "thinking", "thinking": ""} if is_thinking else {"type": "text", "text": ""}
            self.current = block
            self.output["content"].append(block)
            self._emit({"type": f"{wanted}_start", "contentIndex": self._last_index()})
        signature_key = "thinkingSignature" if is_thinking else "textSignature"
        self.pieces.append(js_string(text))
        signature = _retain_signature(block.get(signature_key), part.get("thoughtSignature"))
        if signature is None:
            block.pop(signature_key, None)
        else:
            block[signature_key] = signature
        self._emit({"type": f"{wanted}_delta", "contentIndex": self._last_index(), "delta": text})

    def _handle_function_call(self, part: dict[str, Any], function_call: Any) -> None:
        if self.current is not None:
            self.close_current()
            self.current = None
        call = function_call if isinstance(function_call, dict) else {}
        provided_id = call.get("id")
        content = self.output["content"]
        needs_new_id = not _js_truthy(provided_id) or any(
            block.get("type") == "toolCall" and block.get("id") == provided_id for block in content
        )
        name = call.get("name")
        if needs_new_id:
            self.tool_call_counter += 1
            name_text = "undefined" if "name" not in call else js_string(name)
            tool_call_id: Any = f"{name_text}_{self.now_ms}_{self.tool_call_counter}"
        else:
            tool_call_id = provided_id
        arguments = call.get("args")
        tool_call: dict[str, Any] = {
            "type": "toolCall",
            "id": tool_call_id,
            "name": name if _js_truthy(name) else "",
            "arguments": {} if arguments is None else arguments,
        }
        signature = part.get("thoughtSignature")
        if _js_truthy(signature):
            tool_call["thoughtSignature"] = signature
        content.append(tool_call)
        index = self._last_index()
        self._emit({"type": "toolcall_start", "contentIndex": index})
        self._emit(
            {"type": "toolcall_delta", "contentIndex": index, "delta": js_stringify(tool_call["arguments"])}
        )
        self._emit({"type": "toolcall_end", "contentIndex": index, "toolCall": tool_call})

    def _apply_usage(self, usage: dict[str, Any]) -> None:
        def count(key: str) -> Any:
            value = usage.get(key)
            return value if _js_truthy(value) else 0

        cached = count("cachedContentTokenCount")
        thoughts = count("thoughtsTokenCount")
        self.output["usage"] = {
            "input": count("promptTokenCount") - cached,
            "output": count("candidatesTokenCount") + thoughts,
            "cacheRead": cached,
            "cacheWrite": 0,
            "reasoning": thoughts,
            "totalTokens": count("totalTokenCount"),
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }
        calculate_cost(self.model, self.output["usage"])


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
    """Settle one Gemini streaming response the way pi-ai's ``google-generative-ai`` adapter does."""
    output = new_output(model, now_ms)
    aborted = bool(options.get("aborted"))
    stream = _GoogleStream(model, output, emitter, now_ms)
    try:
        if not _is_ok_status(status):
            raise GoogleApiError(_http_error_message(status, headers, _read_body(chunks)))
        emitter.emit({"type": "start", "partial": output})
        reader = _SseReader()
        for chunk in chunks:
            for payload in reader.feed(chunk):
                stream.handle_chunk(js_json_parse(payload))
        reader.finish()
        stream.close_current()
        if output["stopReason"] == "pending":
            # google-vertex shares this decoder (same SDK response type); only its adapter's wording differs.
            service = "Google Vertex" if model.get("api") == "google-vertex" else "Google"
            raise _StreamFailure(f"{service} stream ended without a finish reason")
        if output["stopReason"] in ("error", "aborted"):
            raw = output.get("rawStopReason")
            raise _StreamFailure(
                f"Provider stopped with: {js_string(raw)}" if _js_truthy(raw) else "An unknown error occurred"
            )
        emitter.emit({"type": "done", "reason": output["stopReason"], "message": output})
        return output
    except Exception as error:
        stream.flush_text()
        return fail_output(output, emitter, error_text(error), aborted=aborted, scratch_keys=("index",))
