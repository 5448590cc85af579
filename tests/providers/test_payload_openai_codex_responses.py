"""openai-codex-responses beyond the conformance goldens (tests/conformance/test_conformance_codex.py): the
credential (a ChatGPT JWT), the options the goldens do not vary, the catalog's other Codex models, the wire
request's headers and URL, parts, and the CLI on a session recorded with a Codex model (payload, --wire,
preflight --replay)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.providers import registry, split
from pi_tools.providers.catalog import find_model
from pi_tools.providers.credentials import OFFLINE_API_KEY
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.openai_codex_responses.payload import atob
from pi_tools.providers.openai_codex_responses.wire import request_url

API = "openai-codex-responses"
MODEL = find_model("openai-codex/gpt-5.5")
SESSION = "019c206a-65f8-715b-a2d1-9fb798540cc3"
TOOLS = [{"name": "bash", "description": "Run a command.",
          "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}]


def token(claims: Any, *, urlsafe: bool = False, padded: bool = True) -> str:
    raw = json.dumps(claims, separators=(",", ":")).encode()
    encoded = (base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)).decode()
    return ".".join(["e30", encoded if padded else encoded.rstrip("="), "c2ln"])


ACCOUNT = token({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-1"}})


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def assistant(*content: dict[str, Any], model: str = "gpt-5.5", provider: str = "openai-codex",
              api: str = API, stop: str = "stop") -> dict[str, Any]:
    return {"role": "assistant", "content": list(content), "api": api, "provider": provider, "model": model,
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": stop, "timestamp": 2}


def result(call_id: str, text: str = "ok", **extra: Any) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 3, **extra}


def build(messages: list[dict[str, Any]] | None = None, model: Any = MODEL, *, system: str | None = "Be brief.",
          tools: list[Any] | None = None, **options: Any) -> dict[str, Any]:
    context: dict[str, Any] = {"messages": messages or [user("hi")]}
    if system is not None:
        context["systemPrompt"] = system
    if tools is not None:
        context["tools"] = tools
    return registry.build_payload(API, model, context, {"apiKey": ACCOUNT, "sessionId": SESSION, **options})


# --- the body --------------------------------------------------------------------------------------------------


def test_body_keys_in_pi_order_and_the_system_prompt_as_instructions() -> None:
    payload = build(tools=TOOLS)
    assert list(payload) == ["model", "store", "stream", "instructions", "input", "text", "include",
                             "prompt_cache_key", "tool_choice", "parallel_tool_calls", "tools"]
    assert payload["instructions"] == "Be brief."
    assert payload["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert payload["tools"][0]["strict"] is None
    assert "max_output_tokens" not in payload and "reasoning" not in payload


@pytest.mark.parametrize("system", [None, ""])
def test_no_system_prompt_gives_the_default_instructions(system: str | None) -> None:
    assert build(system=system)["instructions"] == "You are a helpful assistant."


def test_system_prompt_is_sent_unsanitised() -> None:
    """instructions is the context's string as it is (only input items go through sanitizeSurrogates)."""
    assert build(system="a\ud83db")["instructions"] == "a\ud83db"


def test_cache_retention_none_drops_the_key_and_a_long_session_id_is_clamped() -> None:
    assert "prompt_cache_key" not in build(cacheRetention="none")
    long_id = "x" * 70
    assert build(sessionId=long_id)["prompt_cache_key"] == "x" * 64
    assert "prompt_cache_key" not in registry.build_payload(API, MODEL, {"messages": [user("hi")]},
                                                            {"apiKey": ACCOUNT})


@pytest.mark.parametrize(("level", "effort"), [("minimal", "low"), ("low", "low"), ("medium", "medium"),
                                               ("high", "high"), ("xhigh", "xhigh"), ("max", "xhigh"),
                                               ("turbo", None), ("off", None)])
def test_reasoning_is_clamped_to_the_model_and_mapped(level: str, effort: str | None) -> None:
    payload = build(reasoning=level)
    if effort is None:
        assert "reasoning" not in payload
    else:
        assert payload["reasoning"] == {"effort": effort, "summary": "auto"}
    assert payload["include"] == ["reasoning.encrypted_content"]  # always, reasoning or not


