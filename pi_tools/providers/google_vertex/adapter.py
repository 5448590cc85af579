"""google-vertex behind the API contract (providers.contract): the Gemini API's adapter with Vertex's request
(``vertex``: its thinking tables, endpoint and authentication). The parts, the stream decoder (its errors worded
for Vertex) and the payload mapping are the Gemini API's; its preflight rules are the Gemini folder's, which name
Vertex where they apply (google-image-size is Vertex's alone). Vertex documents no request-size limit of the
Gemini API's kind."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.contract import Model
from pi_tools.providers.google_generative_ai.adapter import GoogleGenerativeAI


class GoogleVertex(GoogleGenerativeAI):
    rule_modules = ()
    request_limit = None

    def build_payload(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        from pi_tools.providers.google_vertex.vertex import build_payload

        return build_payload(model, context, options)

    def build_wire(self, model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        from pi_tools.providers.google_vertex.vertex import build_wire

        return build_wire(model, payload, options)

    def preload(self) -> None:
        import pi_tools.providers.google_vertex.vertex  # noqa: F401


ADAPTER = GoogleVertex()
