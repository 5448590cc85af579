"""The HTTP request the ``openai`` SDK (6.40.0) sends for a Responses payload built by pi-ai.

pi-ai hands the params object to ``client.responses.create`` unchanged, so the body is the payload itself; the
headers are where pi-ai's client set-up shows: session-affinity headers, model and caller headers layered over the
SDK defaults, and GitHub Copilot's per-request initiator/vision headers. The ``AzureOpenAI`` client differs only
in its endpoint, ``api-version`` query and ``api-key`` header.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from pi_tools.js.strings import utf16_code_units
from pi_tools.js.values import js_to_string
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError, require_api_key
from pi_tools.providers.openai_completions.wire import attribution_headers
from pi_tools.providers.openai_responses.payload import (
    azure_endpoint,
    client_api_key,
    resolved_compat,
)

SDK_VERSION = "6.40.0"
PI_USER_AGENT = "pi (<platform> <os-release>; <arch>)"
"""pi-ai's ``getPiUserAgent()`` with the machine-specific parts as the goldens' placeholders."""

_STAINLESS_PLATFORM_HEADERS = {
    "X-Stainless-Lang": "js",
    "X-Stainless-Package-Version": SDK_VERSION,
    "X-Stainless-OS": "<platform>",
    "X-Stainless-Arch": "<arch>",
    "X-Stainless-Runtime": "node",
    "X-Stainless-Runtime-Version": "v<node-version>",
}
_SECRET_HEADERS = frozenset(("x-api-key", "api-key", "x-goog-api-key", "x-amz-security-token", "cookie"))


def _layer(headers: dict[str, str], extra: Mapping[str, Any] | None) -> None:
    """Merge headers case-insensitively; a ``None`` value removes the header, as the SDK's ``buildHeaders`` does."""
    for name, value in (extra or {}).items():
        key = name.lower()
        if value is None:
            headers.pop(key, None)
        else:
            headers[key] = js_to_string(value)


def _assign(headers: dict[str, str | None], extra: Mapping[str, Any] | None) -> None:
    for name, value in (extra or {}).items():
        headers[name.lower()] = None if value is None else js_to_string(value)


def header_value(value: str) -> str:
    """A value as a fetch ``Headers`` object stores it: trimmed, and rejected when it is not a byte string."""
    trimmed = value.strip(" \t\r\n")
    if any(char in trimmed for char in "\r\n\0"):
        raise PayloadError(f'Headers.append: "{trimmed}" is an invalid header value.')
    if not trimmed.isascii():
        for index, unit in enumerate(utf16_code_units(trimmed)):
            if unit > 0xFF:
                raise PayloadError(
                    "Cannot convert argument to a ByteString because the character at index "
                    f"{index} has a value of {unit} which is greater than 255."
                )
    return trimmed


def sorted_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Lowercased names in order, values validated like fetch does, secrets redacted as in the goldens."""
    return {name: redact_header(name, header_value(headers[name])) for name in sorted(headers)}


def redact_header(name: str, value: str) -> str:
    """Secrets as the goldens write them: the auth scheme word survives, the credential does not."""
    if name in ("authorization", "proxy-authorization"):
        scheme = value.split(" ", 1)[0] if " " in value else ""
        return f"{scheme} <redacted>" if scheme else "<redacted>"
    if name in _SECRET_HEADERS:
        return "<redacted>"
    return value


def _has_input_image(item: Mapping[str, Any]) -> bool:
    """Images reach Responses as ``input_image`` parts of user messages or of tool outputs."""
    parts = item.get("content") if item.get("role") == "user" else item.get("output")
    return isinstance(parts, list) and any(
        isinstance(part, dict) and part.get("type") == "input_image" for part in parts
    )


def _copilot_headers(payload: Mapping[str, Any], context: Mapping[str, Any] | None) -> dict[str, str]:
    """Copilot's ``X-Initiator`` / vision flags, from the context when given, else read back from the payload."""
    if context is not None:
        messages = context.get("messages") or []
        last = messages[-1] if messages else None
        initiator = "agent" if last is not None and last.get("role") != "user" else "user"
        has_images = any(
            message.get("role") in ("user", "toolResult")
            and isinstance(message.get("content"), list)
            and any(isinstance(block, dict) and block.get("type") == "image" for block in message["content"])
            for message in messages
        )
    else:
        items = [item for item in payload.get("input") or () if isinstance(item, dict)]
        conversation = [item for item in items if item.get("role") not in ("system", "developer")]
        last_item = conversation[-1] if conversation else None
        initiator = "agent" if last_item is not None and last_item.get("role") != "user" else "user"
        has_images = any(_has_input_image(item) for item in items)
    headers = {"X-Initiator": initiator, "Openai-Intent": "conversation-edits"}
    if has_images:
        headers["Copilot-Vision-Request"] = "true"
    return headers


