"""Access to the vendored reference goldens (fixtures/conformance, fixtures/streams).

Shared by every conformance test so that each one iterates the same cases the same way; hidden cases dropped
into these folders are picked up without code changes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "fixtures" / "conformance"
CASES = CONFORMANCE / "cases"
EXPECTED = CONFORMANCE / "expected"
STREAMS = ROOT / "fixtures" / "streams"
REALWORLD = ROOT / "fixtures" / "realworld"


def case_names() -> list[str]:
    """Names of every conformance case that has both a session file and an expected document."""
    return sorted(p.stem for p in CASES.glob("*.jsonl") if (EXPECTED / f"{p.stem}.json").exists())


@cache
def expected(name: str) -> dict[str, Any]:
    """The reference's document for one case (parsed with the stdlib so lone surrogates survive)."""
    with open(EXPECTED / f"{name}.json", encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result


def payload_entries(api_prefix: str) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """Yield (case, variant, key, entry) for every golden payload whose key belongs to an API.

    variant is "payloads" or "payloadsReasoning"; key is the API name or "API@provider/id".
    """
    for name in case_names():
        doc = expected(name)
        for variant in ("payloads", "payloadsReasoning"):
            for key, entry in (doc.get(variant) or {}).items():
                if key == api_prefix or key.startswith(api_prefix + "@"):
                    yield name, variant, key, entry


def _js_numbers(value: Any) -> Any:
    """Integral floats as ints, as JavaScript writes them (1.0 -> 1), so digests ignore the parser's float/int."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_js_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _js_numbers(v) for k, v in value.items()}
    return value


def canonical_sha(value: Any) -> str:
    """SHA-256 of JSON with sorted keys and ASCII escapes: independent of key order, encoder and number style."""
    import hashlib

    text = json.dumps(_js_numbers(value), sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@cache
def realworld_digest(name: str) -> dict[str, Any]:
    """Digest of the reference oracle's document for a real-world session (scripts/digest_oracle.py)."""
    with open(REALWORLD / "expected" / f"{name}.json", encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result


def realworld_names() -> list[str]:
    return sorted(p.stem for p in REALWORLD.glob("*.jsonl"))
