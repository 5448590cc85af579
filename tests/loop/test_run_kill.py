"""A run killed or stopped mid-stream leaves a session Pi still loads, holding only settled messages.

A slow loopback server (127.0.0.1) streams an Anthropic response one event every 0.3 s; the test waits until
the run has printed a text delta (so the stream is really in flight) and then kills it with SIGKILL, or stops
it with SIGTERM, which Pi answers by persisting the partial answer as an ``aborted`` message.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from pi_tools.session import build_session_context, load_session

from support.clihelp import ROOT, cli_command, run_cli
from support.replay_server import ReplayServer, Reply, sse_writes

STREAMS = ROOT / "fixtures" / "streams"
DATA = Path(__file__).resolve().parents[1] / "data" / "run"
SECRET = "sk-ant-test-kill-0000"
EPOCH = "1767225600"


def _slow_reply() -> Reply:
    body = (STREAMS / "cases" / "anthropic-messages" / "rec_sdkpy_basic_text.sse").read_bytes()
    writes = sse_writes(body)
    return Reply(200, {"content-type": "text/event-stream"}, writes, delay=0.3)


def _start_session(tmp_path: Path) -> tuple[Path, Path]:
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "a.txt").write_text("hello\n")
    session = tmp_path / "s.jsonl"
    first = run_cli("run", "--faux-script", str(DATA / "faux_first.json"), "--session", str(session),
                    "--cwd", str(cwd), "what is here?", env={"SOURCE_DATE_EPOCH": EPOCH})
    assert first.code == 0, first.stderr
    return cwd, session


def _run_until_streaming(server: ReplayServer, cwd: Path, session: Path) -> subprocess.Popen[bytes]:
    """Start a run and return once it has printed a text delta of the slow stream."""
    env = {**os.environ, "ANTHROPIC_API_KEY": SECRET, "SOURCE_DATE_EPOCH": EPOCH}
    process = subprocess.Popen(
        cli_command("run", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", server.url,
                    "--cwd", str(cwd), "--session", str(session), "--events", "tell me more"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    assert process.stdout is not None
    deadline = time.monotonic() + 30
    buffer = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.5)
        if not ready:
            continue
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            break
        buffer += chunk
        if b'"text_delta"' in buffer:
            return process
    process.kill()
    process.wait(10)
    raise AssertionError(f"the run never streamed text: {buffer[-500:]!r}")


def _lines(session: Path) -> list[dict[str, Any]]:
    data = session.read_bytes()
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def test_sigkill_mid_stream_leaves_only_settled_messages(tmp_path: Path) -> None:
    cwd, session = _start_session(tmp_path)
    before = _lines(session)
    with ReplayServer([_slow_reply()], lifetime=30) as server:
        process = _run_until_streaming(server, cwd, session)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    assert process.returncode == -signal.SIGKILL
    after = _lines(session)
    assert after[: len(before)] == before
    added = after[len(before):]
    # Only settled entries were added: the model switch and the prompt; never a partial assistant.
    assert [e["type"] for e in added] == ["model_change", "message"]
    assert added[-1]["message"]["role"] == "user"
    tree = load_session(str(session))
    assert not [d for d in tree.diagnostics if d["severity"] != "info"]
    context = build_session_context(tree)
    assert [m["role"] for m in context.messages][-1] == "user"
    assert SECRET not in session.read_text()
    # Pi (and pi-tools) can pick the session up again from there.
    assert run_cli("context", str(session)).code == 0


def test_sigterm_mid_stream_persists_an_aborted_message(tmp_path: Path) -> None:
    cwd, session = _start_session(tmp_path)
    with ReplayServer([_slow_reply()], lifetime=30) as server:
        process = _run_until_streaming(server, cwd, session)
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == 1, stderr.decode()
    assert b"Traceback" not in stderr
    last = _lines(session)[-1]
    message = last["message"]
    assert message["role"] == "assistant"
    assert message["stopReason"] == "aborted"
    assert message["errorMessage"] == "Request was aborted"
    assert message["content"] and message["content"][0]["type"] == "text" and message["content"][0]["text"]
    assert all("partialJson" not in block and "index" not in block for block in message["content"])
    events = [json.loads(line) for line in stdout.decode().splitlines() if line.strip()]
    assert events[-1]["type"] == "agent_end"
    assert [e["type"] for e in events[-3:]] == ["message_end", "turn_end", "agent_end"]
    assert load_session(str(session)).leaf_id == last["id"]
