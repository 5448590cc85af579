"""Pi 1.6: every bedrock-converse-stream payload and wire request of ../shared/conformance16's goldens (its keys: the API's
representative model and its model variants), reasoning off and on, equals what pi-tools builds under `--pi 1.6`
(skipped without the goldens)."""

from __future__ import annotations

import pytest

from support.oracle_path import CONFORMANCE16
from support.payload16_goldens import assert_matches, cases

CASES = cases(("bedrock-converse-stream",))


@pytest.mark.skipif(not CONFORMANCE16.is_dir(), reason=f"no Pi 1.6 conformance set at {CONFORMANCE16}")
def test_the_goldens_are_there() -> None:
    assert len(CASES) >= 100


@pytest.mark.parametrize(("case", "variant", "key"), CASES)
def test_payload_and_wire_match_the_golden(case: str, variant: str, key: str) -> None:
    assert_matches(case, variant, key)
