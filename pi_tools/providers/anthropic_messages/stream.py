"""Anthropic Messages streaming response → pi-ai events and the settled AssistantMessage (pi-ai 0.85.1).

Pi reads the SSE body itself (not through the SDK's stream helper), so its own line reader, JSON repair and
error texts decide what a cut or malformed stream turns into; all three are reproduced here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pi_tools.providers.catalog import Model, calculate_cost
from pi_tools.providers.stream_message import PiError, emit_done, raise_unless_settled, record_stop_reason
from pi_tools.providers.streaming import (
    ABSENT,
    NULL_BODY_STATUSES,
    EventEmitter,
    JsJsonError,
    JsTypeError,
    LineSseDecoder,
    SseEvent,
    TransportError,
    assign_or_drop,
    fail_output,
    js_field,
    js_member,
    js_prop,
    js_strict_equal,
    js_to_string,
    js_truthy,
    new_output,
    parse_json_with_repair,
    parse_streaming_json,
    read_body_text,
    stainless_status_error,
)

_MESSAGE_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    }
)


def _sse_events(chunks: Iterable[bytes]) -> Iterator[SseEvent]:
    decoder = LineSseDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.finish()


def _anthropic_events(chunks: Iterable[bytes]) -> Iterator[Any]:
    """Parsed stream events; an ``error`` event or an unparsable one ends the stream with Pi's message."""
    saw_start = False
    saw_stop = False
    for sse in _sse_events(chunks):
        if sse.event == "error":
            raise PiError(sse.data)
        if sse.event not in _MESSAGE_EVENTS:
            continue
        try:
            event = parse_json_with_repair(sse.data)
            if event is None:
                raise JsJsonError("Cannot read properties of null (reading 'type')")
            kind = event.get("type") if isinstance(event, dict) else None
        except JsJsonError as error:
            raw = "\\n".join(sse.raw)
            raise PiError(
                f"Could not parse Anthropic SSE event {sse.event}: {error}; data={sse.data}; raw={raw}"
            ) from None
        if kind == "message_start":
            saw_start = True
        elif kind == "message_stop":
            saw_stop = True
        yield event
    if saw_start and not saw_stop:
        raise PiError("Anthropic stream ended before message_stop")


def _map_stop_reason(reason: Any, details: Any) -> tuple[str, str | None]:
    if reason == "end_turn" or reason == "pause_turn" or reason == "stop_sequence":
        return "stop", None
    if reason == "max_tokens":
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason == "refusal":
        explanation = details.get("explanation") if isinstance(details, dict) else None
        return "error", explanation or "The model refused to complete the request"
    if reason == "sensitive":
        return "error", "Provider stopped with: sensitive"
    raise PiError(f"Unhandled stop reason: {js_to_string(reason)}")


def _usage_model(model: Model, response_model: Any) -> Model:
    """The model whose prices apply: a declared fallback model's when Anthropic answered with it."""
    if response_model == model["id"]:
        return model
    compat = model.get("compat") or {}
    for fallback in compat.get("allowedFallbackModels") or []:
        if fallback.get("provider") == model["provider"] and fallback.get("model") == response_model:
            cost = fallback.get("cost")
            if cost:
                return {**model, "id": response_model, "cost": cost}
            break
    return model


def _block_position(blocks: list[dict[str, Any]], index: Any) -> int:
    """``blocks.findIndex(b => b.index === index)``: a closed block (index deleted) matches an absent index."""
    for position, block in enumerate(blocks):
        if js_strict_equal(block.get("index", ABSENT), index):
            return position
    return -1


def _with_index(block: dict[str, Any], index: Any) -> dict[str, Any]:
    if index is not ABSENT:
        block["index"] = index
    return block


