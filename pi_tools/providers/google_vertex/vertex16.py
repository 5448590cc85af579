"""google-vertex as Pi 1.6 builds it: the Gemini API's 1.6 request (``google_generative_ai.payload16``) with
Vertex's budget table, its endpoint and authentication (``vertex``), and @google/genai 2.32's Vertex converters and
headers (``google_generative_ai.wire16``)."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.google_generative_ai import wire16
from pi_tools.providers.google_generative_ai.payload16 import build_request
from pi_tools.providers.google_vertex import vertex


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The ``{model, contents, config}`` object Pi 1.6's google-vertex passes to ``onPayload``."""
    options = options or {}
    if vertex.resolve_api_key(options) is None:
        # The ADC client is created (and project/location demanded) before the params are built.
        vertex.resolve_project(options)
        vertex.resolve_location(options)
    return build_request(model, context, options, vertex.VERTEX_API)


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The request Pi 1.6's Vertex client sends."""
    return vertex.build_wire(model, payload, options, wire16.VERTEX, wire16.merged_headers)
