"""What the provider said to a request, read from the assistant message that answered it.

A request is `accepted` when the provider answered it (any stop reason but error/aborted), `rejected` when it
ended in an error about the request itself, and `no-verdict` otherwise. Every recorded error is classified
(`error_class`), because only one class says anything about the request's shape:

- `request`: a 400-class answer about the request (invalid_request_error, INVALID_ARGUMENT, ...): a rejection;
- `account`: billing, access denied, an account not in good standing (often sent as a 400);
- `auth`: missing or invalid credentials (401, 403);
- `rate`: rate limits, usage limits and quotas (429, RESOURCE_EXHAUSTED);
- `overloaded`: the provider is overloaded or unavailable (529, 503);
- `server`: the provider's own failure (500, 502, 504, internal errors);
- `network`: timeouts and connection errors, no answer at all;
- `aborted`: the user stopped the request.

Only `request` counts as a rejection; `--replay` reports the others apart.
"""

from __future__ import annotations

import re
from typing import Any

ERROR_CLASSES = ("request", "account", "auth", "rate", "overloaded", "server", "network", "aborted", "unknown")

_STATUS = re.compile(r'^\s*(\d{3})\b|\bcode\W{1,4}(\d{3})\b|\bstatus(?: code)?[ :]+(\d{3})\b', re.IGNORECASE)
_REJECTING_STATUS = frozenset({400, 404, 413, 422})
# Checked in this order: words about the account or the credentials win over a 400 status, which billing and
# access errors are often sent with.
_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("account", re.compile(
        r"access denied|good standing|billing|credit balance|insufficient[_ ](?:funds|balance|quota)|payment|"
        r"account (?:is )?(?:suspended|disabled|deactivated|inactive)|organization (?:has been )?disabled|"
        r"subscription", re.IGNORECASE)),
    ("auth", re.compile(
        r"invalid[_ ]api[_ ]key|incorrect api key|authentication|unauthori[sz]ed|permission[_ ]denied|"
        r"invalid x-api-key|api key not valid|no api key|expired token|token (?:has )?expired|forbidden",
        re.IGNORECASE)),
    ("rate", re.compile(r"rate.?limit|usage limit|quota|resource.?exhausted|too many requests", re.IGNORECASE)),
    ("overloaded", re.compile(r"overloaded|unavailable|capacity|try again later", re.IGNORECASE)),
    ("server", re.compile(r"internal (?:server )?error|bad gateway|gateway time|server error|api_error",
                          re.IGNORECASE)),
    ("network", re.compile(
        r"timed? ?out|timeout|connection (?:error|reset|refused)|ECONNRESET|ETIMEDOUT|fetch failed|socket|"
        r"terminated|network", re.IGNORECASE)),
    ("aborted", re.compile(r"abort", re.IGNORECASE)),
)
_STATUS_CLASS = {401: "auth", 402: "account", 403: "auth", 408: "network", 429: "rate", 500: "server",
                 502: "server", 503: "overloaded", 504: "server", 529: "overloaded"}
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


def error_class(text: str | None, stop: Any = "error") -> str:
    """The class of a recorded error (see the module docstring): by its words first, then by its status."""
    if stop == "aborted":
        return "aborted"
    if not text:
        return "unknown"
    status = _status(text)
    if status in _STATUS_CLASS:
        return _STATUS_CLASS[status]
    for name, pattern in _CLASSES:
        if pattern.search(text):
            return name
    if status in _REJECTING_STATUS or _REJECTED.search(text):
        return "request"
    return "unknown"


def outcome_of(message: dict[str, Any]) -> tuple[str, str | None]:
    """(outcome, the provider's error message) for a stored assistant message."""
    stop = message.get("stopReason")
    error = message.get("errorMessage")
    text = error if isinstance(error, str) else None
    if stop != "error" and stop != "aborted":
        return "accepted", None
    return ("rejected" if error_class(text, stop) == "request" else "no-verdict"), text
