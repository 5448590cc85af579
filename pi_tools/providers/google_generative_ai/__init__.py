"""google-generative-ai (Gemini API): ``payload``, ``wire``, ``stream``, the payload mapping and the preflight
rules of both Gemini APIs (google-vertex, in providers.google_vertex, builds on this folder's modules)."""
