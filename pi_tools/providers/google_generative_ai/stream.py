"""Decoder for ``streamGenerateContent?alt=sse`` responses, as pi-ai's Google adapter settles them.

Pi reads Gemini through ``@google/genai``, whose stream reader is not a standard SSE parser: it cuts the text at
the first blank line of any flavour (``\\n\\n``, ``\\r\\r``, ``\\r\\n\\r\\n``), keeps only blocks that start with
``data:``, and fails with ``Incomplete JSON segment at the end`` when anything but whitespace is left over. It
also tries to read every raw network chunk as a JSON error object. Those quirks decide where a broken stream
fails, so they are reproduced here rather than delegated to a generic SSE parser.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from typing import Any

import orjson

from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.values import JS_WHITESPACE, js_to_number
from pi_tools.providers.catalog import Model, calculate_cost
from pi_tools.providers.node_http import node_status_text
from pi_tools.providers.stream_message import (
    PiError,
    SequentialBlocks,
    counted_usage,
    emit_done,
    raise_unless_settled,
)
from pi_tools.providers.streaming import (
    EventEmitter,
    error_text,
    fail_output,
    js_json_parse,
    js_to_string,
    js_truthy,
    new_output,
)

# The earliest of the SDK's three delimiters; two of them never start at the same index, so the leftmost
# regex match is the one the SDK picks.
_DELIMITER = re.compile("\n\n|\r\r|\r\n\r\n")
_DATA_PREFIX = "data:"

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


class GoogleApiError(Exception):
    """The SDK's ``ApiError``: its message is the whole error body, which Pi shows unchanged."""


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
    code = js_to_number(error.get("code"))
    if not 400 <= code < 600:
        return None
    status = error["status"] if "status" in error else None
    status_text = "undefined" if "status" not in error else js_to_string(status)
    return GoogleApiError(f"got status: {status_text}. {js_stringify(parsed)}")


