"""The ten real damaged sessions: every payload and wire body Pi 0.85 built for them (11 model variants, reasoning
off and on), compared as digests of the reference oracle's output (fixtures/realworld/expected)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_tools.messages import convert_to_llm
from pi_tools.pipe.documents import dumps_document
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError
from pi_tools.session import build_session_context, load_session

from support.golden import REALWORLD, canonical_sha, realworld_digest, realworld_names


def _cases() -> list[tuple[str, str, str]]:
    cases = []
    for name in realworld_names():
        digest = realworld_digest(name)
        for variant in ("payloads", "payloadsReasoning"):
            for key in digest.get(variant) or {}:
                cases.append((name, variant, key))
    return cases


def as_json(value: Any) -> Any:
    return json.loads(dumps_document(value))


@pytest.fixture(scope="module")
def llm_messages() -> dict[str, list[Any]]:
    return {
        name: convert_to_llm(build_session_context(load_session(str(REALWORLD / f"{name}.jsonl"))).messages)
        for name in realworld_names()
        if "error" not in realworld_digest(name)
    }


@pytest.mark.parametrize(("name", "variant", "key"), _cases())
def test_realworld_payload_matches_reference(name: str, variant: str, key: str,
                                             llm_messages: dict[str, list[Any]]) -> None:
    digest = realworld_digest(name)
    entry = digest[variant][key]
    inputs = digest["inputs"]
    api = key.split("@", 1)[0]
    model = find_model(entry["model"])
    context = {"systemPrompt": inputs["systemPrompt"], "messages": llm_messages[name], "tools": inputs["tools"]}
    options = dict(inputs["streamOptions"])
    if entry["reasoning"] is not None:
        options["reasoning"] = entry["reasoning"]
    if "error" in entry:
        with pytest.raises(PayloadError):
            registry.build_payload(api, model, context, options)
        return
    payload = registry.build_payload(api, model, context, options)
    assert canonical_sha(as_json(payload)) == entry["payload"]
    wire = entry.get("wire")
    if wire is None:
        return
    if "error" in wire:
        with pytest.raises(PayloadError):
            registry.build_wire(api, model, payload, options)
        return
    built = registry.build_wire(api, model, payload, options)
    assert (built["method"], built["url"]) == (wire["method"], wire["url"])
    assert canonical_sha(as_json(built["body"])) == wire["body"]
