"""OpenAI Responses API (``openai-responses``): request payloads and HTTP requests as pi-ai builds them."""
