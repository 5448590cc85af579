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

ROOT = Path(__file__).resolve().parent.parent
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