class _AnthropicDecoder:
    """Applies stream events to the output message, pushing the events Pi pushes.

    Blocks are found by the provider's ``index`` kept on them until their stop event (Pi's scratch key), which
    is why a duplicated or restarted message can route deltas to an older block.
    """

    def __init__(self, model: Model, output: dict[str, Any], emitter: EventEmitter) -> None:
        self.model = model
        self.usage_model = model
        self.output = output
        self.emitter = emitter
        self.transformations: list[Any] | None = None

    def push(self, event: dict[str, Any]) -> None:
        event["partial"] = self.output
        self.emitter.emit(event)

    def recompute_total(self) -> None:
        usage = self.output["usage"]
        usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
        calculate_cost(self.usage_model, usage)

    def on_message_start(self, event: dict[str, Any]) -> None:
        message = js_member(event, "message", "id")
        assign_or_drop(self.output, "responseId", js_prop(message, "id"))
        transformations = js_field(message, "input_transformations")
        if isinstance(transformations, list):
            self.transformations = transformations
        assign_or_drop(self.output, "model", js_prop(message, "model"))
        self.usage_model = _usage_model(self.model, self.output.get("model", ABSENT))
        usage = js_member(message, "usage", "input_tokens")
        target = self.output["usage"]
        target["input"] = js_field(usage, "input_tokens") or 0
        target["output"] = js_field(usage, "output_tokens") or 0
        target["cacheRead"] = js_field(usage, "cache_read_input_tokens") or 0
        target["cacheWrite"] = js_field(usage, "cache_creation_input_tokens") or 0
        creation = js_field(usage, "cache_creation")
        target["cacheWrite1h"] = js_field(creation, "ephemeral_1h_input_tokens") or 0
        self.recompute_total()

    def on_block_start(self, event: dict[str, Any]) -> None:
        block = js_member(event, "content_block", "type")
        kind = js_field(block, "type")
        content = self.output["content"]
        if kind == "fallback":
            if content:
                raise PiError("Anthropic performed an unsupported mid-output model fallback")
            return
        if kind == "text":
            text = {"type": "text", "text": _or_empty(block.get("text"))}
            content.append(_with_index(text, event.get("index", ABSENT)))
            self.push({"type": "text_start", "contentIndex": len(content) - 1})
        elif kind == "thinking":
            thinking = {
                "type": "thinking",
                "thinking": _or_empty(block.get("thinking")),
                "thinkingSignature": _or_empty(block.get("signature")),
            }
            content.append(_with_index(thinking, event.get("index", ABSENT)))
            self.push({"type": "thinking_start", "contentIndex": len(content) - 1})
        elif kind == "redacted_thinking":
            redacted: dict[str, Any] = {"type": "thinking", "thinking": "[Reasoning redacted]"}
            if "data" in block:
                redacted["thinkingSignature"] = block["data"]
            redacted["redacted"] = True
            content.append(_with_index(redacted, event.get("index", ABSENT)))
            self.push({"type": "thinking_start", "contentIndex": len(content) - 1})
        elif kind == "tool_use":
            arguments = block.get("input")
            tool: dict[str, Any] = {"type": "toolCall"}
            if "id" in block:
                tool["id"] = block["id"]
            if "name" in block:
                tool["name"] = block["name"]
            tool["arguments"] = {} if arguments is None else arguments
            tool["partialJson"] = ""
            content.append(_with_index(tool, event.get("index", ABSENT)))
            self.push({"type": "toolcall_start", "contentIndex": len(content) - 1})

    def on_block_delta(self, event: dict[str, Any]) -> None:
        delta = js_member(event, "delta", "type")
        kind = js_field(delta, "type")
        blocks: list[dict[str, Any]] = self.output["content"]
        if kind not in ("text_delta", "thinking_delta", "input_json_delta", "signature_delta"):
            return
        position = _block_position(blocks, event.get("index", ABSENT))
        block = blocks[position] if position >= 0 else None
        if block is None:
            return
        if kind == "text_delta" and block["type"] == "text":
            text = delta.get("text", ABSENT)
            block["text"] = block["text"] + js_to_string(text)
            self.push(_delta_event("text_delta", position, text))
        elif kind == "thinking_delta" and block["type"] == "thinking":
            thinking = delta.get("thinking", ABSENT)
            block["thinking"] = block["thinking"] + js_to_string(thinking)
            self.push(_delta_event("thinking_delta", position, thinking))
        elif kind == "input_json_delta" and block["type"] == "toolCall":
            piece = delta.get("partial_json", ABSENT)
            block["partialJson"] = js_to_string(block.get("partialJson", ABSENT)) + js_to_string(piece)
            block["arguments"] = parse_streaming_json(block["partialJson"])
            self.push(_delta_event("toolcall_delta", position, piece))
        elif kind == "signature_delta" and block["type"] == "thinking":
            signature = js_to_string(block.get("thinkingSignature") or "")
            block["thinkingSignature"] = signature + js_to_string(delta.get("signature", ABSENT))

    def on_block_stop(self, event: dict[str, Any]) -> None:
        blocks: list[dict[str, Any]] = self.output["content"]
        position = _block_position(blocks, event.get("index", ABSENT))
        if position < 0:
            return
        block = blocks[position]
        block.pop("index", None)
        if block["type"] == "text":
            self.push({"type": "text_end", "contentIndex": position, "content": block["text"]})
        elif block["type"] == "thinking":
            self.push({"type": "thinking_end", "contentIndex": position, "content": block["thinking"]})
        elif block["type"] == "toolCall":
            block["arguments"] = parse_streaming_json(block.get("partialJson"))
            block.pop("partialJson", None)
            self.push({"type": "toolcall_end", "contentIndex": position, "toolCall": block})

    def on_message_delta(self, event: dict[str, Any]) -> None:
        transformations = event.get("input_transformations")
        if isinstance(transformations, list):
            self.transformations = transformations
        delta = js_member(event, "delta", "stop_reason")
        reason = js_field(delta, "stop_reason")
        if js_truthy(reason):
            details = js_field(delta, "stop_details")
            record_stop_reason(self.output, reason, lambda raw: _map_stop_reason(raw, details))
        usage = event.get("usage")
        if usage and isinstance(usage, dict):
            target = self.output["usage"]
            for source, key in (
                ("input_tokens", "input"),
                ("output_tokens", "output"),
                ("cache_read_input_tokens", "cacheRead"),
                ("cache_creation_input_tokens", "cacheWrite"),
            ):
                if usage.get(source) is not None:
                    target[key] = usage[source]
            details = usage.get("output_tokens_details")
            if isinstance(details, dict) and details.get("thinking_tokens") is not None:
                target["reasoning"] = details["thinking_tokens"]
        self.recompute_total()

    def handle(self, event: Any) -> None:
        if not isinstance(event, dict):
            return
        kind = event.get("type")
        if kind == "message_start":
            self.on_message_start(event)
        elif kind == "content_block_start":
            self.on_block_start(event)
        elif kind == "content_block_delta":
            self.on_block_delta(event)
        elif kind == "content_block_stop":
            self.on_block_stop(event)
        elif kind == "message_delta":
            self.on_message_delta(event)

    def finish(self, now_ms: int) -> None:
        raise_unless_settled(self.output, "Anthropic stream ended without a stop reason")
        if self.transformations:
            summary = []
            for item in self.transformations:
                entry = {}
                for key in ("type", "path", "reason"):
                    value = item.get(key) if isinstance(item, dict) else None
                    if value is not None:
                        entry[key] = value
                summary.append(entry)
            diagnostics = list(self.output.get("diagnostics") or [])
            diagnostics.append(
                {
                    "type": "anthropic_input_transformations",
                    "timestamp": now_ms,
                    "details": {"transformations": summary},
                }
            )
            self.output["diagnostics"] = diagnostics
        emit_done(self.output, self.emitter)


