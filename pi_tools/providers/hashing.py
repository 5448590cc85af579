"""pi-ai's short deterministic string hash, used to derive stable tool-call ids.

Ids derived from it end up in request payloads, so the port must agree bit for bit with the JavaScript version,
which hashes UTF-16 code units and does 32-bit wrapping arithmetic.
"""

from __future__ import annotations

from functools import cache

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


_LANE = 8  # bytes per lane: a 32-bit value times a 32-bit constant stays below 2**64, so lanes never carry
_BULK_MINIMUM = 16
"""Below this many strings of one length, hashing them one by one is as fast."""


def short_hashes(texts: list[str]) -> list[str]:
    """``[short_hash(t) for t in texts]``, computed many strings at once.

    ASCII strings of the same length are hashed together, each in a 64-bit lane of one Python integer: an
    xor, a multiply and a mask per character position update every lane at once (the products of 32-bit
    numbers fit their lanes, so no lane disturbs another). A request with tens of thousands of foreign
    tool-call ids is hashed in milliseconds instead of a per-character Python loop per id.
    """
    hashes: list[str | None] = [None] * len(texts)
    by_length: dict[int, list[int]] = {}
    for index, text in enumerate(texts):
        if text.isascii():
            by_length.setdefault(len(text), []).append(index)
        else:
            hashes[index] = short_hash(text)
    for length, indexes in by_length.items():
        if len(indexes) < _BULK_MINIMUM or length == 0:
            for index in indexes:
                hashes[index] = short_hash(texts[index])
            continue
        for index, digest in zip(indexes, _same_length_hashes([texts[i] for i in indexes], length), strict=True):
            hashes[index] = digest
    return hashes  # type: ignore[return-value]  # every slot is filled above


def _same_length_hashes(texts: list[str], length: int) -> list[str]:
    count = len(texts)
    width = count * _LANE
    mask = int.from_bytes(b"\xff\xff\xff\xff\x00\x00\x00\x00" * count, "little")
    ones = int.from_bytes((b"\x01" + b"\x00" * (_LANE - 1)) * count, "little")
    h1 = 0xDEADBEEF * ones
    h2 = 0x41C6CE57 * ones
    joined = "".join(texts).encode("ascii")
    units = bytearray(width)
    for position in range(length):
        units[0::_LANE] = joined[position::length]
        unit = int.from_bytes(units, "little")
        h1 = ((h1 ^ unit) * 2654435761) & mask
        h2 = ((h2 ^ unit) * 1597334677) & mask
    h1 = (((h1 ^ (h1 >> 16) & mask) * 2246822507) & mask) ^ (((h2 ^ (h2 >> 13) & mask) * 3266489909) & mask)
    h2 = (((h2 ^ (h2 >> 16) & mask) * 2246822507) & mask) ^ (((h1 ^ (h1 >> 13) & mask) * 3266489909) & mask)
    lows = memoryview(h1.to_bytes(width, "little")).cast("Q")
    highs = memoryview(h2.to_bytes(width, "little")).cast("Q")
    return [high + low for high, low in zip(_base36_all(highs), _base36_all(lows), strict=True)]


def _base36_all(numbers: memoryview) -> list[str]:
    """_base36 of every 32-bit number, three digits per lookup (36**6 <= n < 2**32 has a seventh digit: 1)."""
    padded, unpadded = _base36_triples()
    numerals: list[str] = []
    append = numerals.append
    for n in numbers:
        if n >= 2176782336:  # 36**6
            middle, low = divmod(n - 2176782336, 46656)
            append("1" + padded[middle] + padded[low])
        elif n >= 46656:
            middle, low = divmod(n, 46656)
            append(unpadded[middle] + padded[low])
        else:
            append(unpadded[n])
    return numerals


@cache
def _base36_triples() -> tuple[list[str], list[str]]:
    """Every three-digit base-36 numeral, zero-padded and not (built on the first bulk hash: a few ms)."""
    padded = [pair + digit for pair in _BASE36_PAIRS for digit in _BASE36]
    return padded, [numeral.lstrip("0") or "0" for numeral in padded]
