"""`pi-tools import` of Claude Code transcripts: real ones and synthetic rich and damaged ones.

What is asserted is what the issue asks: every turn of the source in the rebuilt context, in order; branches as
Pi branches; sidechains as linked sessions; usage totals equal to the source's; exact reports; clear per-file
diagnostics with exit 2; and (tests/importers/test_oracle_load.py) both Pi versions load every file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from pi_tools.importers import claude_code
from pi_tools.importers.report import ImportReport
from pi_tools.pi import resolve

from support.claude_turns import pi_turns, source_chains, source_usage

DATA = Path(__file__).parent / "data" / "claude-code"
REAL = sorted((DATA / "real").glob("*.jsonl"))
RICH = DATA / "synthetic" / "rich.jsonl"


def _import(tmp_path: Path, *paths: Path, extra: tuple[str, ...] = ()) -> tuple[Any, list[dict[str, Any]]]:
    result = run_cli("import", *map(str, paths), "-o", str(tmp_path / "out"), "--format", "json", *extra)
    return result, result.documents()


def _context(path: str) -> dict[str, Any]:
    result = run_cli("context", path)
    assert result.code == 0, result.stderr
    return result.documents()[0]


def _entries(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


@pytest.mark.parametrize("source", REAL, ids=lambda path: path.name[:8])
def test_real_transcripts_keep_every_turn_in_order_and_sidechains_as_linked_sessions(tmp_path: Path,
                                                                                    source: Path) -> None:
    result, (document,) = _import(tmp_path, source)
    assert result.code == 0, result.stderr
    chains = source_chains(source)
    written = document["written"]
    assert len(written) == len(chains)
    main, *sidechains = written
    assert pi_turns(_context(main)) == chains.pop("main")
    header_of_main = _entries(main)[0]
    for path, expected in zip(sidechains, chains.values(), strict=True):
        header = _entries(path)[0]
        assert header["parentSession"] == main
        assert header["cwd"] == header_of_main["cwd"] == "/path/to/Demo"
        assert pi_turns(_context(path)) == expected
    assert document["error"] is None
    assert document["dropped"] == {"toolUseResult": document["imported"]["toolResult"]}


@pytest.mark.parametrize("source", [*REAL, RICH], ids=lambda path: path.name[:8])
def test_usage_totals_equal_the_transcripts(tmp_path: Path, source: Path) -> None:
    result, (document,) = _import(tmp_path, source)
    assert result.code == 0, result.stderr
    usage = run_cli("usage", *document["written"], "--format", "json")
    assert usage.code == 0, usage.stderr
    totals = usage.documents()[0]["totals"]
    assert {key: totals[key] for key in ("input", "output", "cacheRead", "cacheWrite")} == source_usage([source])


def test_rich_transcript_report_is_exact() -> None:
    report = ImportReport("rich.jsonl", "claude-code")
    builders = claude_code.convert(str(RICH), pi=resolve("0.85"), report=report)
    assert len(builders) == 1
    assert report.document() == {
        "kind": "import", "source": "rich.jsonl", "from": "claude-code", "written": [], "unchanged": [],
        "imported": {"assistant": 5, "toolResult": 2, "user": 4},
        "mapped": {"assistant (API error)": 1, "assistant record joined to its response": 1, "compaction": 1,
                   "model_change": 2, "session_info (title)": 1, "thinking_level_change": 1},
        "custom": {"file-history-snapshot": 1, "progress": 1, "queue-operation": 1,
                   "system:stop_hook_summary": 1, "todos": 1},
        "dropped": {"toolUseResult": 1},
        "notes": [
            "1 × API error (<synthetic>) was recorded under the session's model "
            "anthropic/claude-sonnet-4-5-20250929 with no usage",
            "1 × a tool result's display data (toolUseResult) was left out: Pi's tool results keep what the "
            "model saw",
        ],
        "error": None,
    }


def test_rich_transcript_tree_fork_compaction_and_blocks(tmp_path: Path) -> None:
    result, (document,) = _import(tmp_path, RICH)
    assert result.code == 0, result.stderr
    (path,) = document["written"]
    entries = _entries(path)[1:]
    by_id = {entry["id"]: entry for entry in entries}
    messages = [entry for entry in entries if entry["type"] == "message"]
    texts = {_first_text(entry["message"]): entry for entry in messages}
    # The fork: "Actually, ..." hangs under the first answer, beside the screenshot branch.
    done = texts["Done: hello.py prints hello."]
    fork = texts["Actually, make it say hi instead"]
    assert fork["parentId"] == done["id"]
    children_of_done = [entry for entry in entries if entry["parentId"] == done["id"]]
    assert [child["type"] for child in children_of_done] == ["custom", "message"]
    # The one response written as two records is one message: signed thinking, then the call.
    first = messages[1]["message"]
    assert first["content"] == [
        {"type": "thinking", "thinking": "A one-line script will do.", "thinkingSignature": "EqQBsig01=="},
        {"type": "toolCall", "id": "toolu_01", "name": "Write",
         "arguments": {"file_path": "/home/dev/app/hello.py", "content": "print('hello')\n"}}]
    assert (first["stopReason"], first["responseId"]) == ("toolUse", "msg_01")
    assert first["usage"]["cacheWrite1h"] == 200 and first["usage"]["cost"]["total"] > 0
    opus = [entry for entry in messages if entry["message"].get("model") == "claude-opus-4-5-20251101"]
    assert opus[0]["message"]["content"][0] == {"type": "thinking", "thinking": "[Reasoning redacted]",
                                                "thinkingSignature": "EmwKAhgBEgy3redacted==", "redacted": True}
    assert by_id[opus[0]["parentId"]] == {"type": "model_change", "id": opus[0]["parentId"],
                                          "parentId": by_id[opus[0]["parentId"]]["parentId"],
                                          "timestamp": "2026-01-05T10:00:09.000Z", "provider": "anthropic",
                                          "modelId": "claude-opus-4-5-20251101"}
    image = by_id[by_id[opus[0]["parentId"]]["parentId"]]["message"]["content"][0]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    # The API error is Pi's error message; the compaction follows it and keeps nothing before itself.
    error = next(entry for entry in messages if entry["message"].get("stopReason") == "error")
    assert (error["message"]["content"], error["message"]["errorMessage"]) == ([], "API Error: 529 Overloaded")
    compaction = next(entry for entry in entries if entry["type"] == "compaction")
    assert (compaction["parentId"], compaction["firstKeptEntryId"], compaction["tokensBefore"]) == \
        (error["id"], compaction["id"], 12345)
    # The context Pi rebuilds: the summary, then the turns after it; the title is the session's name.
    context = _context(path)
    assert pi_turns(context) == [("compactionSummary", None), ("user", "Now add a test"),
                                 ("assistant", [("text", "Added test_hello.py.")])]
    assert (context["model"], context["thinkingLevel"]) == (
        {"provider": "anthropic", "modelId": "claude-sonnet-4-5-20250929"}, "high")
    assert entries[-1]["type"] == "session_info" and entries[-1]["name"] == "Greeting script"


def _first_text(message: dict[str, Any]) -> str | None:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return next((block["text"] for block in content or [] if block.get("type") == "text"), None)


def test_preflight_of_the_imported_session_against_its_own_model_is_clean(tmp_path: Path) -> None:
    result, (document,) = _import(tmp_path, RICH)
    assert result.code == 0, result.stderr
    preflight = run_cli("preflight", *document["written"])
    assert preflight.code == 0, preflight.stdout + preflight.stderr
    assert preflight.stdout.endswith("1 file(s): 0 error(s), 0 warning(s), 0 info; 1 clean; 0 not checked\n")


def test_importing_again_writes_nothing_and_a_changed_file_is_refused(tmp_path: Path) -> None:
    first, (document,) = _import(tmp_path, RICH)
    (path,) = document["written"]
    before = Path(path).read_bytes()
    again, (second,) = _import(tmp_path, RICH)
    assert (again.code, second["written"], second["unchanged"]) == (0, [], [path])
    Path(path).write_bytes(before + b'{"type":"label"}\n')  # Pi appended to it since
    refused, (third,) = _import(tmp_path, RICH)
    assert refused.code == 2
    assert refused.stderr == (f"pi-tools: {RICH}: {path}: already exists with other content (imported from an "
                              "older copy of the source, or resumed in Pi since); pass --force to replace it\n")
    assert Path(path).read_bytes() == before + b'{"type":"label"}\n'
    forced, (fourth,) = _import(tmp_path, RICH, extra=("--force",))
    assert (forced.code, fourth["written"], Path(path).read_bytes()) == (0, [path], before)


SYNTHETIC = DATA / "synthetic"


@pytest.mark.parametrize(("name", "code", "stderr", "notes"), [
    ("torn-last-line.jsonl", 0, "",
     ["line 3: the last line is cut off (the file was copied while it was written); dropped"]),
    ("not-json-line.jsonl", 0, "",
     ["line 2: not JSON (unexpected character, expected a string key); dropped",
      "line 4: a JSON array, not an object; dropped"]),
    ("result-without-call.jsonl", 0, "",
     ["line 3: a tool result for 'toolu_gone', a call that is not in the session; kept as a custom entry (the "
      "model cannot be sent a result without its call)"]),
    ("unknown-type.jsonl", 0, "", ["line 3: unknown record type 'telemetry-blob'; kept as a custom entry"]),
    ("title-only.jsonl", 2, "no user or assistant message in the file",
     ["no record names a working directory; the session's cwd is /"]),
    ("empty.jsonl", 2, "empty file", []),
])
def test_damaged_and_odd_transcripts_are_diagnosed_per_file(tmp_path: Path, name: str, code: int, stderr: str,
                                                            notes: list[str]) -> None:
    result, (document,) = _import(tmp_path, SYNTHETIC / name)
    assert result.code == code
    assert result.stderr == (f"pi-tools: {SYNTHETIC / name}: {stderr}\n" if stderr else "")
    assert document["notes"] == notes
    assert document["error"] == (stderr or None)
    assert "Traceback" not in result.stderr
    if code == 0:
        (path,) = document["written"]
        assert _context(path)["messages"]


def test_one_bad_file_does_not_stop_the_others(tmp_path: Path) -> None:
    result, documents = _import(tmp_path, SYNTHETIC / "empty.jsonl", RICH, tmp_path / "missing")
    assert result.code == 2
    assert result.stderr == (f"pi-tools: {tmp_path / 'missing'}: no such file\n"
                             f"pi-tools: {SYNTHETIC / 'empty.jsonl'}: empty file\n")
    assert [bool(document["written"]) for document in documents] == [False, True]


def test_a_pi_session_or_a_stranger_is_refused_by_detection(tmp_path: Path) -> None:
    pi_session = tmp_path / "pi.jsonl"
    pi_session.write_text('{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z",'
                          '"cwd":"/"}\n')
    stranger = tmp_path / "other.jsonl"
    stranger.write_text('{"hello":"world"}\n')
    result, _ = _import(tmp_path, pi_session, stranger)
    assert result.code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == f"pi-tools: {pi_session}: already a Pi session (nothing to import)"
    assert lines[1].startswith(f"pi-tools: {stranger}: not a session of a known kind (claude-code")
    assert lines[1].endswith("); give --from to say which")


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    result, (document,) = _import(tmp_path, RICH, extra=("--dry-run",))
    assert result.code == 0
    assert document["written"] == [str(tmp_path / "out" / "--home-dev-app--" /
                                       "2026-01-05T10-00-01-000Z_80096ef1-6723-81f4-806c-7c3738566ef6.jsonl")]
    assert not (tmp_path / "out").exists()


def test_subagent_transcripts_beside_a_session_become_linked_sessions(tmp_path: Path) -> None:
    """Claude Code 2.x keeps each sub-agent in `<session>/subagents/agent-<id>.jsonl`: imported with its session
    (a folder walk does not import it twice), its header naming the session's file."""
    project = tmp_path / "projects" / "-home-dev-app"
    agents = project / RICH.stem / "subagents"
    agents.mkdir(parents=True)
    (project / RICH.name).write_bytes(RICH.read_bytes())
    agent = [
        {"parentUuid": None, "isSidechain": True, "agentId": "a1b2c3", "type": "user", "cwd": "/home/dev/app",
         "sessionId": "7d1c2f4e-0b1a-4c55-9d7e-2f3a4b5c6d7e", "uuid": "s1", "timestamp": "2026-01-05T10:00:03.500Z",
         "message": {"role": "user", "content": "Find the greeting"}},
        {"parentUuid": "s1", "isSidechain": True, "agentId": "a1b2c3", "type": "assistant", "cwd": "/home/dev/app",
         "sessionId": "7d1c2f4e-0b1a-4c55-9d7e-2f3a4b5c6d7e", "uuid": "s2", "timestamp": "2026-01-05T10:00:03.900Z",
         "message": {"id": "msg_s2", "model": "claude-haiku-4-5-20251001", "role": "assistant",
                     "content": [{"type": "text", "text": "It is in hello.py."}], "stop_reason": "end_turn",
                     "usage": {"input_tokens": 7, "output_tokens": 8}}},
    ]
    (agents / "agent-a1b2c3.jsonl").write_text("".join(json.dumps(record) + "\n" for record in agent))
    result, documents = _import(tmp_path, tmp_path / "projects")
    assert result.code == 0, result.stderr
    (document,) = documents
    main, sidechain = document["written"]
    assert document["mapped"]["sidechain session"] == 1
    assert "sidechain" not in " ".join(document["notes"])
    assert _entries(sidechain)[0]["parentSession"] == main
    assert pi_turns(_context(sidechain)) == [("user", "Find the greeting"),
                                             ("assistant", [("text", "It is in hello.py.")])]


