"""google-vertex as Pi 1.6 builds it: the 0.85 Vertex adapter's hooks with the 1.6 request (``vertex16``)."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.contract import Model
from pi_tools.providers.google_generative_ai.adapter16 import GoogleGenerativeAI16
from pi_tools.providers.google_vertex.adapter import GoogleVertex


class GoogleVertex16(GoogleVertex):
    def build_payload(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        from pi_tools.providers.google_vertex.vertex16 import build_payload

        return build_payload(model, context, options)

    def build_wire(self, model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        from pi_tools.providers.google_vertex.vertex16 import build_wire

        return build_wire(model, payload, options)

    def preload(self) -> None:
        import pi_tools.providers.google_vertex.vertex16  # noqa: F401

    build_history = GoogleGenerativeAI16.build_history
    build_history_traced = GoogleGenerativeAI16.build_history_traced


ADAPTER = GoogleVertex16()
