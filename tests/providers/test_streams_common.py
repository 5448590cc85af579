"""Shared stream machinery: SSE framing, JS JSON semantics, event snapshots, error texts and reference quirks.

The stream-golden replay harness the per-API stream tests use lives in ``streamcases``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_tools.providers.catalog import find_model
from pi_tools.providers.decode import is_context_overflow, is_retryable_assistant_error
from pi_tools.providers.streaming import (
    EventEmitter,
    LineSseDecoder,
    SdkSseDecoder,
    fail_output,
    js_json_parse,
    new_output,
    parse_json_with_repair,
    parse_streaming_json,
    partial_json_parse,
    repair_json,
    snapshot_event,
    stainless_status_error,
    v8_json_error_message,
)

from support.streamcases import NOW_MS, Outcome, decode_body, replay

# ---------------------------------------------------------------------------------------------------------------
# SSE framing


def _sdk_events(chunks: list[bytes], finish: bool = True) -> list[tuple[str | None, str, list[str]]]:
    decoder = SdkSseDecoder()
    events = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    if finish:
        events += decoder.finish()
    return [(e.event, e.data, e.raw) for e in events]


def _line_events(chunks: list[bytes]) -> list[tuple[str | None, str, list[str]]]:
    decoder = LineSseDecoder()
    events = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    events += decoder.finish()
    return [(e.event, e.data, e.raw) for e in events]


def test_sdk_sse_line_endings_comments_and_multiline_data() -> None:
    body = b"event: a\r\ndata: 1\r\ndata:2\r\n\r\n: note\rdata\r\revent:b\n\n"
    expected = [
        ("a", "1\n2", ["event: a", "data: 1", "data:2"]),
        (None, "", [": note", "data"]),
        ("b", "", ["event:b"]),
    ]
    assert _sdk_events([body]) == expected
    assert _sdk_events([body[i : i + 1] for i in range(len(body))]) == expected


def test_sdk_sse_drops_unterminated_event_and_strips_bom_per_line() -> None:
    assert _sdk_events([b"data: 1\n\ndata: 2\n"]) == [(None, "1", ["data: 1"])]
    assert _sdk_events([b"\xef\xbb\xbfdata: x\n\n"]) == [(None, "x", ["data: x"])]


def test_sdk_sse_block_without_double_newline_waits_for_the_end() -> None:
    # "\n\r\n" ends the event for the line decoder, but the SDK only hands over blocks cut at blank lines.
    assert _sdk_events([b"data: 1\n\r\n"], finish=False) == []
    assert _sdk_events([b"data: 1\n\r\n"]) == [(None, "1", ["data: 1"])]


def test_line_sse_flushes_trailing_event_and_splits_on_carriage_return() -> None:
    assert _line_events([b'event: x\rdata: {"a"', b":1}"]) == [
        ("x", '{"a":1}', ["event: x", 'data: {"a":1}'])
    ]
    assert _line_events([b"\xef\xbb\xbfdata: 1\r\n\r\ndata: 2\n\n"]) == [
        (None, "1", ["data: 1"]),
        (None, "2", ["data: 2"]),
    ]


def test_line_sse_cr_at_read_boundary_dispatches_early_like_pi() -> None:
    # Pi's reader ends a line at a CR that closes a read; the LF of the next read is then a blank line.
    assert _line_events([b"event: a\r", b"\ndata: 1\r\n\r\n"]) == [
        ("a", "", ["event: a"]),
        (None, "1", ["data: 1"]),
    ]


def test_anthropic_crlf_case_split_between_cr_and_lf_fails_as_in_pi() -> None:
    # Observed from pi-ai itself (Node, same body in 7-byte reads): the first event arrives without data.
    _, message = replay("anthropic-messages", "syn_sse_crlf_comments_nospace", 7)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == (
        "Could not parse Anthropic SSE event message_start: Unexpected end of JSON input; data=; "
        "raw=: keep-alive\\nevent: message_start"
    )


def test_line_sse_multibyte_split_across_chunks() -> None:
    body = "data: é😀\n\n".encode()
    assert _line_events([body[i : i + 1] for i in range(len(body))]) == [(None, "é😀", ["data: é😀"])]


# ---------------------------------------------------------------------------------------------------------------
# JSON with JavaScript semantics (expected texts taken from Node 22)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Unexpected end of JSON input"),
        ("{", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
        ('{"a":1', "Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)"),
        ('"abc', "Unterminated string in JSON at position 4 (line 1 column 5)"),
        ("trux", "Unexpected token 'x', \"trux\" is not valid JSON"),
        ('{"a":1,}', "Expected double-quoted property name in JSON at position 7 (line 1 column 8)"),
        ("01", "Unexpected number in JSON at position 1 (line 1 column 2)"),
        ('"\\u12g4"', "Bad Unicode escape in JSON at position 5 (line 1 column 6)"),
        ("1 2", "Unexpected non-whitespace character after JSON at position 2 (line 1 column 3)"),
        ("abcdefghijklmnopqrstuvwxyz0123456789", "Unexpected token 'a', \"abcdefghij\"... is not valid JSON"),
        ("\r\r[1 x", "Expected ',' or ']' after array element in JSON at position 5 (line 3 column 4)"),
        ('tr"', "Unexpected string in JSON at position 2 (line 1 column 3)"),
        ("NaN", '"NaN" is not valid JSON'),
        ('"😀" x', "Unexpected non-whitespace character after JSON at position 5 (line 1 column 6)"),
    ],
)
def test_v8_json_error_messages(text: str, message: str) -> None:
    assert v8_json_error_message(text) == message
    with pytest.raises(ValueError, match="^" + __import__("re").escape(message) + "$"):
        js_json_parse(text)


def test_js_json_parse_accepts_lone_surrogates_and_rejects_nan() -> None:
    assert js_json_parse('"\\ud83d"') == "\ud83d"
    with pytest.raises(ValueError):
        js_json_parse("NaN")


def test_repair_json_escapes_controls_and_stray_backslashes() -> None:
    assert repair_json('{"p": "C:\\Users\\x\n"}') == '{"p": "C:\\\\Users\\\\x\\n"}'
    assert repair_json('{"u": "\\u00e9\\q\t"}') == '{"u": "\\u00e9\\\\q\\t"}'
    assert parse_json_with_repair('{"p": "a\nb"}') == {"p": "a\nb"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1, "b": [1, 2, {"c": "d', {"a": 1, "b": [1, 2, {"c": "d"}]}),
        ('{"a": tr', {"a": True}),
        ('{"a": -', {}),
        ('{"a": 1.5e', {"a": 1.5}),
        ('[1, "t\\', [1, "t"]),
        ('{"path": "C:\\Users', {"path": "C:"}),
        ('{"a', {}),
    ],
)
def test_partial_json_parse_matches_partial_json_package(text: str, value: Any) -> None:
    assert partial_json_parse(text) == value


def test_parse_streaming_json_falls_back_to_repair_and_empty_object() -> None:
    assert parse_streaming_json(None) == {}
    assert parse_streaming_json("  ") == {}
    assert parse_streaming_json('{"path": "C:\\Users\\x"}') == {"path": "C:\\Users\\x"}
    # partial-json reads a value it cannot decode as "no value": the object stays empty (checked with Node).
    assert parse_streaming_json('{"path": "C:\\Users\\x') == {}
    assert parse_streaming_json('{"path": "C:\\\\Users", "n": 4') == {"path": "C:\\Users", "n": 4}
    assert parse_streaming_json("}") == {}


# ---------------------------------------------------------------------------------------------------------------
# Messages, events, errors


def test_snapshot_keeps_start_partial_and_block_without_scratch_keys() -> None:
    model = find_model("anthropic/claude-sonnet-4-5")
    output = new_output(model, NOW_MS)
    emitter = EventEmitter()
    emitter.emit({"type": "start", "partial": output})
    output["content"].append({"type": "toolCall", "id": "t", "arguments": {}, "partialJson": "", "index": 0})
    emitter.emit({"type": "toolcall_start", "contentIndex": 0, "partial": output})
    output["content"][0]["arguments"] = {"a": 1}
    fail_output(output, emitter, "boom")
    emitter.emit({"type": "done", "reason": "stop", "message": output})
    start, block_start, error = emitter.events
    assert start["partial"]["stopReason"] == "pending" and start["partial"]["content"] == []
    assert block_start == {
        "type": "toolcall_start",
        "contentIndex": 0,
        "partialBlock": {"type": "toolCall", "id": "t", "arguments": {}},
    }
    assert error["error"]["errorMessage"] == "boom"
    assert "partialJson" not in error["error"]["content"][0]
    assert snapshot_event({"type": "text_delta", "contentIndex": 0, "delta": "x", "partial": output}) == {
        "type": "text_delta",
        "contentIndex": 0,
        "delta": "x",
    }


def test_stainless_status_error_texts() -> None:
    body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    assert stainless_status_error(529, body, unwrap_error=False) == f"529 {body}"
    assert (
        stainless_status_error(429, '{"error":{"message":"slow down"}}', unwrap_error=True) == "429 slow down"
    )
    assert (
        stainless_status_error(502, "<html>bad gateway</html>", unwrap_error=True)
        == "502 <html>bad gateway</html>"
    )
    assert stainless_status_error(500, "", unwrap_error=True) == "500 status code (no body)"


def test_classification_regexes() -> None:
    def error(text: str) -> dict[str, Any]:
        return {
            "stopReason": "error",
            "errorMessage": text,
            "usage": {"input": 0, "output": 0, "cacheRead": 0},
        }

    assert is_retryable_assistant_error(error("terminated"))
    assert not is_retryable_assistant_error(error("429 insufficient_quota"))
    assert not is_retryable_assistant_error({"stopReason": "stop", "errorMessage": "terminated"})
    assert is_context_overflow(error("400 prompt is too long: 215443 tokens > 200000 maximum"), 200000)
    assert not is_context_overflow(error("Throttling error: Too many tokens"), 200000)
    silent = {"stopReason": "stop", "usage": {"input": 150, "cacheRead": 60, "output": 1}}
    assert is_context_overflow(silent, 200) and not is_context_overflow(silent, 0)


# ---------------------------------------------------------------------------------------------------------------
# Reference quirks found by differential replay (pi-ai run in Node on the same bodies; results noted inline)


def _decode(api: str, model: str, status: int, body: str) -> Outcome:
    return decode_body(api, model, body.encode(), status=status, headers={"content-type": "application/json"})


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def test_anthropic_stop_without_index_closes_first_closed_block_again() -> None:
    # Pi looks blocks up with `b.index === event.index`: an absent index matches a block whose index was
    # already deleted, and a text_delta without text appends "undefined".
    body = (
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "m1",
                    "model": "claude-sonnet-4-5",
                    "usage": {"input_tokens": 3, "output_tokens": 1},
                },
            },
        )
        + _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": ""},
            },
        )
        + _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        + _sse(
            "content_block_start",
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        )
        + _sse(
            "content_block_delta",
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta"}},
        )
        + _sse("content_block_stop", {"type": "content_block_stop"})
        + _sse(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        )
        + _sse("message_stop", {"type": "message_stop"})
    )
    events, message = _decode("anthropic-messages", "anthropic/claude-sonnet-4-5", 200, body)
    assert [e["type"] for e in events] == [
        "start",
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_delta",
        "thinking_end",
        "done",
    ]
    assert "delta" not in events[4]
    assert message["content"] == [
        {"type": "thinking", "thinking": "", "thinkingSignature": ""},
        {"type": "text", "text": "undefined", "index": 1},
    ]


def test_no_content_status_has_no_body_to_iterate() -> None:
    events, message = _decode("anthropic-messages", "anthropic/claude-sonnet-4-5", 204, "")
    assert [e["type"] for e in events] == ["start", "error"]
    assert message["errorMessage"] == "Attempted to iterate over an Anthropic response with no body"


def test_openai_error_body_is_truncated_to_4000_chars() -> None:
    body = json.dumps({"error": {"message": "m", "detail": "x" * 4100}})
    events, message = _decode("openai-completions", "groq/openai/gpt-oss-120b", 400, body)
    assert [e["type"] for e in events] == ["error"]
    text = message["errorMessage"]
    assert len(text) == 4030
    assert text.startswith('400: {"message":"m","detail":"xxx')
    assert text.endswith("... [truncated 127 chars]")


def test_openrouter_raw_metadata_is_appended_to_stream_error() -> None:
    body = 'data: {"error":{"message":"Provider returned error","code":502,"metadata":{"raw":"upstream exploded"}}}\n\n'
    _, message = _decode("openai-completions", "openrouter/anthropic/claude-sonnet-4.5:batch", 200, body)
    assert message["errorMessage"] == "Provider returned error\nupstream exploded"


def test_responses_terminal_event_with_non_object_response_still_settles() -> None:
    body = 'event: response.completed\ndata: {"type":"response.completed","response":[]}\n\n'
    events, message = _decode("openai-responses", "openai/gpt-5.1", 200, body)
    assert [e["type"] for e in events] == ["start", "done"]
    assert message["stopReason"] == "stop" and "rawStopReason" not in message
