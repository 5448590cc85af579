"""Decoder for Bedrock ``ConverseStream`` responses, as pi-ai's ``bedrock-converse-stream`` adapter settles them.

The body is AWS event-stream framing (see :mod:`pi_tools.providers.eventstream`); each message is routed by its
``:message-type`` / ``:event-type`` / ``:exception-type`` headers the way the AWS SDK (``@smithy/core`` event
streams) does before pi-ai sees it. Failures carry what pi-ai's ``formatBedrockError`` and its
``bedrock_response_failure`` diagnostic read from SDK errors: a human prefix for modeled exceptions, the HTTP
status and request id when the SDK attached them.

One SDK detail shapes failures: the client awaits the *first* event before ``send`` resolves, so an error
before any event surfaces as a deserialization error of the HTTP response (with a hint appended and the
response status attached) instead of a stream error.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.values import JS_WHITESPACE, js_to_string
from pi_tools.providers.catalog import Model, calculate_cost
from pi_tools.providers.eventstream import EventStreamDecoder, EventStreamError, EventStreamMessage
from pi_tools.providers.stream_message import emit_done, raise_unless_settled
from pi_tools.providers.streaming import (
    EventEmitter,
    TransportError,
    error_text,
    js_json_parse,
    js_truthy,
    new_output,
    parse_streaming_json,
)

REDACTED_THINKING_PLACEHOLDER = "[Reasoning redacted]"
DATA_RETENTION_DOCS_URL = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"
MAX_ERROR_BODY_CHARS = 4000
_MAX_DIAGNOSTIC_VALUE_CHARS = 200
_DESERIALIZATION_HINT = "\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object."
_REQUEST_ID_HEADER = re.compile(r"^x-[\w-]+-request-?id$")
_DATA_RETENTION = re.compile("data retention mode", re.IGNORECASE)
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")

# Exceptions the ConverseStream output union models; their events become SDK exception objects.
_STREAM_EXCEPTIONS = {
    "internalServerException": "InternalServerException",
    "modelStreamErrorException": "ModelStreamErrorException",
    "validationException": "ValidationException",
    "throttlingException": "ThrottlingException",
    "serviceUnavailableException": "ServiceUnavailableException",
}
_STREAM_EVENTS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}
)
# pi-ai keeps these legacy prefixes because its retry rules match them (server.?error, service.?unavailable).
_ERROR_PREFIXES = {
    "InternalServerException": "Internal server error",
    "ModelStreamErrorException": "Model stream error",
    "ValidationException": "Validation error",
    "ThrottlingException": "Throttling error",
    "ServiceUnavailableException": "Service unavailable",
}


@dataclass
class BedrockFailure(Exception):
    """What pi-ai's error formatting reads from a thrown SDK error.

    ``service`` marks ``BedrockRuntimeServiceException`` instances (they get a prefix); ``metadata`` is the SDK's
    ``$metadata`` and ``has_metadata`` whether the property exists at all (service exceptions always have it,
    even when undefined); ``fields`` are extra properties copied from an error body.
    """

    message: str
    name: str = "Error"
    service: bool = False
    metadata: dict[str, Any] | None = None
    has_metadata: bool = False
    fields: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


def _same(left: Any, right: Any) -> bool:
    """JS ``===`` for the scalar values block indexes can take (``0`` never equals ``False`` or ``"0"``)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return bool(left == right)
    if type(left) is not type(right):
        return False
    return bool(left == right) if isinstance(left, str) or left is None else left is right


_MISSING = object()


def _block_index(event: dict[str, Any]) -> Any:
    """The event's ``contentBlockIndex``; absent and null both read as undefined."""
    value = event.get("contentBlockIndex")
    return _MISSING if value is None else value


