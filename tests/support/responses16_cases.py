"""What pi-ai 1.6 itself built for Responses corners (tests/data/openai_responses/synthetic16_cases.json, written by
gen_synthetic16.mjs beside it), and the check that pi-tools' 1.6 edition builds the same payload and request."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

PI16 = resolve("1.6")
DATA = Path(__file__).resolve().parents[1] / "data" / "openai_responses" / "synthetic16_cases.json"


@cache
def cases() -> dict[str, dict[str, Any]]:
    with open(DATA, encoding="utf-8") as fh:
        return {case["name"]: case for case in json.load(fh)}


def model_of(case: dict[str, Any]) -> dict[str, Any]:
    return {**find_model(case["model"], PI16.requests.catalog), **(case.get("modelOverrides") or {})}


def names_for(api: str) -> list[str]:
    return sorted(name for name, case in cases().items() if model_of(case)["api"] == api)


def check_case(case: dict[str, Any]) -> None:
    """Payload (key order included) and HTTP request (method, URL, every header, body) equal pi-ai's, or the
    same failure."""
    model = model_of(case)
    api = model["api"]
    if "error" in case:
        with pytest.raises(PayloadError) as failure:
            registry.build_payload(api, model, case["context"], case["options"], PI16.requests)
        assert str(failure.value) == case["error"]
        return
    payload = registry.build_payload(api, model, case["context"], case["options"], PI16.requests)
    assert json.dumps(payload) == json.dumps(case["payload"])
    wire = registry.build_wire(api, model, payload, case["options"], PI16.requests)
    assert {key: wire[key] for key in ("method", "url", "headers")} == {
        key: case["wire"][key] for key in ("method", "url", "headers")}
    assert json.dumps(wire["body"]) == json.dumps(case["wire"]["body"])