class _SseReader:
    """@google/genai's ``processStreamResponse``: blank-line framing over a streaming UTF-8 decode."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._buffer = ""
        self._scan_from = 0

    def feed(self, chunk: bytes) -> list[str]:
        text: str = self._decoder.decode(chunk, False)
        error = _raw_chunk_error(text) if text.lstrip(JS_WHITESPACE).startswith("{") else None
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
            event = buffer[position : match.start()].strip(JS_WHITESPACE)
            position = match.end()
            self._scan_from = position
            if event.startswith(_DATA_PREFIX):
                payloads.append(event[len(_DATA_PREFIX) :].strip(JS_WHITESPACE))
        self._buffer = buffer[position:]
        # A delimiter is at most 4 characters, so a partial one can only sit in the last 3.
        self._scan_from = max(0, len(self._buffer) - 3)
        return payloads

    def finish(self) -> None:
        if self._buffer.strip(JS_WHITESPACE):
            raise PiError("Incomplete JSON segment at the end")


def _map_stop_reason(reason: Any) -> str:
    if reason == "STOP":
        return "stop"
    if reason == "MAX_TOKENS":
        return "length"
    if isinstance(reason, str) and reason in _ERROR_FINISH_REASONS:
        return "error"
    raise PiError(f"Unhandled stop reason: {js_to_string(reason)}")


def _retain_signature(existing: Any, incoming: Any) -> Any:
    if isinstance(incoming, str) and incoming:
        return incoming
    return existing


class _GoogleStream(SequentialBlocks):
    """pi-ai's per-chunk handling: text/thinking blocks by ``thought``, whole function calls, usage, finish."""

    def __init__(self, model: Model, output: dict[str, Any], emitter: EventEmitter, now_ms: int) -> None:
        super().__init__(output, emitter)
        self.model = model
        self.now_ms = now_ms
        self.tool_call_counter = 0

    def handle_chunk(self, chunk: Any) -> None:
        if not isinstance(chunk, dict):
            # The SDK's field copier reads nothing from a non-object, so Pi sees an empty response.
            chunk = {}
        output = self.output
        if not js_truthy(output.get("responseId")):
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
            if js_truthy(parts):
                if not isinstance(parts, list):
                    raise PiError("candidate.content.parts is not iterable")
                for part in parts:
                    self._handle_part(part)
            finish_reason = candidate.get("finishReason")
            if js_truthy(finish_reason):
                output["rawStopReason"] = finish_reason
                output["stopReason"] = _map_stop_reason(finish_reason)
                has_tool_call = any(block.get("type") == "toolCall" for block in output["content"])
                if has_tool_call and output["stopReason"] == "stop":
                    output["stopReason"] = "toolUse"
        usage = chunk.get("usageMetadata")
        if js_truthy(usage) and isinstance(usage, dict):
            self._apply_usage(usage)

    def _handle_part(self, part: Any) -> None:
        if part is None:
            raise PiError("Cannot read properties of null (reading 'text')")
        if not isinstance(part, dict):
            return
        if "text" in part:
            self._handle_text(part)
        function_call = part.get("functionCall")
        if js_truthy(function_call):
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
            self.emit({"type": f"{wanted}_start", "contentIndex": self.last_index()})
        signature_key = "thinkingSignature" if is_thinking else "textSignature"
        self.pieces.append(js_to_string(text))
        signature = _retain_signature(block.get(signature_key), part.get("thoughtSignature"))
        if signature is None:
            block.pop(signature_key, None)
        else:
            block[signature_key] = signature
        self.emit({"type": f"{wanted}_delta", "contentIndex": self.last_index(), "delta": text})

    def _handle_function_call(self, part: dict[str, Any], function_call: Any) -> None:
        if self.current is not None:
            self.close_current()
            self.current = None
        call = function_call if isinstance(function_call, dict) else {}
        provided_id = call.get("id")
        content = self.output["content"]
        needs_new_id = not js_truthy(provided_id) or any(
            block.get("type") == "toolCall" and block.get("id") == provided_id for block in content
        )
        name = call.get("name")
        if needs_new_id:
            self.tool_call_counter += 1
            name_text = "undefined" if "name" not in call else js_to_string(name)
            tool_call_id: Any = f"{name_text}_{self.now_ms}_{self.tool_call_counter}"
        else:
            tool_call_id = provided_id
        arguments = call.get("args")
        tool_call: dict[str, Any] = {
            "type": "toolCall",
            "id": tool_call_id,
            "name": name if js_truthy(name) else "",
            "arguments": {} if arguments is None else arguments,
        }
        signature = part.get("thoughtSignature")
        if js_truthy(signature):
            tool_call["thoughtSignature"] = signature
        content.append(tool_call)
        index = self.last_index()
        self.emit({"type": "toolcall_start", "contentIndex": index})
        self.emit(
            {"type": "toolcall_delta", "contentIndex": index, "delta": js_stringify(tool_call["arguments"])}
        )
        self.emit({"type": "toolcall_end", "contentIndex": index, "toolCall": tool_call})

    def _apply_usage(self, usage: dict[str, Any]) -> None:
        def count(key: str) -> Any:
            value = usage.get(key)
            return value if js_truthy(value) else 0

        cached = count("cachedContentTokenCount")
        thoughts = count("thoughtsTokenCount")
        self.output["usage"] = counted_usage(
            input_tokens=count("promptTokenCount") - cached,
            output_tokens=count("candidatesTokenCount") + thoughts,
            cache_read=cached,
            cache_write=0,
            reasoning=thoughts,
            total=count("totalTokenCount"),
        )
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
        # google-vertex shares this decoder (same SDK response type); only its adapter's wording differs.
        service = "Google Vertex" if model.get("api") == "google-vertex" else "Google"
        raw = output.get("rawStopReason")
        raise_unless_settled(
            output,
            f"{service} stream ended without a finish reason",
            f"Provider stopped with: {js_to_string(raw)}" if js_truthy(raw) else "An unknown error occurred",
        )
        emit_done(output, emitter)
        return output
    except Exception as error:
        stream.flush_text()
        return fail_output(output, emitter, error_text(error), aborted=aborted, scratch_keys=("index",))
