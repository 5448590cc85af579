"""Mistral chat completions (``mistral-conversations``): request payloads and HTTP requests as pi-ai builds them."""
