"""openai-completions under `--pi 1.6`: every payload and wire request of the conformance16 goldens' completions
keys (groq gpt-oss, deepseek-flash, OpenRouter Claude, DeepSeek V4 Pro with its system messages in place), reasoning
off and on, equal what Pi 1.6 built. Skipped without ../shared/conformance16 (support.oracle_path)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

from support.oracle_path import CONFORMANCE16
from support.payload16_goldens import document, inputs_of
from support.payloadcases import assert_same_json

API = "openai-completions"
PI16 = resolve("1.6")


def _params() -> list[Any]:
    if not (CONFORMANCE16 / "expected").is_dir():
        return [pytest.param("", "", "", marks=pytest.mark.skip(reason=f"no Pi 1.6 goldens at {CONFORMANCE16}"))]
    params = []
    for path in sorted((CONFORMANCE16 / "expected").glob("*.json")):
        doc = document(path.stem)
        for variant in ("payloads", "payloadsReasoning"):
            for key in doc.get(variant) or {}:
                if key == API or key.startswith(f"{API}@"):
                    params.append(pytest.param(path.stem, variant, key, id=f"{path.stem}/{variant}/{key}"))
    return params


@pytest.mark.parametrize(("case", "variant", "key"), _params())
def test_payload_and_wire_equal_pi_16(case: str, variant: str, key: str) -> None:
    entry = document(case)[variant][key]
    context, options = inputs_of(document(case), entry)
    model = find_model(entry["model"], PI16.requests.catalog)
    if "error" in entry:
        with pytest.raises(PayloadError) as raised:
            registry.build_payload(API, model, context, options, PI16.requests)
        assert str(raised.value) == entry["error"]
        return
    payload = registry.build_payload(API, model, context, options, PI16.requests)
    assert_same_json(payload, entry["payload"])
    golden = entry["wire"]
    wire = registry.build_wire(API, model, payload, options, PI16.requests)
    assert (wire["method"], wire["url"]) == (golden["method"], golden["url"])
    assert wire["headers"] == {name: value for name, value in golden["headers"].items() if value != "<volatile>"}
    assert_same_json(wire["body"], golden["body"])


def test_every_key_is_covered() -> None:
    if not (CONFORMANCE16 / "expected").is_dir():
        pytest.skip(f"no Pi 1.6 goldens at {CONFORMANCE16}")
    keys = {param.values[2] for param in _params()}
    assert keys == {API, f"{API}@deepseek/deepseek-flash", f"{API}@openrouter/anthropic/claude-sonnet-4.5:batch",
                    f"{API}@deepseek/deepseek-v4-pro"}
