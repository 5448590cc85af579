"""The HTTP request Pi 1.6's ``openai-codex-responses`` adapter sends over its SSE transport.

The URL, the zstd-compressed body and its description (``bodyBytes``, ``bodySha256``, ``bodyBase64``) are 0.85's
(``wire.py``). The headers changed order of precedence: they start from the request's identity
(providers.identity16: ``originator: pi``, the detailed ``User-Agent`` and the provider's attribution headers), the
model's headers and then the caller's (a null value removes one) go over them, and only the credential, the account,
the Responses beta, ``accept``, ``content-type`` and the session are set after. The coding agent passes no headers
of its own (0.85 added its attribution under the caller's).
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
from pi_tools.providers.identity16 import identity_headers
from pi_tools.providers.openai_codex_responses.payload import account_header, cache_session_id, codex_api_key
from pi_tools.providers.openai_codex_responses.wire import compress, request_url
from pi_tools.providers.openai_responses.wire import sorted_headers, whatwg_href


def sse_headers(model: Model, options: Mapping[str, Any]) -> dict[str, str]:
    """pi-ai 1.6's ``buildSSEHeaders`` plus the ``content-encoding`` of the compressed body: lowercased names,
    sorted, credentials redacted."""
    token = codex_api_key(model, options)
    headers: dict[str, str] = {"originator": "pi"}
    for name, value in identity_headers(model, options).items():
        headers[name.lower()] = js_to_string(value)
    for name, value in (model.get("headers") or {}).items():
        headers[name.lower()] = js_to_string(value)
    for name, value in (options.get("headers") or {}).items():
        if value is None:
            headers.pop(name.lower(), None)
        else:
            headers[name.lower()] = js_to_string(value)
    headers["authorization"] = f"Bearer {js_to_string(token)}"
    headers["chatgpt-account-id"] = account_header(options)
    headers["openai-beta"] = "responses=experimental"
    headers["accept"] = "text/event-stream"
    headers["content-type"] = "application/json"
    session_id = cache_session_id(options)
    if session_id:
        headers["session-id"] = session_id
        headers["x-client-request-id"] = session_id
    headers["content-encoding"] = "zstd"
    return sorted_headers(headers)


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``{method, url, headers, body, bodyBytes, bodySha256, bodyBase64}`` of the SSE request: ``body`` is the
    payload as sent (decoded), the other three describe the zstd-compressed bytes on the wire."""
    headers = sse_headers(model, options)
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
