"""pi-messages: Pi's own message API (the Radius gateway, provider `radius`), new in Pi 1.6.

The request is Pi's transcript itself, `{model, context: {messages}, options}`, posted to `<baseUrl>/messages`; the
answer is an SSE stream of Pi's own assistant-message events. Pi 0.85 has no such API, so this folder has only the
1.6 modules (``adapter16``): for 0.85 the registry refuses it.
"""
