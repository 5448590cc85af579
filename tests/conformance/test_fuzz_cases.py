"""A fixed sample of the differential fuzzer's minimised cases (scripts/fuzz_oracle.py): for each damaged
session, pi-tools gives exactly Pi 0.85's answer (header, entries, context, LLM messages, other leaves, every
payload and HTTP request of every model variant with reasoning off and on, or Pi's own error), and never an
internal error or a traceback. Expected documents are the reference oracle's (`oracle --batch ... --wire`).
"""

from __future__ import annotations

import pytest

from support.differential import differences, loads, run_with_big_stack
from support.golden import ROOT

FUZZ = ROOT / "fixtures" / "fuzz"
API = "anthropic-messages"
NAMES = sorted(p.stem for p in (FUZZ / "cases").glob("*.jsonl") if (FUZZ / "expected" / f"{p.stem}.json").exists())


def test_sample_is_vendored() -> None:
    assert len(NAMES) >= 1


@pytest.mark.parametrize("name", NAMES)
def test_fuzz_case_matches_reference(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FUZZ / "cases")
    expected = run_with_big_stack(lambda: loads((FUZZ / "expected" / f"{name}.json").read_bytes()))
    found = run_with_big_stack(lambda: differences(f"{name}.jsonl", expected))
    assert [d.as_json() for d in found] == []


def test_comparison_sees_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison is not vacuous: one changed payload value, or another case's answer, is a difference."""
    monkeypatch.chdir(FUZZ / "cases")
    documents = {name: loads((FUZZ / "expected" / f"{name}.json").read_bytes()) for name in NAMES}
    first = next(name for name, doc in documents.items() if "payload" in doc.get("payloads", {}).get(API, {}))
    own, key = documents[first], API
    own["payloads"][key]["payload"]["fuzz-marker"] = True
    found = run_with_big_stack(lambda: differences(f"{first}.jsonl", own))
    assert [(d.where, d.kind, d.path) for d in found] == [(f"payloads/{key}", "differs", "$.fuzz-marker")]
    if len(NAMES) > 1:
        other = documents[NAMES[-1] if NAMES[-1] != first else NAMES[0]]
        assert run_with_big_stack(lambda: differences(f"{first}.jsonl", other)) != []


def test_cases_stay_small() -> None:
    total = sum(p.stat().st_size for p in FUZZ.rglob("*") if p.is_file())
    assert total < 4 * 1024 * 1024, total
