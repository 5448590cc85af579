"""Errors raised while turning a context into a provider request.

Pi reports a payload it cannot build as a failed assistant message whose ``errorMessage`` is the thrown text;
keeping that text verbatim in the exception lets callers reproduce the same settled message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.providers.jstext import UNDEFINED, js_string


class PayloadError(Exception):
    """Pi would refuse to build this request; ``str(error)`` is the reference's error text."""


def missing_api_key(model: Mapping[str, Any]) -> PayloadError:
    """The error every adapter throws when a request has no credentials (the provider printed as JS would)."""
    return PayloadError(f"No API key for provider: {js_string(model.get('provider', UNDEFINED))}")


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
