"""google-vertex (Gemini on Vertex AI): the Gemini API's request (providers.google_generative_ai) with Vertex's
thinking tables, endpoint and authentication (``vertex``); its stream decoder and mapping are the Gemini API's."""
