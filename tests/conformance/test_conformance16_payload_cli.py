"""End to end from session files: `pi-tools payload --pi 1.6 --wire` gives, for every ../shared/conformance16 case
and every payload key, the payload and HTTP request Pi 1.6 built (or Pi's failure as an error document).

A session that records its own prompt and tools (system messages) is run without --system-prompt/--tools, as the
goldens were made; the others get the fixed prompt and tools, as 0.85's goldens. Keys of an API pi-tools does not
build for 1.6 yet are skipped, naming the API (tests/cli/test_pi_option.py checks the refusal itself).
The oracle signs Codex in with a dummy ChatGPT token; the CLI has none, and its offline credential names the account
`<account-id>` in the `chatgpt-account-id` header: everything else is compared as recorded.
The CLI runs once per (key, reasoning variant, inputs) group of cases.
"""

from __future__ import annotations

import base64
import json
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers.openai_codex_responses.payload import OFFLINE_ACCOUNT_ID
from pi_tools.providers.registry import builds

from support.oracle_path import CONFORMANCE16

EDITION = resolve("1.6").requests


def _names() -> list[str]:
    if not CONFORMANCE16.is_dir():
        return []
    return sorted(p.stem for p in (CONFORMANCE16 / "cases").glob("*.jsonl")
                  if (CONFORMANCE16 / "expected" / f"{p.stem}.json").exists())


@cache
def _expected(name: str) -> dict[str, Any]:
    with open(CONFORMANCE16 / "expected" / f"{name}.json", encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result


def _keys() -> list[tuple[str, str]]:
    keys = {(variant, key) for name in _names() for variant in ("payloads", "payloadsReasoning")
            for key in _expected(name).get(variant) or {}}
    return sorted(keys) or [("payloads", "none")]


def _comparable(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if value != "<volatile>"}


def _as_offline(headers: dict[str, str]) -> dict[str, str]:
    """A golden's headers as the CLI's offline credential gives them (Codex's account: the placeholder's)."""
    if "chatgpt-account-id" not in headers:
        return headers
    return {**headers, "chatgpt-account-id": OFFLINE_ACCOUNT_ID}


@pytest.mark.parametrize(("variant", "key"), _keys())
def test_cli_payloads_match_pi16(cli: Any, tmp_path: Path, variant: str, key: str) -> None:
    if not CONFORMANCE16.is_dir():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    api = key.split("@", 1)[0]
    if not builds(api, EDITION):
        pytest.skip(f"pi-tools does not build {api} requests for Pi 1.6 yet")
    groups: dict[tuple[str | None, str | None, bool], list[str]] = defaultdict(list)
    model_ref = ""
    for name in _names():
        doc = _expected(name)
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
            None if inputs["reasoningRequestedFrom"] == "session" else inputs["reasoningRequested"])
        groups[(tools_file, reasoning, inputs["systemPrompt"] is not None)].append(name)
    checked = 0
    for (tools_file, reasoning, prompted), names in groups.items():
        args = ["payload", "--pi", "1.6", "--api", api, "--model", model_ref, "--wire"]
        if prompted:
            args += ["--system-prompt", "You are a helpful assistant."]
        if tools_file:
            args += ["--tools", tools_file]
        if reasoning:
            args += ["--reasoning", reasoning]
        run = cli(*args, *(str(CONFORMANCE16 / "cases" / f"{n}.jsonl") for n in names))
        documents = run.documents()
        assert len(documents) == len(names), run.stderr
        for name, document in zip(names, documents, strict=True):
            entry = _expected(name)[variant][key]
            if "error" in entry:
                assert (document["kind"], document.get("error")) == ("error", entry["error"]), name
                continue
            assert document["kind"] == "payload", (name, document)
            assert (document["pi"], document["model"]) == ("1.6", entry["model"])
            assert document["payload"] == entry["payload"], name
            wire, golden = document["wire"], entry["wire"]
            if "error" in golden:
                assert wire.get("error") == golden["error"], name
                continue
            assert (wire["method"], wire["url"]) == (golden["method"], golden["url"]), name
            assert _comparable(wire["headers"]) == _comparable(_as_offline(golden["headers"])), name
            if "bodyBase64" in golden:
                assert wire["body"] == _decoded(golden["bodyBase64"]), name
            else:
                assert wire["body"] == golden["body"], name
            checked += 1
    assert checked > 0 or all("error" in _expected(n)[variant][key] for g in groups.values() for n in g)


def _decoded(body: str) -> Any:
    """A compressed golden body (Codex: zstd) as the JSON it carries."""
    import zstandard

    return json.loads(zstandard.ZstdDecompressor().decompressobj().decompress(base64.b64decode(body)))
