"""OpenAI Responses streaming response → pi-ai events and the settled AssistantMessage (pi-ai 0.85.1).

Blocks are keyed by the provider's ``output_index``; the settled texts come from the ``output_item.done`` items
(not from the deltas), reasoning items are kept whole as the thinking signature for stateless replay, and the
terminal ``response.*`` event supplies usage, service-tier pricing and the stop reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers.catalog import Model, calculate_cost
from pi_tools.providers.sse import open_openai_sdk_stream
from pi_tools.providers.stream_message import counted_usage, emit_done, raise_unless_settled
from pi_tools.providers.streaming import (
    ABSENT,
    EventEmitter,
    JsTypeError,
    PiError,
    assign_or_drop,
    fail_output,
    format_provider_error,
    grammar_input_json_delta,
    js_field,
    js_json_parse,
    js_map_key,
    js_member,
    js_to_string,
    js_truthy,
    new_output,
    parse_streaming_json,
)

_SCRATCH_KEYS = ("index", "partialJson", "customInput")


def _join_item(value: Any) -> str:
    """How ``Array.prototype.join`` writes an element: ``null``/``undefined`` as nothing."""
    return "" if value is None or value is ABSENT else js_to_string(value)


def _template_part(container: Any, key: str) -> str:
    if not isinstance(container, dict) or key not in container:
        return "undefined"
    return js_to_string(container[key])


def _text_signature(item: dict[str, Any]) -> str:
    payload: dict[str, Any] = {"v": 1}
    if "id" in item:
        payload["id"] = item["id"]
    phase = item.get("phase")
    if phase:
        payload["phase"] = phase
    return js_stringify(payload)


def _service_tier_multiplier(model: Model, tier: Any) -> float:
    if tier == "flex":
        return 0.5
    if tier == "priority":
        return 2.5 if model["id"] == "gpt-5.5" else 2
    return 1


def _map_stop_reason(status: Any, incomplete_reason: str | None) -> tuple[str, str | None]:
    if not status:
        return "stop", None
    if status == "completed":
        return "stop", None
    if status == "incomplete":
        if incomplete_reason == "max_output_tokens":
            return "length", None
        if incomplete_reason:
            return "error", f"Response incomplete: {incomplete_reason}"
        return "error", "Response incomplete without a provider reason"
    if status in ("failed", "cancelled"):
        return "error", None
    if status in ("in_progress", "queued"):
        return "stop", None
    raise PiError(f"Unhandled stop reason: {js_to_string(status)}")


def _mapped_parts(item: dict[str, Any], field: str, reading: str) -> list[Any] | None:
    """``item[field]?.map(...)``'s input: ``None`` when absent, a TypeError when it is not an array."""
    parts = item.get(field)
    if parts is None:
        return None
    if not isinstance(parts, list):
        raise JsTypeError(f"item.{field}?.map is not a function")
    for part in parts:
        if part is None:
            raise JsTypeError(f"Cannot read properties of null (reading '{reading}')")
    return parts


def _joined(parts: list[Any] | None, key: str) -> str:
    if parts is None:
        return ""
    return "\n\n".join(_join_item(js_field(part, key)) for part in parts)


