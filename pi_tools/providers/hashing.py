"""pi-ai's short deterministic string hash, used to derive stable tool-call ids.

Ids derived from it end up in request payloads, so the port must agree bit for bit with the JavaScript version,
which hashes UTF-16 code units and does 32-bit wrapping arithmetic.
"""

from __future__ import annotations

from pi_tools.js.strings import utf16_code_units

_MASK32 = 0xFFFFFFFF
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _imul(a: int, b: int) -> int:
    """32-bit wrapping product, kept unsigned (the low 32 bits are what the later xors and shifts use)."""
    return (a * b) & _MASK32


_BASE36_PAIRS = [high + low for high in _BASE36 for low in _BASE36]
"""Every two-digit base-36 numeral: a 32-bit number is printed in at most four divisions."""


def _base36(n: int) -> str:
    if n < 36:
        return _BASE36[n]
    text = ""
    while n >= 1296:
        n, pair = divmod(n, 1296)
        text = _BASE36_PAIRS[pair] + text
    return (_BASE36_PAIRS[n] if n >= 36 else _BASE36[n]) + text


def short_hash(s: str) -> str:
    """Hash ``s`` exactly like pi-ai's ``shortHash`` (two 32-bit lanes, printed in base 36).

    The per-unit loop is written out with literal constants and ASCII text is read as its bytes: Mistral and
    the OpenAI APIs hash nearly every foreign tool-call id of a conversation."""
    h1 = 0xDEADBEEF
    h2 = 0x41C6CE57
    for unit in s.encode() if s.isascii() else utf16_code_units(s):
        h1 = ((h1 ^ unit) * 2654435761) & 0xFFFFFFFF
        h2 = ((h2 ^ unit) * 1597334677) & 0xFFFFFFFF
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2 & _MASK32) + _base36(h1 & _MASK32)