_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}
_PATH_ESCAPED = frozenset(' "#<>?`{}')
_QUERY_ESCAPED = frozenset(" \"#<>'")
_FRAGMENT_ESCAPED = frozenset(' "<>`')


def _percent_encode(text: str, escaped: frozenset[str]) -> str:
    if text.isascii() and not any(char in escaped or char < " " or char == "\x7f" for char in text):
        return text
    pieces: list[str] = []
    for char in text:
        if char in escaped or char < " " or char >= "\x7f":
            pieces.append("".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass")))
        else:
            pieces.append(char)
    return "".join(pieces)


def _remove_dot_segments(path: str) -> str:
    segments: list[str] = []
    parts = path.split("/")[1:]
    for index, segment in enumerate(parts):
        last = index == len(parts) - 1
        if segment == ".":
            if last:
                segments.append("")
        elif segment == "..":
            if segments:
                segments.pop()
            if last:
                segments.append("")
        else:
            segments.append(segment)
    return "/" + "/".join(segments)


def whatwg_href(url: str) -> str:
    """``new URL(url).href`` for the http(s) URLs in the catalog: case, default port, dot segments, escaping."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    netloc = host
    if parts.username is not None:
        credentials = parts.username + (f":{parts.password}" if parts.password else "")
        netloc = f"{credentials}@{host}"
    if parts.port is not None and str(parts.port) != _DEFAULT_PORTS.get(scheme):
        netloc = f"{netloc}:{parts.port}"
    path = _percent_encode(_remove_dot_segments(parts.path or "/"), _PATH_ESCAPED)
    query = f"?{_percent_encode(parts.query, _QUERY_ESCAPED)}" if parts.query else ""
    fragment = f"#{_percent_encode(parts.fragment, _FRAGMENT_ESCAPED)}" if parts.fragment else ""
    return f"{scheme}://{netloc}{path}{query}{fragment}"


def sdk_url(base_url: str, path: str, default_query: Mapping[str, str] | None = None) -> str:
    """The Stainless SDK's ``buildURL``: string join, WHATWG parse, then the query re-encoded from its pairs.

    A query in the base URL therefore swallows the joined path, and the client's default query is merged in.
    """
    joined = base_url + (path[1:] if base_url.endswith("/") and path.startswith("/") else path)
    parts = urlsplit(whatwg_href(joined))
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    query.update(default_query or {})
    search = (
        "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in query.items())
        if query
        else parts.query
    )
    return urlunsplit(parts._replace(query=search))


_CLOUDFLARE_PROVIDERS = frozenset(("cloudflare-ai-gateway", "cloudflare-workers-ai"))
_CLOUDFLARE_PLACEHOLDERS = ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID")


def resolved_base_url(model: Model, options: Mapping[str, Any] | None = None) -> str:
    """The model's base URL; Cloudflare's provider wrapper first fills its placeholders from the ``env`` option."""
    base_url = str(model.get("baseUrl") or "")
    env = (options or {}).get("env")
    if model.get("provider") in _CLOUDFLARE_PROVIDERS and env:
        for name in _CLOUDFLARE_PLACEHOLDERS:
            value = env.get(name)
            if value is not None:
                base_url = base_url.replace("{" + name + "}", str(value))
    return base_url


def request_url(model: Model, options: Mapping[str, Any] | None = None) -> str:
    """``{baseUrl}/responses`` as the OpenAI SDK builds it."""
    return sdk_url(resolved_base_url(model, options), "/responses")


def caller_headers(model: Model, options: Mapping[str, Any], coding_agent_headers: bool) -> dict[str, Any]:
    """The request's own headers: Pi's coding agent puts its provider attribution under the caller's headers."""
    headers: dict[str, Any] = {}
    if coding_agent_headers:
        headers.update(attribution_headers(model, options.get("sessionId")))
    headers.update(options.get("headers") or {})
    return headers


def build_wire(
    model: Model,
    payload: dict[str, Any],
    options: dict[str, Any],
    context: Mapping[str, Any] | None = None,
    *,
    coding_agent_headers: bool = True,
) -> dict[str, Any]:
    """``{method, url, headers, body}`` of the SDK request; secrets redacted, header names lowercased and sorted.

    ``context`` (the one the payload was built from) only matters for GitHub Copilot, whose headers describe the
    conversation; without it they are inferred from the payload. ``coding_agent_headers=False`` gives what bare
    pi-ai sends, without the attribution headers Pi's coding agent adds.
    """
    api_key = client_api_key(model, options)
    compat = resolved_compat(model)
    headers: dict[str, str] = {}
    _layer(
        headers,
        {
            "Accept": "application/json",
            "User-Agent": f"OpenAI/JS {SDK_VERSION}",
            "X-Stainless-Retry-Count": "0",
        },
    )
    timeout_ms = options.get("timeoutMs")
    if timeout_ms:
        _layer(headers, {"X-Stainless-Timeout": str(int(timeout_ms // 1000))})
    _layer(headers, _STAINLESS_PLATFORM_HEADERS)
    _layer(headers, {"Authorization": f"Bearer {api_key}"})
    # pi-ai's defaultHeaders object: later assignments win and a null value survives to delete the header.
    client_headers: dict[str, str | None] = {"user-agent": PI_USER_AGENT}
    _assign(client_headers, model.get("headers"))
    if model.get("provider") == "github-copilot":
        _assign(client_headers, _copilot_headers(payload, context))
    retention_none = (options.get("cacheRetention") or "") == "none"
    session_id = None if retention_none else options.get("sessionId")
    if session_id:
        if compat["sessionAffinityFormat"] == "openrouter":
            client_headers["x-session-id"] = session_id
        else:
            if compat["sessionAffinityFormat"] == "openai":
                client_headers["session_id"] = session_id
            client_headers["x-client-request-id"] = session_id
    _assign(client_headers, caller_headers(model, options, coding_agent_headers))
    _layer(headers, client_headers)
    _layer(headers, {"content-type": "application/json"})
    return {
        "method": "POST",
        "url": request_url(model, options),
        "headers": sorted_headers(headers),
        "body": payload,
    }


def build_azure_wire(
    model: Model,
    payload: dict[str, Any],
    options: dict[str, Any],
    context: Mapping[str, Any] | None = None,
    *,
    coding_agent_headers: bool = True,
) -> dict[str, Any]:
    """The ``AzureOpenAI`` client's request: ``api-key`` auth, ``?api-version=``, no session-affinity headers."""
    api_key = require_api_key(model, options)
    base_url, api_version = azure_endpoint(model, options)
    headers: dict[str, str] = {}
    _layer(headers, {"Accept": "application/json", "User-Agent": f"AzureOpenAI/JS {SDK_VERSION}"})
    _layer(headers, {"X-Stainless-Retry-Count": "0"})
    timeout_ms = options.get("timeoutMs")
    if timeout_ms:
        _layer(headers, {"X-Stainless-Timeout": str(int(timeout_ms // 1000))})
    _layer(headers, _STAINLESS_PLATFORM_HEADERS)
    _layer(headers, {"api-key": api_key})
    client_headers: dict[str, str | None] = {"user-agent": PI_USER_AGENT}
    _assign(client_headers, model.get("headers"))
    _assign(client_headers, caller_headers(model, options, coding_agent_headers))
    _layer(headers, client_headers)
    _layer(headers, {"content-type": "application/json"})
    return {
        "method": "POST",
        "url": sdk_url(base_url, "/responses", {"api-version": api_version}),
        "headers": sorted_headers(headers),
        "body": payload,
    }
