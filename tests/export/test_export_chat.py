"""The web ChatMessage projection (`export --format chat`, `pi_tools.export.to_chat_messages`).

Exact mappings on hand-made messages, then every conversation of the fixtures: one part per block, each tool
result attached to its call's part, ids stable, and the AI SDK's own `validateUIMessages` (npm `ai`, installed
into a scratch folder, never the repository) accepting every one of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_tools.export import ExportOptions, chat_conversation, to_chat_messages, tool_part_type
from pi_tools.session import load_session
from pi_tools.session.context import entry_to_messages

from support.golden import CASES, REALWORLD, case_names, realworld_names

SESSIONS = [CASES / f"{name}.jsonl" for name in case_names()] + [REALWORLD / f"{n}.jsonl" for n in realworld_names()]
HOSTILE = Path(__file__).resolve().parents[1] / "data" / "render" / "hostile.jsonl"


def _loadable(path: Path) -> Any:
    from pi_tools.session import SessionReadError

    try:
        return load_session(str(path))
    except SessionReadError:
        return None


def test_tool_part_names_follow_the_mapper() -> None:
    assert [tool_part_type(n) for n in ("bash", "read", "edit_file", "ls", "ipython", "web-search", "thinking",
                                        "mcp__github__create_issue")] == [
        "tool-Bash", "tool-Read", "tool-EditFile", "tool-LS", "tool-IPython", "tool-WEBSearch", "tool-Thinking",
        "tool-MCPGithubCreateIssue"]


def test_user_assistant_and_results_map_block_by_block() -> None:
    messages = [
        {"role": "user", "content": "plain", "timestamp": 1},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "QUJD", "mimeType": "image/png"},
                                     {"type": "text", "text": "b"}], "timestamp": 2},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "Running."},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}},
            {"type": "toolCall", "id": "c2", "name": "read_file", "arguments": {"path": "x"}},
            {"type": "toolCall", "id": "c3", "name": "ls", "arguments": {}},
        ], "stopReason": "toolUse", "timestamp": 3},
        {"role": "toolResult", "toolCallId": "c2", "toolName": "read_file", "content": [{"type": "text", "text": "no"},
                                                                                       {"type": "text", "text": "such file"}],
         "isError": True, "timestamp": 4},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text", "text": "a.txt"}],
         "details": {"exit": 0}, "isError": False, "timestamp": 5},
    ]
    assert to_chat_messages(messages) == [
        {"id": "m0", "role": "user", "parts": [{"type": "text", "text": "plain"}], "createdAt": 1},
        {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "a"},
                                               {"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,QUJD"},
                                               {"type": "text", "text": "b"}], "createdAt": 2},
        {"id": "m2", "role": "assistant", "createdAt": 3, "parts": [
            {"type": "tool-Thinking", "toolCallId": "m2-thinking-0", "state": "output-available",
             "input": {"thought": "hmm"}, "output": "hmm"},
            {"type": "text", "text": "Running."},
            {"type": "tool-Bash", "toolCallId": "c1", "state": "output-available", "input": {"command": "ls"},
             "output": {"content": [{"type": "text", "text": "a.txt"}], "details": {"exit": 0}}},
            {"type": "tool-ReadFile", "toolCallId": "c2", "state": "output-error", "input": {"path": "x"},
             "errorText": "no\nsuch file"},
            {"type": "tool-LS", "toolCallId": "c3", "state": "input-available", "input": {}},
        ]},
    ]


def test_assistant_without_text_shows_its_thinking_as_text() -> None:
    message = {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "first "}, {"type": "text", "text": "  "}, {"type": "thinking", "thinking": "second"},
        {"type": "toolCall", "id": "t", "name": "bash", "arguments": {"command": "pwd"}}], "stopReason": "toolUse"}
    assert to_chat_messages([message], ["a"])[0]["parts"] == [
        {"type": "text", "text": "first second"},
        {"type": "tool-Bash", "toolCallId": "t", "state": "input-available", "input": {"command": "pwd"}},
    ]
    # With thinking left out there is nothing to promote.
    assert to_chat_messages([message], ["a"], thinking=False)[0]["parts"][0] == {"type": "text", "text": "  "}


def test_pi_roles_errors_and_lost_results_are_data_parts() -> None:
    messages = [
        {"role": "bashExecution", "command": "ls", "output": "x", "exitCode": 0, "cancelled": False, "truncated": False,
         "excludeFromContext": True, "timestamp": 1},
        {"role": "custom", "customType": "note", "content": "hi", "display": True, "details": {"k": 1}, "timestamp": 2},
        {"role": "custom", "customType": "hidden", "content": "no", "display": False, "timestamp": 3},
        {"role": "branchSummary", "summary": "S", "fromId": "f", "timestamp": 4},
        {"role": "compactionSummary", "summary": "C", "tokensBefore": 9, "timestamp": 5},
        {"role": "toolResult", "toolCallId": "lost", "toolName": "bash", "content": [], "isError": False, "timestamp": 6},
        {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "boom", "timestamp": 7},
    ]
    assert [(m["id"], m["role"], m["parts"]) for m in to_chat_messages(messages)] == [
        ("m0", "user", [{"type": "data-bashExecution", "data": {"command": "ls", "output": "x", "exitCode": 0,
                                                                "cancelled": False, "truncated": False,
                                                                "excludeFromContext": True}}]),
        ("m1", "user", [{"type": "data-custom", "data": {"customType": "note", "details": {"k": 1}}},
                        {"type": "text", "text": "hi"}]),
        ("m3", "user", [{"type": "data-branchSummary", "data": {"summary": "S", "fromId": "f"}}]),
        ("m4", "user", [{"type": "data-compactionSummary", "data": {"summary": "C", "tokensBefore": 9}}]),
        ("m5", "assistant", [{"type": "data-toolResult", "data": {"toolCallId": "lost", "toolName": "bash",
                                                                  "content": [], "isError": False}}]),
        ("m6", "assistant", [{"type": "data-error", "data": {"stopReason": "error", "errorMessage": "boom"}}]),
    ]


def _block_parts(message: dict[str, Any], thinking: bool = True) -> int:
    """The parts a stored assistant message must give: one per text/thinking/toolCall/image block."""
    kinds = {"text", "toolCall", "image"} | ({"thinking"} if thinking else set())
    return sum(1 for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") in kinds)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_fixture_conversations_keep_every_block_and_attach_every_result(path: Path) -> None:
    tree = _loadable(path)
    if tree is None:
        pytest.skip("Pi refuses this file")
    for leaf in [None, *tree.leaves()[:8]]:
        chat = chat_conversation(tree, ExportOptions(leaf=leaf))
        again = chat_conversation(load_session(str(path)), ExportOptions(leaf=leaf))
        assert chat == again  # ids and everything else stable across runs
        assert len({m["id"] for m in chat}) == len(chat)
        by_id = {m["id"]: m for m in chat}
        path_entries = tree.path(tree.leaf_id if leaf is None else leaf)
        results: dict[str, list[dict[str, Any]]] = {}
        calls: dict[str, dict[str, Any]] = {}
        for entry in path_entries:
            for message in entry_to_messages(entry):
                if not isinstance(message, dict):
                    continue
                if message.get("role") == "assistant" and isinstance(entry.get("id"), str) and entry["id"] in by_id:
                    parts = by_id[entry["id"]]["parts"]
                    blocks = [p for p in parts if p["type"] != "data-error"]
                    has_text = any(isinstance(b, dict) and b.get("type") == "text" and str(b.get("text", "")).strip()
                                   for b in message.get("content") or [])
                    if has_text or not any(p["type"] == "text" for p in blocks):
                        assert len(blocks) == _block_parts(message), entry["id"]
                    for part in parts:
                        if part["type"].startswith("tool-") and part["type"] != "tool-Thinking":
                            calls.setdefault(part["toolCallId"], part)
                elif message.get("role") == "toolResult" and isinstance(message.get("toolCallId"), str):
                    results.setdefault(message["toolCallId"], []).append(message)
        for call_id, part in calls.items():
            if call_id in results:
                first = results[call_id][0]
                if first.get("isError") is True:
                    assert part["state"] == "output-error" and isinstance(part["errorText"], str)
                else:
                    assert part["state"] == "output-available"
                    assert part["output"]["content"] == (first.get("content") if first.get("content") is not None else [])
            else:
                assert part["state"] == "input-available"
        for part in (p for m in chat for p in m["parts"] if p["type"].startswith("tool-")):
            assert isinstance(part["toolCallId"], str) and part["toolCallId"]


def test_compaction_history_is_kept_and_marked() -> None:
    tree = load_session(str(CASES / "c016_compaction.jsonl"))
    chat = chat_conversation(tree)
    hidden = [m for m in chat if m.get("metadata") == {"inContext": False}]
    last = [e["id"] for e in tree.path(tree.leaf_id) if e.get("type") == "compaction"][-1]
    compaction = next(m for m in chat if m["id"] == last)
    assert compaction["parts"][0]["type"] == "data-compactionSummary"
    assert hidden and chat.index(hidden[-1]) < chat.index(compaction)
    assert all("metadata" not in m for m in chat[chat.index(compaction):])


def test_filters_apply_to_chat() -> None:
    tree = load_session(str(CASES / "c001_tools.jsonl"))
    full = chat_conversation(tree)
    users = chat_conversation(tree, ExportOptions(only="user"))
    assert users == [m for m in full if m["role"] == "user" and m["parts"][0]["type"] in ("text", "file")]
    no_tools = chat_conversation(tree, ExportOptions(tools=False))
    assert [m["id"] for m in no_tools] == [m["id"] for m in full if not m["parts"][0]["type"] == "data-toolResult"]
    for before, after in zip((m for m in full if m["parts"][0]["type"] != "data-toolResult"), no_tools, strict=True):
        assert after["parts"] == [p for p in before["parts"]
                                  if not (p["type"].startswith("tool-") and p["type"] != "tool-Thinking")] \
            or not any(p["type"] == "text" and p["text"].strip() for p in before["parts"])


def test_chat_cli_writes_one_message_per_line(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "c.jsonl"
    run = cli("export", str(CASES / "c001_tools.jsonl"), "--format", "chat", "-o", str(out))
    assert run.code == 0, run.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines == chat_conversation(load_session(str(CASES / "c001_tools.jsonl")))
    refused = cli("export", str(CASES / "c002_branching.jsonl"), "--format", "chat", "--branches", "all", "-o", str(out))
    assert refused.code == 2 and "a chat export is one conversation" in refused.stderr


# --- the AI SDK's own validator ---------------------------------------------------------------------------------

VALIDATE = r"""
const { validateUIMessages } = require("ai");
const fs = require("fs");
(async () => {
  const conversations = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const failures = [];
  for (const [name, messages] of conversations) {
    try { await validateUIMessages({ messages }); }
    catch (error) { failures.push([name, String(error && error.message || error).slice(0, 2000)]); }
  }
  process.stdout.write(JSON.stringify({ checked: conversations.length, failures }));
})();
"""


@pytest.fixture(scope="module")
def ai_sdk() -> Path:
    """npm `ai` in a scratch folder outside the repository (cached between runs), or skip."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are needed for the AI SDK validator")
    folder = Path(os.environ.get("PI_TOOLS_AI_SDK_DIR", Path.home() / ".cache" / "pi-tools-ai-sdk"))
    if not (folder / "node_modules" / "ai" / "package.json").exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "pi-tools-ai-sdk-check", "private": true}', encoding="utf-8")
        installed = subprocess.run([npm, "install", "--no-audit", "--no-fund", "ai"], cwd=folder, capture_output=True,
                                   timeout=600, check=False)
        if installed.returncode != 0:
            pytest.skip(f"npm install ai failed: {installed.stderr.decode('utf-8', 'replace')[-400:]}")
    version = json.loads((folder / "node_modules" / "ai" / "package.json").read_text(encoding="utf-8"))["version"]
    assert int(version.split(".")[0]) >= 5  # UI message parts (tool-<name>, state, input/output) since ai 5
    return folder


