"""Bedrock ConverseStream decoding against what pi-ai 0.85.1 settled from the same HTTP responses.

Each case in ``fixtures/streams/cases/bedrock-converse-stream`` is replayed through the decoder with the sidecar's
status, headers and body (one write, then 7-byte writes), and the events and settled message must equal the
reference's ``expected`` document exactly.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_tools.providers.eventstream import HeaderValue, encode_message

from support.streamcases import (
    assert_chunking_does_not_matter,
    assert_matches_reference,
    assert_outcome,
    decode_body,
    eventstream_message,
    stream_case_names,
)

API = "bedrock-converse-stream"


@pytest.mark.parametrize("name", stream_case_names(API))
def test_case_matches_reference(name: str) -> None:
    assert_matches_reference(API, name)


@pytest.mark.parametrize("name", stream_case_names(API))
def test_chunk_boundaries_do_not_matter(name: str) -> None:
    assert_chunking_does_not_matter(API, name)


def _event(kind: str, payload: Any) -> bytes:
    return eventstream_message(kind, json.dumps(payload).encode())


def _exception(kind: str, payload: Any) -> bytes:
    return eventstream_message(kind, json.dumps(payload).encode(), "exception")


def _error_message(code: str, text: str) -> bytes:
    return encode_message(
        {
            ":error-code": HeaderValue("string", code),
            ":error-message": HeaderValue("string", text),
            ":message-type": HeaderValue("string", "error"),
        },
        b"",
    )


_START = _event("messageStart", {"role": "assistant"})


def _text(index: int, text: str) -> bytes:
    return _event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": text}})


def _reasoning(index: int, **fields: str) -> bytes:
    return _event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"reasoningContent": fields}})


def _stop(reason: str) -> bytes:
    return _event("messageStop", {"stopReason": reason})


def _metadata(**usage: int) -> bytes:
    return _event("metadata", {"usage": usage, "metrics": {"latencyMs": 1}})


EDGE_BODIES: dict[str, bytes] = {
    "first_is_throttling": _exception("throttlingException", {"message": "slow"}),
    "first_is_unknown_exception": _exception("accessDeniedException", {"message": "nope"}),
    "first_is_error_message": _error_message("InternalFailure", "bad things"),
    "mid_unknown_exception": _START + _text(0, "a") + _exception("somethingException", {"message": "odd"}),
    "empty_body": b"",
    "delta_tooluse_without_start": _START
    + _event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}})
    + _text(1, "x")
    + _stop("end_turn"),
    "unknown_stop": _START
    + _text(0, "a")
    + _event("contentBlockStop", {"contentBlockIndex": 0})
    + _stop("content_filtered")
    + _metadata(inputTokens=3, outputTokens=2, totalTokens=5),
    "stop_sequence_no_block_stop": _START
    + _text(0, "a")
    + _event(
        "contentBlockStart",
        {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tu1", "name": "read"}}},
    )
    + _event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"path":"x'}}})
    + _stop("stop_sequence"),
    "redacted_then_signature": _START
    + _reasoning(0, redactedContent="YWJj")
    + _reasoning(0, redactedContent="ZGVm")
    + _reasoning(0, signature="sig")
    + _event("contentBlockStop", {"contentBlockIndex": 0})
    + _stop("end_turn"),
    "truncated_first_message": _START[:30],
    "data_retention_exception": _START
    + _exception(
        "validationException", {"message": "data retention mode 'default' is not available for this model"}
    ),
    "user_role_start": _event("messageStart", {"role": "user"}),
    "reset_in_first": _START[:10],
    "http_503_html": b"<html><body>503 Service Unavailable</body></html>",
    "http_404_no_code": b'{"Message":"not found"}',
    "http_401_unmodeled": b'{"message":"The security token included in the request is invalid."}',
}

# The headers the reference's loopback server answered with for the event-stream bodies.
EVENTSTREAM_HEADERS = {
    "content-type": "application/vnd.amazon.eventstream",
    "x-amzn-requestid": "00000000-0000-4000-8000-00000000c001",
}

# Expectations produced by running pi-ai 0.85.1 itself on EDGE_BODIES (its streamSimple against a loopback
# server, AWS SDK included), not written by hand.
REFERENCE_EXPECTATIONS: dict[str, dict[str, Any]] = {
    "first_is_throttling": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "Throttling error: slow",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"errorCode": "ThrottlingException"},
                }
            ],
        },
    },
    "first_is_unknown_exception": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": '{"message": "nope"}\n'
            "  Deserialization error: to see the raw "
            "response, inspect the hidden field "
            "{error}.$response on this object.",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {
                        "status": 200,
                        "errorCode": "accessDeniedException",
                        "requestId": "00000000-0000-4000-8000-00000000c001",
                    },
                }
            ],
        },
    },
    "first_is_error_message": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "bad things\n"
            "  Deserialization error: to see the raw "
            "response, inspect the hidden field "
            "{error}.$response on this object.",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"status": 200, "requestId": "00000000-0000-4000-8000-00000000c001"},
                }
            ],
        },
    },
    "mid_unknown_exception": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["start", "text_start", "text_delta", "error"],
            "stopReason": "error",
            "errorMessage": '{"message": "odd"}',
            "content": [{"type": "text", "text": "a"}],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {
                        "errorCode": "somethingException",
                        "requestId": "00000000-0000-4000-8000-00000000c001",
                    },
                }
            ],
        },
    },
    "empty_body": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "Bedrock stream ended without a stop reason",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"requestId": "00000000-0000-4000-8000-00000000c001"},
                }
            ],
        },
    },
    "delta_tooluse_without_start": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["start", "text_start", "text_delta", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [{"type": "text", "text": "x"}],
            "diagnostics": None,
        },
    },
    "unknown_stop": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["start", "text_start", "text_delta", "text_end", "error"],
            "stopReason": "error",
            "errorMessage": "Provider stopped with: content_filtered",
            "content": [{"type": "text", "text": "a"}],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"requestId": "00000000-0000-4000-8000-00000000c001"},
                }
            ],
        },
    },
    "stop_sequence_no_block_stop": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["start", "text_start", "text_delta", "toolcall_start", "toolcall_delta", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [
                {"type": "text", "text": "a"},
                {"type": "toolCall", "id": "tu1", "name": "read", "arguments": {"path": "x"}},
            ],
            "diagnostics": None,
        },
    },
    "redacted_then_signature": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["start", "thinking_start", "thinking_delta", "thinking_end", "done"],
            "stopReason": "stop",
            "errorMessage": None,
            "content": [
                {
                    "type": "thinking",
                    "thinking": "[Reasoning redacted]",
                    "thinkingSignature": "YWJjZGVm",
                    "redacted": True,
                }
            ],
            "diagnostics": None,
        },
    },
    "truncated_first_message": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "Truncated event message received.\n"
            "  Deserialization error: to see the raw "
            "response, inspect the hidden field "
            "{error}.$response on this object.",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"status": 200, "requestId": "00000000-0000-4000-8000-00000000c001"},
                }
            ],
        },
    },
    "data_retention_exception": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["start", "error"],
            "stopReason": "error",
            "errorMessage": "Validation error: data retention mode "
            "'default' is not available for this model See "
            "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html "
            "for supported data retention modes.",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {
                        "errorCode": "ValidationException",
                        "requestId": "00000000-0000-4000-8000-00000000c001",
                    },
                }
            ],
        },
    },
    "user_role_start": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "Unexpected assistant message start but got user message start instead",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"requestId": "00000000-0000-4000-8000-00000000c001"},
                }
            ],
        },
    },
    "reset_in_first": {
        "status": 200,
        "headers": EVENTSTREAM_HEADERS,
        "cut": True,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "aborted\n"
            "  Deserialization error: to see the raw response, "
            "inspect the hidden field {error}.$response on this "
            "object.",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"status": 200, "requestId": "00000000-0000-4000-8000-00000000c001"},
                }
            ],
        },
    },
    "http_503_html": {
        "status": 503,
        "headers": {"content-type": "text/html", "x-amzn-requestid": "req-8"},
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "Unexpected token '<', \"<html><bod\"... is not valid "
            "JSON\n"
            "  Deserialization error: to see the raw response, "
            "inspect the hidden field {error}.$response on this "
            "object.",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"status": 503, "requestId": "req-8"},
                }
            ],
        },
    },
    "http_404_no_code": {
        "status": 404,
        "headers": {"content-type": "application/json", "x-amzn-requestid": "req-9"},
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "Unknown: not found",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {"status": 404, "requestId": "req-9"},
                }
            ],
        },
    },
    "http_401_unmodeled": {
        "status": 401,
        "headers": {
            "content-type": "application/json",
            "x-amzn-requestid": "req-9",
            "x-amzn-errortype": "UnrecognizedClientException",
        },
        "cut": False,
        "expect": {
            "types": ["error"],
            "stopReason": "error",
            "errorMessage": "UnrecognizedClientException: The security token "
            "included in the request is invalid.",
            "content": [],
            "diagnostics": [
                {
                    "type": "bedrock_response_failure",
                    "timestamp": 1767225600000,
                    "details": {
                        "status": 401,
                        "errorCode": "UnrecognizedClientException",
                        "requestId": "req-9",
                    },
                }
            ],
        },
    },
}


@pytest.mark.parametrize("name", list(REFERENCE_EXPECTATIONS))
def test_edge_case_matches_reference_run(name: str) -> None:
    case = REFERENCE_EXPECTATIONS[name]
    events, message = decode_body(
        API,
        "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0",
        EDGE_BODIES[name],
        status=case["status"],
        headers=case["headers"],
        cut=case["cut"],
    )
    assert_outcome(events, message, case["expect"])
    assert message.get("diagnostics") == case["expect"]["diagnostics"]
