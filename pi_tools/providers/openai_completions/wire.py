"""The HTTP request the OpenAI SDK sends for a Chat Completions payload (as Pi's coding agent configures it).

Headers are layered like the SDK does (its defaults, bearer auth, the client's default headers, body headers):
the client's defaults are Pi's user agent, ``model.headers``, Copilot's dynamic headers, session-affinity
headers and finally the request's own headers, which the coding agent seeds with provider attribution. Values
that are secret or machine-dependent are written as the placeholders the reference goldens use; the SDK's own
telemetry headers (``x-stainless-*``) are left out.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ..catalog import Model
from .compat import resolve_compat

PI_USER_AGENT = "pi (<platform> <os-release>; <arch>)"
_SECRET_HEADERS = frozenset(
    (
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "x-amz-security-token",
        "cookie",
    )
)
_AUTH_SCHEME = re.compile(r"^([A-Za-z0-9!#$%&'*+.^_`|~-]+) \S")
# Characters the WHATWG URL parser percent-encodes in a path (catalog URLs carry ``{PLACEHOLDER}`` segments).
_PATH_ESCAPES = {" ": "%20", '"': "%22", "<": "%3C", ">": "%3E", "`": "%60", "{": "%7B", "}": "%7D"}


def _host_of(base_url: str) -> str:
    try:
        return urlsplit(base_url).hostname or ""
    except ValueError:
        return ""


def attribution_headers(model: Model, session_id: str | None) -> dict[str, str]:
    """Headers Pi's coding agent adds to every provider request (install telemetry is on by default)."""
    provider = model.get("provider")
    base_url = str(model.get("baseUrl", ""))
    host = _host_of(base_url)
    headers: dict[str, str] = {}
    if session_id and (provider in ("opencode", "opencode-go") or host == "opencode.ai"):
        headers.update({"x-opencode-session": session_id, "x-opencode-client": "pi"})
    if provider == "openrouter" or "openrouter.ai" in base_url:
        headers.update(
            {
                "HTTP-Referer": "https://pi.dev",
                "X-OpenRouter-Title": "pi",
                "X-OpenRouter-Categories": "cli-agent",
            }
        )
    elif provider == "nvidia" or host == "integrate.api.nvidia.com":
        headers["X-BILLING-INVOKE-ORIGIN"] = "Pi"
    elif provider in ("cloudflare-workers-ai", "cloudflare-ai-gateway") or host in (
        "api.cloudflare.com",
        "gateway.ai.cloudflare.com",
    ):
        headers["User-Agent"] = "pi-coding-agent"
    return headers


def _copilot_headers(messages: list[dict[str, Any]]) -> dict[str, str]:
    """GitHub Copilot bills by initiator and needs a flag for vision requests."""
    last = messages[-1] if messages else None
    headers = {
        "X-Initiator": "agent" if last is not None and last.get("role") != "user" else "user",
        "Openai-Intent": "conversation-edits",
    }
    has_images = any(
        message.get("role") in ("user", "toolResult")
        and isinstance(message.get("content"), list)
        and any(isinstance(block, dict) and block.get("type") == "image" for block in message["content"])
        for message in messages
    )
    if has_images:
        headers["Copilot-Vision-Request"] = "true"
    return headers


def _copilot_headers_from_payload(payload: dict[str, Any]) -> dict[str, str]:
    """Best effort when the original context is not at hand: read roles and images off the payload.

    Tool-result images travel in a synthetic user message, which still counts as an agent-initiated turn.
    """
    messages = [m for m in payload.get("messages") or [] if m.get("role") not in ("system", "developer")]
    last = messages[-1] if messages else None
    last_is_user = last is not None and last.get("role") == "user"
    if last_is_user and isinstance(last, dict) and isinstance(last.get("content"), list):
        first = last["content"][0] if last["content"] else None
        if isinstance(first, dict) and first.get("text") == "Attached image(s) from tool result:":
            last_is_user = False
    headers = {
        "X-Initiator": "user" if last is None or last_is_user else "agent",
        "Openai-Intent": "conversation-edits",
    }
    if any(
        isinstance(m.get("content"), list)
        and any(isinstance(p, dict) and p.get("type") == "image_url" for p in m["content"])
        for m in messages
    ):
        headers["Copilot-Vision-Request"] = "true"
    return headers


def _merge(target: dict[str, tuple[str, Any]], source: dict[str, Any] | None) -> None:
    """Case-insensitive header merge; a null value removes the header, as the SDK's buildHeaders does."""
    for name, value in (source or {}).items():
        key = name.lower()
        if value is None:
            target.pop(key, None)
        else:
            target[key] = (name, value)


def _redact(name: str, value: str) -> str:
    if name in ("authorization", "proxy-authorization"):
        scheme = _AUTH_SCHEME.match(value)
        if scheme:
            return f"{scheme.group(1)} <redacted>"
    return "<redacted>"


def request_url(base_url: str) -> str:
    """``{baseUrl}/chat/completions`` joined and path-escaped the way the SDK's URL building does."""
    path = "/chat/completions"
    joined = base_url + (path[1:] if base_url.endswith("/") else path)
    parts = urlsplit(joined)
    escaped_path = "".join(_PATH_ESCAPES.get(ch, ch) for ch in parts.path) or "/"
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{escaped_path}{query}"


def build_wire(
    model: Model,
    payload: dict[str, Any],
    options: dict[str, Any],
    context: dict[str, Any] | None = None,
    *,
    coding_agent_headers: bool = True,
) -> dict[str, Any]:
    """``{method, url, headers, body}`` of the request.

    ``context`` (the one the payload came from) makes Copilot's initiator/vision headers exact;
    ``coding_agent_headers=False`` gives what bare pi-ai sends, without the coding agent's attribution headers.
    """
    compat = resolve_compat(model)
    session_id = options.get("sessionId")
    retention = options.get("cacheRetention") or "short"
    affinity_session = session_id if retention != "none" else None

    # The client's default headers are a plain object first (exact-case keys keep their first position), and
    # only then folded case-insensitively into the SDK's headers.
    client_headers: dict[str, Any] = {"User-Agent": PI_USER_AGENT, **(model.get("headers") or {})}
    if model.get("provider") == "github-copilot":
        if context is not None:
            client_headers.update(_copilot_headers(context.get("messages") or []))
        else:
            client_headers.update(_copilot_headers_from_payload(payload))
    if affinity_session and compat["sendSessionAffinityHeaders"]:
        affinity_format = compat["sessionAffinityFormat"]
        if affinity_format == "openrouter":
            client_headers["x-session-id"] = affinity_session
        else:
            if affinity_format == "openai":
                client_headers["session_id"] = affinity_session
            client_headers["x-client-request-id"] = affinity_session
            client_headers["x-session-affinity"] = affinity_session
    if coding_agent_headers:
        client_headers.update(attribution_headers(model, session_id))
    client_headers.update(options.get("headers") or {})

    api_key = options.get("apiKey") or "unused"
    headers: dict[str, tuple[str, Any]] = {}
    _merge(headers, {"Accept": "application/json", "User-Agent": "OpenAI/JS"})
    _merge(headers, {"Authorization": f"Bearer {api_key}"})
    _merge(headers, client_headers)
    _merge(headers, {"Content-Type": "application/json"})

    rendered: dict[str, str] = {}
    for key in sorted(headers):
        if key.startswith("x-stainless-"):
            continue
        value = str(headers[key][1])
        rendered[key] = _redact(key, value) if key in _SECRET_HEADERS else value
    return {
        "method": "POST",
        "url": request_url(str(model.get("baseUrl", ""))),
        "headers": rendered,
        "body": payload,
    }
