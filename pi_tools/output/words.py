"""Counts in words: "1 compaction", "3 compactions", so that no message says "1 compactions"."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """`count` and the noun that agrees with it (`plural` defaults to `singular` + "s")."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"
