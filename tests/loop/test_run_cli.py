"""`pi-tools run` offline (faux provider): sessions Pi 0.85 loads and resumes, and the CLI's contract.

The acceptance case: a script whose first response calls `bash` and whose second answers in text, run twice on
one file (the second run continues it). Pi's own view of that file, computed once with the reference oracle
(`/tmp/oracle/oracle F --apis anthropic-messages --no-branches`), is stored in tests/data/run; the test checks
that `pi-tools context`/`convert` give exactly that for a freshly written file, so Node is not needed here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from support.clihelp import run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "run"
EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}
ALL_TOOLS = "read,bash,edit,write,ls"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "a.txt").write_text("hello\n", encoding="utf-8")
    return cwd


def _entries(session: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]


def _script(tmp_path: Path, responses: list[dict[str, Any]]) -> Path:
    path = tmp_path / f"script{len(list(tmp_path.glob('script*.json')))}.json"
    path.write_text(json.dumps({"responses": responses}), encoding="utf-8")
    return path


def test_faux_run_matches_pi(tmp_path: Path, workspace: Path) -> None:
    session = tmp_path / "s.jsonl"
    first = run_cli("run", "--faux-script", str(DATA / "faux_first.json"), "--session", str(session), "--cwd",
                    str(workspace), "--tools", ALL_TOOLS, "what is here?", env=EPOCH)
    assert first.code == 0, first.stderr
    after_first = _entries(session)
    second = run_cli("run", "--faux-script", str(DATA / "faux_second.json"), "--session", str(session), "--cwd",
                     str(workspace), "--tools", ALL_TOOLS, "write a todo note", env=EPOCH)
    assert second.code == 0, second.stderr
    entries = _entries(session)
    # The second run only appended, continuing at the leaf of the first.
    assert entries[: len(after_first)] == after_first
    assert entries[len(after_first)]["parentId"] == after_first[-1]["id"]
    assert (workspace / "notes" / "todo.md").read_text() == "# Todo\n- water the plants\n"

    oracle = json.loads((DATA / "oracle_faux_two_runs.json").read_text(encoding="utf-8"))
    context = run_cli("context", str(session))
    assert context.code == 0, context.stderr
    (document,) = context.documents()
    assert document["messages"] == oracle["context"]["messages"]
    assert document["thinkingLevel"] == oracle["context"]["thinkingLevel"] == "off"
    assert document["model"] == oracle["context"]["model"] == {"provider": "faux", "modelId": "faux-1"}
    assert document["diagnostics"] == []
    converted = run_cli("convert", str(session))
    assert converted.documents()[0]["messages"] == oracle["llm"]


def test_new_session_layout_is_pis(tmp_path: Path, workspace: Path) -> None:
    session_dir = tmp_path / "sessions"
    result = run_cli("run", "--faux-script", str(DATA / "faux_first.json"), "--session-dir", str(session_dir),
                     "--cwd", str(workspace), "what is here?", env=EPOCH)
    assert result.code == 0, result.stderr
    (session,) = session_dir.iterdir()
    entries = _entries(session)
    header = entries[0]
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
    assert header["version"] == 3 and header["timestamp"] == "2026-01-01T00:00:00.000Z"
    assert header["cwd"] == str(workspace.resolve())
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", header["id"])
    assert session.name == f"2026-01-01T00-00-00-000Z_{header['id']}.jsonl"
    assert [e["type"] for e in entries] == ["session", "model_change", "thinking_level_change"] + ["message"] * 4
    assert all(re.fullmatch(r"[0-9a-f]{8}", e["id"]) for e in entries[1:])
    assert [e["parentId"] for e in entries[1:]] == [None, *[e["id"] for e in entries[1:-1]]]
    assert [list(e)[:4] for e in entries[1:]] == [["type", "id", "parentId", "timestamp"]] * 6
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert f"session: {session}" in result.stdout


def test_events_follow_pis_sequence(tmp_path: Path, workspace: Path) -> None:
    result = run_cli("run", "--faux-script", str(DATA / "faux_first.json"), "--session", str(tmp_path / "s.jsonl"),
                     "--cwd", str(workspace), "--events", "what is here?", env=EPOCH)
    assert result.code == 0, result.stderr
    kinds = [e["type"] for e in result.documents()]
    repeated = ("message_update", "tool_execution_update")
    collapsed = [k for i, k in enumerate(kinds) if k not in repeated or kinds[i - 1] != k]
    assert collapsed == [
        "agent_start", "turn_start", "message_start", "message_end",
        "message_start", "message_update", "message_end",
        "tool_execution_start", "tool_execution_update", "tool_execution_end", "message_start", "message_end",
        "turn_end", "turn_start", "message_start", "message_update", "message_end", "turn_end", "agent_end",
    ]
    updates = [e["assistantMessageEvent"] for e in result.documents() if e["type"] == "message_update"]
    deltas = "".join(u["delta"] for u in updates[: 40] if u["type"] == "text_delta")
    assert deltas.startswith("Let me look at the files")
    assert all(len(u.get("delta", "")) <= 20 for u in updates)
    assert {"thinking_start", "thinking_delta", "thinking_end", "toolcall_start", "toolcall_delta",
            "toolcall_end"} <= {u["type"] for u in updates}


def test_transcript_streams_text_and_tools(tmp_path: Path, workspace: Path) -> None:
    result = run_cli("run", "--faux-script", str(DATA / "faux_first.json"), "--session", str(tmp_path / "s.jsonl"),
                     "--cwd", str(workspace), "what is here?", env=EPOCH)
    assert result.code == 0
    assert "assistant: Let me look at the files in the workspace first.\n" in result.stdout
    assert '→ bash {"command":"ls && cat a.txt"}' in result.stdout
    assert "assistant: The workspace holds a.txt, which says hello." in result.stdout


def test_max_turns_bounds_the_loop(tmp_path: Path, workspace: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "echo again"}}
    script = _script(tmp_path, [{"content": [call]}] * 5)
    session = tmp_path / "s.jsonl"
    result = run_cli("run", "--faux-script", str(script), "--session", str(session), "--cwd", str(workspace),
                     "--max-turns", "2", "loop", env=EPOCH)
    assert result.code == 0, result.stderr
    roles = [e["message"]["role"] for e in _entries(session) if e["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant", "toolResult"]


def test_exhausted_script_is_pis_error(tmp_path: Path, workspace: Path) -> None:
    session = tmp_path / "s.jsonl"
    result = run_cli("run", "--faux-script", str(_script(tmp_path, [])), "--session", str(session), "--cwd",
                     str(workspace), "hello", env=EPOCH)
    assert result.code == 1
    last = _entries(session)[-1]["message"]
    assert (last["stopReason"], last["errorMessage"]) == ("error", "No more faux responses queued")


def test_length_stop_answers_calls_with_errors(tmp_path: Path, workspace: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "x.txt", "content": "par"}}
    script = _script(tmp_path, [{"content": [call], "stopReason": "length"}, {"content": "ok"}])
    session = tmp_path / "s.jsonl"
    assert run_cli("run", "--faux-script", str(script), "--session", str(session), "--cwd", str(workspace),
                   "go", env=EPOCH).code == 0
    result = [e["message"] for e in _entries(session) if e["type"] == "message"][2]
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        'Tool call "write" was not executed: the response hit the output token limit, so its arguments may be '
        "truncated. Re-issue the tool call with complete arguments.")
    assert not (workspace / "x.txt").exists()


def test_resume_without_prompt_answers_pending_tool_results(tmp_path: Path, workspace: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "echo hi"}}
    session = tmp_path / "s.jsonl"
    first = _script(tmp_path, [{"content": [call]}])
    assert run_cli("run", "--faux-script", str(first), "--session", str(session), "--cwd", str(workspace),
                   "--max-turns", "1", "go", env=EPOCH).code == 0
    second = _script(tmp_path, [{"content": "all done"}])
    resumed = run_cli("run", "--faux-script", str(second), "--session", str(session), "--cwd", str(workspace),
                      env=EPOCH)
    assert resumed.code == 0, resumed.stderr
    roles = [e["message"]["role"] for e in _entries(session) if e["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    again = run_cli("run", "--faux-script", str(second), "--session", str(session), "--cwd", str(workspace))
    assert again.code == 2 and "Cannot continue from message role: assistant" in again.stderr


def test_bad_usage_is_reported_without_traceback(tmp_path: Path, workspace: Path) -> None:
    bad_script = tmp_path / "bad.json"
    bad_script.write_text('{"responses": [{"content": [{"type": "image"}]}]}')
    cases = [
        (["--faux-script", str(bad_script)], "expected a text, thinking or toolCall block"),
        (["--provider", "anthropic"], "--model is required"),
        (["--provider", "anthropic", "--model", "nope"], "nope"),
        (["--provider", "mistral", "--model", "mistral-medium-latest"], "speaks mistral-conversations"),
        (["--tools", "read,frob"], "unknown tool 'frob'"),
        (["--session", str(tmp_path / "s.jsonl"), "--session-dir", str(tmp_path)], "exclude each other"),
    ]
    for extra, message in cases:
        args = ["run", "--cwd", str(workspace), *extra]
        if "--provider" not in extra and "--faux-script" not in extra:
            args += ["--faux-script", str(_script(tmp_path, []))]
        if "--session" not in extra:
            args += ["--session", str(tmp_path / "never.jsonl")]
        result = run_cli(*args, "hi")
        assert result.code == 2, (extra, result.stderr)
        assert message in result.stderr, (extra, result.stderr)
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "never.jsonl").exists()


def test_bash_sees_pis_session_variables(tmp_path: Path, workspace: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "bash",
            "arguments": {"command": "echo $PI_PROVIDER/$PI_MODEL $PI_REASONING_LEVEL $PI_SESSION_ID"}}
    script = _script(tmp_path, [{"content": [call]}, {"content": "ok"}])
    session = tmp_path / "s.jsonl"
    assert run_cli("run", "--faux-script", str(script), "--session", str(session), "--cwd", str(workspace),
                   "env?", env=EPOCH).code == 0
    entries = _entries(session)
    result = [e["message"] for e in entries if e["type"] == "message"][2]
    assert result["content"][0]["text"] == f"faux/faux-1 off {entries[0]['id']}\n"


@pytest.mark.parametrize("case", ["c002_branching", "c003_compaction", "c004_crossprovider"])
def test_continuing_pi_written_sessions(case: str, tmp_path: Path, workspace: Path) -> None:
    """Runs appended to files Pi wrote (branches, compaction, another provider) give Pi's context."""
    from support.golden import CASES

    session = tmp_path / f"{case}.jsonl"
    original = (CASES / f"{case}.jsonl").read_bytes()
    session.write_bytes(original)
    result = run_cli("run", "--faux-script", str(DATA / "faux_first.json"), "--session", str(session), "--cwd",
                     str(workspace), "--tools", "read,bash", "what is here?", env=EPOCH)
    assert result.code == 0, result.stderr
    assert session.read_bytes().startswith(original if original.endswith(b"\n") else original + b"\n")
    expected = json.loads((DATA / "oracle_continued_cases.json").read_text(encoding="utf-8"))["contexts"][case]
    (document,) = run_cli("context", str(session)).documents()
    assert document["messages"] == expected["messages"]
    assert (document["thinkingLevel"], document["model"]) == (expected["thinkingLevel"], expected["model"])
