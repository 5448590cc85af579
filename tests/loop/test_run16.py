"""`pi-tools run --pi 1.6` with the faux provider: the session Pi 1.6 writes, which Pi 1.6 loads, whose rebuilt
context is what the run sent.

The run is made in this process so that what the provider was handed (the request's context) can be captured;
the session is then read back by `pi-tools context/convert --pi 1.6` and, where installed, by Pi 1.6 itself (the
1.6 oracle). The faux usage figures below are what pi-ai 1.6's own faux provider estimates for the same transcript
(checked by replaying the session's assistant messages through its createFauxCore).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_tools import pi
from pi_tools.js.json_stringify import js_stringify
from pi_tools.loop import faux, runner

from support.clihelp import run_cli
from support.oracle_path import CONFORMANCE16, MISSING16, ORACLE16

DATA = Path(__file__).resolve().parents[1] / "data" / "run16"
EPOCH = "1767225600"
EPOCH_MS = 1767225600000
PROMPT = "You are a careful test assistant."


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.delenv("PI_TOOLS_PI", raising=False)
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "a.txt").write_text("hello\n", encoding="utf-8")
    return cwd


def _run(monkeypatch: pytest.MonkeyPatch, cwd: Path, session: Path, script: str | None, prompt: str | None, *,
         version: str = "1.6", system_prompt: str | None = PROMPT,
         tools: tuple[str, ...] = ("read", "bash")) -> list[dict[str, Any]]:
    """Run once; the contexts the provider was handed, one per model call, as JSON."""
    sent: list[dict[str, Any]] = []
    original = faux.FauxProvider.stream

    def capture(self: Any, model: Any, context: Any, options: Any, abort: Any, emit: Any) -> Any:
        sent.append(json.loads(js_stringify(context)))
        return original(self, model, context, options, abort, emit)

    with monkeypatch.context() as patch:
        patch.setattr(faux.FauxProvider, "stream", capture)
        request = runner.RunRequest(prompt=prompt, cwd=str(cwd), session_file=str(session),
                                    faux_script=str(DATA / script) if script else None, tools=list(tools),
                                    system_prompt=system_prompt, version=pi.get(version))
        runner.run(request, lambda event: None)
    return sent


def _entries(session: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]


def _messages(session: Path) -> list[dict[str, Any]]:
    return [entry["message"] for entry in _entries(session) if entry["type"] == "message"]


def _rebuilt(session: Path) -> tuple[list[Any], list[Any]]:
    """(context messages, LLM messages) as `pi-tools context/convert --pi 1.6` rebuild them."""
    context = run_cli("context", "--pi", "1.6", str(session))
    converted = run_cli("convert", "--pi", "1.6", str(session))
    assert context.code == 0 and converted.code == 0, context.stderr + converted.stderr
    (document,) = context.documents()
    assert document["diagnostics"] == []
    return document["messages"], converted.documents()[0]["messages"]


def _oracle(session: Path) -> dict[str, Any]:
    if not ORACLE16.exists():
        pytest.skip(MISSING16)
    done = subprocess.run([str(ORACLE16), str(session), "--apis", "anthropic-messages", "--no-branches"],
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()
    document: dict[str, Any] = json.loads(done.stdout)
    assert "error" not in document, document.get("error")
    return document


def _pi_declarations(*names: str) -> list[dict[str, Any]]:
    """The declarations of Pi 1.6's own tools as Pi 1.6 recorded them in a session it wrote (gen16_new)."""
    case = CONFORMANCE16 / "cases" / "gen16_new.jsonl"
    if not case.exists():
        pytest.skip(f"{case} is not there")
    recorded = json.loads(case.read_text(encoding="utf-8").splitlines()[3])["message"]["toolsAdded"]
    by_name = {tool["name"]: tool for tool in recorded}
    return [by_name[name] for name in names]


