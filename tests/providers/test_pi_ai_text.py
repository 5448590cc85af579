"""pi-ai's text helpers (shortHash, sanitizeSurrogates), checked against values Node produced.

Expected values below were computed once with Node 20 on the reference install (``JSON.stringify`` after
``JSON.parse`` of the same text; ``shortHash`` from pi-ai/dist/utils/hash.js, and ``s.length``).
"""

from __future__ import annotations

import pytest

from pi_tools.providers.hashing import short_hash
from pi_tools.providers.sanitize import sanitize_surrogates

LONG_RESPONSES_ID = "call_" + "Z9" * 230 + "|fc_" + "q" * 200

# (input, shortHash(input), input.length) from Node.
NODE_SHORT_HASH: list[tuple[str, str, int]] = [
    ("", "k4n83c7h0j2b", 0),
    ("a", "m8735310ae7sx", 1),
    ("hello", "1h6qa0qrowduu", 5),
    ("toolu_01ABCdef", "11th46g8nu9yr", 14),
    ("call_abc123|fc_0123456789abcdef0123456789abcdef", "1w1u7h2ee7zdr", 47),
    ("héllo wörld", "1slrdvn1t61j5h", 11),
    ("😀", "13wj7r7usi372", 2),
    ("\ud800x", "pzq1oh1il0kcn", 2),
    ("x\udfff", "e5ox153o6ske", 2),
    ("日本語のテキスト", "19vzchtchqpzh", 8),
    ("a" * 1000, "kli8eammh8ym", 1000),
    (LONG_RESPONSES_ID, "12qmyts1c0bdp6", 669),
    ("toolcall:0", "1nlso9v7di2pi", 10),
    ("toolcall:17:3", "1jn090o1amvsw4", 13),
]

@pytest.mark.parametrize(("text", "expected_hash", "_length"), NODE_SHORT_HASH)
def test_short_hash_matches_node(text: str, expected_hash: str, _length: int) -> None:
    assert short_hash(text) == expected_hash


@pytest.mark.parametrize("number", [0, 1, 35, 36, 1295, 1296, 46655, 46656, 36**6 - 1, 36**6, 2**32 - 1])
def test_short_hash_prints_base36_as_number_to_string(number: int) -> None:
    """(number).toString(36): digits with no leading zeros, read back by int(text, 36)."""
    from pi_tools.providers.hashing import _base36

    text = _base36(number)
    assert int(text, 36) == number and (text == "0" or not text.startswith("0"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("Hello 🙈 World", "Hello 🙈 World"),
        ("Text \ud83d here", "Text  here"),
        ("\udc00start", "start"),
        ("end\ud800", "end"),
        ("\ud83d\ude00", "😀"),
        ("a\udc00\ud800b", "ab"),
    ],
)
def test_sanitize_surrogates(text: str, expected: str) -> None:
    assert sanitize_surrogates(text) == expected


# (id, id.replace(/[^a-zA-Z0-9_-]/g, "_"), id.replace(/[^a-zA-Z0-9]/g, "")) from Node: the ids that str methods
# answer without the regex (letters, digits, _ and -) and those that still need it (non-ASCII letters and digits,
# which Python's isalnum accepts and the JS classes do not).
NODE_ID_REPLACEMENTS: list[tuple[str, str, str]] = [
    ("toolu_01-AB", "toolu_01-AB", "toolu01AB"), ("call|fc_x", "call_fc_x", "callfcx"), ("é", "_", ""),
    ("😀", "__", ""), ("٣", "_", ""), ("x²", "x_", "x"), ("", "", ""), ("a b\n", "a_b_", "ab"), ("__-", "__-", ""),
]


@pytest.mark.parametrize(("text", "sanitized", "_alphanumerics"), NODE_ID_REPLACEMENTS)
def test_sanitize_id_chars_matches_node(text: str, sanitized: str, _alphanumerics: str) -> None:
    from pi_tools.providers.sanitize import sanitize_id_chars

    assert sanitize_id_chars(text) == sanitized


@pytest.mark.parametrize(("text", "_sanitized", "alphanumerics"), NODE_ID_REPLACEMENTS)
def test_mistral_alphanumerics_match_node(text: str, _sanitized: str, alphanumerics: str) -> None:
    from pi_tools.providers.mistral_conversations.payload import _alphanumerics

    assert _alphanumerics(text) == alphanumerics
