"""The ``AzureOpenAI`` client's request in Pi 1.6: the 1.6 SDK and identity headers (openai_responses.wire16) with
Azure's endpoint, ``api-version`` query and ``api-key`` header, and no session-affinity headers."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import require_api_key
from pi_tools.providers.identity16 import identity_headers
from pi_tools.providers.openai_responses.payload import azure_endpoint
from pi_tools.providers.openai_responses.wire import _assign, _layer, sdk_url, sorted_headers
from pi_tools.providers.openai_responses.wire16 import sdk_headers


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``{method, url, headers, body}`` of the ``AzureOpenAI`` request; secrets redacted, names sorted."""
    api_key = require_api_key(model, options)
    base_url, api_version = azure_endpoint(model, options)
    headers = sdk_headers("AzureOpenAI", options)
    _layer(headers, {"api-key": api_key})
    client_headers: dict[str, str | None] = {}
    _assign(client_headers, identity_headers(model, options))
    _assign(client_headers, model.get("headers"))
    _assign(client_headers, options.get("headers"))
    _layer(headers, client_headers)
    _layer(headers, {"content-type": "application/json"})
    return {
        "method": "POST",
        "url": sdk_url(base_url, "/responses", {"api-version": api_version}),
        "headers": sorted_headers(headers),
        "body": payload,
    }