class _ResponsesDecoder:
    """Applies Responses API events to the output message, pushing the events Pi pushes.

    A slot maps an ``output_index`` to its block until the item is done; events for unknown or finished slots
    are ignored, as in Pi.
    """

    def __init__(
        self, model: Model, output: dict[str, Any], emitter: EventEmitter, grammar: dict[str, str]
    ) -> None:
        self.model = model
        self.output = output
        self.emitter = emitter
        self.grammar = grammar
        self.saw_terminal = False
        self.slots: dict[Any, tuple[str, dict[str, Any], int]] = {}
        self.reasoning_by_id: dict[Any, dict[str, Any]] = {}
        self.service_tier: Any = None

    def push(self, event: dict[str, Any]) -> None:
        event["partial"] = self.output
        self.emitter.emit(event)

    def slot(self, output_index: Any, kind: str) -> tuple[str, dict[str, Any], int] | None:
        found = self.slots.get(output_index)
        return found if found is not None and found[0] == kind else None

    def push_tool_delta(self, slot: tuple[str, dict[str, Any], int], delta: str | None) -> None:
        if delta is not None:
            self.push({"type": "toolcall_delta", "contentIndex": slot[2], "delta": delta})

    def apply_phase(self, item: Any) -> None:
        if js_field(item, "type") == "message" and js_field(item, "phase") == "final_answer":
            self.output["stopReason"] = "stop"

    def create_slot(self, output_index: Any, item: Any) -> tuple[str, dict[str, Any], int] | None:
        _require_object(item, "type")
        if not isinstance(item, dict):
            return None
        content = self.output["content"]
        kind = item.get("type")
        block: dict[str, Any]
        if kind == "reasoning":
            block = {"type": "thinking", "thinking": ""}
            slot_kind, start = "thinking", "thinking_start"
        elif kind == "message":
            self.apply_phase(item)
            block = {"type": "text", "text": ""}
            slot_kind, start = "text", "text_start"
        elif kind == "function_call":
            block = {
                "type": "toolCall",
                "id": f"{_template_part(item, 'call_id')}|{_template_part(item, 'id')}",
            }
            if "name" in item:
                block["name"] = item["name"]
            block["arguments"] = {}
            if "namespace" in item:
                block["namespace"] = item["namespace"]
            block["partialJson"] = item.get("arguments") or ""
            slot_kind, start = "toolCall", "toolcall_start"
        elif kind == "custom_tool_call":
            name = item.get("name")
            prop = self.grammar.get(name, "input") if isinstance(name, str) else "input"
            block = {
                "type": "toolCall",
                "id": f"{_template_part(item, 'call_id')}|{_template_part(item, 'id')}",
            }
            if "name" in item:
                block["name"] = item["name"]
            block["arguments"] = {prop: item.get("input") or ""}
            if "namespace" in item:
                block["namespace"] = item["namespace"]
            block["customInput"] = {
                "property": prop,
                "jsonBuffer": {"input": "", "started": False, "closed": False},
            }
            slot_kind, start = "toolCall", "toolcall_start"
        else:
            return None
        content.append(block)
        slot = (slot_kind, block, len(content) - 1)
        self.slots[output_index] = slot
        self.push({"type": start, "contentIndex": slot[2]})
        return slot

    @staticmethod
    def custom_input(block: dict[str, Any]) -> str:
        custom = block.get("customInput")
        if custom is None:
            return ""
        value = block["arguments"].get(custom["property"])
        return value if isinstance(value, str) else ""

    @staticmethod
    def append_custom_input(block: dict[str, Any], next_input: str, close: bool) -> str | None:
        custom = block.get("customInput")
        if not custom:
            return None
        delta = grammar_input_json_delta(custom["jsonBuffer"], custom["property"], next_input, close)
        block["arguments"] = {custom["property"]: next_input}
        return delta

    # -- events -------------------------------------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        if not isinstance(event, dict):
            if event is None:
                raise JsTypeError("Cannot read properties of null (reading 'type')")
            return
        kind = event.get("type")
        index = js_map_key(event.get("output_index", ABSENT))
        if kind == "response.created":
            response = js_member(event, "response", "id")
            if isinstance(response, dict) and "id" in response:
                self.output["responseId"] = response["id"]
            else:
                self.output.pop("responseId", None)
        elif kind == "response.output_item.added":
            self.create_slot(index, event.get("item", ABSENT))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self.append_delta(index, "thinking", "thinking", event.get("delta", ABSENT), "thinking_delta")
        elif kind == "response.reasoning_summary_part.done":
            self.append_delta(index, "thinking", "thinking", "\n\n", "thinking_delta")
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            self.append_delta(index, "text", "text", event.get("delta", ABSENT), "text_delta")
        elif kind == "response.function_call_arguments.delta":
            slot = self.slot(index, "toolCall")
            if slot is None or "partialJson" not in slot[1]:
                return
            delta = event.get("delta", ABSENT)
            slot[1]["partialJson"] = js_to_string(slot[1]["partialJson"]) + _concat_part(delta)
            slot[1]["arguments"] = parse_streaming_json(slot[1]["partialJson"])
            if delta is not ABSENT:
                self.push({"type": "toolcall_delta", "contentIndex": slot[2], "delta": delta})
        elif kind == "response.function_call_arguments.done":
            self.on_arguments_done(index, event)
        elif kind == "response.custom_tool_call_input.delta":
            slot = self.slot(index, "toolCall")
            if slot is None or not slot[1].get("customInput"):
                return
            next_input = self.custom_input(slot[1]) + _concat_part(event.get("delta", ABSENT))
            self.push_tool_delta(slot, self.append_custom_input(slot[1], next_input, False))
        elif kind == "response.custom_tool_call_input.done":
            slot = self.slot(index, "toolCall")
            if slot is None or not slot[1].get("customInput"):
                return
            final_input = event.get("input")
            if not isinstance(final_input, str):
                raise JsTypeError("nextInput.startsWith is not a function")
            self.push_tool_delta(slot, self.append_custom_input(slot[1], final_input, True))
        elif kind == "response.output_item.done":
            self.on_item_done(index, event.get("item", ABSENT))
        elif kind in ("response.completed", "response.incomplete"):
            self.finalize(event.get("response", ABSENT))
        elif kind == "error":
            raise PiError(f"Error Code {_template_part(event, 'code')}: {_template_part(event, 'message')}")
        elif kind == "response.failed":
            self.on_failed(event)

    def append_delta(self, index: Any, kind: str, field: str, delta: Any, event_type: str) -> None:
        slot = self.slot(index, kind)
        if slot is None:
            return
        slot[1][field] = slot[1][field] + _concat_part(delta)
        event: dict[str, Any] = {"type": event_type, "contentIndex": slot[2]}
        if delta is not ABSENT:
            event["delta"] = delta
        self.push(event)

    def on_arguments_done(self, index: Any, event: dict[str, Any]) -> None:
        slot = self.slot(index, "toolCall")
        if slot is None or "partialJson" not in slot[1]:
            return
        previous = slot[1]["partialJson"]
        arguments = event.get("arguments", ABSENT)
        assign_or_drop(slot[1], "partialJson", arguments)
        if isinstance(arguments, str) or not js_truthy(arguments):
            slot[1]["arguments"] = parse_streaming_json(arguments if isinstance(arguments, str) else None)
        else:
            raise JsTypeError("partialJson.trim is not a function")
        if arguments is None or arguments is ABSENT:
            raise JsTypeError(f"Cannot read properties of {_nullish(arguments)} (reading 'startsWith')")
        if not isinstance(arguments, str):
            raise JsTypeError("event.arguments.startsWith is not a function")
        previous_text = js_to_string(previous)
        if arguments.startswith(previous_text):
            delta = arguments[len(previous_text) :]
            if delta:
                self.push_tool_delta(slot, delta)

    def on_item_done(self, index: Any, item: Any) -> None:
        _require_object(item, "type")
        self.apply_phase(item)
        slot = self.slots.get(index) or self.create_slot(index, item)
        kind = js_field(item, "type")
        if slot is None:
            return
        block = slot[1]
        if kind == "reasoning" and slot[0] == "thinking":
            summary = _joined(_mapped_parts(item, "summary", "text"), "text")
            content = _joined(_mapped_parts(item, "content", "text"), "text")
            block["thinking"] = summary or content or block["thinking"]
            block["thinkingSignature"] = js_stringify(item)
            self.reasoning_by_id[js_map_key(item.get("id", ABSENT))] = block
            self.push({"type": "thinking_end", "contentIndex": slot[2], "content": block["thinking"]})
            self.slots.pop(index, None)
        elif kind == "message" and slot[0] == "text":
            parts = _mapped_parts(item, "content", "type")
            text = ""
            if parts is not None:
                text = "".join(
                    _join_item(
                        js_field(part, "text" if js_field(part, "type") == "output_text" else "refusal")
                    )
                    for part in parts
                )
            block["text"] = text
            block["textSignature"] = _text_signature(item)
            self.push({"type": "text_end", "contentIndex": slot[2], "content": block["text"]})
            self.slots.pop(index, None)
        elif kind == "function_call" and slot[0] == "toolCall" and "partialJson" in block:
            block["arguments"] = parse_streaming_json(item.get("arguments") or block["partialJson"] or "{}")
            if "namespace" in item:
                block["namespace"] = item["namespace"]
            del block["partialJson"]
            self.push({"type": "toolcall_end", "contentIndex": slot[2], "toolCall": block})
            self.slots.pop(index, None)
        elif kind == "custom_tool_call" and slot[0] == "toolCall" and block.get("customInput"):
            final_input = item.get("input")
            if final_input is None:
                final_input = self.custom_input(block)
            self.push_tool_delta(slot, self.append_custom_input(block, final_input, True))
            if "namespace" in item:
                block["namespace"] = item["namespace"]
            del block["customInput"]
            self.push({"type": "toolcall_end", "contentIndex": slot[2], "toolCall": block})
            self.slots.pop(index, None)

    def backfill_signatures(self, items: Any) -> None:
        """Azure may send a reasoning item's encrypted content only in the terminal response."""
        if isinstance(items, str):
            return  # iterating a string yields characters, which have no reasoning type
        if not isinstance(items, list):
            raise JsTypeError("responseOutput is not iterable")
        for item in items:
            if item is None:
                raise JsTypeError("Cannot read properties of null (reading 'type')")
            if js_field(item, "type") != "reasoning" or not js_field(item, "encrypted_content"):
                continue
            block = self.reasoning_by_id.get(js_map_key(item.get("id", ABSENT)))
            if block is None or not block.get("thinkingSignature"):
                continue
            stored = js_json_parse(block["thinkingSignature"])
            if js_field(stored, "encrypted_content"):
                continue
            merged = dict(stored) if isinstance(stored, dict) else {}
            merged["encrypted_content"] = item["encrypted_content"]
            block["thinkingSignature"] = js_stringify(merged)

    def finalize(self, response: Any) -> None:
        self.saw_terminal = True
        _require_object(response, "output")
        if not isinstance(response, dict):
            response = {}
        output = self.output
        items = response.get("output")
        self.backfill_signatures([] if items is None else items)
        if js_truthy(response.get("id")):
            output["responseId"] = response["id"]
        usage = response.get("usage")
        if js_truthy(usage):
            details = js_field(usage, "input_tokens_details")
            cached = js_field(details, "cached_tokens") or 0
            cache_write = js_field(details, "cache_write_tokens") or 0
            output["usage"] = counted_usage(
                input_tokens=max(0, (js_field(usage, "input_tokens") or 0) - cached - cache_write),
                output_tokens=js_field(usage, "output_tokens") or 0,
                cache_read=cached,
                cache_write=cache_write,
                reasoning=js_field(js_field(usage, "output_tokens_details"), "reasoning_tokens") or 0,
                total=js_field(usage, "total_tokens") or 0,
            )
        calculate_cost(self.model, output["usage"])
        tier = response.get("service_tier")
        multiplier = _service_tier_multiplier(self.model, self.service_tier if tier is None else tier)
        if multiplier != 1:
            cost = output["usage"]["cost"]
            for key in ("input", "output", "cacheRead", "cacheWrite"):
                cost[key] *= multiplier
            cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
        status = response.get("status")
        reason = js_field(response.get("incomplete_details"), "reason")
        incomplete_reason = reason if isinstance(reason, str) else None
        if incomplete_reason:
            output["rawStopReason"] = f"{_template_part(response, 'status')}.{incomplete_reason}"
        elif "status" in response:
            output["rawStopReason"] = status
        else:
            output.pop("rawStopReason", None)
        stop_reason, message = _map_stop_reason(status, incomplete_reason)
        output["stopReason"] = stop_reason
        if message is None:
            output.pop("errorMessage", None)
        else:
            output["errorMessage"] = message
        if stop_reason == "stop" and any(block.get("type") == "toolCall" for block in output["content"]):
            output["stopReason"] = "toolUse"

    def on_failed(self, event: dict[str, Any]) -> None:
        self.saw_terminal = True
        response = event.get("response")
        if isinstance(response, dict) and "status" in response:
            self.output["rawStopReason"] = response["status"]
        else:
            self.output.pop("rawStopReason", None)
        error = js_field(response, "error")
        details = js_field(response, "incomplete_details")
        if js_truthy(error):
            code = js_field(error, "code") if js_truthy(js_field(error, "code")) else "unknown"
            text = js_field(error, "message") if js_truthy(js_field(error, "message")) else "no message"
            raise PiError(f"{js_to_string(code)}: {js_to_string(text)}")
        if js_truthy(js_field(details, "reason")):
            raise PiError(f"incomplete: {js_to_string(details['reason'])}")
        raise PiError("Unknown error (no error details in response)")


