"""Decoder for Mistral ``/v1/chat/completions`` streams, as pi-ai's ``mistral-conversations`` adapter settles them.

pi-ai reads this endpoint with its own fetch-based reader rather than the Mistral SDK: events are cut at the
first blank line of any newline flavour (``\\n\\r`` counts too), only ``data:`` lines are kept, ``[DONE]`` ends
reading, and a trailing event without its blank line is still parsed at EOF. Tool calls are accumulated per
``index`` (else id) and finalised only when the stream ends, so their ``toolcall_end`` events come last.
"""

from __future__ import annotations

import codecs
import math
import re
from collections.abc import Iterable, Iterator
from typing import Any

from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.values import JS_WHITESPACE, js_to_string
from pi_tools.providers.catalog import Model, calculate_cost
from pi_tools.providers.mistral_conversations.payload import derive_tool_call_id
from pi_tools.providers.node_http import node_status_text
from pi_tools.providers.sanitize import sanitize_surrogates
from pi_tools.providers.stream_message import (
    PiError,
    SequentialBlocks,
    emit_done,
    raise_unless_settled,
    record_response_id,
    record_stop_reason,
)
from pi_tools.providers.streaming import (
    EventEmitter,
    error_text,
    fail_output,
    js_json_parse,
    js_truthy,
    new_output,
    parse_streaming_json,
    truncate_error_text,
)

MAX_ERROR_BODY_CHARS = 4000
_EVENT_BOUNDARY = re.compile(r"\r\n\r\n|\r\n\r|\r\n\n|\r\r\n|\n\r\n|\r\r|\n\r|\n\n")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DONE = object()


class MistralHttpError(Exception):
    """A non-2xx answer: Pi reports the status with the raw body (or the reason phrase when it is empty)."""

    def __init__(self, status: int, body: str) -> None:
        self.status = status
        self.body = body
        super().__init__(node_status_text(status) or f"Request failed with status {status}")


def format_mistral_error(error: BaseException) -> str:
    """pi-ai ``formatMistralError``: HTTP errors become ``Mistral API error (<status>): <body>``."""
    if isinstance(error, MistralHttpError):
        body = error.body.strip(JS_WHITESPACE)
        if body:
            return f"Mistral API error ({error.status}): {truncate_error_text(body, MAX_ERROR_BODY_CHARS)}"
        return f"Mistral API error ({error.status}): {error_text(error)}"
    return error_text(error)


def _property_holder(container: dict[str, Any], key: str, reading: str) -> dict[str, Any]:
    """``container[key]`` about to have ``.reading`` read: null/undefined throw V8's TypeError, other
    primitives simply have no properties."""
    if key not in container or container[key] is None:
        missing = "undefined" if key not in container else "null"
        raise PiError(f"Cannot read properties of {missing} (reading '{reading}')")
    value = container[key]
    return value if isinstance(value, dict) else {}


def _map_key(value: Any) -> tuple[str, Any]:
    """A dict key with JS ``Map`` identity: numbers compare by value, strings never equal numbers."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return ("number", float(value))
    if isinstance(value, str):
        return ("string", value)
    return ("object", id(value))


def _parse_event(raw: str) -> Any:
    """One event block: its ``data:`` lines joined; ``None`` when empty, ``_DONE`` for ``[DONE]``."""
    data_lines = [
        line[5:].lstrip(JS_WHITESPACE) for line in _LINE_BREAK.split(raw) if line.startswith("data:")
    ]
    data = "\n".join(data_lines).strip(JS_WHITESPACE)
    if not data:
        return None
    if data == "[DONE]":
        return _DONE
    parsed = js_json_parse(data)
    if not isinstance(parsed, dict) or not isinstance(parsed.get("choices"), list):
        raise PiError("Invalid Mistral streaming event")
    return parsed


def read_events(chunks: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """pi-ai ``readMistralEvents``: parsed chunks in order, stopping at ``[DONE]``."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    buffer = ""
    started = False
    scan_from = 0
    iterator = iter(chunks)
    while True:
        try:
            chunk = next(iterator)
            done = False
        except StopIteration:
            chunk = b""
            done = True
        text: str = decoder.decode(chunk, done)
        if not started and text:
            started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        buffer += text
        position = 0
        while True:
            match = _EVENT_BOUNDARY.search(buffer, max(position, scan_from))
            if match is None:
                break
            event = _parse_event(buffer[position : match.start()])
            position = match.end()
            scan_from = position
            if event is _DONE:
                return
            if event is not None:
                yield event
        buffer = buffer[position:]
        # A boundary is at most 4 characters, so only the last 3 can hold the start of an unfinished one.
        scan_from = max(0, len(buffer) - 3)
        if done:
            break
    if buffer.strip(JS_WHITESPACE):
        event = _parse_event(buffer)
        if event is not _DONE and event is not None:
            yield event


