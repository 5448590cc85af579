"""azure-openai-responses: OpenAI Responses as Azure's client sends it. The item conversion is OpenAI's
(providers.openai_responses builds both, ``build_azure_*``); only the params, the endpoint, the authentication
and the tool-call ids it keeps differ. There is no stream decoder of its own."""
