"""hashing.short_hashes: many ids hashed at once, in 64-bit lanes of one integer, must equal short_hash of each."""

from __future__ import annotations

import random
import string

from pi_tools.providers.hashing import _base36, _base36_all, short_hash, short_hashes


def test_bulk_hashes_equal_one_by_one() -> None:
    rng = random.Random(13)
    alphabet = string.ascii_letters + string.digits + "_-:\x00\x7f"
    for _ in range(60):
        texts = []
        for _ in range(rng.randint(0, 300)):
            length = rng.choice([0, 1, 9, 24, 30, 39, rng.randint(0, 90)])
            text = "".join(rng.choice(alphabet) for _ in range(length))
            texts.append(text + ("é😀" if rng.random() < 0.05 else ""))
        assert short_hashes(texts) == [short_hash(text) for text in texts]


def test_large_groups_of_one_length() -> None:
    """What a long conversation holds: thousands of ids of the same shape (and a few of others)."""
    rng = random.Random(7)
    ids = ["toolu_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24))
           for _ in range(5000)] + ["call_1", "call_2", "x" * 200]
    assert short_hashes(ids) == [short_hash(text) for text in ids]
    assert short_hashes([]) == []


def test_base36_of_every_range() -> None:
    rng = random.Random(3)
    edges = [0, 1, 35, 36, 1295, 1296, 46655, 46656, 46657, 46656 ** 2 - 1, 46656 ** 2, 36 ** 6 - 1, 36 ** 6,
             36 ** 6 + 1, 2 ** 32 - 1]
    numbers = edges + [rng.randrange(2 ** 32) for _ in range(20000)]
    lanes = memoryview(b"".join(n.to_bytes(8, "little") for n in numbers)).cast("Q")
    assert _base36_all(lanes) == [_base36(n) for n in numbers]
