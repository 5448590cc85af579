"""session.reader.strictly_utf8 checks the file in pieces (ASCII pieces skipped): it must agree with decoding
the whole file, wherever a sequence or a stray byte falls against the pieces' edges."""

from __future__ import annotations

import random

from pi_tools.session.reader import strictly_utf8

_ALPHABET = [b"a", b"\n", b"{", "é".encode(), "😀".encode(), "中".encode(), b"\x80", b"\xbf", b"\xc3", b"\xe4\xb8",
             b"\xf0\x9f\x98", b"\xff", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"]


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_agrees_with_a_whole_decode_at_every_piece_size() -> None:
    rng = random.Random(11)
    for _ in range(20000):
        data = b"".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 40)))
        assert strictly_utf8(data, rng.randint(1, 9)) == _decodes(data), data


def test_long_text_with_sequences_across_the_default_pieces() -> None:
    text = ("x" * 4093 + "😀" + "y" * 5000 + "é").encode()
    assert strictly_utf8(text)
    assert not strictly_utf8(text[:4095] + text[4096:])  # a four-byte sequence cut short at a piece's edge
    assert not strictly_utf8(b"a" * 8192 + b"\xc3")
