"""google-vertex as Pi 1.6 builds it: the 0.85 Vertex adapter's hooks with the 1.6 request (``vertex16``)."""

from __future__ import annotations

from pi_tools.providers.google_generative_ai.adapter16 import GoogleGenerativeAI16
from pi_tools.providers.google_vertex.adapter import GoogleVertex


class GoogleVertex16(GoogleVertex):
    payload_module = "pi_tools.providers.google_vertex.vertex16"
    wire_module = "pi_tools.providers.google_vertex.vertex16"
    build_history = GoogleGenerativeAI16.build_history
    build_history_traced = GoogleGenerativeAI16.build_history_traced


ADAPTER = GoogleVertex16()
