"""Diagnostics: what pi-tools noticed while reading a session that Pi itself passes over in silence.

Each one names the 1-based line of the file it concerns so that a user can go and look. Codes are stable
(tests and the audit stage rely on them).
"""

from __future__ import annotations

from typing import Any, TypedDict

from pi_tools.js.values import UNDEFINED


class Diagnostic(TypedDict, total=False):
    line: int | None
    code: str
    severity: str  # "error" (Pi drops or fails on it) | "warning" (Pi keeps it, but it is suspect) | "info"
    message: str
    entryId: Any


def diagnostic(code: str, message: str, line: int | None, severity: str = "warning", entry_id: Any = None) -> Diagnostic:
    result: Diagnostic = {"line": line, "code": code, "severity": severity, "message": message}
    if entry_id is not None:
        result["entryId"] = entry_id
    return result


def describe_value(value: Any) -> str:
    """A short, type-revealing description of a JSON value (UNDEFINED: a missing key) for messages."""
    if value is UNDEFINED:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return "a list" if isinstance(value, list) else "an object"
