"""The credential offline builds hand the API encoders that insist on one, as Pi's would have one.

It is never sent and never printed (wire requests show credentials as ``<redacted>``). It lives here, below the
pipeline, so that an API folder can tell it from a real credential where the credential shapes the request
(openai-codex-responses reads the ChatGPT account from its token).
"""

OFFLINE_API_KEY = "pi-tools-offline-placeholder"