def test_each_branch_of_the_transcript_is_a_pi_branch(tmp_path: Path) -> None:
    """The fork in rich.jsonl ("Actually, ..." from the first answer) leaves the screenshot turn on a branch of
    its own: rebuilt from its leaf, that branch holds the conversation up to the screenshot's answer."""
    result, (document,) = _import(tmp_path, RICH)
    (path,) = document["written"]
    entries = _entries(path)[1:]
    parents = {entry["parentId"] for entry in entries}
    leaves = [entry["id"] for entry in entries if entry["id"] not in parents]
    assert len(leaves) == 2
    other = next(leaf for leaf in leaves if leaf != entries[-1]["id"])
    branch = run_cli("context", path, "--leaf", other)
    assert branch.code == 0, branch.stderr
    assert pi_turns(branch.documents()[0]) == [
        ("user", "Write hello.py that prints a greeting"),
        ("assistant", [("thinking", "A one-line script will do."), ("call", "toolu_01")]),
        ("toolResult", "toolu_01"),
        ("assistant", [("text", "Done: hello.py prints hello.")]),
        ("user", "What does this screenshot show?"),
        ("assistant", [("text", "A single white pixel.")]),
    ]


def test_without_path_both_default_folders_are_read_and_an_empty_one_is_only_said(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    (claude / "projects" / "-work-demo").mkdir(parents=True)
    (claude / "projects" / "-work-demo" / "rich.jsonl").write_bytes((SYNTHETIC / "rich.jsonl").read_bytes())
    codex = tmp_path / "codex"
    (codex / "sessions").mkdir(parents=True)
    out = tmp_path / "out"
    env = {"CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(codex)}
    result = run_cli("import", "-o", str(out), env=env)
    assert result.code == 0, result.stderr
    assert f"pi-tools: no PATH given: reading claude-code's folder {claude}/projects\n" in result.stderr
    assert f"pi-tools: no PATH given: reading codex's folder {codex}/sessions\n" in result.stderr
    assert f"pi-tools: {codex}/sessions: no session files (*.jsonl) under this directory\n" in result.stderr
    assert len(list(out.rglob("*.jsonl"))) == 1
    (claude / "projects" / "-work-demo" / "rich.jsonl").unlink()
    nothing = run_cli("import", "-o", str(tmp_path / "out2"), env=env)
    assert nothing.code == 2
    assert nothing.stderr.endswith(
        "pi-tools: no PATH given and no sessions in the tools' folders: name transcript files or folders\n")
