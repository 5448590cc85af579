"""Pi 1.6 openai-responses: every payload and HTTP request of the `openai-responses` keys of ../shared/conformance16
(openai/gpt-5.1, and openai/gpt-5.6-sol, whose tools travel as `additional_tools` items), reasoning off and on,
equal Pi 1.6's goldens: in process from each golden's own LLM messages and inputs, and through `pi-tools payload
--pi 1.6 --wire` from the session files (the offline placeholder credential builds as Pi does for an API key).
Every header is compared (User-Agent and the SDK's x-stainless-* included), but the oracle's `<volatile>` ones."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

from support.oracle_path import CONFORMANCE16
from support.payload16_goldens import document as golden_document
from support.payload16_goldens import inputs_of, unmasked

PI16 = resolve("1.6")
PREFIX = "openai-responses"
VARIANTS = ("payloads", "payloadsReasoning")


def _names() -> list[str]:
    if not CONFORMANCE16.is_dir():
        return []
    return sorted(path.stem for path in (CONFORMANCE16 / "expected").glob("*.json"))


def _entries() -> list[tuple[str, str, str]]:
    found = []
    for name in _names():
        doc = golden_document(name)
        for variant in VARIANTS:
            found += [(name, variant, key) for key in doc.get(variant) or {} if key.startswith(PREFIX)]
    return found


def test_the_goldens_are_there() -> None:
    if not CONFORMANCE16.is_dir():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    keys = {key for _, _, key in _entries()}
    assert keys == {"openai-responses", "openai-responses@openai/gpt-5.6-sol"}
    assert len(_entries()) >= 200


@pytest.mark.parametrize(("name", "variant", "key"), _entries())
def test_payload_and_wire_equal_the_golden(name: str, variant: str, key: str) -> None:
    doc = golden_document(name)
    entry = doc[variant][key]
    api = key.split("@", 1)[0]
    context, options = inputs_of(doc, entry)
    model = find_model(entry["model"], PI16.requests.catalog)
    if "error" in entry:
        with pytest.raises(PayloadError) as failure:
            registry.build_payload(api, model, context, options, PI16.requests)
        assert str(failure.value) == entry["error"]
        return
    payload = registry.build_payload(api, model, context, options, PI16.requests)
    assert payload == entry["payload"]
    assert json.dumps(payload) == json.dumps(entry["payload"])  # key order too
    golden = entry["wire"]
    wire = registry.build_wire(api, model, payload, options, PI16.requests)
    assert (wire["method"], wire["url"]) == (golden["method"], golden["url"])
    assert unmasked(wire["headers"]) == unmasked(golden["headers"])
    assert json.dumps(wire["body"]) == json.dumps(golden["body"])


@pytest.mark.parametrize("key", ["openai-responses", "openai-responses@openai/gpt-5.6-sol"])
def test_cli_builds_the_goldens(cli: Any, tmp_path: Path, key: str) -> None:
    """`pi-tools payload --pi 1.6 --wire` from the session files, reasoning off (one run per tools file)."""
    if not CONFORMANCE16.is_dir():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    groups: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
    for name in _names():
        doc = golden_document(name)
        if key not in (doc.get("payloads") or {}):
            continue
        inputs = doc["inputs"]
        tools_file = None
        if inputs["tools"] is not None:
            tools_file = str(tmp_path / "tools.json")
            Path(tools_file).write_text(json.dumps(inputs["tools"]))
        groups[(inputs["systemPrompt"], tools_file)].append(name)
    model = golden_document(_names()[0])["payloads"][key]["model"]
    checked = 0
    for (system_prompt, tools_file), names in groups.items():
        args = ["payload", "--pi", "1.6", "--api", PREFIX, "--model", model, "--wire", "--reasoning", "off"]
        if system_prompt is not None:
            args += ["--system-prompt", system_prompt]
        if tools_file:
            args += ["--tools", tools_file]
        run = cli(*args, *(str(CONFORMANCE16 / "cases" / f"{name}.jsonl") for name in names))
        documents = run.documents()
        assert len(documents) == len(names), run.stderr
        for name, document in zip(names, documents, strict=True):
            entry = golden_document(name)["payloads"][key]
            if "error" in entry:
                assert (document["kind"], document["error"]) == ("error", entry["error"]), name
                continue
            assert document["kind"] == "payload", (name, document)
            assert document["payload"] == entry["payload"], name
            assert unmasked(document["wire"]["headers"]) == unmasked(entry["wire"]["headers"]), name
            assert document["wire"]["url"] == entry["wire"]["url"]
            checked += 1
    assert checked >= 50
