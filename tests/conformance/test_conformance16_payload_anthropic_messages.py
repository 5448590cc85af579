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
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

from support.oracle_path import CONFORMANCE16

API = "anthropic-messages"
EDITION = resolve("1.6").requests
ROOT = Path(__file__).resolve().parents[2]


def _names() -> list[str]:
    folder = CONFORMANCE16 / "expected"
    return sorted(path.stem for path in folder.glob("*.json")) if folder.is_dir() else []


@cache
def _doc(name: str) -> dict[str, Any]:
    with open(CONFORMANCE16 / "expected" / f"{name}.json", encoding="utf-8") as fh:
        doc: dict[str, Any] = json.load(fh)
    return doc


def _params() -> list[tuple[str, str, str]]:
    params = []
    for name in _names():
        doc = _doc(name)
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


def _inputs(doc: dict[str, Any], entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    inputs = doc["inputs"]
    context: dict[str, Any] = {"messages": doc["llm"]}
    if inputs["systemPrompt"] is not None:
        context["systemPrompt"] = inputs["systemPrompt"]
    if inputs["tools"] is not None:
        context["tools"] = inputs["tools"]
    options = dict(inputs["streamOptions"])
    if entry.get("reasoning") is not None:
        options["reasoning"] = entry["reasoning"]
    return context, options


def _comparable(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if value != "<volatile>"}


@pytest.mark.parametrize(("name", "variant", "key"), PARAMS)
def test_payload_and_wire_match_pi16(name: str, variant: str, key: str) -> None:
    doc = _doc(name)
    entry = doc[variant][key]
    context, options = _inputs(doc, entry)
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
    assert _comparable(wire["headers"]) == _comparable(golden["headers"])
    assert js_stringify(wire["body"]) == js_stringify(golden["body"])


def test_the_cli_builds_a_session_with_system_messages_as_pi16() -> None:
    """`pi-tools payload --pi 1.6 --wire` on a session Pi 1.6 wrote (its own system messages and tools), thinking off."""
    name = "gen16_new"
    if not (CONFORMANCE16 / "cases" / f"{name}.jsonl").exists():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    key = f"{API}@anthropic/claude-opus-4-8"
    entry = _doc(name)["payloads"][key]
    run = subprocess.run(
        [sys.executable, "-m", "pi_tools", "payload", "--pi", "1.6", "--api", API, "--model", entry["model"],
         "--reasoning", "off", "--wire", str(CONFORMANCE16 / "cases" / f"{name}.jsonl")],
        capture_output=True, text=True, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout.splitlines()[0])
    assert document["kind"] == "payload", document
    assert document["payload"] == entry["payload"]
    assert document["wire"]["body"] == entry["wire"]["body"]
    assert _comparable(document["wire"]["headers"]) == _comparable(entry["wire"]["headers"])
