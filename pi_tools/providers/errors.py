"""Errors raised while turning a context into a provider request.

Pi reports a payload it cannot build as a failed assistant message whose ``errorMessage`` is the thrown text;
keeping that text verbatim in the exception lets callers reproduce the same settled message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from pi_tools.js.errors import JsJsonError, JsRangeError, JsTypeError
from pi_tools.js.values import UNDEFINED, js_to_string

PayloadBuilder = Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], dict[str, Any]]


class PayloadError(Exception):
    """Pi would refuse to build this request; ``str(error)`` is the reference's error text."""


#: What JavaScript semantics raise while an adapter reads malformed stored data (V8's ``TypeError`` and
#: ``SyntaxError`` texts); the registry reports them as the :class:`PayloadError` Pi's throw amounts to.
JS_FAILURES: tuple[type[Exception], ...] = (JsTypeError, JsJsonError, JsRangeError)


def missing_api_key(model: Mapping[str, Any]) -> PayloadError:
    """The error every adapter throws when a request has no credentials (the provider printed as JS would)."""
    return PayloadError(f"No API key for provider: {js_to_string(model.get('provider', UNDEFINED))}")


def require_api_key(model: Mapping[str, Any], options: Mapping[str, Any]) -> str:
    """``options.apiKey`` for adapters that accept nothing else, failing the request as Pi does without one."""
    api_key = options.get("apiKey")
    if not api_key:
        raise missing_api_key(model)
    return str(api_key)


class UnknownModelError(KeyError):
    """A provider/model pair that is not in the bundled pi-ai catalog.

    A ``KeyError`` subclass so dictionary-style lookups can catch it, but with a readable message instead of the
    quoted key ``KeyError`` normally shows.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def malformed_input_guard(build: PayloadBuilder) -> PayloadBuilder:
    """Report Python type errors on malformed stored data as ``PayloadError``.

    Where a message has the wrong shape (a number where text belongs, say), Pi's JavaScript throws a TypeError and
    the request fails; this keeps that outcome (a failed request, not a crash), though not V8's exact wording.
    """

    @functools.wraps(build)
    def guarded(model: dict[str, Any], context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        try:
            return build(model, context, options)
        except (TypeError, AttributeError) as error:
            raise PayloadError(f"TypeError: {error}") from error

    return guarded