def _cached_prompt_tokens(usage: dict[str, Any], prompt_tokens: Any) -> Any:
    candidates = (
        ("promptTokensDetails", "cachedTokens"),
        ("prompt_tokens_details", "cached_tokens"),
        ("promptTokenDetails", "cachedTokens"),
        ("prompt_token_details", "cached_tokens"),
    )
    raw: Any = None
    for outer, inner in candidates:
        details = usage.get(outer)
        value = details.get(inner) if isinstance(details, dict) else None
        if value is not None:
            raw = value
            break
    if raw is None:
        raw = usage.get("numCachedTokens")
    if raw is None:
        raw = usage.get("num_cached_tokens")
    if raw is None:
        raw = 0
    is_number = isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw)
    cached = raw if is_number else 0
    return min(prompt_tokens, max(0, cached))


def _map_stop_reason(reason: Any) -> tuple[str, str | None]:
    if reason == "stop":
        return "stop", None
    if reason in ("length", "model_length"):
        return "length", None
    if reason == "tool_calls":
        return "toolUse", None
    return "error", f"Provider stopped with: {js_to_string(reason)}"


class _MistralStream(SequentialBlocks):
    """pi-ai ``consumeChatStream``: text and thinking blocks in arrival order, tool calls finalised at the end."""

    def __init__(self, model: Model, output: dict[str, Any], emitter: EventEmitter) -> None:
        super().__init__(output, emitter)
        self.model = model
        # Map keys keep JS identity: the number 0 and the string "0" are different calls.
        self.tool_blocks: dict[tuple[str, Any], int] = {}

    def handle(self, chunk: dict[str, Any]) -> None:
        output = self.output
        record_response_id(output, chunk)
        usage = chunk.get("usage")
        if js_truthy(usage):
            self._apply_usage(usage if isinstance(usage, dict) else {})
        choice = chunk["choices"][0] if chunk["choices"] else None
        if not js_truthy(choice):
            return
        if not isinstance(choice, dict):
            choice = {}
        finish_reason = choice.get("finish_reason")
        if js_truthy(finish_reason):
            record_stop_reason(output, finish_reason, _map_stop_reason)
        delta = _property_holder(choice, "delta", "content")
        content = delta.get("content")
        if content is not None:
            items = [content] if isinstance(content, str) else content
            if not isinstance(items, list):
                raise PiError("delta.content is not iterable")
            for item in items:
                self._handle_content_item(item)
        tool_calls = delta.get("tool_calls")
        if js_truthy(tool_calls):
            if not isinstance(tool_calls, list):
                raise PiError("delta.tool_calls is not iterable")
            for tool_call in tool_calls:
                self._handle_tool_call(tool_call)

    def _apply_usage(self, usage: dict[str, Any]) -> None:
        prompt_tokens = usage.get("prompt_tokens")
        prompt_tokens = prompt_tokens if js_truthy(prompt_tokens) else 0
        cached = _cached_prompt_tokens(usage, prompt_tokens)
        target = self.output["usage"]
        target["input"] = max(0, prompt_tokens - cached)
        completion = usage.get("completion_tokens")
        target["output"] = completion if js_truthy(completion) else 0
        target["cacheRead"] = cached
        target["cacheWrite"] = 0
        total = usage.get("total_tokens")
        target["totalTokens"] = (
            total
            if js_truthy(total)
            else target["input"] + target["output"] + target["cacheRead"] + target["cacheWrite"]
        )
        calculate_cost(self.model, target)

    def _open(self, kind: str) -> dict[str, Any]:
        block = self.current
        if block is None or block["type"] != kind:
            self.close_current()
            block = {"type": kind, kind: ""}
            self.current = block
            self.output["content"].append(block)
            self.emit({"type": f"{kind}_start", "contentIndex": self.last_index()})
        return block

    def _append(self, kind: str, delta: str) -> None:
        self._open(kind)
        self.pieces.append(delta)
        self.emit({"type": f"{kind}_delta", "contentIndex": self.last_index(), "delta": delta})

    def _handle_content_item(self, item: Any) -> None:
        if isinstance(item, str):
            self._append("text", sanitize_surrogates(item))
            return
        if item is None:
            raise PiError("Cannot read properties of null (reading 'type')")
        if not isinstance(item, dict):
            return
        kind = item.get("type")
        if kind == "thinking":
            parts = item.get("thinking")
            pieces: list[str] = []
            for part in [] if parts is None else parts:
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and text:
                    pieces.append(text)
            thinking = sanitize_surrogates("".join(pieces))
            if thinking:
                self._append("thinking", thinking)
        elif kind == "text":
            text = item.get("text")
            self._append("text", sanitize_surrogates("" if text is None else js_to_string(text)))

    def _handle_tool_call(self, tool_call: Any) -> None:
        if self.current is not None:
            self.close_current()
            self.current = None
        if tool_call is None:
            raise PiError("Cannot read properties of null (reading 'id')")
        if not isinstance(tool_call, dict):
            tool_call = {}
        function = _property_holder(tool_call, "function", "name")
        raw_id = tool_call.get("id")
        index = tool_call.get("index")
        if js_truthy(raw_id) and raw_id != "null":
            call_id = raw_id
        else:
            call_id = derive_tool_call_id(f"toolcall:{js_to_string(0 if index is None else index)}", 0)
        key = _map_key(call_id if index is None else index)
        content = self.output["content"]
        block: dict[str, Any] | None = None
        existing = self.tool_blocks.get(key)
        if existing is not None and content[existing].get("type") == "toolCall":
            block = content[existing]
        if block is None:
            block = {"type": "toolCall", "id": call_id}
            if "name" in function:
                block["name"] = function["name"]
            block["arguments"] = {}
            block["partialArgs"] = ""
            content.append(block)
            self.tool_blocks[key] = len(content) - 1
            self.emit({"type": "toolcall_start", "contentIndex": len(content) - 1})
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            args_delta = arguments
        else:
            args_delta = js_stringify(arguments if js_truthy(arguments) else {})
        block["partialArgs"] = (block.get("partialArgs") or "") + args_delta
        block["arguments"] = parse_streaming_json(block["partialArgs"])
        self.emit({"type": "toolcall_delta", "contentIndex": self.tool_blocks[key], "delta": args_delta})

    def finish(self) -> None:
        self.close_current()
        content = self.output["content"]
        for index in self.tool_blocks.values():
            block = content[index]
            if block.get("type") != "toolCall":
                continue
            block["arguments"] = parse_streaming_json(block.get("partialArgs"))
            block.pop("partialArgs", None)
            self.emit({"type": "toolcall_end", "contentIndex": index, "toolCall": block})


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
    """Settle one Mistral chat-completions stream the way pi-ai's ``mistral-conversations`` adapter does."""
    output = new_output(model, now_ms)
    aborted = bool(options.get("aborted"))
    stream = _MistralStream(model, output, emitter)
    try:
        if not 200 <= status <= 299:
            body = b"".join(chunks).decode("utf-8", "replace")
            raise MistralHttpError(status, body[1:] if body.startswith("\ufeff") else body)
        emitter.emit({"type": "start", "partial": output})
        for chunk in read_events(chunks):
            stream.handle(chunk)
        stream.finish()
        raise_unless_settled(output, "Mistral stream ended without a finish reason")
        emit_done(output, emitter)
        return output
    except Exception as error:
        stream.flush_text()
        return fail_output(
            output, emitter, format_mistral_error(error), aborted=aborted, scratch_keys=("partialArgs",)
        )