def test_the_ai_sdk_accepts_every_exported_conversation(tmp_path: Path, ai_sdk: Path) -> None:
    conversations: list[tuple[str, list[dict[str, Any]]]] = []
    for path in [*SESSIONS, HOSTILE]:
        tree = _loadable(path)
        if tree is None:
            continue
        variants = [(leaf, ExportOptions(leaf=leaf)) for leaf in [None, *tree.leaves()[:16]]]
        variants += [("no-thinking", ExportOptions(thinking=False)), ("no-tools", ExportOptions(tools=False)),
                     ("only-assistant", ExportOptions(only="assistant"))]
        for label, options in variants:
            chat = chat_conversation(tree, options)
            if chat:
                conversations.append((f"{path.stem}:{label}", json.loads(json.dumps(chat))))
            else:
                assert not any(entry_to_messages(e) for e in tree.path(options.leaf or tree.leaf_id)) \
                    or options.only is not None
    assert len(conversations) > 100
    data = tmp_path / "conversations.json"
    data.write_text(json.dumps(conversations), encoding="utf-8")
    script = tmp_path / "validate.cjs"
    script.write_text(VALIDATE, encoding="utf-8")
    result = subprocess.run(["node", str(script), str(data)], cwd=ai_sdk, capture_output=True, timeout=600,
                            check=False, env={**os.environ, "NODE_PATH": str(ai_sdk / "node_modules")})
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")[-2000:]
    report = json.loads(result.stdout)
    assert report == {"checked": len(conversations), "failures": []}


def test_the_validator_refuses_what_it_should(tmp_path: Path, ai_sdk: Path) -> None:
    """The check has teeth: a tool part without toolCallId, or an error without errorText, is refused."""
    bad = [
        ("no-call-id", [{"id": "a", "role": "assistant", "parts": [
            {"type": "tool-Thinking", "state": "output-available", "input": {"thought": "x"}, "output": "x"}]}]),
        ("no-error-text", [{"id": "a", "role": "assistant", "parts": [
            {"type": "tool-Bash", "toolCallId": "c", "state": "output-error", "input": {}}]}]),
        ("empty-user", [{"id": "u", "role": "user", "parts": []}]),
    ]
    data = tmp_path / "bad.json"
    data.write_text(json.dumps(bad), encoding="utf-8")
    script = tmp_path / "validate.cjs"
    script.write_text(VALIDATE, encoding="utf-8")
    result = subprocess.run(["node", str(script), str(data)], cwd=ai_sdk, capture_output=True, timeout=300,
                            check=False, env={**os.environ, "NODE_PATH": str(ai_sdk / "node_modules")})
    report = json.loads(result.stdout)
    assert [name for name, _ in report["failures"]] == ["no-call-id", "no-error-text", "empty-user"]
