"""Recorded errors classified: only errors about the request count as rejections."""

from __future__ import annotations

import pytest

from pi_tools.preflight.outcome import error_class, outcome_of

VERTEX_400 = ('{"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 400,\\n    \\"message\\": \\"Unable to '
              'submit request because function call `default_api:bash` in the 540. content block is missing a '
              '`thought_signature`.\\"')


@pytest.mark.parametrize(("text", "expected"), [
    ("400 Access denied, please make sure your account is in good standing", "account"),
    ('400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low"}}',
     "account"),
    ('401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', "auth"),
    ("Incorrect API key provided: sk-...", "auth"),
    ("429 Usage limit reached for 5 hour. Your limit will reset at 2026-06-10 09:05:49", "rate"),
    ('{"error":{"code":429,"message":"Resource exhausted. Please try again later."}}', "rate"),
    ('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "overloaded"),
    ("503 Service Unavailable", "overloaded"),
    ('500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}', "server"),
    ("Request timed out.", "network"),
    ("Connection error.", "network"),
    ("Request was aborted.", "aborted"),
    ('400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.236: `tool_use` ids were '
     'found without `tool_result` blocks immediately after"}}', "request"),
    (VERTEX_400, "request"),
    ("prompt is too long: 210000 tokens > 200000 maximum", "request"),
    ("something odd", "unknown"),
])
def test_error_class(text: str, expected: str) -> None:
    assert error_class(text) == expected


def test_only_request_errors_are_rejections() -> None:
    billing = {"stopReason": "error", "errorMessage": "400 Access denied, please make sure your account is in good "
                                                      "standing"}
    assert outcome_of(billing) == ("no-verdict", billing["errorMessage"])
    assert outcome_of({"stopReason": "error", "errorMessage": VERTEX_400}) == ("rejected", VERTEX_400)
    assert outcome_of({"stopReason": "aborted", "errorMessage": "Request was aborted."}) == (
        "no-verdict", "Request was aborted.")
    assert outcome_of({"stopReason": "stop"}) == ("accepted", None)
    assert error_class(None, "aborted") == "aborted"