def _normalize_diagnostic_value(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    trimmed = value.strip(JS_WHITESPACE)
    if not trimmed or len(trimmed) > _MAX_DIAGNOSTIC_VALUE_CHARS:
        return None
    return trimmed


def _lower_headers(headers: dict[str, str]) -> dict[str, str]:
    return {key.lower(): value for key, value in headers.items()}


def _response_metadata(status: int, headers: dict[str, str]) -> dict[str, Any]:
    """``$metadata`` as the protocol layer builds it for a response."""
    request_id = headers.get("x-amzn-requestid")
    if request_id is None:
        request_id = headers.get("x-amzn-request-id")
    if request_id is None:
        request_id = headers.get("x-amz-request-id")
    return {"httpStatusCode": status, "requestId": request_id}


def _deserialization_metadata(status: int, headers: dict[str, str]) -> dict[str, Any]:
    """``$metadata`` as the deserialization middleware attaches it to errors it did not model."""
    request_id = next((value for key, value in headers.items() if _REQUEST_ID_HEADER.match(key)), None)
    return {"httpStatusCode": status, "requestId": request_id}


def _as_deserialization_error(error: BedrockFailure, status: int, headers: dict[str, str]) -> BedrockFailure:
    """An error thrown while the SDK deserialised the response: hint appended, response metadata attached."""
    if error.has_metadata:
        return error
    error.message += _DESERIALIZATION_HINT
    error.metadata = _deserialization_metadata(status, headers)
    error.has_metadata = True
    return error


def _sanitize_error_code(raw: Any) -> str:
    code = js_to_string(raw)
    if "," in code:
        code = code.split(",")[0]
    if ":" in code:
        code = code.split(":")[0]
    if "#" in code:
        code = code.split("#")[1]
    return code


def _error_code(headers: dict[str, str], data: dict[str, Any]) -> str:
    """``loadRestJsonErrorCode``: the ``x-amzn-errortype`` header, else a ``code`` field, else ``__type``."""
    if "x-amzn-errortype" in headers:
        return _sanitize_error_code(headers["x-amzn-errortype"])
    code_key = next((key for key in data if key.lower() == "code"), None)
    if code_key is not None and data[code_key] is not None:
        return _sanitize_error_code(data[code_key])
    if data.get("__type") is not None:
        return _sanitize_error_code(data["__type"])
    return "Unknown"


def _http_error(status: int, headers: dict[str, str], body: bytes) -> BedrockFailure:
    """The exception the SDK throws for a non-2xx answer.

    Modeled error codes and unknown ones (which become the service's base exception named after the code) end
    up alike for Pi: a service exception whose name is the code and whose message is the body's ``message``.
    """
    data: dict[str, Any] = {}
    if body:
        try:
            parsed = js_json_parse(body.decode("utf-8", "replace"))
        except ValueError as error:
            return _as_deserialization_error(
                BedrockFailure(error_text(error), name="SyntaxError"), status, headers
            )
        if isinstance(parsed, dict):
            data = parsed
    name = _error_code(headers, data)
    message_value = data.get("message") if js_truthy(data.get("message")) else data.get("Message")
    message = js_to_string(message_value) if js_truthy(message_value) else "UnknownError"
    reserved = {"name", "message", "Message", "$fault", "$metadata"}
    fields = {key: value for key, value in data.items() if key not in reserved}
    return BedrockFailure(
        message,
        name=name,
        service=True,
        metadata=_response_metadata(status, headers),
        has_metadata=True,
        fields=fields,
    )


def _decode_json_body(payload: bytes) -> Any:
    if not payload:
        return {}
    try:
        return js_json_parse(payload.decode("utf-8", "replace"))
    except ValueError as error:
        raise BedrockFailure(error_text(error), name="SyntaxError") from None


def _stream_exception(member: str, payload: bytes) -> BedrockFailure:
    data = _decode_json_body(payload)
    message = data.get("message") if isinstance(data, dict) else None
    return BedrockFailure(
        "Unknown" if message is None else js_to_string(message),
        name=_STREAM_EXCEPTIONS[member],
        service=True,
        has_metadata=True,
    )


def _decode_blob(value: Any) -> bytes:
    if not isinstance(value, str):
        raise BedrockFailure(f'The "input" argument must be of type string. Received {js_to_string(value)}')
    if len(value) % 4 != 0:
        raise BedrockFailure("Incorrect padding on base64 string.", name="TypeError")
    if not _BASE64.match(value):
        raise BedrockFailure("Invalid base64 string.", name="TypeError")
    try:
        return base64.b64decode(value)
    except (binascii.Error, ValueError):
        raise BedrockFailure("Invalid base64 string.", name="TypeError") from None


def _unmarshal(message: EventStreamMessage) -> tuple[str, Any] | None:
    """One event-stream message as the SDK hands it to pi-ai: ``(member, value)``, skipped, or raised."""
    message_type = message.header_str(":message-type")
    if message_type == "error":
        code = message.header_str(":error-code")
        text = message.header_str(":error-message")
        raise BedrockFailure(text or "UnknownError", name=code or "Error")
    if message_type == "exception":
        code = message.header_str(":exception-type") or ""
        if code in _STREAM_EXCEPTIONS:
            raise _stream_exception(code, message.payload)
        raise BedrockFailure(message.payload.decode("utf-8", "replace"), name=code)
    if message_type == "event":
        event_type = message.header_str(":event-type") or ""
        if event_type in _STREAM_EXCEPTIONS:
            return event_type, _stream_exception(event_type, message.payload)
        if event_type not in _STREAM_EVENTS:
            return None
        data = _decode_json_body(message.payload)
        if not isinstance(data, dict):
            data = {}
        if event_type == "contentBlockDelta":
            _decode_redacted_content(data)
        return event_type, data
    raise BedrockFailure(f"Unrecognizable event type: {js_to_string(message.header_str(':event-type'))}")


def _decode_redacted_content(data: dict[str, Any]) -> None:
    """The SDK turns the base64 ``redactedContent`` blob into bytes before pi-ai reads it."""
    delta = data.get("delta")
    reasoning = delta.get("reasoningContent") if isinstance(delta, dict) else None
    if isinstance(reasoning, dict) and reasoning.get("redactedContent") is not None:
        reasoning["redactedContent"] = _decode_blob(reasoning["redactedContent"])


def _stream_items(chunks: Iterable[bytes]) -> Iterator[tuple[str, Any]]:
    decoder = EventStreamDecoder()
    try:
        for chunk in chunks:
            for message in decoder.feed(chunk):
                item = _unmarshal(message)
                if item is not None:
                    yield item
        decoder.finish()
    except TransportError:
        # Node's http client reports a connection destroyed mid-body as "aborted".
        raise BedrockFailure("aborted") from None
    except EventStreamError as error:
        raise BedrockFailure(error_text(error)) from None


def _map_stop_reason(reason: Any) -> tuple[str, str | None]:
    if reason in ("end_turn", "stop_sequence"):
        return "stop", None
    if reason in ("max_tokens", "model_context_window_exceeded"):
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if js_truthy(reason):
        return "error", f"Provider stopped with: {js_to_string(reason)}"
    return "error", None


def _finalize_block(block: dict[str, Any]) -> None:
    """Drop streaming scratch (``index``, ``partialJson``) and fold redacted bytes into the signature."""
    block.pop("index", None)
    block.pop("partialJson", None)
    _flush_redacted(block)


def _flush_redacted(block: dict[str, Any]) -> None:
    if block.get("type") != "thinking" or "redactedChunks" not in block:
        return
    chunks: list[bytes] = block.pop("redactedChunks")
    block["thinkingSignature"] = base64.b64encode(b"".join(chunks)).decode("ascii")


class _BedrockStream:
    """pi-ai's handlers for the ConverseStream union members."""

    def __init__(self, model: Model, output: dict[str, Any], emitter: EventEmitter) -> None:
        self.model = model
        self.output = output
        self.emitter = emitter
        # Text deltas per open block (keyed by identity), joined only when the block can be observed: appending
        # to a growing str stored in a dict would copy it on every delta.
        self.pending: dict[int, tuple[dict[str, Any], str, list[str]]] = {}

    def _buffer(self, block: dict[str, Any], key: str, text: str) -> None:
        entry = self.pending.get(id(block))
        if entry is None:
            entry = (block, key, [])
            self.pending[id(block)] = entry
        entry[2].append(text)

    def flush_block(self, block: dict[str, Any]) -> None:
        entry = self.pending.pop(id(block), None)
        if entry is not None:
            block[entry[1]] += "".join(entry[2])

    def flush_all(self) -> None:
        for block, key, pieces in self.pending.values():
            block[key] += "".join(pieces)
        self.pending.clear()

    def _emit(self, event: dict[str, Any]) -> None:
        event["partial"] = self.output
        self.emitter.emit(event)

    def _find(self, block_index: Any) -> int:
        for position, block in enumerate(self.output["content"]):
            if _same(block.get("index", _MISSING), block_index):
                return position
        return -1

    def handle(self, member: str, value: Any) -> None:
        if member == "messageStart":
            if value.get("role") != "assistant":
                raise BedrockFailure("Unexpected assistant message start but got user message start instead")
            self.emitter.emit({"type": "start", "partial": self.output})
        elif member == "contentBlockStart":
            self._block_start(value)
        elif member == "contentBlockDelta":
            self._block_delta(value)
        elif member == "contentBlockStop":
            self._block_stop(value)
        elif member == "messageStop":
            reason = value.get("stopReason")
            if reason is None:
                self.output.pop("rawStopReason", None)
            else:
                self.output["rawStopReason"] = reason
            stop_reason, message = _map_stop_reason(reason)
            self.output["stopReason"] = stop_reason
            if message:
                self.output["errorMessage"] = message
        elif member == "metadata":
            self._metadata(value)
        elif isinstance(value, BedrockFailure):
            raise value

    def _block_start(self, event: dict[str, Any]) -> None:
        start = event.get("start")
        tool_use = start.get("toolUse") if isinstance(start, dict) else None
        if not js_truthy(tool_use):
            return
        tool = tool_use if isinstance(tool_use, dict) else {}
        block: dict[str, Any] = {
            "type": "toolCall",
            "id": tool.get("toolUseId") if js_truthy(tool.get("toolUseId")) else "",
            "name": tool.get("name") if js_truthy(tool.get("name")) else "",
            "arguments": {},
            "partialJson": "",
        }
        if event.get("contentBlockIndex") is not None:
            block["index"] = event["contentBlockIndex"]
        content = self.output["content"]
        content.append(block)
        self._emit({"type": "toolcall_start", "contentIndex": len(content) - 1})

    def _new_block(self, block: dict[str, Any], event: dict[str, Any], kind: str) -> int:
        if event.get("contentBlockIndex") is not None:
            block["index"] = event["contentBlockIndex"]
        content = self.output["content"]
        content.append(block)
        position = len(content) - 1
        self._emit({"type": f"{kind}_start", "contentIndex": position})
        return position

    def _block_delta(self, event: dict[str, Any]) -> None:
        position = self._find(_block_index(event))
        content = self.output["content"]
        block = content[position] if position >= 0 else None
        delta = event.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        if delta.get("text") is not None:
            text = delta["text"]
            if block is None:
                position = self._new_block({"type": "text", "text": ""}, event, "text")
                block = content[position]
            if block.get("type") == "text":
                self._buffer(block, "text", js_to_string(text))
                self._emit({"type": "text_delta", "contentIndex": position, "delta": text})
            return
        tool_use = delta.get("toolUse")
        if js_truthy(tool_use) and block is not None and block.get("type") == "toolCall":
            raw_input = tool_use.get("input") if isinstance(tool_use, dict) else None
            piece = js_to_string(raw_input) if js_truthy(raw_input) else ""
            block["partialJson"] = (block.get("partialJson") or "") + piece
            block["arguments"] = parse_streaming_json(block["partialJson"])
            self._emit({"type": "toolcall_delta", "contentIndex": position, "delta": piece})
            return
        reasoning = delta.get("reasoningContent")
        if not js_truthy(reasoning):
            return
        reasoning = reasoning if isinstance(reasoning, dict) else {}
        if block is None:
            position = self._new_block(
                {"type": "thinking", "thinking": "", "thinkingSignature": ""}, event, "thinking"
            )
            block = content[position]
        if block.get("type") != "thinking":
            return
        text = reasoning.get("text")
        if js_truthy(text):
            self._buffer(block, "thinking", js_to_string(text))
            self._emit({"type": "thinking_delta", "contentIndex": position, "delta": text})
        signature = reasoning.get("signature")
        if js_truthy(signature) and not block.get("redacted"):
            block["thinkingSignature"] = (block.get("thinkingSignature") or "") + js_to_string(signature)
        redacted = reasoning.get("redactedContent")
        if isinstance(redacted, bytes) and redacted:
            if not block.get("redacted"):
                block["redacted"] = True
                block["thinkingSignature"] = ""
                self._buffer(block, "thinking", REDACTED_THINKING_PLACEHOLDER)
                self._emit(
                    {
                        "type": "thinking_delta",
                        "contentIndex": position,
                        "delta": REDACTED_THINKING_PLACEHOLDER,
                    }
                )
            block.setdefault("redactedChunks", []).append(redacted)

    def _block_stop(self, event: dict[str, Any]) -> None:
        position = self._find(_block_index(event))
        if position < 0:
            return
        block = self.output["content"][position]
        block.pop("index", None)
        self.flush_block(block)
        kind = block.get("type")
        if kind == "text":
            self._emit({"type": "text_end", "contentIndex": position, "content": block["text"]})
        elif kind == "thinking":
            _flush_redacted(block)
            self._emit({"type": "thinking_end", "contentIndex": position, "content": block["thinking"]})
        elif kind == "toolCall":
            block["arguments"] = parse_streaming_json(block.get("partialJson"))
            block.pop("partialJson", None)
            self._emit({"type": "toolcall_end", "contentIndex": position, "toolCall": block})

    def _metadata(self, event: dict[str, Any]) -> None:
        usage = event.get("usage")
        if not js_truthy(usage) or not isinstance(usage, dict):
            return

        def count(key: str) -> Any:
            value = usage.get(key)
            return value if js_truthy(value) else 0

        target = self.output["usage"]
        target["input"] = count("inputTokens")
        target["output"] = count("outputTokens")
        target["cacheRead"] = count("cacheReadInputTokens")
        target["cacheWrite"] = count("cacheWriteInputTokens")
        total = usage.get("totalTokens")
        target["totalTokens"] = total if js_truthy(total) else target["input"] + target["output"]
        calculate_cost(self.model, target)


def _error_body_text(failure: BedrockFailure) -> str | None:
    """``normalizeProviderError``'s body probe for the properties a Bedrock error can carry."""
    fields = failure.fields
    body = fields.get("body")
    text: str | None = None
    if isinstance(body, str):
        text = body
    elif isinstance(fields.get("error"), dict) and fields["error"]:
        text = js_stringify(fields["error"])
    if text is None:
        return None
    trimmed = text.strip(JS_WHITESPACE)
    if not trimmed:
        return None
    if len(trimmed) > MAX_ERROR_BODY_CHARS:
        trimmed = (
            f"{trimmed[:MAX_ERROR_BODY_CHARS]}... [truncated {len(trimmed) - MAX_ERROR_BODY_CHARS} chars]"
        )
    return trimmed


def _error_status(failure: BedrockFailure) -> Any:
    for key in ("statusCode", "status"):
        value = failure.fields.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
    metadata = failure.metadata or {}
    value = metadata.get("httpStatusCode")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def format_bedrock_error(failure: BedrockFailure) -> str:
    """pi-ai ``formatBedrockError``: prefix for service exceptions, status and body when the message lacks it."""
    body = _error_body_text(failure)
    status = _error_status(failure)
    carries_body = body is None or body in failure.message
    core = f"{js_to_string(status)}: {body}" if not carries_body and status is not None else failure.message
    hint = (
        f" See {DATA_RETENTION_DOCS_URL} for supported data retention modes."
        if _DATA_RETENTION.search(core)
        else ""
    )
    if failure.service:
        prefix = _ERROR_PREFIXES.get(failure.name, failure.name)
        return f"{prefix}: {core}{hint}"
    return f"{core}{hint}"


def _failure_diagnostic(
    failure: BedrockFailure, fallback_request_id: str | None, now_ms: int
) -> dict[str, Any] | None:
    metadata = failure.metadata or {}
    details: dict[str, Any] = {}
    status = metadata.get("httpStatusCode")
    if isinstance(status, int | float) and not isinstance(status, bool):
        details["status"] = status
    if failure.name.endswith("Exception"):
        code = _normalize_diagnostic_value(failure.name)
        if code is not None:
            details["errorCode"] = code
    request_id = _normalize_diagnostic_value(metadata.get("requestId"))
    if request_id is None:
        request_id = fallback_request_id
    if request_id is not None:
        details["requestId"] = request_id
    if not details:
        return None
    return {"type": "bedrock_response_failure", "timestamp": now_ms, "details": details}


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
    """Settle one ConverseStream response the way pi-ai's ``bedrock-converse-stream`` adapter does."""
    output = new_output(model, now_ms)
    aborted = bool(options.get("aborted"))
    lowered = _lower_headers(headers)
    request_id: str | None = None
    stream = _BedrockStream(model, output, emitter)
    try:
        if status >= 300:
            try:
                body = b"".join(chunks)
            except TransportError:
                raise _as_deserialization_error(BedrockFailure("aborted"), status, lowered) from None
            raise _http_error(status, lowered, body)
        items = _stream_items(chunks)
        try:
            first = next(items, None)
        except BedrockFailure as failure:
            raise _as_deserialization_error(failure, status, lowered) from None
        request_id = _normalize_diagnostic_value(_response_metadata(status, lowered)["requestId"])
        if first is not None:
            stream.handle(*first)
            for member, value in items:
                stream.handle(member, value)
        raise_unless_settled(output, "Bedrock stream ended without a stop reason")
        stream.flush_all()
        for block in output["content"]:
            _finalize_block(block)
        emit_done(output, emitter)
        return output
    except Exception as error:
        thrown = error if isinstance(error, BedrockFailure) else BedrockFailure(error_text(error))
        stream.flush_all()
        for block in output["content"]:
            _finalize_block(block)
        output["stopReason"] = "aborted" if aborted else "error"
        output["errorMessage"] = format_bedrock_error(thrown)
        if not aborted:
            diagnostic = _failure_diagnostic(thrown, request_id, now_ms)
            if diagnostic is not None:
                output["diagnostics"] = [*(output.get("diagnostics") or []), diagnostic]
        emitter.emit({"type": "error", "reason": output["stopReason"], "error": output})
        return output
