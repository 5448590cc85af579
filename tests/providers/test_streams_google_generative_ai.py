"""Gemini stream decoding against what pi-ai 0.85.1 settled from the same HTTP responses.

Each case in ``fixtures/streams/cases/google-generative-ai`` is replayed through the decoder with the sidecar's
status, headers and body (one write, then 7-byte writes), and the events and settled message must equal the
reference's ``expected`` document exactly.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.golden import STREAMS
from support.streamcases import (
    NOW_MS,
    assert_chunking_does_not_matter,
    assert_matches_reference,
    assert_reference_run,
    decode_body,
    stream_case_names,
)

API = "google-generative-ai"


@pytest.mark.parametrize("name", stream_case_names(API))
def test_case_matches_reference(name: str) -> None:
    assert_matches_reference(API, name)


@pytest.mark.parametrize("name", stream_case_names(API))
def test_chunk_boundaries_do_not_matter(name: str) -> None:
    assert_chunking_does_not_matter(API, name)


def _decode_body(body: bytes, status: int = 200, content_type: str = "text/event-stream") -> dict[str, Any]:
    _, message = decode_body(
        API, "google/gemini-2.5-flash", body, status=status, headers={"content-type": content_type}
    )
    return message


def test_unknown_finish_reason_is_an_error_with_pi_text() -> None:
    body = b'data: {"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"NEW_REASON"}]}\r\n\r\n'
    message = _decode_body(body)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "Unhandled stop reason: NEW_REASON"
    assert message["rawStopReason"] == "NEW_REASON"


def test_trailing_event_without_blank_line_is_incomplete() -> None:
    body = b'data: {"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP"}]}\n'
    message = _decode_body(body)
    assert message["errorMessage"] == "Incomplete JSON segment at the end"


def test_plain_text_error_body_is_wrapped_with_status_text() -> None:
    message = _decode_body(b"upstream overloaded", status=503, content_type="text/plain")
    assert message["errorMessage"] == (
        '{"error":{"message":"upstream overloaded","code":503,"status":"Service Unavailable"}}'
    )


def test_bare_error_object_chunk_raises_api_error() -> None:
    body = b'{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}'
    message = _decode_body(body)
    assert message["errorMessage"] == (
        'got status: RESOURCE_EXHAUSTED. {"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}'
    )


def test_generated_tool_ids_count_per_response() -> None:
    body = (
        b'data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"read","args":{}}},'
        b'{"functionCall":{"name":"read","args":{"path":"a"}}}]},"finishReason":"STOP"}]}\n\n'
    )
    message = _decode_body(body)
    assert [block["id"] for block in message["content"]] == [f"read_{NOW_MS}_1", f"read_{NOW_MS}_2"]
    assert message["stopReason"] == "toolUse"


def test_fixture_dir_exists() -> None:
    assert (STREAMS / "cases" / API).is_dir() and stream_case_names(API)


# Responses built to probe edge cases; the expectations were produced by running pi-ai 0.85.1 itself (its
# streamSimple against a loopback server replaying each body), not written by hand.
REFERENCE_EDGE_CASES: dict[str, dict[str, Any]] = {
    "thinking_sig_then_calls_dup_ids": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"candidates":[{"content":{"parts":[{"text":"a","t'
        b'hought":true,"thoughtSignature":"c2ln"}],"role":"model"}'
        b',"index":0}]}\r\n\r\ndata: {"candidates":[{"content":{"p'
        b'arts":[{"text":"b","thought":true}],"role":"model"},"ind'
        b'ex":0}]}\r\n\r\ndata: {"candidates":[{"content":{"parts"'
        b':[{"functionCall":{"id":"x1","name":"read","args":{"path'
        b'":"a"}}},{"functionCall":{"id":"x1","name":"read","args"'
        b':{}}},{"functionCall":{"name":"bash"}}],"role":"model"},'
        b'"index":0}]}\r\n\r\ndata: {"candidates":[{"content":{"pa'
        b'rts":[{"text":""}],"role":"model"},"index":0,"finishReas'
        b'on":"STOP"}],"usageMetadata":{"promptTokenCount":100,"ca'
        b'ndidatesTokenCount":10,"totalTokenCount":130,"thoughtsTo'
        b'kenCount":20,"cachedContentTokenCount":40}}\r\n\r\n',
        "expect": {
            "types": [
                "start",
                "thinking_start",
                "thinking_delta",
                "thinking_delta",
                "thinking_end",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_end",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_end",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_end",
                "text_start",
                "text_delta",
                "text_end",
                "done",
            ],
            "stopReason": "toolUse",
            "errorMessage": None,
            "content": [
                {"type": "thinking", "thinking": "ab", "thinkingSignature": "c2ln"},
                {"type": "toolCall", "id": "x1", "name": "read", "arguments": {"path": "a"}},
                {"type": "toolCall", "id": "read_1767225600000_1", "name": "read", "arguments": {}},
                {"type": "toolCall", "id": "bash_1767225600000_2", "name": "bash", "arguments": {}},
                {"type": "text", "text": ""},
            ],
            "diagnostics": None,
        },
    },
    "unknown_finish": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"}'
        b',"index":0,"finishReason":"TOO_MANY_TOOL_CALLS"}]}\r\n\r\n',
        "expect": {
            "types": ["start", "text_start", "text_delta", "error"],
            "stopReason": "error",
            "errorMessage": "Unhandled stop reason: TOO_MANY_TOOL_CALLS",
            "content": [{"type": "text", "text": "hi"}],
            "diagnostics": None,
        },
    },
    "finish_other_no_parts": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":'
        b'"model"},"index":0}]}\r\n\r\ndata: {"candidates":[{"index":0,"fi'
        b'nishReason":"OTHER"}]}\r\n\r\n',
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_end", "error"],
            "stopReason": "error",
            "errorMessage": "Provider stopped with: OTHER",
            "content": [{"type": "text", "text": "hi"}],
            "diagnostics": None,
        },
    },
    "cr_delims_comments_event_lines": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b': keepalive\r\rdata: {"candidates":[{"content":{"parts":[{'
        b'"text":"x"}],"role":"model"},"index":0}]}\r\revent: messag'
        b'e\ndata: {"candidates":[]}\n\ndata: {"candidates":[{"co'
        b'ntent":{"parts":[{"text":"y"}],"role":"model"},"index":0'
        b',"finishReason":"STOP"}]}\n\n',
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_delta", "text_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "xy"}],
            "diagnostics": None,
        },
    },
    "single_newline_end": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"candidates":[{"content":{"parts":[{"text":"x"}],"role":"mode'
        b'l"},"index":0,"finishReason":"STOP"}]}\n',
        "expect": {
            "types": ["start", "error"],
            "stopReason": "error",
            "errorMessage": "Incomplete JSON segment at the end",
            "content": [],
            "diagnostics": None,
        },
    },
    "text_null": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"candidates":[{"content":{"parts":[{"text":null},{"text":"z"}],"role"'
        b':"model"},"index":0,"finishReason":"STOP"}]}\r\n\r\n',
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_delta", "text_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "nullz"}],
            "diagnostics": None,
        },
    },
    "error_data_event": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"candidates":[{"content":{"parts":[{"text":"x"}],"role":"model"},'
        b'"index":0}]}\r\n\r\ndata: {"error":{"code":500,"message":"boom","status"'
        b':"INTERNAL"}}\r\n\r\ndata: {"candidates":[{"content":{"parts":[{"text":"'
        b'y"}],"role":"model"},"index":0,"finishReason":"STOP"}]}\r\n\r\n',
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_delta", "text_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "xy"}],
            "diagnostics": None,
        },
    },
    "multi_data_lines": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"candidates":\ndata: []}\n\n',
        "expect": {
            "types": ["start", "error"],
            "stopReason": "error",
            "errorMessage": 'Unexpected token \'d\', ..."didates":\ndata: []}" is not valid JSON',
            "content": [],
            "diagnostics": None,
        },
    },
    "thought_false_signature_text": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "cut": False,
        "options": {},
        "body": b'data: {"candidates":[{"content":{"parts":[{"text":"A","thoug'
        b'htSignature":"c2lnMQ=="}],"role":"model"},"index":0}]}\r\n'
        b'\r\ndata: {"candidates":[{"content":{"parts":[{"text":"B"}'
        b'],"role":"model"},"index":0}]}\r\n\r\ndata: {"candidates":[{'
        b'"content":{"parts":[{"text":"","thoughtSignature":"c2lnMg=="'
        b'}],"role":"model"},"index":0,"finishReason":"STOP"}]}\r\n\r'
        b"\n",
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "AB", "textSignature": "c2lnMg=="}],
            "diagnostics": None,
        },
    },
    "bare_error_200": {
        "model": "google/gemini-2.5-flash",
        "status": 200,
        "headers": {"content-type": "application/json"},
        "cut": False,
        "options": {},
        "body": b'{"error":{"code":429,"message":"slow","status":"RESOURCE_EXHAUSTED"}}',
        "expect": {
            "types": ["start", "error"],
            "stopReason": "error",
            "errorMessage": "got status: RESOURCE_EXHAUSTED. "
            '{"error":{"code":429,"message":"slow","status":"RESOURCE_EXHAUSTED"}}',
            "content": [],
            "diagnostics": None,
        },
    },
    "html_403": {
        "model": "google/gemini-2.5-flash",
        "status": 403,
        "headers": {"content-type": "text/html"},
        "cut": False,
        "options": {},
        "body": b"<html>Forbidden</html>\n",
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": '{"error":{"message":"<html>Forbidden</html>\\n","code":403,"status":"Forbidden"}}',
            "content": [],
            "diagnostics": None,
        },
    },
}


@pytest.mark.parametrize("name", list(REFERENCE_EDGE_CASES))
def test_edge_case_matches_reference_run(name: str) -> None:
    assert_reference_run(API, REFERENCE_EDGE_CASES[name])
