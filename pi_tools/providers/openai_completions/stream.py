"""Chat Completions streaming response → pi-ai events and the settled AssistantMessage (pi-ai 0.85.1).

The body goes through the ``openai`` SDK's SSE stream (so an unterminated last event is silently dropped), then
through Pi's chunk handling: one text block and one thinking block per response however the deltas interleave,
tool calls matched by stream index or id, OpenRouter ``reasoning_details`` kept as the thinking signature.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers.catalog import Model, calculate_cost
from pi_tools.providers.openai_completions.compat import resolve_compat
from pi_tools.providers.openai_completions.reasoning_details import is_reasoning_detail
from pi_tools.providers.sse import open_openai_sdk_stream
from pi_tools.providers.stream_message import counted_usage, emit_done, record_response_id, record_stop_reason
from pi_tools.providers.streaming import (
    EventEmitter,
    PiError,
    SdkApiError,
    error_text,
    fail_output,
    format_provider_error,
    grammar_input_json_delta,
    js_field,
    js_map_key,
    js_to_string,
    js_truthy,
    new_output,
    parse_streaming_json,
)

_SCRATCH_KEYS = ("index", "partialArgs", "customInput", "streamIndex")
_REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fill_common_fields(target: dict[str, Any], source: dict[str, Any]) -> None:
    if target.get("id") is None and "id" in source:
        target["id"] = source["id"]
    if not target.get("format") and "format" in source:
        target["format"] = source["format"]
    if target.get("index") is None and "index" in source:
        target["index"] = source["index"]


def _append_reasoning_detail(details: list[dict[str, Any]], detail: dict[str, Any]) -> None:
    """Merge consecutive text/summary deltas into one logical entry; encrypted entries stay discrete."""
    last = details[-1] if details else None
    if last is not None and detail["type"] == "reasoning.text" and last.get("type") == "reasoning.text":
        last["text"] += detail["text"]
        if not last.get("signature") and "signature" in detail:
            last["signature"] = detail["signature"]
        _fill_common_fields(last, detail)
        return
    if last is not None and detail["type"] == "reasoning.summary" and last.get("type") == "reasoning.summary":
        last["summary"] += detail["summary"]
        _fill_common_fields(last, detail)
        return
    details.append(dict(detail))


def _or_zero(value: Any) -> Any:
    return value or 0


def _first_present(*values: Any) -> Any:
    for value in values:
        if value is not None:
            return value
    return 0


def parse_chunk_usage(raw: Any, model: Model) -> dict[str, Any]:
    """pi-ai ``parseChunkUsage``: cached prompt tokens are reads, reported under several provider spellings."""
    prompt_details = js_field(raw, "prompt_tokens_details")
    prompt_tokens = _or_zero(js_field(raw, "prompt_tokens"))
    cache_read = _first_present(
        js_field(prompt_details, "cached_tokens"),
        js_field(raw, "prompt_cache_hit_tokens"),
        js_field(raw, "cached_tokens"),
    )
    cache_write = _or_zero(js_field(prompt_details, "cache_write_tokens"))
    input_tokens = max(0, prompt_tokens - cache_read - cache_write)
    output_tokens = _or_zero(js_field(raw, "completion_tokens"))
    usage = counted_usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read=cache_read,
        cache_write=cache_write,
        reasoning=_or_zero(js_field(js_field(raw, "completion_tokens_details"), "reasoning_tokens")),
        total=input_tokens + output_tokens + cache_read + cache_write,
    )
    calculate_cost(model, usage)
    return usage


def _map_stop_reason(reason: Any) -> tuple[str, str | None]:
    if reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("function_call", "tool_calls"):
        return "toolUse", None
    return "error", f"Provider finish_reason: {js_to_string(reason)}"


class _CompletionsDecoder:
    """Applies Chat Completions chunks to the output message, pushing the events Pi pushes.

    Only ``choices[0]`` is read; all blocks are finished (``*_end`` events) only after the stream ends, in
    content order, because Chat Completions has no per-block stop signal.
    """

    def __init__(
        self, model: Model, output: dict[str, Any], emitter: EventEmitter, grammar: dict[str, str]
    ) -> None:
        self.model = model
        self.output = output
        self.emitter = emitter
        self.grammar = grammar
        self.blocks: list[dict[str, Any]] = output["content"]
        self.text_block: dict[str, Any] | None = None
        self.thinking_block: dict[str, Any] | None = None
        self.has_finish_reason = False
        self.by_index: dict[Any, dict[str, Any]] = {}
        self.by_id: dict[Any, dict[str, Any]] = {}
        self.reasoning_details: list[dict[str, Any]] | None = None

    def push(self, event: dict[str, Any]) -> None:
        event["partial"] = self.output
        self.emitter.emit(event)

    def position(self, block: dict[str, Any]) -> int:
        for index, candidate in enumerate(self.blocks):
            if candidate is block:
                return index
        return -1

    def apply_reasoning_details(self, block: dict[str, Any]) -> None:
        if self.reasoning_details is not None:
            block["thinkingSignature"] = js_stringify(self.reasoning_details)

    # -- blocks -------------------------------------------------------------------------------------------------

    def ensure_text(self) -> dict[str, Any]:
        if self.text_block is None:
            self.text_block = {"type": "text", "text": ""}
            self.blocks.append(self.text_block)
            self.push({"type": "text_start", "contentIndex": self.position(self.text_block)})
        return self.text_block

    def ensure_thinking(self, signature: str) -> dict[str, Any]:
        if self.thinking_block is None:
            self.thinking_block = {"type": "thinking", "thinking": "", "thinkingSignature": signature}
            self.blocks.append(self.thinking_block)
            self.push({"type": "thinking_start", "contentIndex": self.position(self.thinking_block)})
        return self.thinking_block

    def custom_input(self, block: dict[str, Any]) -> str:
        custom = block.get("customInput")
        if custom is None:
            return ""
        value = block["arguments"].get(custom["property"]) if isinstance(block["arguments"], dict) else None
        return value if isinstance(value, str) else ""

    def append_custom_input(self, block: dict[str, Any], next_input: str, close: bool) -> str | None:
        custom = block.get("customInput")
        if custom is None:
            return None
        delta = grammar_input_json_delta(custom["jsonBuffer"], custom["property"], next_input, close)
        block["arguments"] = {custom["property"]: next_input}
        return delta

    def ensure_tool_call(self, call: dict[str, Any]) -> dict[str, Any]:
        stream_index = call.get("index") if _is_number(call.get("index")) else None
        function = call.get("function")
        custom = call.get("custom")
        name = _first_defined(js_field(function, "name"), js_field(custom, "name"), "")
        call_id = call.get("id")
        block = self.by_index.get(stream_index) if stream_index is not None else None
        if block is None and call_id:
            block = self.by_id.get(js_map_key(call_id))
        if block is None:
            custom_property = None
            if js_truthy(custom) and not js_truthy(function):
                custom_property = self.grammar.get(name, "input")
            block = {"type": "toolCall", "id": call_id or "", "name": name}
            if custom_property is not None:
                block["arguments"] = {custom_property: ""}
                block["customInput"] = {
                    "property": custom_property,
                    "jsonBuffer": {"input": "", "started": False, "closed": False},
                }
            else:
                block["arguments"] = {}
                block["partialArgs"] = ""
            if stream_index is not None:
                block["streamIndex"] = stream_index
                self.by_index[stream_index] = block
            if call_id:
                self.by_id[js_map_key(call_id)] = block
            self.blocks.append(block)
            self.push({"type": "toolcall_start", "contentIndex": self.position(block)})
        if stream_index is not None and block.get("streamIndex") is None:
            block["streamIndex"] = stream_index
            self.by_index[stream_index] = block
        if call_id:
            self.by_id[js_map_key(call_id)] = block
        if not block.get("name") and name:
            block["name"] = name
        if js_truthy(custom) and not js_truthy(function) and block.get("customInput") is None:
            custom_property = self.grammar.get(block.get("name") or "", "input")
            block["arguments"] = {custom_property: ""}
            block["customInput"] = {
                "property": custom_property,
                "jsonBuffer": {"input": "", "started": False, "closed": False},
            }
            block.pop("partialArgs", None)
        return block

    def finish_block(self, block: dict[str, Any]) -> None:
        index = self.position(block)
        if index == -1:
            return
        kind = block["type"]
        if kind == "text":
            self.push({"type": "text_end", "contentIndex": index, "content": block["text"]})
        elif kind == "thinking":
            self.apply_reasoning_details(block)
            self.push({"type": "thinking_end", "contentIndex": index, "content": block["thinking"]})
        elif kind == "toolCall":
            if block.get("customInput") is not None:
                delta = self.append_custom_input(block, self.custom_input(block), True)
                if delta is not None:
                    self.push({"type": "toolcall_delta", "contentIndex": index, "delta": delta})
            else:
                block["arguments"] = parse_streaming_json(block.get("partialArgs"))
            for key in ("partialArgs", "customInput", "streamIndex"):
                block.pop(key, None)
            self.push({"type": "toolcall_end", "contentIndex": index, "toolCall": block})

    # -- chunks -------------------------------------------------------------------------------------------------

    def handle(self, chunk: Any) -> None:
        if not isinstance(chunk, dict):
            return
        output = self.output
        record_response_id(output, chunk)
        chunk_model = chunk.get("model")
        if isinstance(chunk_model, str) and chunk_model and chunk_model != self.model["id"]:
            if not output.get("responseModel"):
                output["responseModel"] = chunk_model
        usage = chunk.get("usage")
        if js_truthy(usage):
            output["usage"] = parse_chunk_usage(usage, self.model)
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        if not js_truthy(choice) or not isinstance(choice, dict):
            return
        if not js_truthy(usage) and js_truthy(choice.get("usage")):
            output["usage"] = parse_chunk_usage(choice["usage"], self.model)
        finish_reason = choice.get("finish_reason")
        if js_truthy(finish_reason):
            record_stop_reason(output, finish_reason, _map_stop_reason)
            self.has_finish_reason = True
        delta = choice.get("delta")
        if js_truthy(delta) and isinstance(delta, dict):
            self.handle_delta(delta)

    def handle_delta(self, delta: dict[str, Any]) -> None:
        content = delta.get("content")
        if isinstance(content, str) and content:
            block = self.ensure_text()
            block["text"] += content
            self.push({"type": "text_delta", "contentIndex": self.position(block), "delta": content})
        for field in _REASONING_FIELDS:
            value = delta.get(field)
            if isinstance(value, str) and value:
                signature = field
                if self.model["provider"] == "opencode-go" and field == "reasoning":
                    signature = "reasoning_content"
                block = self.ensure_thinking(signature)
                block["thinking"] += value
                self.push({"type": "thinking_delta", "contentIndex": self.position(block), "delta": value})
                break
        tool_calls = delta.get("tool_calls")
        if js_truthy(tool_calls) and isinstance(tool_calls, list):
            for call in tool_calls:
                self.handle_tool_call(call if isinstance(call, dict) else {})
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for detail in details:
                if not is_reasoning_detail(detail):
                    continue
                self.ensure_thinking("")
                if self.reasoning_details is None:
                    self.reasoning_details = []
                _append_reasoning_detail(self.reasoning_details, detail)

    def handle_tool_call(self, call: dict[str, Any]) -> None:
        block = self.ensure_tool_call(call)
        call_id = call.get("id")
        if not block.get("id") and call_id:
            block["id"] = call_id
            self.by_id[js_map_key(call_id)] = block
        function = call.get("function")
        custom = call.get("custom")
        name = _first_defined(js_field(function, "name"), js_field(custom, "name"), None)
        if not block.get("name") and name:
            block["name"] = name
        delta = ""
        arguments = js_field(function, "arguments")
        custom_input = js_field(custom, "input")
        if js_truthy(arguments):
            delta = arguments
            block["partialArgs"] = (block.get("partialArgs") or "") + js_to_string(arguments)
            block["arguments"] = parse_streaming_json(block["partialArgs"])
        elif js_truthy(custom_input):
            next_input = self.custom_input(block) + str(custom_input)
            delta = self.append_custom_input(block, next_input, False) or ""
        self.push({"type": "toolcall_delta", "contentIndex": self.position(block), "delta": delta})

    def finish(self, compat: dict[str, Any]) -> None:
        for block in list(self.blocks):
            self.finish_block(block)
        output = self.output
        if output["stopReason"] == "aborted":
            raise PiError("Request was aborted")
        if not self.has_finish_reason and not compat.get("supportsFinishReason"):
            has_tool = any(block.get("type") == "toolCall" for block in self.blocks)
            output["stopReason"] = "toolUse" if has_tool else "stop"
        if output["stopReason"] == "error":
            raise PiError(output.get("errorMessage") or "Provider returned an error stop reason")
        if (compat.get("supportsFinishReason") and not self.has_finish_reason) or output[
            "stopReason"
        ] == "pending":
            raise PiError("Stream ended without finish_reason")
        emit_done(output, self.emitter)


def _first_defined(*values: Any) -> Any:
    for value in values:
        if value is not None:
            return value
    return None


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
    """Settle one Chat Completions response the way Pi's ``streamOpenAICompletions`` does.

    ``options["grammarToolInputProperties"]`` (tool name → input property) stands in for the context's
    grammar-constrained tools, which decide how free-form ``custom`` tool inputs become arguments.
    """
    output = new_output(model, now_ms)
    compat = resolve_compat(model)
    decoder = _CompletionsDecoder(
        model, output, emitter, dict(options.get("grammarToolInputProperties") or {})
    )
    try:
        for chunk in open_openai_sdk_stream(status, chunks, output, emitter):
            decoder.handle(chunk)
        decoder.finish(compat)
    except Exception as error:  # noqa: BLE001 - every failure settles the message, as in Pi
        for block in output["content"]:
            if block.get("type") == "thinking":
                decoder.apply_reasoning_details(block)
        message = format_provider_error(error) if not isinstance(error, PiError) else error_text(error)
        raw = js_field(js_field(error.error, "metadata"), "raw") if isinstance(error, SdkApiError) else None
        if js_truthy(raw) and js_to_string(raw) not in message:
            message += f"\n{js_to_string(raw)}"
        fail_output(output, emitter, message, scratch_keys=_SCRATCH_KEYS)
    return output
