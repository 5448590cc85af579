"""Trace and span ids derived from the session and entry ids, so that a session traced twice gives the same ids.

Back ends that deduplicate by (trace id, span id) then keep one copy of a session sent twice, and a session that
grew gains only its new spans. The ids are the first bytes of a SHA-256 over a label that names what the span
stands for; OTLP forbids all-zero ids, which a hash gives with negligible odds, and we step past it anyway.
"""

from __future__ import annotations

from hashlib import sha256

_NAMESPACE = b"pi-tools trace\x00"


def trace_id(session_id: str) -> str:
    """The 16-byte trace id of a session, as 32 lowercase hex digits (OTLP JSON spells ids in hex)."""
    return _hex(sha256(_NAMESPACE + session_id.encode("utf-8", "surrogatepass")).digest()[:16])


def span_id(session_id: str, *parts: str) -> str:
    """The 8-byte id of the span named by `parts` (the root, an entry, a tool call) in a session, as 16 hex
    digits."""
    return labelled_span_id("\x00".join((session_id, *parts)).encode("utf-8", "surrogatepass"))


def labelled_span_id(label: bytes) -> str:
    """`span_id` of a label already encoded (the session id and the parts, NUL-separated, in UTF-8 with lone
    surrogates passed): what trace/direct.py builds once per session and extends per span."""
    return _hex(sha256(_NAMESPACE + label).digest()[:8])


def _hex(raw: bytes) -> str:
    text = raw.hex()
    return text if raw.strip(b"\x00") else text[:-1] + "1"
