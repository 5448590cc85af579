"""Pi 1.6 openai-codex-responses corners, against what pi-ai 1.6 itself built:

- tests/data/codex16/codex_native.json: the 1.6 oracle's document for codex_native.jsonl (beside it), a session of
  Codex replies that recorded their thinking level (``configuration_update`` items before them on GPT-6 models),
  in-place system messages adding and removing tools (``additional_tools`` items and their notices), a Claude reply
  (thinking dropped), on GPT-6 Luna, GPT-6 Astra (thinking off maps to null: no ``reasoning``) and GPT-5.6 Luna,
  payload and SSE request (zstd bytes included).
- tests/data/codex16/probe16_cases.json: pi-ai 1.6's ``streamSimple`` on small contexts and options
  (probe16.mjs, cases16.json): the caller's headers over ``originator`` and the User-Agent (null removes one), the
  session headers and ``prompt_cache_key`` (none with retention ``none``), collapsed system messages with top-level
  tools, ``supportsMaxOutputTokens: false``, mapped efforts, thinking off on models without an off level."""

from __future__ import annotations

import base64
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.credentials import OFFLINE_API_KEY
from pi_tools.providers.errors import PayloadError

PI16 = resolve("1.6")
PI085 = resolve("0.85")
API = "openai-codex-responses"
DATA = Path(__file__).resolve().parents[1] / "data" / "codex16"


def token(account: str) -> str:
    claims = json.dumps({"https://api.openai.com/auth": {"chatgpt_account_id": account}}, separators=(",", ":"))
    return ".".join(["e30", base64.b64encode(claims.encode()).decode(), "c2ln"])


@cache
def native() -> dict[str, Any]:
    with open(DATA / "codex_native.json", encoding="utf-8") as fh:
        result: dict[str, Any] = json.load(fh)
    return result


@cache
def probes() -> list[dict[str, Any]]:
    with open(DATA / "probe16_cases.json", encoding="utf-8") as fh:
        result: list[dict[str, Any]] = json.load(fh)
    return result


NATIVE = [(variant, key) for variant in ("payloads", "payloadsReasoning") for key in native()[variant]]


@pytest.mark.parametrize(("variant", "key"), NATIVE)
def test_a_codex_native_session(variant: str, key: str) -> None:
    doc = native()
    entry = doc[variant][key]
    options = {**doc["inputs"]["streamOptions"], "apiKey": token("acct-oracle-dummy")}
    if entry.get("reasoning") is not None:
        options["reasoning"] = entry["reasoning"]
    model = find_model(entry["model"], PI16.requests.catalog)
    payload = registry.build_payload(API, model, {"messages": doc["llm"]}, options, PI16.requests)
    assert json.dumps(payload) == json.dumps(entry["payload"])
    wire = registry.build_wire(API, model, payload, options, PI16.requests)
    golden = entry["wire"]
    assert (wire["url"], wire["headers"]) == (golden["url"], golden["headers"])
    assert (wire["bodyBytes"], wire["bodySha256"], wire["bodyBase64"]) == (
        golden["bodyBytes"], golden["bodySha256"], golden["bodyBase64"])


def test_the_native_session_shows_what_it_is_for() -> None:
    luna = native()["payloads"]["openai-codex-responses@openai-codex/gpt-6-luna"]["payload"]
    kinds = [item.get("type") or item.get("role") for item in luna["input"]]
    assert kinds.count("configuration_update") == 3 and kinds[-1] == "configuration_update"
    assert luna["input"][-1] == {"type": "configuration_update", "reasoning": {"effort": "none"}}
    assert kinds.count("additional_tools") == 2 and "instructions" not in luna and "tools" not in luna
    astra = native()["payloads"]["openai-codex-responses@openai-codex/gpt-6-astra"]["payload"]
    assert "reasoning" not in astra and astra["input"][-1]["role"] == "user"


@pytest.mark.parametrize("index", range(len(probes())), ids=[case["name"] for case in probes()])
def test_pi_ai_16_probe(index: int) -> None:
    case = probes()[index]
    model = {**find_model(f"openai-codex/{case['model']}", PI16.requests.catalog), **case.get("modelPatch", {})}
    options = {"apiKey": token("acct-x"), **case["options"]}
    payload = registry.build_payload(API, model, case["context"], options, PI16.requests)
    assert json.dumps(payload) == json.dumps(case["payload"])
    wire = registry.build_wire(API, model, payload, options, PI16.requests)
    assert wire["headers"] == case["headers"]
    assert wire["url"] == "https://chatgpt.com/backend-api/codex/responses"


def test_the_offline_placeholder_names_a_placeholder_account() -> None:
    case = probes()[1]
    model = find_model(f"openai-codex/{case['model']}", PI16.requests.catalog)
    options = {**case["options"], "apiKey": OFFLINE_API_KEY}
    payload = registry.build_payload(API, model, case["context"], options, PI16.requests)
    assert payload == case["payload"]
    wire = registry.build_wire(API, model, payload, options, PI16.requests)
    assert wire["headers"] == {**case["headers"], "chatgpt-account-id": "<account-id>"}


def test_a_token_without_an_account_fails_as_pi_does() -> None:
    model = find_model("openai-codex/gpt-5.6-sol", PI16.requests.catalog)
    context = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}
    with pytest.raises(PayloadError, match="^Failed to extract accountId from token$"):
        registry.build_payload(API, model, context, {"apiKey": "sk-not-a-jwt"}, PI16.requests)
    with pytest.raises(PayloadError, match="^No API key for provider: openai-codex$"):
        registry.build_payload(API, model, context, {}, PI16.requests)


def test_the_085_adapter_is_unchanged() -> None:
    """Under 0.85 the same context still sends the prompt as `instructions`, with no output limit."""
    model = find_model("openai-codex/gpt-5.5", PI085.requests.catalog)
    context = {"systemPrompt": "P", "messages": [{"role": "user", "content": "hi", "timestamp": 1}]}
    payload = registry.build_payload(API, model, context, {"apiKey": token("a")}, PI085.requests)
    assert payload["instructions"] == "P" and "max_output_tokens" not in payload
