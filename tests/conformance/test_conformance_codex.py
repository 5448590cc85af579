"""openai-codex-responses against Pi 0.85's own requests: fixtures/conformance/expected-codex/NAME.json is what Pi
built for each conformance case with model openai-codex/gpt-5.5, reasoning off and on (the payload handed to
onPayload, and the SSE request with its zstd-compressed body).

The reference signed in with a dummy ChatGPT token (a JWT naming the account ``acct-oracle-dummy``); the
library is given the same token and must give every header, the URL and the compressed bytes exactly. The CLI,
which has no token, names the account ``<account-id>`` and must give everything else exactly.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model

from support.golden import CASES, CONFORMANCE

API = "openai-codex-responses"
EXPECTED_CODEX = CONFORMANCE / "expected-codex"
DUMMY_TOKEN = ".".join([
    "e30",
    base64.b64encode(json.dumps({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-oracle-dummy"}},
                                separators=(",", ":")).encode()).decode(),
    "c2ln",
])
"""The oracle's token: header ``{}``, claims naming the dummy account, signature ``sig``."""
VARIANTS = ("payloads", "payloadsReasoning")


def case_names() -> list[str]:
    return sorted(p.stem for p in CASES.glob("*.jsonl") if (EXPECTED_CODEX / f"{p.stem}.json").exists())


@cache
def expected(name: str) -> dict[str, Any]:
    with open(EXPECTED_CODEX / f"{name}.json", encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result


def entries() -> Iterator[tuple[str, str, str]]:
    for name in case_names():
        for variant in VARIANTS:
            for key in expected(name).get(variant) or {}:
                yield name, variant, key


def _build(name: str, variant: str, key: str) -> tuple[dict[str, Any], dict[str, Any] | str]:
    """(golden entry, what pi-tools builds: the payload, or the error text)."""
    doc = expected(name)
    entry = doc[variant][key]
    inputs = doc["inputs"]
    options: dict[str, Any] = {**inputs["streamOptions"], "apiKey": DUMMY_TOKEN}
    if entry.get("reasoning"):
        options["reasoning"] = entry["reasoning"]
    context: dict[str, Any] = {"systemPrompt": inputs["systemPrompt"], "messages": doc["llm"]}
    if inputs["tools"] is not None:
        context["tools"] = inputs["tools"]
    model = find_model(entry["model"])
    try:
        return entry, registry.build_payload(API, model, context, options)
    except Exception as error:  # noqa: BLE001 - the error text is compared with Pi's
        return entry, str(error)


def _options(name: str) -> dict[str, Any]:
    return {**expected(name)["inputs"]["streamOptions"], "apiKey": DUMMY_TOKEN}


def test_there_are_goldens_for_both_reasoning_settings() -> None:
    found = {variant for _, variant, _ in entries()}
    assert found == set(VARIANTS)
    assert len(case_names()) >= 49


@pytest.mark.parametrize(("name", "variant", "key"), list(entries()))
def test_payload_matches_pi(name: str, variant: str, key: str) -> None:
    entry, built = _build(name, variant, key)
    if "error" in entry:
        assert built == entry["error"]
        return
    assert built == entry["payload"]


def _zstd_is_nodes() -> bool:
    import zstandard

    return tuple(zstandard.ZSTD_VERSION) == (1, 5, 7)


@pytest.mark.parametrize(("name", "variant", "key"), list(entries()))
def test_wire_matches_pi(name: str, variant: str, key: str) -> None:
    import zstandard

    entry, built = _build(name, variant, key)
    if "wire" not in entry:
        return
    assert isinstance(built, dict)
    wire = registry.build_wire(API, find_model(entry["model"]), built, _options(name))
    golden = entry["wire"]
    assert (wire["method"], wire["url"], wire["headers"]) == (golden["method"], golden["url"], golden["headers"])
    sent = base64.b64decode(wire["bodyBase64"])
    assert (len(sent), hashlib.sha256(sent).hexdigest()) == (wire["bodyBytes"], wire["bodySha256"])
    assert json.loads(zstandard.ZstdDecompressor().decompress(sent)) == wire["body"] == entry["payload"]
    pis = base64.b64decode(golden["bodyBase64"])
    assert zstandard.ZstdDecompressor().decompress(sent) == zstandard.ZstdDecompressor().decompress(pis)
    if _zstd_is_nodes():  # another libzstd may choose other bytes for the same frame
        assert (wire["bodyBytes"], wire["bodySha256"], wire["bodyBase64"]) == (
            golden["bodyBytes"], golden["bodySha256"], golden["bodyBase64"])


@pytest.mark.parametrize("variant", VARIANTS)
def test_cli_payload_and_wire_match_pi(cli: Any, tmp_path: Path, variant: str) -> None:
    """`pi-tools payload --api openai-codex-responses --wire` on every case, grouped into few processes."""
    groups: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
    for name in case_names():
        doc = expected(name)
        if variant not in doc:
            continue
        inputs = doc["inputs"]
        tools_file = None
        if inputs["tools"] is not None:
            tools_file = str(tmp_path / "tools.json")
            Path(tools_file).write_text(json.dumps(inputs["tools"]))
        reasoning = "off" if variant == "payloads" else (
            None if inputs["reasoningRequestedFrom"] == "session" else inputs["reasoningRequested"])
        groups[(tools_file, reasoning)].append(name)
    checked = 0
    for (tools_file, reasoning), names in groups.items():
        args = ["payload", "--api", API, "--model", "openai-codex/gpt-5.5", "--wire",
                "--system-prompt", "You are a helpful assistant."]
        if tools_file:
            args += ["--tools", tools_file]
        if reasoning:
            args += ["--reasoning", reasoning]
        run = cli(*args, *(str(CASES / f"{name}.jsonl") for name in names))
        documents = run.documents()
        assert len(documents) == len(names), run.stderr
        for name, document in zip(names, documents, strict=True):
            entry = expected(name)[variant][f"{API}@openai-codex/gpt-5.5"]
            assert document["kind"] == "payload", (name, document)
            assert document["payload"] == entry["payload"], name
            wire, golden = document["wire"], entry["wire"]
            assert wire["headers"]["chatgpt-account-id"] == "<account-id>"
            headers = {**wire["headers"], "chatgpt-account-id": golden["headers"]["chatgpt-account-id"]}
            assert (wire["method"], wire["url"], headers) == (golden["method"], golden["url"], golden["headers"])
            assert wire["body"] == entry["payload"]
            if _zstd_is_nodes():
                assert (wire["bodyBytes"], wire["bodySha256"]) == (golden["bodyBytes"], golden["bodySha256"]), name
            checked += 1
    assert checked >= 49
