"""pi-messages (Pi 1.6 only): corners of its payload and wire request, checked against Pi 1.6 (the oracle, or
pi-ai's pi-messages.ts where the oracle cannot set the option), and how pi-tools refuses it for Pi 0.85."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

PI16 = resolve("1.6")
PI085 = resolve("0.85")
MODEL = find_model("radius/balanced", PI16.requests.catalog)
SESSION = "019f1f7c-3530-749b-9ef2-9e7de2495700"


def build(context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    return registry.build_payload("pi-messages", MODEL, context, options, PI16.requests)


def wire(options: dict[str, Any], model: dict[str, Any] | None = None) -> dict[str, Any]:
    chosen = model or MODEL
    payload = registry.build_payload("pi-messages", chosen, {"messages": []}, options, PI16.requests)
    return registry.build_wire("pi-messages", chosen, payload, options, PI16.requests)


def test_malformed_content_is_sent_as_stored() -> None:
    """No encoder reads the messages: a null block, a number block, an object assistant content and a number user
    content go out as they are (the 1.6 oracle, reasoning high), where every other API fails or replaces them."""
    llm = [
        {"role": "user", "content": [None, {"type": "text", "text": "hi"}, 5], "timestamp": 1782939703849},
        {"role": "assistant", "content": {"x": 1}, "api": "x", "provider": "y", "model": "z", "stopReason": "stop",
         "timestamp": 1782939703850},
        {"role": "user", "content": 7, "timestamp": 1782939703851},
    ]
    payload = build({"systemPrompt": "You are a helpful assistant.", "messages": llm},
                    {"apiKey": "sk-x", "sessionId": SESSION, "reasoning": "high"})
    assert json.dumps(payload) == json.dumps({
        "model": "balanced",
        "context": {"messages": [{"role": "system", "content": "You are a helpful assistant.", "timestamp": 0}, *llm]},
        "options": {"reasoning": "high", "sessionId": SESSION},
    })


def test_a_transcript_with_its_own_system_messages_is_sent_alone() -> None:
    llm = [{"role": "system", "content": "S", "timestamp": 1}, {"role": "user", "content": "u", "timestamp": 2}]
    assert build({"messages": llm}, {"apiKey": "k"}) == {"model": "balanced", "context": {"messages": llm},
                                                          "options": {}}


def test_options_in_pi_ai_order_with_only_those_set() -> None:
    options = {"apiKey": "k", "toolChoice": "auto", "sessionId": "s", "cacheRetention": "short", "reasoning": "low",
               "maxTokens": 100, "temperature": 0, "headers": {"x": "y"}, "debug": True}
    assert json.dumps(build({"messages": []}, options)["options"]) == json.dumps(
        {"temperature": 0, "maxTokens": 100, "reasoning": "low", "cacheRetention": "short", "sessionId": "s",
         "toolChoice": "auto"})


def test_cache_retention_long_from_the_environment_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    assert build({"messages": []}, {"apiKey": "k"})["options"] == {"cacheRetention": "long"}
    assert build({"messages": []}, {"apiKey": "k", "cacheRetention": "none"})["options"] == {"cacheRetention": "none"}
    monkeypatch.setenv("PI_CACHE_RETENTION", "short")
    assert build({"messages": []}, {"apiKey": "k"})["options"] == {}
    assert build({"messages": []}, {"apiKey": "k", "env": {"PI_CACHE_RETENTION": "long"}})["options"] == \
        {"cacheRetention": "long"}


def test_no_api_key_fails_before_anything_is_built() -> None:
    with pytest.raises(PayloadError, match='^No API key provided for provider "radius"$'):
        build({"messages": []}, {"sessionId": "s"})


def test_wire_headers_and_url() -> None:
    request = wire({"apiKey": "secret", "sessionId": "s"})
    assert request == {
        "method": "POST",
        "url": "https://radius.pi.dev/v1/messages",
        "headers": {"accept": "text/event-stream", "authorization": "Bearer <redacted>",
                    "content-type": "application/json",
                    "user-agent": "pi/1.6.0 (<platform>; node/v<node-version>; <arch>)"},
        "body": {"model": "balanced", "context": {"messages": []}, "options": {"sessionId": "s"}},
    }


def test_wire_caller_and_model_headers_win_and_null_removes() -> None:
    model = {**MODEL, "baseUrl": "https://gw.example.com/v1//", "headers": {"X-Model": "m", "Accept": "a/b"}}
    request = wire({"apiKey": "k", "headers": {"User-Agent": "mine", "x-model": None, "content-type": None},
                    "identity": {"userAgent": "short"}, "debug": 1}, model)
    assert request["url"] == "https://gw.example.com/v1/messages?debug=1"
    assert request["headers"] == {"accept": "a/b", "authorization": "Bearer <redacted>", "user-agent": "mine"}


def test_wire_attribution_for_an_openrouter_base_url() -> None:
    model = {**MODEL, "baseUrl": "https://openrouter.ai/api/v1"}
    headers = wire({"apiKey": "k"}, model)["headers"]
    assert headers["http-referer"] == "https://pi.dev"
    assert headers["x-openrouter-title"] == "pi"
    assert headers["x-openrouter-categories"] == "cli-agent"


def test_the_payload_mapping_reads_pi_messages() -> None:
    from pi_tools.providers.mapping import ASSISTANT, RESULT, SYSTEM, USER

    adapter = registry.adapter("pi-messages", PI16.requests)
    kinds = [adapter.item_kind(item, index, True, "") for index, item in enumerate(
        [{"role": "system"}, {"role": "user"}, {"role": "assistant"}, {"role": "toolResult"}, {"role": "system"}])]
    assert kinds == [SYSTEM, USER, ASSISTANT, RESULT, SYSTEM]  # a later system message is a system item too
    assert adapter.item_kind({"role": "system"}, 0, False, "") == SYSTEM
    assert adapter.max_tokens_field({"options": {"maxTokens": 5}}) == ("options.maxTokens", 5)
    assert adapter.max_tokens_field({"options": {}}) is None
    assert adapter.rule_modules == ()


def test_pi_085_has_no_pi_messages() -> None:
    refusal = ("Pi 0.85 has no pi-messages API (its model catalog has no pi-messages model); pass --pi with a Pi "
               "version that has it (pi-tools --version lists them)")
    assert registry.absent_api_refusal("pi-messages", PI085.requests, "Pi 0.85") == refusal
    assert registry.absent_api_refusal("pi-messages", PI16.requests, "Pi 1.6") is None
    assert registry.absent_api_refusal("anthropic-messages", PI085.requests, "Pi 0.85") is None
    assert not registry.builds("pi-messages", PI085.requests)
    with pytest.raises(registry.NotBuiltForEdition, match="^This Pi version has no pi-messages API"):
        registry.adapter("pi-messages", PI085.requests)


CASE = str(Path(__file__).resolve().parents[1] / "data" / "pi16")


def test_cli_refuses_pi_messages_for_pi_085(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-07-01T21:01:01.616Z","cwd":"/tmp"}\n'
        '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-07-01T21:01:44.226Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}\n', encoding="utf-8")
    refused = cli("payload", "--pi", "0.85", "--api", "pi-messages", str(session))
    assert (refused.code, refused.stdout) == (2, "")
    assert refused.stderr == ("pi-tools: --api pi-messages: Pi 0.85 has no pi-messages API (its model catalog has "
                              "no pi-messages model); pass --pi with a Pi version that has it (pi-tools --version "
                              "lists them)\n")
    built = cli("payload", "--pi", "1.6", "--api", "pi-messages", "--model", "radius/balanced", str(session))
    assert built.code == 0
    assert built.documents()[0]["payload"] == {
        "model": "balanced", "context": {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]},
        "options": {"sessionId": "s1"}}


def test_models_lists_the_chosen_versions_catalog(cli: Any) -> None:
    listed = cli("models", "--pi", "1.6", "--api", "pi-messages", "--format", "json")
    assert listed.code == 0
    models = [json.loads(line) for line in listed.stdout.splitlines()]
    assert len(models) == 39 and {m["provider"] for m in models} == {"radius"}
    none = cli("models", "--pi", "0.85", "--api", "pi-messages")
    assert (none.code, none.stderr) == (1, "pi-tools: no model matches --api pi-messages in Pi 0.85's catalog\n")
