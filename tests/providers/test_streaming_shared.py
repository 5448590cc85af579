"""The helpers the stream decoders share: settling, stop reasons, usage records, block scaffolding, SDK opening,
Node reason phrases, and the live ``on_event`` hook of ``decode_response``."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js.access import ABSENT
from pi_tools.js.values import js_truthy
from pi_tools.providers import streaming
from pi_tools.providers.catalog import find_model
from pi_tools.providers.decode import decode_response
from pi_tools.providers.node_http import node_status_text
from pi_tools.providers.provider_errors import sdk_error_message, stainless_status_error
from pi_tools.providers.sse import open_openai_sdk_stream
from pi_tools.providers.stream_message import (
    EventEmitter,
    PiError,
    SequentialBlocks,
    counted_usage,
    emit_done,
    new_output,
    raise_unless_settled,
    record_response_id,
    record_stop_reason,
)

NOW_MS = 1767225600000


def _output(api_model: str = "openai/gpt-4o-mini") -> dict[str, Any]:
    return new_output(find_model(api_model), NOW_MS)


def test_streaming_facade_still_exports_what_importers_use() -> None:
    for name in ("EventEmitter", "TransportError", "fail_output", "new_output", "js_json_parse", "PiError"):
        assert name in streaming.__all__
        assert getattr(streaming, name) is not None


@pytest.mark.parametrize(
    ("stop_reason", "error_message", "expected"),
    [
        ("pending", None, "X stream ended without a stop reason"),
        ("error", "boom", "boom"),
        ("aborted", None, "An unknown error occurred"),
        ("error", "", "An unknown error occurred"),
    ],
)
def test_raise_unless_settled_texts(stop_reason: str, error_message: str | None, expected: str) -> None:
    output = _output()
    output["stopReason"] = stop_reason
    if error_message is not None:
        output["errorMessage"] = error_message
    with pytest.raises(PiError) as caught:
        raise_unless_settled(output, "X stream ended without a stop reason")
    assert str(caught.value) == expected


def test_raise_unless_settled_prefers_explicit_stopped_text_and_passes_settled_stops() -> None:
    output = _output()
    output["stopReason"] = "error"
    output["errorMessage"] = "recorded"
    with pytest.raises(PiError, match="^Provider stopped with: SAFETY$"):
        raise_unless_settled(output, "unused", "Provider stopped with: SAFETY")
    for settled in ("stop", "length", "toolUse"):
        output["stopReason"] = settled
        raise_unless_settled(output, "unused", "unused")


def test_emit_done_closes_the_stream() -> None:
    output = _output()
    output["stopReason"] = "stop"
    emitter = EventEmitter()
    emit_done(output, emitter)
    emitter.emit({"type": "text_start", "contentIndex": 0, "partial": output})
    assert [event["type"] for event in emitter.events] == ["done"]
    assert emitter.events[0]["reason"] == "stop"


def test_record_stop_reason_keeps_raw_reason_even_when_mapping_throws() -> None:
    output = _output()

    def unknown(raw: Any) -> tuple[str, str | None]:
        raise PiError(f"Unhandled stop reason: {raw}")

    with pytest.raises(PiError):
        record_stop_reason(output, "weird", unknown)
    assert output["rawStopReason"] == "weird"
    assert output["stopReason"] == "pending"

    record_stop_reason(output, "content_filter", lambda raw: ("error", f"Provider stopped with: {raw}"))
    assert (output["stopReason"], output["errorMessage"]) == (
        "error",
        "Provider stopped with: content_filter",
    )
    record_stop_reason(output, "stop", lambda raw: ("stop", None))
    assert output["errorMessage"] == "Provider stopped with: content_filter"


def test_record_response_id_until_a_truthy_one_arrives() -> None:
    output = _output()
    record_response_id(output, {"id": ""})
    assert output["responseId"] == ""
    record_response_id(output, {})
    assert "responseId" not in output
    record_response_id(output, {"id": "chatcmpl-1"})
    record_response_id(output, {"id": "chatcmpl-2"})
    assert output["responseId"] == "chatcmpl-1"


def test_counted_usage_key_order_and_unpriced_cost() -> None:
    usage = counted_usage(input_tokens=3, output_tokens=4, cache_read=1, cache_write=2, reasoning=5, total=10)
    assert list(usage) == ["input", "output", "cacheRead", "cacheWrite", "reasoning", "totalTokens", "cost"]
    assert usage["cost"] == {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    other = counted_usage(input_tokens=0, output_tokens=0, cache_read=0, cache_write=0, reasoning=0, total=0)
    assert other["cost"] is not usage["cost"]


def test_sequential_blocks_buffer_deltas_until_the_block_ends() -> None:
    output = _output()
    emitter = EventEmitter()
    blocks = SequentialBlocks(output, emitter)
    blocks.close_current()
    assert emitter.events == []
    block: dict[str, Any] = {"type": "thinking", "thinking": ""}
    output["content"].append(block)
    blocks.current = block
    blocks.pieces.extend(["a", "b"])
    assert block["thinking"] == ""
    blocks.close_current()
    assert block["thinking"] == "ab"
    assert blocks.pieces == []
    assert emitter.events[-1] == {"type": "thinking_end", "contentIndex": 0, "content": "ab"}


@pytest.mark.parametrize(
    ("status", "phrase"),
    [
        (200, "OK"),
        (413, "Payload Too Large"),
        (416, "Range Not Satisfiable"),
        (429, "Too Many Requests"),
        (509, "Bandwidth Limit Exceeded"),
        (599, "unknown"),
    ],
)
def test_node_status_text(status: int, phrase: str) -> None:
    assert node_status_text(status) == phrase


def test_open_openai_sdk_stream_order_of_failures() -> None:
    output = _output()
    emitter = EventEmitter()
    with pytest.raises(streaming.SdkApiError, match="^400 bad$"):
        open_openai_sdk_stream(400, iter([b'{"error": {"message": "bad"}}']), output, emitter)
    assert emitter.events == []
    with pytest.raises(PiError, match="no body"):
        open_openai_sdk_stream(204, iter([]), output, emitter)
    assert [event["type"] for event in emitter.events] == ["start"]
    values = list(
        open_openai_sdk_stream(200, iter([b'data: {"a": 1}\n\n', b"data: [DONE]\n\n"]), output, emitter)
    )
    assert values == [{"a": 1}]


def test_sdk_error_texts_share_the_error_object_reading() -> None:
    assert sdk_error_message({"message": "m"}, None) == "m"
    assert sdk_error_message({"code": 1}, None) == '{"code":1}'
    assert sdk_error_message(None, "fallback") == "fallback"
    assert sdk_error_message(None, None) == "(no status code or body)"
    assert stainless_status_error(500, '{"message": {"x": 1}}', unwrap_error=False) == '500 {"x":1}'
    assert stainless_status_error(502, "", unwrap_error=True) == "502 status code (no body)"


def test_js_truthy_treats_absent_as_undefined() -> None:
    assert all(js_truthy(value) for value in ({}, [], "x", 2, -0.5, True))
    assert not any(js_truthy(value) for value in (ABSENT, None, False, 0, 0.0, "", float("nan")))


def test_decode_response_on_event_sees_each_snapshot_as_pushed() -> None:
    model = find_model("openai/gpt-4o-mini")
    body = (
        b'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
        b'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    seen: list[dict[str, Any]] = []
    events_at_callback: list[int] = []

    def on_event(event: dict[str, Any]) -> None:
        seen.append(event)
        events_at_callback.append(len(seen))

    events, message = decode_response(
        "openai-completions",
        model,
        status=200,
        headers={"Content-Type": "text/event-stream"},
        chunks=iter([body]),
        options={},
        now_ms=NOW_MS,
        on_event=on_event,
    )
    assert seen == events
    assert [event["type"] for event in seen][0] == "start"
    assert seen[-1]["type"] == "done"
    assert message["stopReason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "Hi"}]
