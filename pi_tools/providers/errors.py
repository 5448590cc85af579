"""Errors raised while turning a context into a provider request.

Pi reports a payload it cannot build as a failed assistant message whose ``errorMessage`` is the thrown text;
keeping that text verbatim in the exception lets callers reproduce the same settled message.
"""

from __future__ import annotations


class PayloadError(Exception):
    """Pi would refuse to build this request; ``str(error)`` is the reference's error text."""


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
