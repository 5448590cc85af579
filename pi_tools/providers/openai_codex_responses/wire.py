"""The HTTP request pi-ai's ``openai-codex-responses`` adapter sends over its SSE transport (pi-ai 0.85.1).

Pi talks to Codex through a WebSocket by default and falls back to this request (``transport: "sse"`` asks for
it directly); the WebSocket frame carries the same body, uncompressed. There is no SDK: pi-ai builds the
headers itself (the caller's over the model's, then the account, ``originator: pi``, Pi's user agent, the
Responses beta, the session), serialises the body with ``JSON.stringify`` and compresses it with zstd (Node's
``zlib.zstdCompressSync`` at level 3, no checksum, content size in the frame header), which the Codex backend
decodes (``content-encoding: zstd``).

The wire document shows the body decoded (``body``) and as sent: ``bodyBytes``, ``bodySha256`` and
``bodyBase64`` are of the compressed bytes. libzstd 1.5.7 (the ``zstandard`` package, 0.25) compresses a
single-shot frame at level 3 to exactly the bytes Node's zlib does, so those three match Pi's byte for byte;
another libzstd may choose other (equally valid) bytes for the same body.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any

from pi_tools.js.errors import STACK_EXCEEDED
from pi_tools.js.json_stringify import js_stringify, too_deep_to_stringify
from pi_tools.js.values import js_to_string
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.openai_codex_responses.payload import account_header, cache_session_id, codex_api_key
from pi_tools.providers.openai_responses.wire import (
    PI_USER_AGENT,
    caller_headers,
    sorted_headers,
    whatwg_href,
)

DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
ZSTD_LEVEL = 3
"""pi-ai's ``REQUEST_COMPRESSION_ZSTD_LEVEL``."""


def request_url(base_url: Any) -> str:
    """pi-ai's ``resolveCodexUrl``: ``{base}/codex/responses`` unless the base already ends with it (or with
    ``/codex``); a blank base URL is ChatGPT's backend."""
    raw = base_url if isinstance(base_url, str) and base_url.strip() else DEFAULT_BASE_URL
    normalized = raw.rstrip("/")
    if normalized.endswith("/codex/responses"):
        return normalized
    if normalized.endswith("/codex"):
        return f"{normalized}/responses"
    return f"{normalized}/codex/responses"


def compress(body_json: str) -> bytes:
    """The zstd frame Node's ``zstdCompressSync(bodyJson, {params: {[ZSTD_c_compressionLevel]: 3}})`` makes."""
    import zstandard  # imported here: only --wire on Codex needs it

    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL, write_checksum=False, write_content_size=True)
    return compressor.compress(body_json.encode("utf-8"))


def sse_headers(model: Model, options: Mapping[str, Any], *, coding_agent_headers: bool = True) -> dict[str, str]:
    """pi-ai's ``buildSSEHeaders`` plus the ``content-encoding`` of the compressed body: lowercased names,
    sorted, credentials redacted."""
    token = codex_api_key(model, options)
    headers: dict[str, str] = {}
    for name, value in (model.get("headers") or {}).items():  # new Headers(model.headers)
        headers[name.lower()] = js_to_string(value)
    for name, value in caller_headers(model, options, coding_agent_headers).items():
        if value is None:
            headers.pop(name.lower(), None)
        else:
            headers[name.lower()] = js_to_string(value)
    headers["authorization"] = f"Bearer {js_to_string(token)}"
    headers["chatgpt-account-id"] = account_header(options)
    headers["originator"] = "pi"
    headers["user-agent"] = PI_USER_AGENT
    headers["openai-beta"] = "responses=experimental"
    headers["accept"] = "text/event-stream"
    headers["content-type"] = "application/json"
    session_id = cache_session_id(options)
    if session_id:
        headers["session-id"] = session_id
        headers["x-client-request-id"] = session_id
    headers["content-encoding"] = "zstd"
    return sorted_headers(headers)


def build_wire(
    model: Model, payload: dict[str, Any], options: dict[str, Any], *, coding_agent_headers: bool = True
) -> dict[str, Any]:
    """``{method, url, headers, body, bodyBytes, bodySha256, bodyBase64}`` of the SSE request: ``body`` is the
    payload as sent (decoded), the other three describe the zstd-compressed bytes on the wire."""
    headers = sse_headers(model, options, coding_agent_headers=coding_agent_headers)
    if too_deep_to_stringify(payload):
        raise PayloadError(STACK_EXCEEDED)
    compressed = compress(js_stringify(payload))
    return {
        "method": "POST",
        "url": whatwg_href(request_url(model.get("baseUrl"))),
        "headers": headers,
        "body": payload,
        "bodyBytes": len(compressed),
        "bodySha256": hashlib.sha256(compressed).hexdigest(),
        "bodyBase64": base64.b64encode(compressed).decode("ascii"),
    }
