"""Pi 1.6 openai-codex-responses: every payload and SSE request of the `openai-codex-responses` keys of
../shared/conformance16 (openai-codex/gpt-5.6-sol), reasoning off and on, equal Pi 1.6's goldens, in process from each
golden's own LLM messages and inputs. The oracle signs Codex in with a dummy ChatGPT token (a JWT naming the account
`acct-oracle-dummy`); given the same token, every header (but the oracle's `<volatile>` ones), the URL and the
zstd-compressed body bytes must be Pi's. test_conformance16_payload_cli.py runs the same goldens through the CLI."""

from __future__ import annotations

import base64
import json

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

from support.oracle_path import CONFORMANCE16
from support.payload16_goldens import document, inputs_of, unmasked

PI16 = resolve("1.6")
API = "openai-codex-responses"
VARIANTS = ("payloads", "payloadsReasoning")
DUMMY_TOKEN = ".".join([
    "e30",
    base64.b64encode(json.dumps({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-oracle-dummy"}},
                                separators=(",", ":")).encode()).decode(),
    "c2ln",
])


def _names() -> list[str]:
    if not CONFORMANCE16.is_dir():
        return []
    return sorted(path.stem for path in (CONFORMANCE16 / "expected").glob("*.json"))


def _entries() -> list[tuple[str, str, str]]:
    found = []
    for name in _names():
        doc = document(name)
        for variant in VARIANTS:
            found += [(name, variant, key) for key in doc.get(variant) or {} if key.split("@", 1)[0] == API]
    return found


def test_the_goldens_are_there() -> None:
    if not CONFORMANCE16.is_dir():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    assert {key for _, _, key in _entries()} == {"openai-codex-responses@openai-codex/gpt-5.6-sol"}
    assert len(_entries()) >= 100


@pytest.mark.parametrize(("name", "variant", "key"), _entries())
def test_payload_and_wire_equal_the_golden(name: str, variant: str, key: str) -> None:
    doc = document(name)
    entry = doc[variant][key]
    context, options = inputs_of(doc, entry)
    options["apiKey"] = DUMMY_TOKEN  # a ChatGPT token naming the account, as the oracle passed
    model = find_model(entry["model"], PI16.requests.catalog)
    if "error" in entry:
        with pytest.raises(PayloadError) as failure:
            registry.build_payload(API, model, context, options, PI16.requests)
        assert str(failure.value) == entry["error"]
        return
    payload = registry.build_payload(API, model, context, options, PI16.requests)
    assert payload == entry["payload"]
    assert json.dumps(payload) == json.dumps(entry["payload"])  # key order too
    golden = entry["wire"]
    wire = registry.build_wire(API, model, payload, options, PI16.requests)
    assert (wire["method"], wire["url"]) == (golden["method"], golden["url"])
    assert unmasked(wire["headers"]) == unmasked(golden["headers"])
    assert (wire["bodyBytes"], wire["bodySha256"]) == (golden["bodyBytes"], golden["bodySha256"])
    assert wire["bodyBase64"] == golden["bodyBase64"]
