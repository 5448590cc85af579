"""The body pi-ai 1.6's ``pi-messages`` adapter posts: the transcript as Pi holds it, with a few stream options.

Nothing is converted: the messages are the transcript pi-ai's ``normalizeContext`` makes of the context (a leading
system message carrying the system prompt and tools, then the messages exactly as given, malformed content
included: no transformMessages, no encoder reads them). The options object names six request options in a fixed
order; those the request does not set are left out, as ``JSON.stringify`` drops ``undefined``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.js.values import UNDEFINED, js_to_string, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.junk_blocks import AS_STORED
from pi_tools.providers.provider_env import provider_env
from pi_tools.providers.transcript import normalize_context

OPTION_ORDER = ("temperature", "maxTokens", "reasoning", "cacheRetention", "sessionId", "toolChoice")
"""The keys of the payload's ``options``, in the order pi-ai writes them."""


def missing_key_error(model: Mapping[str, Any]) -> PayloadError:
    """What the adapter throws before building anything when the request has no API key."""
    return PayloadError(f'No API key provided for provider "{js_to_string(model.get("provider", UNDEFINED))}"')


def require_key(model: Mapping[str, Any], options: Mapping[str, Any]) -> str:
    """The request's API key (any truthy value), else the adapter's failure."""
    api_key = options.get("apiKey", UNDEFINED)
    if not js_truthy(api_key):
        raise missing_key_error(model)
    return js_to_string(api_key)


def cache_retention(options: Mapping[str, Any]) -> Any:
    """The option when set (truthy); else ``long`` only where ``PI_CACHE_RETENTION=long``; else unset (the
    backend's default applies)."""
    value = options.get("cacheRetention", UNDEFINED)
    if js_truthy(value):
        return value
    return "long" if provider_env("PI_CACHE_RETENTION", options) == "long" else UNDEFINED


def request_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The payload's ``options``: the six request options the request sets (null is kept, as JSON keeps it)."""
    values = {
        "temperature": options.get("temperature", UNDEFINED),
        "maxTokens": options.get("maxTokens", UNDEFINED),
        "reasoning": options.get("reasoning", UNDEFINED),
        "cacheRetention": cache_retention(options),
        "sessionId": options.get("sessionId", UNDEFINED),
        "toolChoice": options.get("toolChoice", UNDEFINED),
    }
    return {name: values[name] for name in OPTION_ORDER if values[name] is not UNDEFINED}


def build_payload(model: Model, context: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """``{model, context: {messages}, options}`` as pi-ai hands it to ``onPayload``."""
    require_key(model, options)
    stored = context.get(AS_STORED, context.get("messages"))
    transcript = normalize_context({**context, "messages": stored if stored is not None else []})
    return {
        "model": model.get("id"),
        "context": {"messages": transcript},
        "options": request_options(options),
    }


# --- in parts (see pi_tools.providers.split) -------------------------------------------------------------------
#
# The messages are sent as given, one item each: a part's items are its messages, and nothing crosses a cut.


def build_history(model: Model, context: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[list[Any],
                                                                                             dict[str, str], None]:
    """The items of a part of the transcript before its last (its messages as given; the leading system message,
    made of the context's systemPrompt and tools, opens the last part), no renamed tool-call ids and no carry."""
    require_key(model, options)
    return list(context.get("messages") or []), {}, None


def build_tail(model: Model, context: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[dict[str, Any], None,
                                                                                           int]:
    """The payload of the transcript's last part, no carry, and how many items its list opens with that the
    leading system message made (one where the context has a systemPrompt or tools)."""
    payload = build_payload(model, context, options)
    return payload, None, len(payload["context"]["messages"]) - len(context.get("messages") or [])
