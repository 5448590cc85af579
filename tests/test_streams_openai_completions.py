"""openai-completions stream decoding against the reference's stream goldens (fixtures/streams)."""

from __future__ import annotations

import pytest
from test_streams_common import assert_case, stream_case_names

API = "openai-completions"

# case → why Pi's result cannot be reproduced (each is an xfail(strict) parametrization).
KNOWN_DIFFERENCES: dict[str, str] = {}


def _params() -> list[object]:
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENCES[name]))
        if name in KNOWN_DIFFERENCES
        else name
        for name in stream_case_names(API)
    ]


@pytest.mark.parametrize("name", _params())
def test_stream_golden(name: str) -> None:
    assert_case(API, name)


def test_every_case_is_collected() -> None:
    assert len(stream_case_names(API)) >= 20
