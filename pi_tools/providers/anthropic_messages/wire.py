"""The HTTP request ``@anthropic-ai/sdk`` (0.123.0) sends for a payload built by ``payload.build_payload``.

Useful to show what actually leaves the machine: the SDK moves ``betas`` into the ``anthropic-beta`` header
and layers its own headers under Pi's. Secrets are redacted and machine-dependent header parts are the
conformance placeholders (``<platform>``, ``<os-release>``, ``<arch>``, ``<node-version>``), so the result is
stable across machines and comparable with the reference's recordings.
"""

from __future__ import annotations

from typing import Any

from pi_tools.providers.anthropic_messages.payload import CLAUDE_CODE_VERSION, uses_oauth
from pi_tools.providers.catalog import Model
from pi_tools.providers.options import resolve_cache_retention

SDK_VERSION = "0.123.0"
DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_TIMEOUT_MS = 600_000
PI_USER_AGENT = "pi (<platform> <os-release>; <arch>)"
REDACTED = "<redacted>"
# Payload keys the SDK lifts out of the body into headers.
_HEADER_ONLY_KEYS = ("betas", "user_profile_id")


def _layer(headers: dict[str, str], source: dict[str, Any] | None) -> None:
    """Apply one header source like the SDK's ``buildHeaders``: case-insensitive, later wins, null removes."""
    for name, value in (source or {}).items():
        key = name.lower()
        if value is None:
            headers.pop(key, None)
        else:
            headers[key] = str(value)


def _session_affinity(model: Model, options: dict[str, Any]) -> dict[str, str]:
    compat = model.get("compat") or {}
    session_id = options.get("sessionId")
    if not session_id or not compat.get("sendSessionAffinityHeaders"):
        return {}
    if resolve_cache_retention(options) == "none":
        return {}
    return {"x-session-affinity": session_id}


def _has_image(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "image" for block in content
    )


def _copilot_headers_from_context(messages: list[dict[str, Any]]) -> dict[str, str]:
    last = messages[-1] if messages else None
    headers = {
        "x-initiator": "agent" if last is not None and last.get("role") != "user" else "user",
        "openai-intent": "conversation-edits",
    }
    if any(
        message.get("role") in ("user", "toolResult") and _has_image(message.get("content"))
        for message in messages
    ):
        headers["copilot-vision-request"] = "true"
    return headers


def _copilot_headers_from_payload(payload: dict[str, Any]) -> dict[str, str]:
    """Best effort without the context: tool results and assistant turns mean the agent is continuing."""
    messages = [message for message in payload.get("messages") or [] if message.get("role") != "system"]
    last = messages[-1] if messages else None
    agent = last is not None and (
        last.get("role") != "user"
        or any(
            isinstance(block, dict) and block.get("type") == "tool_result"
            for block in last.get("content") or []
        )
    )
    headers = {"x-initiator": "agent" if agent else "user", "openai-intent": "conversation-edits"}
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        if _has_image(content) or any(
            block.get("type") == "tool_result" and _has_image(block.get("content")) for block in content
        ):
            headers["copilot-vision-request"] = "true"
            break
    return headers


def build_headers(
    model: Model, payload: dict[str, Any], options: dict[str, Any], context: dict[str, Any] | None = None
) -> dict[str, str]:
    """Request headers, lowercased and sorted, as the SDK's fetch call receives them.

    GitHub Copilot routing headers depend on the conversation Pi was given; without ``context`` they are
    inferred from the payload, which only differs for histories the payload no longer shows.
    """
    timeout_ms = options.get("timeoutMs")
    timeout = DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms
    headers: dict[str, str] = {}
    _layer(
        headers,
        {
            "accept": "application/json",
            "user-agent": f"Anthropic/JS {SDK_VERSION}",
            "x-stainless-retry-count": "0",
            **({"x-stainless-timeout": str(int(timeout / 1000))} if timeout else {}),
            "x-stainless-lang": "js",
            "x-stainless-package-version": SDK_VERSION,
            "x-stainless-os": "<platform>",
            "x-stainless-arch": "<arch>",
            "x-stainless-runtime": "node",
            "x-stainless-runtime-version": "v<node-version>",
            "anthropic-dangerous-direct-browser-access": "true",
            "anthropic-version": "2023-06-01",
        },
    )
    oauth = uses_oauth(model, options)
    bearer = oauth or model.get("provider") == "github-copilot"
    if options.get("apiKey"):
        _layer(headers, {"authorization": f"Bearer {REDACTED}"} if bearer else {"x-api-key": REDACTED})
    defaults: dict[str, Any] = {
        "user-agent": PI_USER_AGENT,
        "accept": "application/json",
        "anthropic-dangerous-direct-browser-access": "true",
    }
    if oauth:
        defaults.update({"user-agent": f"claude-cli/{CLAUDE_CODE_VERSION}", "x-app": "cli"})
    elif model.get("provider") != "github-copilot":
        defaults.update(_session_affinity(model, options))
    _layer(headers, defaults)
    _layer(headers, model.get("headers"))
    if model.get("provider") == "github-copilot":
        _layer(
            headers,
            _copilot_headers_from_context(context.get("messages") or [])
            if context is not None
            else _copilot_headers_from_payload(payload),
        )
    _layer(headers, options.get("headers"))
    _layer(headers, {"content-type": "application/json"})
    betas = payload.get("betas")
    if betas is not None:
        _layer(headers, {"anthropic-beta": ",".join(str(beta) for beta in betas)})
    return dict(sorted(headers.items()))


def build_url(model: Model) -> str:
    base = str(model.get("baseUrl") or DEFAULT_BASE_URL)
    return base.rstrip("/") + "/v1/messages?beta=true"


def build_wire(
    model: Model, payload: dict[str, Any], options: dict[str, Any], context: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``{method, url, headers, body}`` for ``client.beta.messages.create(payload)``.

    ``context`` (the one the payload was built from) is optional; only Copilot headers look at it.
    """
    body = {key: value for key, value in payload.items() if key not in _HEADER_ONLY_KEYS}
    return {
        "method": "POST",
        "url": build_url(model),
        "headers": build_headers(model, payload, options, context),
        "body": body,
    }
