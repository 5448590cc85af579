"""The HTTP request ``@anthropic-ai/sdk`` 0.129.0 sends for a Pi 1.6 payload (``payload16.build_payload``).

What changed from 0.85's (``wire``): the client's default headers start with Pi's identity (User-Agent and the
provider's attribution headers; an OAuth token sends Claude Code's instead), the session-affinity header may be
OpenRouter's ``x-session-id``, ``x-stainless-timeout`` is always sent (the coding agent's 300-second idle
timeout by default), and a request of a session that uses message threads opens one: the body ends with
``thread: {type: "create"}`` (a live process would later ``continue`` it; a first request always creates).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pi_tools.js.values import UNDEFINED
from pi_tools.providers.anthropic_messages.payload import uses_oauth
from pi_tools.providers.anthropic_messages.payload16 import (
    cache_session_id,
    resolved_transcript,
    session_affinity_header,
    thread_session_id,
)
from pi_tools.providers.anthropic_messages.wire import (
    REDACTED,
    _copilot_headers_from_context,
    _copilot_headers_from_payload,
    _layer,
)
from pi_tools.providers.anthropic_messages.wire import build_url as _joined_url
from pi_tools.providers.catalog import Model
from pi_tools.providers.identity16 import identity_headers

SDK_VERSION = "0.129.0"
CLAUDE_CODE_VERSION = "2.1.322"
"""The Claude Code release an OAuth request names in its User-Agent."""
DEFAULT_TIMEOUT_MS = 300_000
"""The coding agent's request timeout (its HTTP idle timeout setting's default), which Pi passes on."""
_HEADER_ONLY_KEYS = ("betas", "user_profile_id", "workspace_id")
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key",
                             "x-amz-security-token", "cookie"})
_AUTH_SCHEME = re.compile(r"^([A-Za-z0-9!#$%&'*+.^_`|~-]+) \S")
_OPENCODE_PROVIDERS = ("opencode", "opencode-go")
_OPENCODE_SESSION_HEADER = "x-opencode-session"
# What the WHATWG URL parser percent-encodes in a path (catalog base URLs may hold ``{PLACEHOLDER}`` segments).
_PATH_ESCAPES = {" ": "%20", '"': "%22", "<": "%3C", ">": "%3E", "`": "%60", "{": "%7B", "}": "%7D"}


def build_url(model: Model) -> str:
    """The request URL as fetch receives it (the SDK parses it: unsafe path characters percent-encoded)."""
    url = _joined_url(model)
    path, mark, query = url.partition("?")
    return "".join(_PATH_ESCAPES.get(char, char) for char in path) + mark + query


def request_headers(model: Model, options: Mapping[str, Any]) -> Any:
    """The request's own headers: OpenCode's providers add the session's routing header unless one is set."""
    headers = options.get("headers")
    session = options.get("sessionId")
    if model.get("provider") not in _OPENCODE_PROVIDERS or not session:
        return headers
    if any(name.lower() == _OPENCODE_SESSION_HEADER for name in (headers or {})):
        return headers
    return {**(headers or {}), _OPENCODE_SESSION_HEADER: session}


def _assign(*sources: Mapping[str, Any] | None) -> dict[str, Any]:
    """Object.assign of header records: case-sensitive names, a later value keeps the first one's place."""
    merged: dict[str, Any] = {}
    for source in sources:
        merged.update(source or {})
    return merged


def client_headers(model: Model, options: Mapping[str, Any], context: Mapping[str, Any] | None,
                   payload: Mapping[str, Any]) -> dict[str, Any]:
    """The client's ``defaultHeaders`` as pi-ai 1.6's createClient merges them."""
    provider = model.get("provider")
    if provider == "github-copilot":
        dynamic = (_copilot_headers_from_context(resolved_transcript(model, context))
                   if context is not None else _copilot_headers_from_payload(dict(payload)))
        return _assign(identity_headers(model, options),
                       {"accept": "application/json", "anthropic-dangerous-direct-browser-access": "true"},
                       model.get("headers"), dynamic, request_headers(model, options))
    if uses_oauth(model, dict(options)):
        return _assign({"accept": "application/json", "anthropic-dangerous-direct-browser-access": "true",
                        "user-agent": f"claude-cli/{CLAUDE_CODE_VERSION}", "x-app": "cli"},
                       model.get("headers"), request_headers(model, options))
    affinity: dict[str, Any] = {}
    session = cache_session_id(options)
    header = session_affinity_header(model)
    if session is not UNDEFINED and session and header is not None:
        affinity[header] = session
    return _assign(identity_headers(model, options),
                   {"accept": "application/json", "anthropic-dangerous-direct-browser-access": "true"},
                   affinity, model.get("headers"), request_headers(model, options))


def build_headers(model: Model, payload: Mapping[str, Any], options: Mapping[str, Any],
                  context: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Request headers, lowercased and sorted, as the SDK's fetch call receives them."""
    timeout_ms = options.get("timeoutMs")
    timeout = DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms
    headers: dict[str, str] = {}
    _layer(headers, {
        "accept": "application/json",
        "user-agent": f"Anthropic/JS {SDK_VERSION}",
        "x-stainless-retry-count": "0",
        "x-stainless-timeout": str(int(timeout / 1000)),
        "x-stainless-lang": "js",
        "x-stainless-package-version": SDK_VERSION,
        "x-stainless-os": "<platform>",
        "x-stainless-arch": "<arch>",
        "x-stainless-runtime": "node",
        "x-stainless-runtime-version": "v<node-version>",
        "anthropic-dangerous-direct-browser-access": "true",
        "anthropic-version": "2023-06-01",
    })
    api_key = options.get("apiKey")
    if model.get("provider") == "github-copilot" or uses_oauth(model, dict(options)):
        if api_key is not None:
            _layer(headers, {"authorization": f"Bearer {REDACTED}"})
    elif api_key is not None:
        _layer(headers, {"x-api-key": REDACTED})
    _layer(headers, client_headers(model, options, context, payload))
    _layer(headers, {"content-type": "application/json"})
    betas = payload.get("betas")
    if betas is not None:
        _layer(headers, {"anthropic-beta": ",".join(str(beta) for beta in betas)})
    return {name: _redacted(name, value) for name, value in sorted(headers.items())}


def _redacted(name: str, value: str) -> str:
    """Credentials as the conformance records write them (an authorization keeps its scheme word)."""
    if name not in _SECRET_HEADERS:
        return value
    scheme = _AUTH_SCHEME.match(value) if name in ("authorization", "proxy-authorization") else None
    return f"{scheme.group(1)} {REDACTED}" if scheme else REDACTED


def build_body(model: Model, payload: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body: the payload without the fields the SDK lifts into headers, opening a thread where the
    session uses them."""
    body = {key: value for key, value in payload.items() if key not in _HEADER_ONLY_KEYS}
    if thread_session_id(model, options) is not UNDEFINED and options.get("disableContinuation") is not True:
        body["thread"] = {"type": "create"}
    return body


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any],
               context: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{method, url, headers, body}`` for ``client.beta.messages.create(body)``."""
    return {
        "method": "POST",
        "url": build_url(model),
        "headers": build_headers(model, payload, options, context),
        "body": build_body(model, payload, options),
    }