def test_a_model_without_off_reasons_at_its_weakest_level_even_when_asked_for_an_unknown_one() -> None:
    astra = find_model("openai-codex/gpt-6-astra")
    assert build(model=astra, reasoning="turbo")["reasoning"] == {"effort": "low", "summary": "auto"}
    assert build(model=astra, reasoning="max")["reasoning"] == {"effort": "max", "summary": "auto"}


def test_tool_choice_and_temperature_pass_through() -> None:
    payload = build(tools=TOOLS, toolChoice="required", temperature=0.5)
    assert (payload["tool_choice"], payload["temperature"]) == ("required", 0.5)
    assert list(payload).index("temperature") < list(payload).index("tools")


def test_replay_of_codex_turns_keeps_reasoning_text_ids_and_call_pairs() -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"}
    messages = [
        user("list"),
        assistant({"type": "thinking", "thinking": "t", "thinkingSignature": json.dumps(reasoning)},
                  {"type": "toolCall", "id": "call_1|fc_1", "name": "bash", "arguments": {"command": "ls"}},
                  stop="toolUse"),
        result("call_1|fc_1"),
        assistant({"type": "text", "text": "done", "textSignature": json.dumps({"v": 1, "id": "msg_9",
                                                                                 "phase": "final_answer"})}),
        user("again"),
    ]
    items = build(messages, tools=TOOLS)["input"]
    assert items[1] == reasoning
    assert items[2] == {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash",
                        "arguments": '{"command":"ls"}'}
    assert items[3] == {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
    assert items[4]["id"] == "msg_9" and items[4]["phase"] == "final_answer"


def test_openai_responses_turns_keep_their_call_pairs_on_codex_but_their_reasoning_is_dropped() -> None:
    """Another API's turns are another model's: thinking becomes text, the fc_ item id is hashed."""
    messages = [
        user("list"),
        assistant({"type": "thinking", "thinking": "t", "thinkingSignature": "{}"},
                  {"type": "toolCall", "id": "call_1|fc_1", "name": "bash", "arguments": {}},
                  model="gpt-5.1", provider="openai", api="openai-responses", stop="toolUse"),
        result("call_1|fc_1"),
    ]
    items = build(messages, tools=TOOLS)["input"]
    call = next(item for item in items if item.get("type") == "function_call")
    assert call["call_id"] == "call_1" and call["id"].startswith("fc_") and call["id"] != "fc_1"


def test_deferred_tools_are_searched_for_with_strict_null() -> None:
    """gpt-5.5 loads late tools through tool search; Codex's toolOptions.strict (null) reaches them too."""
    late = {**TOOLS[0], "name": "late"}
    messages = [user("go"), assistant({"type": "toolCall", "id": "call_1|fc_1", "name": "bash",
                                       "arguments": {}}, stop="toolUse"),
                result("call_1|fc_1", addedToolNames=["late"])]
    payload = build(messages, tools=[*TOOLS, late])
    assert [tool["name"] for tool in payload["tools"]] == ["bash"]
    search = next(item for item in payload["input"] if item.get("type") == "tool_search_output")
    assert search["tools"] == [{"type": "function", "name": "late", "description": "Run a command.",
                                "parameters": late["parameters"], "defer_loading": True, "strict": None}]


# --- the credential --------------------------------------------------------------------------------------------


def test_no_api_key_fails_as_pi_does() -> None:
    with pytest.raises(PayloadError, match="^No API key for provider: openai-codex$"):
        registry.build_payload(API, MODEL, {"messages": [user("hi")]}, {})


@pytest.mark.parametrize("bad", [
    "not-a-jwt",
    "a.b",
    "e30.e30.c2ln",  # claims {} without the account
    token({"https://api.openai.com/auth": {"chatgpt_account_id": ""}}),
    token({"https://api.openai.com/auth": "acct"}),
    "e30.!!!!.c2ln",
    "e30.eyJh.c2ln",  # not JSON
])
def test_a_token_without_an_account_fails_before_the_body(bad: str) -> None:
    with pytest.raises(PayloadError, match="^Failed to extract accountId from token$"):
        registry.build_payload(API, MODEL, {"messages": [user("hi")]}, {"apiKey": bad})


def test_atob_is_forgiving_but_not_base64url() -> None:
    assert atob("aGk=") == atob("aGk") == atob(" aG k= ") == "hi"
    with pytest.raises(ValueError):
        atob("a")
    with pytest.raises(ValueError):
        atob("-_-_")
    claims = {"https://api.openai.com/auth": {"chatgpt_account_id": "acct-2"}, "pad": "?>?>"}
    wire = registry.build_wire(API, MODEL, build(), {"apiKey": token(claims, padded=False), "sessionId": SESSION})
    assert wire["headers"]["chatgpt-account-id"] == "acct-2"
    with pytest.raises(PayloadError, match="Failed to extract accountId"):  # '?>' encodes with '_' in base64url
        build(apiKey=token(claims, urlsafe=True))


def test_the_offline_placeholder_names_a_placeholder_account() -> None:
    options = {"apiKey": OFFLINE_API_KEY, "sessionId": SESSION}
    payload = registry.build_payload(API, MODEL, {"messages": [user("hi")]}, options)
    wire = registry.build_wire(API, MODEL, payload, options)
    assert wire["headers"]["chatgpt-account-id"] == "<account-id>"
    assert wire["headers"]["authorization"] == "Bearer <redacted>"


# --- the wire request ------------------------------------------------------------------------------------------


def test_wire_headers_without_a_session_and_with_caller_and_model_headers() -> None:
    model = {**MODEL, "headers": {"X-Model": "m", "originator": "someone"}}
    options = {"apiKey": ACCOUNT, "cacheRetention": "none", "sessionId": SESSION,
               "headers": {"X-Caller": 7, "x-model": None, "User-Agent": "mine"}}
    payload = registry.build_payload(API, model, {"messages": [user("hi")]}, options)
    headers = registry.build_wire(API, model, payload, options)["headers"]
    assert "session-id" not in headers and "x-client-request-id" not in headers
    assert "x-model" not in headers and headers["x-caller"] == "7"
    assert headers["originator"] == "pi" and headers["user-agent"] == "pi (<platform> <os-release>; <arch>)"
    assert headers["content-encoding"] == "zstd" and headers["accept"] == "text/event-stream"


def test_wire_body_is_the_payload_compressed() -> None:
    import hashlib

    import zstandard

    payload = build(system="é \ud83d")  # instructions keep a lone surrogate (input text loses it)
    wire = registry.build_wire(API, MODEL, payload, {"apiKey": ACCOUNT, "sessionId": SESSION})
    sent = base64.b64decode(wire["bodyBase64"])
    assert len(sent) == wire["bodyBytes"] and hashlib.sha256(sent).hexdigest() == wire["bodySha256"]
    text = zstandard.ZstdDecompressor().decompress(sent).decode("utf-8")
    assert "\\ud83d" in text  # JSON.stringify's escape of a lone surrogate
    assert wire["body"] is payload


@pytest.mark.parametrize(("base", "url"), [
    ("https://chatgpt.com/backend-api", "https://chatgpt.com/backend-api/codex/responses"),
    ("https://chatgpt.com/backend-api///", "https://chatgpt.com/backend-api/codex/responses"),
    ("https://proxy.example/codex", "https://proxy.example/codex/responses"),
    ("https://proxy.example/codex/responses/", "https://proxy.example/codex/responses"),
    ("   ", "https://chatgpt.com/backend-api/codex/responses"),
    (None, "https://chatgpt.com/backend-api/codex/responses"),
])
def test_codex_url(base: str | None, url: str) -> None:
    assert request_url(base) == url


# --- parts, mapping ----------------------------------------------------------------------------------------------


def test_parts_join_into_the_whole_payload() -> None:
    messages: list[dict[str, Any]] = []
    for turn in range(6):
        messages += [user(f"q{turn}"),
                     assistant({"type": "toolCall", "id": f"call_{turn}|fc_{turn}", "name": "bash",
                                "arguments": {"command": "ls"}}, stop="toolUse"),
                     result(f"call_{turn}|fc_{turn}"),
                     assistant({"type": "text", "text": f"a{turn}"})]  # no textSignature: numbered ids
    for stamp, message in enumerate(messages, 1):
        message["timestamp"] = stamp  # in order: the last part's usage anchors the estimate
    options = {"apiKey": ACCOUNT, "sessionId": SESSION}
    whole = registry.build_payload(API, MODEL, {"systemPrompt": "s", "messages": messages, "tools": TOOLS}, options)
    cuts = [0, 8, 16, len(messages)]
    parts = []
    for start, end in zip(cuts[:-2], cuts[1:-1], strict=True):
        part = split.build_part(API, MODEL, {"systemPrompt": "s", "messages": messages[start:end], "tools": TOOLS},
                                options)
        assert part is not None
        parts.append(part)
    tail = split.build_tail(API, MODEL, {"systemPrompt": "s", "messages": messages[cuts[-2]:], "tools": TOOLS},
                            options)
    joined = split.join(API, parts, tail)
    assert joined is not None
    items = [item for encoded in joined["input"] for item in json.loads(b"[" + bytes(encoded.json) + b"]")]
    assert {**joined, "input": items} == whole
    assert [item["id"] for item in items if item.get("type") == "message"] == [
        f"msg_pi_{4 * turn + 3}" for turn in range(6)]


def test_mapping_reads_instructions_and_items() -> None:
    adapter = registry.adapter(API)
    payload = build(tools=TOOLS)
    assert adapter.system_fragments(payload) == [("instructions", "Be brief.")]
    assert adapter.max_tokens_field(payload) is None
    assert adapter.item_kind({"role": "developer", "content": "x"}, 0, True, "") != "S"


# --- the CLI -----------------------------------------------------------------------------------------------------


def _session(path: Path, *, stray_result: bool = False) -> Path:
    header = {"type": "session", "version": 3, "id": SESSION, "timestamp": "2026-02-02T22:12:49.784Z", "cwd": "/w"}
    entries: list[dict[str, Any]] = [
        {"type": "model_change", "id": "m1", "parentId": None, "timestamp": "2026-02-02T22:12:50.998Z",
         "provider": "openai-codex", "modelId": "gpt-5.5"}]
    messages = [user("list"),
                assistant({"type": "toolCall", "id": "call_1|fc_1", "name": "bash", "arguments": {"command": "ls"}},
                          stop="toolUse"),
                result("call_1|fc_1"),
                assistant({"type": "text", "text": "a.txt",
                           "textSignature": json.dumps({"v": 1, "id": "msg_2", "phase": "final_answer"})})]
    if stray_result:
        messages[2] = result("call_9|fc_9")
    for index, message in enumerate(messages):
        entries.append({"type": "message", "id": f"e{index}", "parentId": entries[-1]["id"],
                        "timestamp": "2026-02-02T22:13:11.982Z", "message": message})
    path.write_text("\n".join(json.dumps(line) for line in [header, *entries]) + "\n")
    return path


def test_cli_payload_and_wire_on_a_codex_session(cli: Any, tmp_path: Path) -> None:
    session = _session(tmp_path / "codex.jsonl")
    run = cli("payload", "--api", API, "--wire", str(session))
    assert run.code == 0, run.stderr
    [document] = run.documents()
    assert document["model"] == "openai-codex/gpt-5.5"  # the session's model
    assert document["payload"]["prompt_cache_key"] == SESSION
    wire = document["wire"]
    assert wire["url"] == "https://chatgpt.com/backend-api/codex/responses"
    assert wire["headers"]["session-id"] == SESSION and wire["body"] == document["payload"]
    assert {"bodyBytes", "bodySha256", "bodyBase64"} <= set(wire)


def test_cli_preflight_replay_builds_codex_requests(cli: Any, tmp_path: Path) -> None:
    """Requests recorded with openai-codex models are rebuilt and checked (no more 'unsupported API')."""
    run = cli("preflight", "--replay", "--format", "json", str(_session(tmp_path / "codex.jsonl")))
    requests = [doc for doc in run.documents() if doc["kind"] == "request"]
    assert [(doc["api"], doc["predicted"], doc["findings"]) for doc in requests] == [
        (API, "ok", []), (API, "ok", [])], run.stdout
    assert "unsupported API" not in run.stdout + run.stderr
    broken = cli("preflight", "--replay", "--format", "json", str(_session(tmp_path / "stray.jsonl",
                                                                           stray_result=True)))
    rules = {finding["rule"] for doc in broken.documents() if doc["kind"] == "request" for finding in doc["findings"]}
    assert "responses-output-without-call" in rules
