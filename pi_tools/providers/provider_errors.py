"""Error texts of failed provider responses, as the vendor SDKs build them and pi-ai formats them.

Pi's retry and overflow classifiers run regexes over ``errorMessage``, so the status/body wording of the
Stainless SDKs and pi-ai's ``formatProviderError`` (utils/error-body.ts) are reproduced exactly.
"""

from __future__ import annotations

from typing import Any

from pi_tools.js.access import js_field
from pi_tools.js.json_parse import js_json_or_none
from pi_tools.js.json_stringify import js_stringify
from pi_tools.js.strings import js_length
from pi_tools.js.values import JS_WHITESPACE, js_truthy


def error_text(error: BaseException) -> str:
    """``error.message`` as Pi reads it from a thrown error."""
    return str(error.args[0]) if error.args else ""


def stainless_status_error(status: int, body_text: str, *, unwrap_error: bool) -> str:
    """``APIError.message`` of the Stainless SDKs for a non-2xx response.

    The body is parsed as JSON when possible; the Anthropic SDK keeps the whole document
    (``unwrap_error=False``), the OpenAI SDK takes its ``error`` member. The result is ``"<status> <text>"``
    where the text is the object's ``message`` or its JSON, or the raw body when it is not JSON.
    """
    parsed = js_json_or_none(body_text)
    raw_message: str | None = None if js_truthy(parsed) else body_text
    error = js_field(parsed, "error") if unwrap_error else parsed
    text = _error_object_text(error, raw_message)
    if status and text:
        return f"{status} {text}"
    if status:
        return f"{status} status code (no body)"
    return text or "(no status code or body)"


MAX_PROVIDER_ERROR_BODY_CHARS = 4000


class SdkApiError(Exception):
    """An error object as a vendor SDK throws it: message plus the fields Pi probes for a status and body.

    ``body`` is a raw body string (Mistral's ``body``), ``error`` a parsed error object (the ``openai`` SDK's
    ``error``); Pi prefers them over the message when the message does not already contain them.
    """

    def __init__(
        self, message: str, *, status: int | None = None, body: str | None = None, error: Any = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.body = body
        self.error = error


def truncate_error_text(text: str, max_chars: int) -> str:
    """pi-ai ``truncateErrorText`` (lengths in UTF-16 units, as in JS)."""
    length = js_length(text)
    if length <= max_chars:
        return text
    units = text.encode("utf-16-le", "surrogatepass")
    head = units[: 2 * max_chars].decode("utf-16-le", "surrogatepass")
    return f"{head}... [truncated {length - max_chars} chars]"


def _error_body_text(error: SdkApiError) -> str | None:
    if isinstance(error.body, str):
        text: str | None = error.body
    elif isinstance(error.error, dict) and error.error:
        text = js_stringify(error.error)
    else:
        text = None
    if text is None:
        return None
    trimmed = text.strip(JS_WHITESPACE)
    if not trimmed:
        return None
    return truncate_error_text(trimmed, MAX_PROVIDER_ERROR_BODY_CHARS)


def format_provider_error(error: BaseException, prefix: str | None = None) -> str:
    """pi-ai ``formatProviderError(normalizeProviderError(error), prefix)``.

    ``"<status>: <body>"`` (or ``"<prefix> (<status>): <body>"``) when the SDK error carries a body its message
    does not already contain; otherwise the message, prefixed with the status when a prefix is given.
    """
    message = error_text(error)
    status = error.status if isinstance(error, SdkApiError) else None
    body = _error_body_text(error) if isinstance(error, SdkApiError) else None
    carries_body = body is None or body in message
    if carries_body or status is None or body is None:
        if prefix is not None and status is not None:
            return f"{prefix} ({status}): {message}"
        return message
    if prefix is not None:
        return f"{prefix} ({status}): {body}"
    return f"{status}: {body}"


def openai_status_error(status: int, body_text: str) -> SdkApiError:
    """What the ``openai`` SDK throws for a non-2xx response (``APIError.generate``)."""
    parsed = js_json_or_none(body_text)
    inner = js_field(parsed, "error")
    message = stainless_status_error(status, body_text, unwrap_error=True)
    return SdkApiError(message, status=status, error=inner)


def _error_object_text(error: Any, fallback: str | None) -> str | None:
    """The Stainless SDKs' reading of an error object: its ``message``, else its JSON, else ``fallback``."""
    inner = js_field(error, "message")
    if js_truthy(inner):
        return inner if isinstance(inner, str) else js_stringify(inner)
    if js_truthy(error):
        return js_stringify(error)
    return fallback


def sdk_error_message(error: Any, fallback: str | None) -> str:
    """The message of the error the ``openai`` SDK throws for an error object met inside a stream."""
    return _error_object_text(error, fallback) or "(no status code or body)"
