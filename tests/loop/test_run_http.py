"""`pi-tools run` against real loopback servers (127.0.0.1) replaying provider streams from fixtures/streams.

For each of the four HTTP APIs one session goes through: a turn with parallel tool calls (thinking, text,
usage), the answer after the tool results (thinking with signatures), an HTTP error, and a cut-off stream,
each run continuing the same file. The tests check what the server received (the body equals what
`pi-tools payload --wire` builds for the same context, the key arrives only in its header) and what the
session holds (Pi's settled messages, tool results in call order, and no key anywhere).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from pi_tools.loop.tools import Workspace, build_tools

from support.clihelp import run_cli
from support.replay_server import ReplayServer, Reply, sse_writes

STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
SYSTEM_PROMPT = "You are a careful test assistant."
TOOLS = ["read", "bash"]

#: api → (provider, model id, base-url path, key variable, [(thinking, [case, ...]), ...] one entry per run)
SCENARIOS: dict[str, dict[str, Any]] = {
    "anthropic-messages": {
        "provider": "anthropic", "model": "claude-sonnet-4-5", "base_path": "", "key": "ANTHROPIC_API_KEY",
        "runs": [("medium", ["syn_thinking_text_parallel_tools_cache", "rec_vercel_thinking_signature"]),
                 ("off", ["syn_http_529_overloaded"]), ("off", ["syn_connection_reset_mid_text"])],
    },
    "openai-completions": {
        "provider": "groq", "model": "openai/gpt-oss-120b", "base_path": "/openai/v1", "key": "GROQ_API_KEY",
        "runs": [("medium", ["syn_reasoning_text_parallel_tools_cached", "rec_groq_reasoning_field"]),
                 ("off", ["syn_http_429_rate_limit"]), ("off", ["syn_connection_reset_after_finish"])],
    },
    "openai-responses": {
        "provider": "openai", "model": "gpt-5.1", "base_path": "/v1", "key": "OPENAI_API_KEY",
        "runs": [("medium", ["syn_parallel_function_calls", "syn_reasoning_two_summaries_text_cached"]),
                 ("off", ["syn_http_429_rate_limit"]), ("off", ["syn_connection_reset_mid_call"])],
    },
    "google-generative-ai": {
        "provider": "google", "model": "gemini-2.5-flash", "base_path": "/v1beta", "key": "GEMINI_API_KEY",
        "runs": [("medium", ["syn_text_then_parallel_calls_with_ids", "syn_thinking_text_cached_usage"]),
                 ("off", ["syn_http_500_internal"]), ("low", ["syn_connection_reset_mid_text"])],
    },
}
SECRET = "sk-test-SECRET-0123456789abcdef"
EPOCH = "1767225600"


def _reply(api: str, name: str) -> tuple[Reply, dict[str, Any]]:
    sidecar = json.loads((STREAMS / "cases" / api / f"{name}.json").read_text(encoding="utf-8"))
    body = (STREAMS / "cases" / api / sidecar["body"]).read_bytes()
    with open(STREAMS / "expected" / api / f"{name}.json", encoding="utf-8") as handle:
        expected = json.load(handle)
    writes = sse_writes(body) if sidecar["body"].endswith(".sse") else [body]
    cut = (sidecar.get("transport") or {}).get("cut") == "reset"
    return Reply(sidecar["status"], dict(sidecar.get("headers") or {}), writes, cut=cut), expected


def _workspace(root: Path) -> Path:
    cwd = root / "work"
    for relative in ("src/app.py", "README.md", "src/main.rs", "Cargo.toml", "package.json", "src/index.ts"):
        target = cwd / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"// {relative}\nline two\n", encoding="utf-8")
    return cwd


def _entries(session: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False))


@pytest.mark.parametrize("api", sorted(SCENARIOS))
def test_http_run_sends_pi_payload_and_persists_pi_messages(api: str, tmp_path: Path) -> None:
    scenario = SCENARIOS[api]
    cwd = _workspace(tmp_path)
    session = tmp_path / "session.jsonl"
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps([tool.definition() for tool in build_tools(TOOLS, Workspace(str(cwd)))]))
    env = {scenario["key"]: SECRET, "SOURCE_DATE_EPOCH": EPOCH}
    replayed: list[tuple[str, dict[str, Any], str]] = []  # (case, expected document, thinking level)
    received: list[Any] = []
    outputs: list[str] = []
    for thinking, cases in scenario["runs"]:
        replies = []
        for name in cases:
            reply, expected = _reply(api, name)
            replies.append(reply)
            replayed.append((name, expected, thinking))
        with ReplayServer(replies, lifetime=60) as server:
            # --no-preflight: the synthetic first turn's model id (claude-sonnet-4-5-20250929) is not the catalog's,
            # so Pi sends its thinking as text, and with thinking on preflight would refuse the loop's next request
            # (anthropic-thinking-tool-loop); this test is about the transport, which must send what Pi sends.
            result = run_cli("run", "--no-preflight", "--provider", scenario["provider"], "--model", scenario["model"],
                             "--base-url", server.url + scenario["base_path"], "--thinking", thinking,
                             "--tools", ",".join(TOOLS), "--cwd", str(cwd), "--session", str(session),
                             "--system-prompt", SYSTEM_PROMPT, "--events", "continue, please", env=env, timeout=60)
            received.extend(server.requests)
        outputs.append(result.stdout + result.stderr)
        final_error = any(_reply(api, name)[1]["message"]["stopReason"] == "error" for name in cases)
        assert result.code == (1 if final_error else 0), result.stderr
        assert "Traceback" not in result.stderr
        events = result.documents()
        assert events[0]["type"] == "agent_start" and events[-1]["type"] == "agent_end"

    assert len(received) == len(replayed)
    entries = _entries(session)
    text = session.read_text(encoding="utf-8")
    assert SECRET not in text
    assert all(SECRET not in output for output in outputs)
    assistants = [e for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"]
    assert len(assistants) == len(replayed)

    for index, ((name, expected, _thinking), request, entry) in enumerate(zip(replayed, received, assistants,
                                                                             strict=True)):
        # The settled message Pi produced from this very stream is what the session holds.
        assert _plain(entry["message"]) == _plain(expected["message"]), name
        # The request is what `pi-tools payload --wire` builds for the context at that point (the thinking
        # level comes from the session, where the run recorded it clamped to the model, as Pi does).
        payload = run_cli("payload", "--api", api, "--model", f"{scenario['provider']}/{scenario['model']}",
                          "--wire", "--tools", str(tools_file), "--system-prompt", SYSTEM_PROMPT,
                          "--leaf", entry["parentId"], str(session))
        assert payload.code == 0, payload.stderr
        (document,) = payload.documents()
        assert json.loads(request.body) == document["wire"]["body"], f"request {index} ({name})"
        wire_url = urlsplit(document["wire"]["url"])
        expected_path = wire_url.path + (f"?{wire_url.query}" if wire_url.query else "")
        assert request.path == expected_path == expected["requests"][0]["path"]
        assert request.method == document["wire"]["method"]
        sent_headers = json.dumps(request.headers)
        assert SECRET in sent_headers
        assert SECRET not in json.dumps(document)

    # Tool results follow the first assistant in its call order, each answering one call.
    first = assistants[0]
    calls = [b["id"] for b in first["message"]["content"] if b["type"] == "toolCall"]
    assert len(calls) >= 2
    position = entries.index(first)
    results = entries[position + 1: position + 1 + len(calls)]
    assert [r["message"]["role"] for r in results] == ["toolResult"] * len(calls)
    assert [r["message"]["toolCallId"] for r in results] == calls
    assert [r["parentId"] for r in results] == [first["id"], *[r["id"] for r in results[:-1]]]
    # A new session starts with Pi's settings entries; changed thinking levels are recorded when they change.
    assert [e["type"] for e in entries[:4]] == ["session", "model_change", "thinking_level_change", "message"]
    levels = [e["thinkingLevel"] for e in entries if e["type"] == "thinking_level_change"]
    assert levels[0] == "medium" and len(levels) >= 2 and levels[1] != "medium"


def test_missing_key_becomes_an_error_message(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    env = {"ANTHROPIC_API_KEY": "", "SOURCE_DATE_EPOCH": EPOCH}
    result = run_cli("run", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--cwd", str(tmp_path),
                     "--session", str(session), "hi", env=env)
    assert result.code == 1
    assert "No API key for provider: anthropic" in result.stdout
    message = [e for e in _entries(session) if e["type"] == "message"][-1]["message"]
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "No API key for provider: anthropic"
    assert message["content"] == [{"type": "text", "text": ""}]


def test_refused_connection_is_a_connection_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    session = tmp_path / "s.jsonl"
    result = run_cli("run", "--provider", "openai", "--model", "gpt-5.1", "--base-url", f"http://127.0.0.1:{port}/v1",
                     "--cwd", str(tmp_path), "--session", str(session), "hi",
                     env={"OPENAI_API_KEY": SECRET, "SOURCE_DATE_EPOCH": EPOCH})
    assert result.code == 1
    message = [e for e in _entries(session) if e["type"] == "message"][-1]["message"]
    assert (message["stopReason"], message["errorMessage"]) == ("error", "Connection error.")
    assert SECRET not in result.stdout + result.stderr + session.read_text()


def test_key_echoed_by_the_server_is_scrubbed(tmp_path: Path) -> None:
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}", "type": "invalid_request_error"}})
    reply = Reply(401, {"content-type": "application/json"}, [body.encode()])
    session = tmp_path / "s.jsonl"
    with ReplayServer([reply], lifetime=30) as server:
        result = run_cli("run", "--provider", "openai", "--model", "gpt-5.1", "--base-url", f"{server.url}/v1",
                         "--cwd", str(tmp_path), "--session", str(session), "--events", "hi",
                         env={"OPENAI_API_KEY": SECRET, "SOURCE_DATE_EPOCH": EPOCH})
        assert SECRET in server.requests[0].headers["authorization"]
    assert result.code == 1
    message = [e for e in _entries(session) if e["type"] == "message"][-1]["message"]
    assert message["stopReason"] == "error"
    assert "Incorrect API key provided: <redacted>" in message["errorMessage"]
    assert SECRET not in result.stdout + result.stderr + session.read_text()
