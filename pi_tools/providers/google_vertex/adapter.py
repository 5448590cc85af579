"""google-vertex behind the API contract (providers.contract): the Gemini API's adapter with Vertex's request
(``vertex``: its thinking tables, endpoint and authentication). The parts, the stream decoder (its errors worded
for Vertex) and the payload mapping are the Gemini API's; its preflight rules are the Gemini folder's, which name
Vertex where they apply (google-image-size is Vertex's alone). Vertex documents no request-size limit of the
Gemini API's kind."""

from __future__ import annotations

from pi_tools.providers.google_generative_ai.adapter import GoogleGenerativeAI


class GoogleVertex(GoogleGenerativeAI):
    payload_module = "pi_tools.providers.google_vertex.vertex"
    wire_module = "pi_tools.providers.google_vertex.vertex"
    rule_modules = ()
    request_limit = None


ADAPTER = GoogleVertex()
