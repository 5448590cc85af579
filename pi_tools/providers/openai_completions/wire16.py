"""The HTTP request the OpenAI SDK (7.59.0, as bundled with Pi 1.6) sends for a Chat Completions payload.

The client's default headers are the identity's (``User-Agent``, provider attribution: providers.identity16), then
``model.headers``, Copilot's dynamic headers, the session-affinity headers (OpenRouter's ``x-session-id`` by
default in 1.6) and the request's own headers. The SDK lays its own under them: ``Accept``, its ``User-Agent``,
``X-Stainless-*`` (retry count, the timeout in seconds, the platform), then bearer auth. Machine-dependent values
are written as the goldens' placeholders, credentials redacted.
"""

from __future__ import annotations

from typing import Any

from ..catalog import Model
from ..identity16 import identity_headers
from .compat16 import resolve_compat16
from .payload16 import provider_target
from .wire import _SECRET_HEADERS, _copilot_headers_from_payload, _merge, _redact, request_url

SDK_VERSION = "7.59.0"
DEFAULT_TIMEOUT_MS = 300000
"""What Pi's coding agent passes as timeoutMs by default (the HTTP idle timeout setting)."""
_PLATFORM_HEADERS = {
    "X-Stainless-Lang": "js",
    "X-Stainless-Package-Version": SDK_VERSION,
    "X-Stainless-OS": "<platform>",
    "X-Stainless-Arch": "<arch>",
    "X-Stainless-Runtime": "node",
    "X-Stainless-Runtime-Version": "v<node-version>",
}


def _timeout_seconds(options: dict[str, Any]) -> str | None:
    timeout = options.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    if timeout is None:
        timeout = 600000  # the SDK's own default
    if not timeout:
        return None
    return str(int(timeout / 1000))


def copilot_headers(payload: dict[str, Any]) -> dict[str, str]:
    """Copilot's initiator and vision headers, read off the payload (``wire._copilot_headers_from_payload``);
    a transcript that ends with a system message (kept in place, so the payload's last message is an instruction)
    is agent-initiated."""
    headers = _copilot_headers_from_payload(payload)
    messages = payload.get("messages") or []
    if messages and isinstance(messages[-1], dict) and messages[-1].get("role") in ("system", "developer"):
        headers["X-Initiator"] = "agent"
    return headers


def client_headers(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI client's default headers as pi-ai 1.6's createClient builds them."""
    compat = resolve_compat16(model)
    retention = options.get("cacheRetention") or "short"
    session_id = options.get("sessionId") if retention != "none" else None
    headers: dict[str, Any] = {**identity_headers(model, options), **(model.get("headers") or {})}
    if model.get("provider") == "github-copilot":
        headers.update(copilot_headers(payload))
    if session_id and compat["sendSessionAffinityHeaders"]:
        if compat["sessionAffinityFormat"] == "openrouter":
            headers["x-session-id"] = session_id
        else:
            if compat["sessionAffinityFormat"] == "openai":
                headers["session_id"] = session_id
            headers["x-client-request-id"] = session_id
            headers["x-session-affinity"] = session_id
    headers.update(opencode_session_headers(model, options))
    return headers


def opencode_session_headers(model: Model, options: dict[str, Any]) -> dict[str, Any]:
    """The request's headers, with OpenCode's per-conversation routing header added by the opencode and
    opencode-go providers (when there is a session and the request does not set it already)."""
    headers = dict(options.get("headers") or {})
    session_id = options.get("sessionId")
    if (model.get("provider") in ("opencode", "opencode-go") and session_id
            and not any(name.lower() == "x-opencode-session" for name in headers)):
        headers["x-opencode-session"] = session_id
    return headers


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``{method, url, headers, body}`` of the request (headers lower-cased and sorted, as the goldens list them)."""
    target, _ = provider_target(model, options)
    sdk_headers: dict[str, Any] = {"Accept": "application/json", "User-Agent": f"OpenAI/JS {SDK_VERSION}",
                                   "X-Stainless-Retry-Count": "0"}
    timeout = _timeout_seconds(options)
    if timeout is not None:
        sdk_headers["X-Stainless-Timeout"] = timeout
    sdk_headers.update(_PLATFORM_HEADERS)
    api_key = options.get("apiKey") or "unused"
    headers: dict[str, tuple[str, Any]] = {}
    _merge(headers, sdk_headers)
    _merge(headers, {"Authorization": f"Bearer {api_key}"})
    _merge(headers, client_headers(model, payload, options))
    _merge(headers, {"Content-Type": "application/json"})
    rendered = {key: (_redact(key, str(headers[key][1])) if key in _SECRET_HEADERS else str(headers[key][1]))
                for key in sorted(headers)}
    return {"method": "POST", "url": request_url(str(target.get("baseUrl", ""))), "headers": rendered,
            "body": payload}
