"""Pi 1.6's pi-messages requests (`pi-messages@radius/balanced`) equal the goldens of ../shared/conformance16: the
payload Pi hands onPayload and the HTTP request (method, URL, headers but the masked ones, body), reasoning off
and on, for every case. Skipped without the goldens (support.oracle_path)."""

from __future__ import annotations

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model

from support.oracle_path import CONFORMANCE16
from support.payload16_goldens import document, inputs_of

PI16 = resolve("1.6")
PREFIX = "pi-messages"
EXPECTED = CONFORMANCE16 / "expected"


def _keys() -> list[tuple[str, str, str]]:
    if not EXPECTED.is_dir():
        return []
    found = []
    for path in sorted(EXPECTED.glob("*.json")):
        doc = document(path.stem)
        for variant in ("payloads", "payloadsReasoning"):
            found.extend((path.stem, variant, key) for key in doc.get(variant) or {} if key.startswith(PREFIX))
    return found


KEYS = _keys()


@pytest.mark.skipif(not EXPECTED.is_dir(), reason=f"no Pi 1.6 goldens at {CONFORMANCE16}")
def test_the_goldens_hold_pi_messages_keys() -> None:
    assert len(KEYS) >= 100


@pytest.mark.parametrize(("case", "variant", "key"), KEYS, ids=["/".join(k) for k in KEYS])
def test_payload_and_wire_equal_pi_16(case: str, variant: str, key: str) -> None:
    doc = document(case)
    entry = doc[variant][key]
    api = key.split("@", 1)[0]
    context, options = inputs_of(doc, entry)
    model = find_model(entry["model"], PI16.requests.catalog)
    payload = registry.build_payload(api, model, context, options, PI16.requests)
    assert js_stringify(payload) == js_stringify(entry["payload"])
    golden = entry["wire"]
    wire = registry.build_wire(api, model, payload, options, PI16.requests)
    assert (wire["method"], wire["url"]) == (golden["method"], golden["url"])
    masked = {name for name, value in golden["headers"].items() if value == "<volatile>"}
    assert {k: v for k, v in wire["headers"].items() if k not in masked} == \
        {k: v for k, v in golden["headers"].items() if k not in masked}
    assert js_stringify(wire["body"]) == js_stringify(golden["body"])
