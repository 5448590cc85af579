"""Anthropic Messages stream decoding against the reference's stream goldens (fixtures/streams)."""

from __future__ import annotations

import pytest

from support.streamcases import assert_case, stream_case_names, stream_case_params

API = "anthropic-messages"

# case → why Pi's result cannot be reproduced (each is an xfail(strict) parametrization).
KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("name", stream_case_params(API, KNOWN_DIFFERENCES))
def test_stream_golden(name: str) -> None:
    assert_case(API, name)


def test_every_case_is_collected() -> None:
    assert len(stream_case_names(API)) >= 40
