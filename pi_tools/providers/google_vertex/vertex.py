"""google-vertex: the same Gemini request as google-generative-ai (whose modules this one builds on), sent to Vertex AI.

pi-ai's Vertex adapter shares the message/tool conversion but has its own (older) thinking tables: no Gemma 4
levels and no 2.5-flash-lite budget row. The client authenticates with an API key (Vertex express mode,
global endpoint) or with Application Default Credentials against a project/location endpoint; without a key,
a missing project or location fails before any payload is built. ``streamSimple`` does not forward the
``project``/``location`` options, so through it they come from the environment only (``options["env"]`` first).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.google_generative_ai.payload import GoogleFlavor, build_request
from pi_tools.providers.google_generative_ai.wire import (
    STREAM_PATH,
    VERTEX,
    Dialect,
    build_body,
    finish_headers,
    join_url,
    merged_headers,
    model_resource,
)
from pi_tools.providers.provider_env import provider_env

VERTEX_API = GoogleFlavor(
    "google-vertex", gemma4_levels=False, flash_lite_budgets=False, requires_api_key=False
)
VERTEX_API_VERSION = "v1"
_CREDENTIALS_MARKER = "gcp-vertex-credentials"
_PLACEHOLDER_KEY = re.compile(r"^<[^>]+>$")
_VERSION_SEGMENT = re.compile(r"^v[0-9]+(?:beta[0-9]*)?$")
_VERSION_IN_TEXT = re.compile(r"(?:^|/)v[0-9]+(?:beta[0-9]*)?(?:/|$)")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_MULTI_REGIONAL = frozenset({"us", "eu"})


def resolve_api_key(options: dict[str, Any]) -> str | None:
    """A usable Vertex API key; the credentials marker and ``<placeholder>`` values mean "use ADC"."""
    raw = options.get("apiKey")
    key = raw.strip() if isinstance(raw, str) else None
    if not key or key == _CREDENTIALS_MARKER or _PLACEHOLDER_KEY.match(key):
        return None
    return key


def resolve_project(options: dict[str, Any]) -> str:
    project = provider_env("GOOGLE_CLOUD_PROJECT", options) or provider_env("GCLOUD_PROJECT", options)
    if not project:
        raise PayloadError(
            "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options."
        )
    return str(project)


def resolve_location(options: dict[str, Any]) -> str:
    location = provider_env("GOOGLE_CLOUD_LOCATION", options)
    if not location:
        raise PayloadError(
            "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options."
        )
    return str(location)


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The ``{model, contents, config}`` object google-vertex passes to ``onPayload``."""
    options = options or {}
    if resolve_api_key(options) is None:
        # The ADC client is created (and project/location demanded) before the params are built.
        resolve_project(options)
        resolve_location(options)
    return build_request(model, context, options, VERTEX_API)


def _custom_base_url(base_url: Any) -> str | None:
    """The catalog's ``https://{location}-aiplatform...`` template is not a usable base URL; anything else is."""
    trimmed = base_url.strip() if isinstance(base_url, str) else ""
    if not trimmed or "{location}" in trimmed:
        return None
    return trimmed


def _includes_api_version(base_url: str) -> bool:
    if _URL_SCHEME.match(base_url):
        try:
            path = urlsplit(base_url).path
        except ValueError:
            path = None
        if path is not None:
            return any(_VERSION_SEGMENT.match(segment) for segment in path.split("/"))
    return _VERSION_IN_TEXT.search(base_url) is not None


def _default_base_url(location: str | None) -> str:
    if location is None or location == "global":
        return "https://aiplatform.googleapis.com/"
    if location in _MULTI_REGIONAL:
        return f"https://aiplatform.{location}.rep.googleapis.com/"
    return f"https://{location}-aiplatform.googleapis.com/"


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any], dialect: Dialect = VERTEX,
               headers_of: Callable[[Model, dict[str, Any]], dict[str, str]] = merged_headers) -> dict[str, Any]:
    """The request the Vertex client sends (express-mode API key, or ADC with project/location); `dialect` and
    `headers_of` are the SDK's converters and headers (a later Pi bundles a later SDK)."""
    options = options or {}
    api_key = resolve_api_key(options)
    project = location = None
    if api_key is None:
        project, location = resolve_project(options), resolve_location(options)

    resource = model_resource(payload.get("model"), vertex=True)
    body = build_body(payload, dialect)

    custom = _custom_base_url(model.get("baseUrl"))
    base_url = custom or _default_base_url(location)
    api_version = "" if custom and _includes_api_version(custom) else VERTEX_API_VERSION
    # A custom base URL is a collection root; otherwise ADC requests are scoped to the project and location.
    scope = f"projects/{project}/locations/{location}" if api_key is None and not custom else ""
    url = join_url(base_url, api_version, scope, STREAM_PATH.format(model=resource))

    headers = headers_of(model, options)
    if api_key is None:
        headers["authorization"] = "Bearer <redacted>"
    else:
        headers["x-goog-api-key"] = "<redacted>"
    return {"method": "POST", "url": url, "headers": finish_headers(headers), "body": body}