def _usage(input_: int, output: int, cache_read: int, cache_write: int) -> dict[str, Any]:
    return {"input": input_, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
            "totalTokens": input_ + output + cache_read + cache_write,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def test_faux_run_writes_pis_session_and_sends_its_context(monkeypatch: pytest.MonkeyPatch, workspace: Path,
                                                         tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    sent = _run(monkeypatch, workspace, session, "faux_tools.json", "what is here?")
    entries = _entries(session)
    assert [entry["type"] for entry in entries] == ["session", "model_change", "thinking_level_change"] + \
        ["message"] * 6
    assert [entry.get("parentId", "-") for entry in entries[1:]] == \
        [None] + [entry["id"] for entry in entries[1:-1]]
    header, model_change, level = entries[:3]
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
    assert (model_change["provider"], model_change["modelId"], level["thinkingLevel"]) == ("faux", "faux-1", "off")

    system, user, first, bash, read, answer = _messages(session)
    # The leading system message: the prompt as its preamble section, then the tools the loop declared.
    assert system == {"role": "system", "content": "", "sections": {"preamble": PROMPT}, "timestamp": EPOCH_MS,
                      "toolsAdded": _pi_declarations("read", "bash")}
    assert list(system) == ["role", "content", "sections", "timestamp", "toolsAdded"]
    assert user == {"role": "user", "content": [{"type": "text", "text": "what is here?"}], "timestamp": EPOCH_MS}
    script = json.loads((DATA / "faux_tools.json").read_text(encoding="utf-8"))["responses"]
    assert first == {"role": "assistant", "content": script[0]["content"], "api": "faux", "provider": "faux",
                     "model": "faux-1", "usage": _usage(0, 29, 0, 342), "stopReason": "toolUse",
                     "timestamp": EPOCH_MS, "durationMs": 0, "thinkingLevel": "off"}
    assert list(first)[-2:] == ["durationMs", "thinkingLevel"]
    assert bash == {"role": "toolResult", "toolCallId": "call_bash_1", "toolName": "bash",
                    "content": [{"type": "text", "text": "a.txt\n"}], "isError": False, "durationMs": 0,
                    "timestamp": EPOCH_MS}
    assert list(read) == ["role", "toolCallId", "toolName", "content", "isError", "durationMs", "timestamp"]
    assert read["content"] == [{"type": "text", "text": "hello\n"}]
    assert answer["usage"] == _usage(0, 11, 342, 43) and answer["thinkingLevel"] == "off"

    # What the provider was handed: the transcript alone (no systemPrompt, no tools beside it), as recorded.
    context, llm = _rebuilt(session)
    assert context == llm == _messages(session)
    assert sent == [{"messages": llm[:2]}, {"messages": llm[:5]}]

    oracle = _oracle(session)
    assert oracle["context"]["messages"] == context
    assert oracle["llm"] == llm
    assert oracle["inputs"]["systemPrompt"] is None and oracle["inputs"]["tools"] is None


def test_continuing_declares_only_what_changed(monkeypatch: pytest.MonkeyPatch, workspace: Path,
                                               tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    _run(monkeypatch, workspace, session, "faux_tools.json", "what is here?")
    before = len(_entries(session))
    # Same prompt, same tools: nothing to declare; the request is the whole recorded transcript.
    sent = _run(monkeypatch, workspace, session, "faux_more.json", "again")
    added = [entry["message"] for entry in _entries(session)[before:]]
    assert [message["role"] for message in added] == ["user", "assistant", "toolResult", "assistant"]
    _, llm = _rebuilt(session)
    assert sent[0] == {"messages": llm[: before - 3 + 1]} and sent[-1] == {"messages": llm[:-1]}

    # Another prompt and one more tool: one system message before the prompt, holding just the changes.
    before = len(_entries(session))
    sent = _run(monkeypatch, workspace, session, "faux_more.json", "once more", system_prompt="Be brief.",
                tools=("read", "bash", "ls"))
    update, prompt = (entry["message"] for entry in _entries(session)[before: before + 2])
    ls_declaration = {key: value for key, value in
                      runner.build_tools(["ls"], runner.Workspace(str(workspace)))[0].definition().items()}
    assert update == {"role": "system", "content": "", "sections": {"preamble": "Be brief."},
                      "timestamp": EPOCH_MS, "toolsAdded": [ls_declaration]}
    assert prompt["role"] == "user"
    # Fewer tools: the removal alone.
    before = len(_entries(session))
    _run(monkeypatch, workspace, session, "faux_more.json", "last", system_prompt="Be brief.", tools=("read",))
    assert _entries(session)[before]["message"] == {"role": "system", "content": "", "timestamp": EPOCH_MS,
                                                    "toolsRemoved": [{"name": "bash"}, {"name": "ls"}]}
    context, llm = _rebuilt(session)
    assert context == llm == _messages(session)
    assert sent[-1] == {"messages": _rebuilt_until(session, "once more")}

    oracle = _oracle(session)
    assert oracle["context"]["messages"] == context and oracle["llm"] == llm


def _rebuilt_until(session: Path, prompt: str) -> list[Any]:
    """The LLM messages of the run that asked `prompt`, up to its last request (before its final answer)."""
    messages = _messages(session)
    start = next(index for index, message in enumerate(messages) if message["role"] == "user"
                 and message["content"][0]["text"] == prompt)
    end = next(index for index in range(start, len(messages)) if messages[index]["role"] == "assistant"
               and messages[index]["stopReason"] == "stop")
    return messages[:end]


def test_a_session_of_085_gets_the_whole_prompt_before_the_next_prompt(monkeypatch: pytest.MonkeyPatch,
                                                                       workspace: Path, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    _run(monkeypatch, workspace, session, "faux_tools.json", "what is here?", version="0.85")
    old = _entries(session)
    assert not any(entry.get("message", {}).get("role") == "system" for entry in old)
    assert "thinkingLevel" not in old[-1]["message"] and "durationMs" not in old[-1]["message"]
    sent = _run(monkeypatch, workspace, session, "faux_more.json", "and now?")
    entries = _entries(session)
    assert entries[: len(old)] == old
    system = entries[len(old)]["message"]
    assert system == {"role": "system", "content": "", "sections": {"preamble": PROMPT}, "timestamp": EPOCH_MS,
                      "toolsAdded": _pi_declarations("read", "bash")}
    assert entries[len(old) + 1]["message"]["role"] == "user"
    context, llm = _rebuilt(session)
    assert sent[0] == {"messages": llm[: len(old) - 3 + 2]}
    oracle = _oracle(session)
    assert oracle["context"]["messages"] == context and oracle["llm"] == llm


def test_no_prompt_and_no_tools_record_no_system_message(monkeypatch: pytest.MonkeyPatch, workspace: Path,
                                                          tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    sent = _run(monkeypatch, workspace, session, "faux_more.json", "hi", system_prompt=None, tools=())
    assert [message["role"] for message in _messages(session)] == ["user", "assistant", "toolResult", "assistant"]
    assert sent[0] == {"messages": [_messages(session)[0]]}
    # Tools without a prompt: a system message declaring them, and no sections.
    other = tmp_path / "t.jsonl"
    _run(monkeypatch, workspace, other, "faux_more.json", "hi", system_prompt=None, tools=("read",))
    assert _messages(other)[0] == {"role": "system", "content": "", "timestamp": EPOCH_MS,
                                   "toolsAdded": _pi_declarations("read")}


def test_the_file_is_created_with_the_prompt(monkeypatch: pytest.MonkeyPatch, workspace: Path,
                                             tmp_path: Path) -> None:
    """Pi 1.6 writes a new session at its first user message: a run whose first request never settles (the
    process killed before the answer) still leaves the prompt on disk."""
    from pi_tools.loop.persist import SessionWriter

    session = tmp_path / "s.jsonl"
    writer = SessionWriter.new(session, None, str(workspace), creates_file_at_prompt=True)
    writer.append_model_change("faux", "faux-1")
    writer.append_thinking_level_change("off")
    assert not session.exists()
    writer.append_message({"role": "user", "content": "hi", "timestamp": EPOCH_MS})
    assert [entry["type"] for entry in _entries(session)] == ["session", "model_change", "thinking_level_change",
                                                               "message"]


def test_cli_run_under_16(workspace: Path, tmp_path: Path) -> None:
    """The command line: `run --pi 1.6 --events` announces the system message and times the tool results."""
    session = tmp_path / "s.jsonl"
    ran = run_cli("run", "--pi", "1.6", "--faux-script", str(DATA / "faux_tools.json"), "--session", str(session),
                  "--cwd", str(workspace), "--tools", "read,bash", "--system-prompt", PROMPT, "--events",
                  "what is here?", env={"SOURCE_DATE_EPOCH": EPOCH})
    assert ran.code == 0, ran.stderr
    events = ran.documents()
    starts = [event["message"]["role"] for event in events if event["type"] == "message_start"]
    assert starts == ["system", "user", "assistant", "toolResult", "toolResult", "assistant"]
    ends = [event for event in events if event["type"] == "tool_execution_end"]
    assert [event["durationMs"] for event in ends] == [0, 0]
    assert [message["role"] for message in _messages(session)] == ["system", "user", "assistant", "toolResult",
                                                                   "toolResult", "assistant"]


def test_http_run_under_16_sends_what_payload_builds(workspace: Path, tmp_path: Path) -> None:
    """Over HTTP the request is the 1.6 payload stage's for the recorded transcript (`pi-tools payload --pi 1.6
    --wire` at the request's leaf: no --system-prompt or --tools, the session records both)."""
    from support.replay_server import ReplayServer, Reply, sse_writes

    streams = Path(__file__).resolve().parents[2] / "fixtures" / "streams" / "cases" / "anthropic-messages"
    replies = []
    for name in ("syn_thinking_text_parallel_tools_cache", "rec_vercel_thinking_signature"):
        sidecar = json.loads((streams / f"{name}.json").read_text(encoding="utf-8"))
        body = (streams / sidecar["body"]).read_bytes()
        replies.append(Reply(sidecar["status"], dict(sidecar.get("headers") or {}), sse_writes(body)))
    (workspace / "src").mkdir()
    for relative in ("src/app.py", "README.md"):
        (workspace / relative).write_text(f"// {relative}\nline two\n", encoding="utf-8")
    session = tmp_path / "s.jsonl"
    with ReplayServer(replies, lifetime=60) as server:
        ran = run_cli("run", "--pi", "1.6", "--no-preflight", "--provider", "anthropic", "--model",
                      "claude-sonnet-4-5", "--base-url", server.url, "--thinking", "medium", "--tools", "read,bash",
                      "--cwd", str(workspace), "--session", str(session), "--system-prompt", PROMPT, "continue",
                      env={"ANTHROPIC_API_KEY": "sk-ant-test", "SOURCE_DATE_EPOCH": EPOCH}, timeout=60)
        received = list(server.requests)
    assert ran.code == 0, ran.stderr
    entries = _entries(session)
    assistants = [entry for entry in entries if entry["type"] == "message" and entry["message"]["role"] == "assistant"]
    assert len(received) == len(assistants) == 2
    assert all(entry["message"]["thinkingLevel"] == "medium" for entry in assistants)
    assert entries[3]["message"]["role"] == "system"
    for request, entry in zip(received, assistants, strict=True):
        payload = run_cli("payload", "--pi", "1.6", "--api", "anthropic-messages", "--model",
                          "anthropic/claude-sonnet-4-5", "--wire", "--leaf",
                          entry["parentId"], str(session))
        assert payload.code == 0, payload.stderr
        (document,) = payload.documents()
        assert json.loads(request.body) == document["wire"]["body"]
        assert document["wire"]["body"]["system"][-1]["text"] == PROMPT
