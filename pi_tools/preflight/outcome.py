"""What the provider said to a request, read from the assistant message that answered it.

A request is `accepted` when the provider answered it (any stop reason but error/aborted), `rejected` when it
ended in error with a 400-class message about the request itself, and `no-verdict` otherwise: rate limits and
quotas, overload and 5xx, timeouts, network errors and aborts say nothing about whether the request was valid.
"""

from __future__ import annotations

import re
from typing import Any

_STATUS = re.compile(r'^\s*(\d{3})\b|\bcode\W{1,4}(\d{3})\b|\bstatus(?: code)?[ :]+(\d{3})\b', re.IGNORECASE)
_REJECTING_STATUS = frozenset({400, 404, 413, 422})
_NO_VERDICT = re.compile(
    r"rate.?limit|usage limit|quota|resource.?exhausted|overloaded|unavailable|timed? ?out|timeout|"
    r"connection (?:error|reset|refused)|ECONNRESET|ETIMEDOUT|fetch failed|socket|terminated|aborted|network|"
    r"internal (?:server )?error|try again later",
    re.IGNORECASE)
_REJECTED = re.compile(
    r"invalid_request_error|INVALID_ARGUMENT|Bad Request|ValidationException|invalid_request|"
    r"were found without|Expected `?\w+`? or|is missing a|prompt is too long|request_too_large|must be a-z",
    re.IGNORECASE)


def _status(text: str) -> int | None:
    """The HTTP status the message names (the first one: providers nest their own JSON inside the SDK's)."""
    for match in _STATUS.finditer(text):
        code = next(group for group in match.groups() if group)
        return int(code)
    return None


def outcome_of(message: dict[str, Any]) -> tuple[str, str | None]:
    """(outcome, the provider's error message) for a stored assistant message."""
    stop = message.get("stopReason")
    error = message.get("errorMessage")
    text = error if isinstance(error, str) else None
    if stop == "aborted":
        return "no-verdict", text
    if stop != "error":
        return "accepted", None
    if text is None:
        return "no-verdict", None
    status = _status(text)
    if status is not None:
        return ("rejected" if status in _REJECTING_STATUS else "no-verdict"), text
    if _REJECTED.search(text) and not _NO_VERDICT.search(text):
        return "rejected", text
    return "no-verdict", text
