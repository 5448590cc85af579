"""openai-codex-responses: OpenAI's Responses API as ChatGPT's backend serves it to subscribers (provider
``openai-codex``). The item conversion is OpenAI Responses' (providers.openai_responses); the body around it,
the endpoint, the headers (the ChatGPT account read from the OAuth token) and the zstd-compressed wire body
are Codex's own."""