def _or_empty(value: Any) -> Any:
    return "" if value is None else value


def _delta_event(kind: str, position: int, delta: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": kind, "contentIndex": position}
    if delta is not ABSENT:
        event["delta"] = delta
    return event


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
    """Settle one Anthropic Messages response the way Pi's ``streamAnthropic`` does."""
    compat = model.get("compat") or {}
    after_model = None
    if compat.get("supportsMidConvoEffort"):
        after_model = {"providerThinkingLevel": options.get("effort") or "high"}
    output = new_output(model, now_ms, after_model=after_model)
    try:
        if not 200 <= status < 300:
            body = read_body_text(chunks)
            raise PiError(stainless_status_error(status, body, unwrap_error=False))
        emitter.emit({"type": "start", "partial": output})
        if status in NULL_BODY_STATUSES:
            raise PiError("Attempted to iterate over an Anthropic response with no body")
        decoder = _AnthropicDecoder(model, output, emitter)
        for event in _anthropic_events(chunks):
            decoder.handle(event)
        decoder.finish(now_ms)
    except Exception as error:  # noqa: BLE001 - every failure settles the message, as in Pi
        fail_output(output, emitter, _message_of(error), scratch_keys=("index", "partialJson"))
    return output


def _message_of(error: BaseException) -> str:
    if isinstance(error, (PiError, JsTypeError, TransportError)):
        return str(error)
    # Anything else is a shape Pi would have choked on differently; keep the Python detail visible.
    return f"{type(error).__name__}: {error}"