def _nullish(value: Any) -> str:
    return "null" if value is None else "undefined"


def _require_object(value: Any, reading: str) -> None:
    """Property reads on ``null``/``undefined`` throw in JS; anything else just reads ``undefined``."""
    if value is None or value is ABSENT:
        raise JsTypeError(f"Cannot read properties of {_nullish(value)} (reading '{reading}')")


def _concat_part(value: Any) -> str:
    """The text ``+=`` appends for a delta value (``undefined`` when absent)."""
    return "undefined" if value is ABSENT else js_to_string(value)


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
    """Settle one Responses API answer the way Pi's ``streamOpenAIResponses`` does.

    ``options["grammarToolInputProperties"]`` (tool name → input property) stands in for the context's
    grammar-constrained tools.
    """
    output = new_output(model, now_ms)
    decoder = _ResponsesDecoder(model, output, emitter, dict(options.get("grammarToolInputProperties") or {}))
    # The tier the request asked for prices the answer when the response does not name one.
    decoder.service_tier = options.get("serviceTier")
    try:
        for event in open_openai_sdk_stream(status, chunks, output, emitter):
            decoder.handle(event)
        if not decoder.saw_terminal:
            raise PiError("OpenAI Responses stream ended before a terminal response event")
        raise_unless_settled(output, "OpenAI Responses stream ended without a stop reason")
        emit_done(output, emitter)
    except Exception as error:  # noqa: BLE001 - every failure settles the message, as in Pi
        fail_output(
            output, emitter, format_provider_error(error, "OpenAI API error"), scratch_keys=_SCRATCH_KEYS
        )
    return output
