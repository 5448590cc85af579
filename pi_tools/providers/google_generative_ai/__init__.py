"""google-generative-ai (Gemini API) and google-vertex request building: ``payload``, ``wire``, ``vertex``."""
