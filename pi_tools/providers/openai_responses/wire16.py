"""The HTTP request the ``openai`` SDK bundled with Pi 1.6 (7.59.0) sends for a Responses payload.

As for 0.85 (``wire.py``, whose URL and header helpers this reuses), the body is the payload itself. What changed:
the SDK's version headers; pi-ai's own headers start from the request's identity (providers.identity16: the
detailed ``User-Agent`` and the provider's attribution headers), under the model's; the OpenAI session header is
``session-id`` (0.85: ``session_id``); OpenCode's provider adds ``x-opencode-session`` to the request's headers;
the coding agent passes no headers of its own (its attribution moved into the identity) and a 300 s timeout.
GitHub Copilot's initiator now counts system messages: the request is the agent's unless its last item is a user
message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.identity16 import identity_headers, opencode_session_headers
from pi_tools.providers.openai_responses.payload import client_api_key
from pi_tools.providers.openai_responses.payload16 import resolved_compat16
from pi_tools.providers.openai_responses.wire import (
    _assign,
    _has_input_image,
    _layer,
    request_url,
    sorted_headers,
)

SDK_VERSION = "7.59.0"
DEFAULT_TIMEOUT_MS = 300000
"""The timeout Pi's coding agent passes when its settings name none (httpIdleTimeoutMs' default)."""

PLATFORM_HEADERS = {
    "X-Stainless-Lang": "js",
    "X-Stainless-Package-Version": SDK_VERSION,
    "X-Stainless-OS": "<platform>",
    "X-Stainless-Arch": "<arch>",
    "X-Stainless-Runtime": "node",
    "X-Stainless-Runtime-Version": "v<node-version>",
}


def sdk_headers(client: str, options: Mapping[str, Any]) -> dict[str, str]:
    """The SDK's own headers, before its credentials and the client's default headers."""
    headers: dict[str, str] = {}
    _layer(headers, {"Accept": "application/json", "User-Agent": f"{client}/JS {SDK_VERSION}",
                     "X-Stainless-Retry-Count": "0"})
    timeout_ms = options.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    if timeout_ms:
        _layer(headers, {"X-Stainless-Timeout": str(int(timeout_ms // 1000))})
    _layer(headers, PLATFORM_HEADERS)
    return headers


def request_headers(model: Model, options: Mapping[str, Any]) -> dict[str, Any]:
    """The request's own headers: the provider's session routing (OpenCode), then the caller's."""
    headers: dict[str, Any] = {}
    if model.get("provider") in ("opencode", "opencode-go"):
        session = opencode_session_headers(model, options.get("sessionId"))
        caller = {name.lower() for name in (options.get("headers") or {})}
        if session and "x-opencode-session" not in caller:
            headers.update(session)
    headers.update(options.get("headers") or {})
    return headers


def _copilot_headers(payload: Mapping[str, Any]) -> dict[str, str]:
    """Copilot's ``X-Initiator`` and vision flags, read back from the payload: the transcript's last message is the
    user's when the last item (configuration updates aside) is a user message."""
    items = [item for item in payload.get("input") or () if isinstance(item, dict)]
    conversation = [item for item in items if item.get("type") != "configuration_update"]
    last = conversation[-1] if conversation else None
    initiator = "agent" if last is not None and last.get("role") != "user" else "user"
    headers = {"X-Initiator": initiator, "Openai-Intent": "conversation-edits"}
    if any(_has_input_image(item) for item in items):
        headers["Copilot-Vision-Request"] = "true"
    return headers


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``{method, url, headers, body}`` of the SDK request; secrets redacted, header names lowercased and sorted."""
    api_key = client_api_key(model, options)
    compat = resolved_compat16(model)
    headers = sdk_headers("OpenAI", options)
    _layer(headers, {"Authorization": f"Bearer {api_key}"})
    client_headers: dict[str, str | None] = {}
    _assign(client_headers, identity_headers(model, options))
    _assign(client_headers, model.get("headers"))
    if model.get("provider") == "github-copilot":
        _assign(client_headers, _copilot_headers(payload))
    retention_none = (options.get("cacheRetention") or "") == "none"
    session_id = None if retention_none else options.get("sessionId")
    if session_id:
        if compat["sessionAffinityFormat"] == "openrouter":
            client_headers["x-session-id"] = session_id
        else:
            if compat["sessionAffinityFormat"] == "openai":
                client_headers["session-id"] = session_id
            client_headers["x-client-request-id"] = session_id
    _assign(client_headers, request_headers(model, options))
    _layer(headers, client_headers)
    _layer(headers, {"content-type": "application/json"})
    return {"method": "POST", "url": request_url(model, options), "headers": sorted_headers(headers), "body": payload}
