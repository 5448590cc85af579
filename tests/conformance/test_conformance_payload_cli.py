"""End to end from session files: `pi-tools payload --wire` gives, for every conformance case and every model
variant, the payload and HTTP request Pi 0.85 built (or Pi's failure as an error document).

The CLI is run once per (model variant, reasoning variant, tools, reasoning source) group of cases, so the whole
corpus costs a few dozen processes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from support.golden import case_names, expected

TELEMETRY_PREFIXES = ("user-agent", "x-stainless-", "x-amz-user-agent", "amz-sdk-", "x-goog-api-client")


def _variants() -> list[tuple[str, str]]:
    keys: set[tuple[str, str]] = set()
    for name in case_names():
        doc = expected(name)
        for variant in ("payloads", "payloadsReasoning"):
            for key in doc.get(variant) or {}:
                keys.add((variant, key))
    return sorted(keys)


def comparable_headers(headers: dict[str, str]) -> dict[str, str]:
    return {
        k: v for k, v in headers.items()
        if not k.startswith(TELEMETRY_PREFIXES) and v != "<volatile>"
    }


@pytest.mark.parametrize(("variant", "key"), _variants())
def test_cli_payloads_match_reference(cli: Any, tmp_path: Path, variant: str, key: str) -> None:
    groups: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
    model_ref = ""
    for name in case_names():
        doc = expected(name)
        entry = (doc.get(variant) or {}).get(key)
        if entry is None:
            continue
        model_ref = entry["model"]
        inputs = doc["inputs"]
        tools_file = None
        if inputs["tools"] is not None:
            tools_file = str(tmp_path / "tools.json")
            Path(tools_file).write_text(json.dumps(inputs["tools"]))
        reasoning = "off" if variant == "payloads" else (
            None if inputs["reasoningRequestedFrom"] == "session" else inputs["reasoningRequested"]
        )
        assert inputs["systemPrompt"] == "You are a helpful assistant."
        groups[(tools_file, reasoning)].append(name)
    api = key.split("@", 1)[0]
    checked = 0
    for (tools_file, reasoning), names in groups.items():
        args = ["payload", "--api", api, "--model", model_ref, "--wire", "--system-prompt", "You are a helpful assistant."]
        if tools_file:
            args += ["--tools", tools_file]
        if reasoning:
            args += ["--reasoning", reasoning]
        run = cli(*args, *(f"fixtures/conformance/cases/{n}.jsonl" for n in names))
        documents = run.documents()
        assert len(documents) == len(names), run.stderr
        for name, document in zip(names, documents, strict=True):
            entry = expected(name)[variant][key]
            if "error" in entry:
                assert document["kind"] == "error", (name, document.get("kind"))
                continue
            assert document["kind"] == "payload", (name, document)
            assert document["model"] == entry["model"]
            assert document["payload"] == entry["payload"], name
            wire, golden_wire = document["wire"], entry["wire"]
            if "error" in golden_wire:
                assert "error" in wire, name
            else:
                assert (wire["method"], wire["url"], wire["body"]) == (
                    golden_wire["method"], golden_wire["url"], golden_wire["body"]), name
                assert comparable_headers(wire["headers"]) == comparable_headers(golden_wire["headers"]), name
            checked += 1
    assert checked > 0 or all("error" in expected(n)[variant][key] for g in groups.values() for n in g)
