"""The HTTP request Pi 1.6's Mistral adapter sends with ``fetch``: 0.85's (``wire.py``: the body renamed to
snake_case, the URL), with Pi 1.6's identity headers (``providers.identity16``) under the fixed ones, then the
model's and the caller's headers."""

from __future__ import annotations

from typing import Any

from pi_tools.js.values import js_to_string
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import require_api_key
from pi_tools.providers.identity16 import identity_headers
from pi_tools.providers.mistral_conversations.payload import uses_prompt_caching
from pi_tools.providers.mistral_conversations.wire import _apply_overrides, _names, request_url, wire_body
from pi_tools.providers.openai_responses.wire import sorted_headers


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``{method, url, headers, body}`` of the request; secrets redacted, header names lowercased and sorted."""
    options = options or {}
    api_key = require_api_key(model, options)
    headers: dict[str, str] = {}
    for name, value in identity_headers(model, options).items():
        headers[name.lower()] = js_to_string(value)
    headers.update({
        "accept": "text/event-stream",
        "authorization": f"Bearer {api_key}",
        "content-type": "application/json",
    })
    _apply_overrides(headers, model.get("headers"))
    _apply_overrides(headers, options.get("headers"))
    explicit_affinity = "x-affinity" in _names(model.get("headers")) | _names(options.get("headers"))
    if uses_prompt_caching(options) and not explicit_affinity:
        headers["x-affinity"] = str(options["sessionId"])
    return {"method": "POST", "url": request_url(model), "headers": sorted_headers(headers),
            "body": wire_body(payload)}
