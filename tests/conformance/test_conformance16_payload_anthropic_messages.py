"""Pi 1.6's anthropic-messages requests: for every conformance16 case, every anthropic-messages model variant and
both reasoning variants, the payload and the HTTP request (`--wire`) equal what Pi 1.6 built.

The goldens live in ../shared/conformance16 (support.oracle_path; skipped without it). Each request is built from
the golden's own LLM messages and inputs, as `pi-tools payload --pi 1.6` builds it (the 1.6 edition's adapter
and catalog); one case also goes through the CLI end to end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

from support.oracle_path import CONFORMANCE16
from support.payload16_goldens import document as golden_document
from support.payload16_goldens import inputs_of, unmasked

API = "anthropic-messages"
EDITION = resolve("1.6").requests
ROOT = Path(__file__).resolve().parents[2]


def _names() -> list[str]:
    folder = CONFORMANCE16 / "expected"
    return sorted(path.stem for path in folder.glob("*.json")) if folder.is_dir() else []


def _params() -> list[tuple[str, str, str]]:
    params = []
    for name in _names():
        doc = golden_document(name)
        for variant in ("payloads", "payloadsReasoning"):
            for key in doc.get(variant) or {}:
                if key == API or key.startswith(API + "@"):
                    params.append((name, variant, key))
    return params


PARAMS = _params()


def test_the_goldens_are_there() -> None:
    if not CONFORMANCE16.is_dir():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    keys = {key for _, _, key in PARAMS}
    assert keys == {API, f"{API}@anthropic/claude-opus-4-6", f"{API}@anthropic/claude-opus-4-8"}
    assert len(PARAMS) >= 312


@pytest.mark.parametrize(("name", "variant", "key"), PARAMS)
def test_payload_and_wire_match_pi16(name: str, variant: str, key: str) -> None:
    doc = golden_document(name)
    entry = doc[variant][key]
    context, options = inputs_of(doc, entry)
    model = find_model(entry["model"], EDITION.catalog)
    if "error" in entry:
        with pytest.raises(PayloadError) as failure:
            registry.build_payload(API, model, context, options, EDITION)
        assert str(failure.value) == entry["error"]
        return
    payload = registry.build_payload(API, model, context, options, EDITION)
    assert payload == entry["payload"]
    assert js_stringify(payload) == js_stringify(entry["payload"])  # key order included
    golden = entry["wire"]
    wire = registry.build_wire(API, model, payload, options, EDITION)
    assert (wire["method"], wire["url"]) == (golden["method"], golden["url"])
    assert unmasked(wire["headers"]) == unmasked(golden["headers"])
    assert js_stringify(wire["body"]) == js_stringify(golden["body"])


def test_the_cli_builds_a_session_with_system_messages_as_pi16() -> None:
    """`pi-tools payload --pi 1.6 --wire` on a session Pi 1.6 wrote (its own system messages and tools), thinking off."""
    name = "gen16_new"
    if not (CONFORMANCE16 / "cases" / f"{name}.jsonl").exists():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    key = f"{API}@anthropic/claude-opus-4-8"
    entry = golden_document(name)["payloads"][key]
    run = subprocess.run(
        [sys.executable, "-m", "pi_tools", "payload", "--pi", "1.6", "--api", API, "--model", entry["model"],
         "--reasoning", "off", "--wire", str(CONFORMANCE16 / "cases" / f"{name}.jsonl")],
        capture_output=True, text=True, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout.splitlines()[0])
    assert document["kind"] == "payload", document
    assert document["payload"] == entry["payload"]
    assert document["wire"]["body"] == entry["wire"]["body"]
    assert unmasked(document["wire"]["headers"]) == unmasked(entry["wire"]["headers"])
