"""Mistral chat-completions stream decoding against what pi-ai 0.85.1 settled from the same HTTP responses.

Each case in ``fixtures/streams/cases/mistral-conversations`` is replayed through the decoder with the sidecar's
status, headers and body (one write, then 7-byte writes), and the events and settled message must equal the
reference's ``expected`` document exactly.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.streamcases import (
    assert_chunking_does_not_matter,
    assert_matches_reference,
    assert_reference_run,
    decode_body,
    stream_case_names,
)

API = "mistral-conversations"


@pytest.mark.parametrize("name", stream_case_names(API))
def test_case_matches_reference(name: str) -> None:
    assert_matches_reference(API, name)


@pytest.mark.parametrize("name", stream_case_names(API))
def test_chunk_boundaries_do_not_matter(name: str) -> None:
    assert_chunking_does_not_matter(API, name)


def _decode_body(body: bytes, status: int = 200) -> dict[str, Any]:
    _, message = decode_body(API, "mistral/mistral-medium-latest", body, status=status)
    return message


def _event(payload: str) -> bytes:
    return f"data: {payload}\n\n".encode()


def test_empty_error_body_reports_reason_phrase() -> None:
    message = _decode_body(b"  ", status=502)
    assert message["errorMessage"] == "Mistral API error (502): Bad Gateway"


def test_long_error_body_is_truncated_in_utf16_units() -> None:
    body = ("\U0001f600" * 2500).encode()
    message = _decode_body(body, status=500)
    text = message["errorMessage"]
    assert text.startswith("Mistral API error (500): ")
    assert text.endswith("... [truncated 1000 chars]")


def test_trailing_event_without_blank_line_is_still_read() -> None:
    body = _event('{"id":"a","choices":[{"delta":{"content":"hi"}}]}') + (
        b'data: {"id":"a","choices":[{"delta":{"content":"!"},"finish_reason":"stop"}]}'
    )
    message = _decode_body(body)
    assert message["stopReason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "hi!"}]


def test_done_marker_stops_reading() -> None:
    body = (
        _event('{"id":"a","choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}')
        + _event("[DONE]")
        + _event("{broken")
    )
    assert _decode_body(body)["stopReason"] == "stop"


def test_event_without_choices_is_invalid() -> None:
    message = _decode_body(_event('{"id":"a"}'))
    assert message["errorMessage"] == "Invalid Mistral streaming event"


def test_unknown_finish_reason_is_provider_error() -> None:
    message = _decode_body(_event('{"id":"a","choices":[{"delta":{"content":"x"},"finish_reason":"weird"}]}'))
    assert (message["stopReason"], message["errorMessage"]) == ("error", "Provider stopped with: weird")


def test_tool_calls_keyed_by_index_accumulate_arguments() -> None:
    body = _event(
        '{"id":"a","choices":[{"delta":{"tool_calls":[{"id":"abcDEF123","index":0,'
        '"function":{"name":"read","arguments":"{\\"pa"}}]}}]}'
    ) + _event(
        '{"id":"a","choices":[{"delta":{"tool_calls":[{"index":0,'
        '"function":{"name":"","arguments":"th\\":\\"x\\"}"}}]},"finish_reason":"tool_calls"}]}'
    )
    message = _decode_body(body)
    assert message["content"] == [
        {"type": "toolCall", "id": "abcDEF123", "name": "read", "arguments": {"path": "x"}}
    ]
    assert message["stopReason"] == "toolUse"


# Responses built to probe edge cases; the expectations were produced by running pi-ai 0.85.1 itself (its
# streamSimple against a loopback server replaying each body), not written by hand.
REFERENCE_EDGE_CASES: dict[str, dict[str, Any]] = {
    "array_text_thinking_mix": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"cmpl1","object":"chat.completion.chunk","model":"m"'
        b',"choices":[{"index":0,"delta":{"role":"assistant","content":[{"'
        b'type":"thinking","thinking":[{"type":"text","text":"a"},{"type":'
        b'"text","text":""},{"type":"text","text":"b"}]}]},"finish_reason"'
        b':null}]}\n\ndata: {"id":"cmpl1","object":"chat.completion.chun'
        b'k","model":"m","choices":[{"index":0,"delta":{"content":[{"type"'
        b':"thinking","thinking":[]}]},"finish_reason":null}]}\n\ndata: '
        b'{"id":"cmpl1","object":"chat.completion.chunk","model":"m","choi'
        b'ces":[{"index":0,"delta":{"content":[{"type":"text","text":"x"},'
        b'"y",{"type":"image_url"}]},"finish_reason":null}]}\n\ndata: {"'
        b'id":"cmpl1","object":"chat.completion.chunk","model":"m","choice'
        b's":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"'
        b'usage":{"prompt_tokens":50,"completion_tokens":5,"total_tokens":'
        b'55,"prompt_tokens_details":{"cached_tokens":20}}}\n\ndata: [DO'
        b"NE]\n\n",
        "expect": {
            "types": [
                "start",
                "thinking_start",
                "thinking_delta",
                "thinking_end",
                "text_start",
                "text_delta",
                "text_delta",
                "text_delta",
                "text_end",
                "done",
            ],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "thinking", "thinking": "ab"}, {"type": "text", "text": "xy"}],
            "diagnostics": None,
        },
    },
    "tool_index_12_null_id": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"cmpl1","object":"chat.completion.chunk","model":"m"'
        b',"choices":[{"index":0,"delta":{"tool_calls":[{"id":null,"index"'
        b':12,"function":{"name":"read","arguments":""}}]},"finish_reason"'
        b':"tool_calls"}]}\n\ndata: [DONE]\n\n',
        "expect": {
            "types": ["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"],
            "stopReason": "toolUse",
            "errorMessage": None,
            "content": [{"type": "toolCall", "id": "nn67j3147", "name": "read", "arguments": {}}],
            "diagnostics": None,
        },
    },
    "partial_args_at_end": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"cmpl1","object":"chat.completion.chunk","model":"m","ch'
        b'oices":[{"index":0,"delta":{"tool_calls":[{"id":"abcdefghi","index":'
        b'0,"function":{"name":"read","arguments":"{\\"path\\":\\"src/ma"}}]}'
        b',"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
        "expect": {
            "types": ["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"],
            "stopReason": "toolUse",
            "errorMessage": None,
            "content": [
                {"type": "toolCall", "id": "abcdefghi", "name": "read", "arguments": {"path": "src/ma"}}
            ],
            "diagnostics": None,
        },
    },
    "no_done_no_trailing_newline": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"cmpl1","object":"chat.completion.chunk","model"'
        b':"m","choices":[{"index":0,"delta":{"content":"abc"},"finish'
        b'_reason":null}]}\n\ndata: {"id": "cmpl1", "object": "chat.'
        b'completion.chunk", "model": "m", "choices": [{"index": 0, "d'
        b'elta": {"content": "d"}, "finish_reason": "stop"}]}',
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_delta", "text_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "abcd"}],
            "diagnostics": None,
        },
    },
    "usage_only_chunk": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"cmpl1","object":"chat.completion.chunk","model":"m","choice'
        b's":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}\n\nda'
        b'ta: {"id":"cmpl1","choices":[],"usage":{"prompt_tokens":7,"completion_to'
        b'kens":2,"total_tokens":0}}\n\ndata: [DONE]\n\n',
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "a"}],
            "diagnostics": None,
        },
    },
    "array_event": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"cmpl1","object":"chat.completion.chunk","model":"m","choices":['
        b'{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\ndata: [1,2]\n'
        b"\n",
        "expect": {
            "types": ["start", "text_start", "text_delta", "error"],
            "stopReason": "error",
            "errorMessage": "Invalid Mistral streaming event",
            "content": [{"type": "text", "text": "a"}],
            "diagnostics": None,
        },
    },
    "text_then_tool_then_text": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"cmpl1","object":"chat.completion.chunk","model":"m"'
        b',"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":n'
        b'ull}]}\n\ndata: {"id":"cmpl1","object":"chat.completion.chunk"'
        b',"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"id":'
        b'"t1","index":0,"function":{"name":"bash","arguments":"{}"}}]},"f'
        b'inish_reason":null}]}\n\ndata: {"id":"cmpl1","object":"chat.co'
        b'mpletion.chunk","model":"m","choices":[{"index":0,"delta":{"cont'
        b'ent":"b"},"finish_reason":null}]}\n\ndata: {"id":"cmpl1","obje'
        b'ct":"chat.completion.chunk","model":"m","choices":[{"index":0,"d'
        b'elta":{"tool_calls":[{"index":0,"function":{"name":"bash","argum'
        b'ents":""}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
        "expect": {
            "types": [
                "start",
                "text_start",
                "text_delta",
                "text_end",
                "toolcall_start",
                "toolcall_delta",
                "text_start",
                "text_delta",
                "text_end",
                "toolcall_delta",
                "toolcall_end",
                "done",
            ],
            "stopReason": "toolUse",
            "errorMessage": None,
            "content": [
                {"type": "text", "text": "a"},
                {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}},
                {"type": "text", "text": "b"},
            ],
            "diagnostics": None,
        },
    },
    "delta_missing": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"x","choices":[{"index":0,"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
        "expect": {
            "types": ["start", "error"],
            "stopReason": "error",
            "errorMessage": "Cannot read properties of undefined (reading 'content')",
            "content": [],
            "diagnostics": None,
        },
    },
    "lone_surrogate": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"id":"s","choices":[{"delta":{"content":"a\\ud83d b"},"finish_reas'
        b'on":"stop"}]}\n\ndata: [DONE]\n\n',
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "a b"}],
            "diagnostics": None,
        },
    },
    "data_no_space_multi_line": {
        "model": "mistral/mistral-medium-latest",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data:{"id":"q","choices":\ndata:[{"delta":{"content":"z"},"finish_reason":"stop"}]}\n\n',
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "z"}],
            "diagnostics": None,
        },
    },
    "401_empty": {
        "model": "mistral/mistral-medium-latest",
        "status": 401,
        "headers": {},
        "cut": False,
        "options": {},
        "body": b"",
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "Mistral API error (401): Unauthorized",
            "content": [],
            "diagnostics": None,
        },
    },
}


@pytest.mark.parametrize("name", list(REFERENCE_EDGE_CASES))
def test_edge_case_matches_reference_run(name: str) -> None:
    assert_reference_run(API, REFERENCE_EDGE_CASES[name])
