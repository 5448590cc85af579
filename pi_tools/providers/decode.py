"""Settle a provider's HTTP response the way Pi does, and classify the result like Pi's agent session.

``decode_response`` is the single entry point for replaying recorded responses: it picks the API's decoder
through the registry and returns the events Pi would push plus the message it would settle. The two
classifiers decide what Pi does next with an error (retry with backoff, or compact and retry on overflow), so
they are ported regex for regex.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.edition import BASE, Edition
from pi_tools.providers.registry import stream_decoder
from pi_tools.providers.streaming import EventEmitter


def decode_response(
    api: str,
    model: Model,
    *,
    status: int,
    headers: dict[str, str],
    chunks: Iterable[bytes],
    options: dict[str, Any],
    now_ms: int,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    edition: Edition = BASE,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(event snapshots, settled AssistantMessage) for one streamed response of ``api``.

    ``chunks`` is the body as delivered; it raises :class:`~pi_tools.providers.streaming.TransportError` where
    the connection was cut. ``headers`` keys are matched case-insensitively by the decoders. ``on_event``
    receives each snapshot as it is pushed, so a live consumer can stream while the body is still arriving
    instead of waiting for the returned list. ``edition`` is the Pi version's request side whose decoder runs.
    """
    emitter = EventEmitter(on_event)
    module = stream_decoder(api, edition)
    lowered = {key.lower(): value for key, value in headers.items()}
    message: dict[str, Any] = module.decode(
        model,
        status=status,
        headers=lowered,
        chunks=chunks,
        options=options,
        now_ms=now_ms,
        emitter=emitter,
    )
    return emitter.events, message


def _any_of(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(patterns), re.IGNORECASE)


# Subscription and quota exhaustion: retrying cannot help.
_NON_RETRYABLE = _any_of(
    "GoUsageLimitError",
    "FreeUsageLimitError",
    "Monthly usage limit reached",
    "available balance",
    "insufficient_quota",
    "out of budget",
    "quota exceeded",
    "billing",
)

# Load shedding, HTTP 5xx/429, transport drops and premature stream ends: worth another attempt.
_RETRYABLE = _any_of(
    "overloaded",
    "rate.?limit",
    "too many requests",
    "429",
    "500",
    "502",
    "503",
    "504",
    "524",
    "service.?unavailable",
    "server.?error",
    "internal.?error",
    "provider.?returned.?error",
    "exceeded request buffer limit while retrying upstream",
    "network.?error",
    "connection.?error",
    "connection.?refused",
    "connection.?lost",
    "other side closed",
    "fetch failed",
    "getaddrinfo",
    "ENOTFOUND",
    "EAI_AGAIN",
    "upstream.?connect",
    "reset before headers",
    "socket hang up",
    "socket connection was closed",
    "timed? out",
    "timeout",
    "terminated",
    "websocket.?closed",
    "websocket.?error",
    "ended without",
    "stream ended before message_stop",
    "stream ended before a terminal response event",
    "http2 request did not get a response",
    "retry delay",
    "you can retry your request",
    "try your request again",
    "please retry your request",
    "ResourceExhausted",
)


def is_retryable_assistant_error(message: dict[str, Any]) -> bool:
    """pi-ai ``isRetryableAssistantError``: an error message that names a transient failure."""
    error_message = message.get("errorMessage")
    if message.get("stopReason") != "error" or not error_message:
        return False
    if _NON_RETRYABLE.search(error_message):
        return False
    return _RETRYABLE.search(error_message) is not None


_OVERFLOW = [
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"prompt is too long",
        r"request_too_large",
        r"input is too long for requested model",
        r"exceeds the context window",
        r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [0-9,]+ tokens?|\s*\([0-9,]+\))",
        r"input token count.*exceeds the maximum",
        r"maximum prompt length is [0-9]+",
        r"reduce the length of the messages",
        r"maximum context length is [0-9]+ tokens",
        r"exceeds (?:the )?maximum allowed input length of [0-9,]+ tokens?",
        r"input \([0-9]+ tokens\) is longer than the model'?s context length \([0-9]+ tokens\)",
        r"exceeds the limit of [0-9]+",
        r"exceeds the available context size",
        r"greater than the context length",
        r"context window exceeds limit",
        r"exceeded model token limit",
        r"too large for model with [0-9]+ maximum context length",
        r"prompt has [0-9,]+ tokens?, but the configured context size is [0-9,]+ tokens?",
        r"model_context_window_exceeded",
        r"prompt too long; exceeded (?:max )?context length",
        r"range of input length should be",
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
        r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",
    )
]
# Rate limits and throttling can mention tokens too; they are never overflow.
_NOT_OVERFLOW = [
    re.compile(pattern, re.IGNORECASE)
    for pattern in (r"^(Throttling error|Service unavailable):", r"rate limit", r"too many requests")
]


def is_context_overflow(message: dict[str, Any], context_window: int | float | None = None) -> bool:
    """pi-ai ``isContextOverflow``: the request did not fit the model's context window.

    Besides error texts, a successful answer whose input exceeds the window (silent overflow) and a
    zero-output length stop with a full window count too.
    """
    stop_reason = message.get("stopReason")
    error_message = message.get("errorMessage")
    if stop_reason == "error" and error_message:
        excluded = any(pattern.search(error_message) for pattern in _NOT_OVERFLOW)
        if not excluded and any(pattern.search(error_message) for pattern in _OVERFLOW):
            return True
    usage = message.get("usage") or {}
    input_tokens = (usage.get("input") or 0) + (usage.get("cacheRead") or 0)
    if context_window and stop_reason == "stop" and input_tokens > context_window:
        return True
    if context_window and stop_reason == "length" and usage.get("output") == 0:
        if input_tokens >= context_window * 0.99:
            return True
    return False


def classify(message: dict[str, Any], model: Model) -> dict[str, bool]:
    """The goldens' ``classification``: what Pi's agent session concludes about a settled message."""
    return {
        "retryable": is_retryable_assistant_error(message),
        "contextOverflow": is_context_overflow(message, model.get("contextWindow")),
    }
