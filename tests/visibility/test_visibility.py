"""`pi-tools visibility`: exact verdicts and reasons for crafted sessions, cross-checked against the goldens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.session import load_session
from pi_tools.visibility.rows import visibility_rows

from support.golden import CASES, case_names, expected

HEADER = {"type": "session", "version": 3, "id": "vis-session", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
STAMP = "2026-01-01T00:00:{:02d}.000Z"
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


class Session:
    """Builds a session file entry by entry; each entry's parent is the previous one unless given."""

    def __init__(self) -> None:
        self.lines: list[Any] = [HEADER]
        self.last: str | None = None

    def add(self, entry_id: str, entry_type: str, parent: str | None | bool = True, **fields: Any) -> str:
        parent_id = self.last if parent is True else parent
        self.lines.append({"type": entry_type, "id": entry_id, "parentId": parent_id,
                           "timestamp": STAMP.format(len(self.lines)), **fields})
        self.last = entry_id
        return entry_id

    def message(self, entry_id: str, role: str, parent: str | None | bool = True, **fields: Any) -> str:
        return self.add(entry_id, "message", parent, message={"role": role, "timestamp": len(self.lines), **fields})

    def assistant(self, entry_id: str, content: list[Any], stop: str = "stop", **fields: Any) -> str:
        return self.message(entry_id, "assistant", content=content, api="anthropic-messages",
                            provider="anthropic", model="claude-sonnet-4-5", usage=USAGE, stopReason=stop, **fields)

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
        return path


def call(call_id: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": "ls"}}


def result(call_id: str) -> dict[str, Any]:
    return {"toolCallId": call_id, "toolName": "bash", "content": [{"type": "text", "text": "ok"}], "isError": False}


@pytest.fixture
def every_reason(tmp_path: Path) -> Path:
    """One session that exercises every reason a reader can miss an entry."""
    s = Session()
    s.add("mc", "model_change", None, provider="anthropic", modelId="claude-sonnet-4-5")
    s.add("tl", "thinking_level_change", thinkingLevel="high")
    s.message("u1", "user", content=[{"type": "text", "text": "hello"}])
    s.assistant("a1", [call("call1")], "toolUse")
    s.message("r1", "toolResult", **result("call1"))
    s.message("r1b", "toolResult", **result("call1"))
    s.message("u2", "user", content=[{"type": "image", "data": "AAAA", "mimeType": "image/png"}])
    s.assistant("a2", [call("call2")], "error", errorMessage="boom")
    s.message("r2", "toolResult", **result("call2"))
    s.message("b1", "bashExecution", command="ls", output="x", exitCode=0, cancelled=False, truncated=False,
              excludeFromContext=True)
    s.add("cm", "custom_message", customType="note", content="hidden note", display=False)
    s.add("ce", "custom", customType="state", data={"k": 1})
    s.add("lb", "label", targetId="u1", label="start")
    s.add("si", "session_info", name="my session")
    s.add("bs", "branch_summary", fromId="a1", summary="")
    s.message("wr", "weird", text="?")
    s.add("mx", "mystery")
    s.message("ob", "user", "a1", content=[{"type": "text", "text": "other branch"}])
    s.lines.append(42)
    s.last = "mx"
    s.assistant("a3", [{"type": "text", "text": "done"}])
    return s.write(tmp_path / "every.jsonl")


YES = None
EVERY_REASON_ROWS = [
    # entryId, context, model (no --api), tui
    ("mc", "settings-entry", "settings-entry", "settings-entry"),
    ("tl", "settings-entry", "settings-entry", "settings-entry"),
    ("u1", YES, YES, YES),
    ("a1", YES, YES, YES),
    ("r1", YES, YES, YES),
    ("r1b", YES, YES, "unmatched-tool-result"),
    ("u2", YES, YES, "no-text"),
    ("a2", YES, YES, YES),
    ("r2", YES, YES, "unmatched-tool-result"),
    ("b1", YES, "excludeFromContext", YES),
    ("cm", YES, YES, "display:false"),
    ("ce", "custom-entry", "custom-entry", "custom-entry"),
    ("lb", "label-entry", "label-entry", "label-entry"),
    ("si", "session-info-entry", "session-info-entry", "session-info-entry"),
    ("bs", "empty-summary", "empty-summary", "empty-summary"),
    ("wr", YES, "unknown-role", "unknown-role"),
    ("mx", "unknown-entry-type", "unknown-entry-type", "unknown-entry-type"),
    ("ob", "other-branch", "other-branch", "other-branch"),
    (None, "not-an-entry", "not-an-entry", "not-an-entry"),
    ("a3", YES, YES, YES),
]


def _expected_document(source: str, entry_id: str | None, line: int, reasons: tuple[Any, ...],
                       types: dict[str | None, tuple[Any, Any]], api: str | None = None) -> dict[str, Any]:
    context, model, tui = reasons
    entry_type, role = types[entry_id]
    document: dict[str, Any] = {
        "kind": "visibility", "source": source, "pi": "0.85", "entryId": entry_id, "line": line, "type": entry_type,
        "role": role, "stored": True, "context": context is None, "model": model is None, "tui": tui is None,
    }
    if api is not None:
        document["api"] = api
    document["reasons"] = {name: reason for name, reason in (("context", context), ("model", model), ("tui", tui))
                           if reason is not None}
    return document


def _types(path: Path) -> dict[str | None, tuple[Any, Any]]:
    types: dict[str | None, tuple[Any, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        entry = json.loads(line)
        if not isinstance(entry, dict):
            types[None] = (None, None)
            continue
        message = entry.get("message")
        types[entry["id"]] = (entry["type"], message.get("role") if isinstance(message, dict) else None)
    return types


def test_every_reason_json_rows_are_exact(cli: Any, every_reason: Path) -> None:
    """Without --api the model column goes through the API of the session's current model, as payload builds for
    it (issue 25): here anthropic-messages, which skips the errored turn a2."""
    result = cli("visibility", str(every_reason), "--format", "json")
    assert result.code == 0, result.stderr
    assert result.stderr == (f"pi-tools: {every_reason}: model column as sent through anthropic-messages, the API "
                             "of anthropic/claude-sonnet-4-5, the session's current model; --api chooses another\n")
    types = _types(every_reason)
    rows = [("a2", YES, "errored-turn-skipped", YES) if row[0] == "a2" else row for row in EVERY_REASON_ROWS]
    want = [_expected_document(str(every_reason), entry_id, line, reasons, types, "anthropic-messages")
            for line, (entry_id, *reasons) in enumerate(rows, start=2)]
    assert result.documents() == want
    explicit = cli("visibility", str(every_reason), "--format", "json", "--api", "anthropic-messages")
    assert (explicit.stdout, explicit.stderr) == (result.stdout, "")


def test_a_session_without_a_model_applies_no_api_and_says_so(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text('{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
                       '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
                       '"message":{"role":"user","content":"hi","timestamp":1767225601000}}\n', encoding="utf-8")
    result = cli("visibility", str(session), "--format", "json")
    assert result.code == 0
    assert result.stderr == (
        f"pi-tools: {session}: the session records no model (no assistant message or model change on its path names "
        "one); pass --api API and --model PROVIDER/ID; the model column applies no API's transformMessages (--api "
        "API applies one)\n")
    assert [("api" in doc, doc["model"]) for doc in result.documents()] == [(False, True)]


def test_api_skips_errored_turns(cli: Any, every_reason: Path) -> None:
    result = cli("visibility", str(every_reason), "--format", "json", "--api", "anthropic-messages")
    assert result.code == 0, result.stderr
    rows = {doc["entryId"]: doc for doc in result.documents()}
    assert rows["a2"]["model"] is False
    assert rows["a2"]["reasons"] == {"model": "errored-turn-skipped"}
    assert rows["a2"]["api"] == "anthropic-messages"
    # Only the errored turn changes: every other verdict is the same as without --api.
    others = [(doc["entryId"], doc["context"], doc["model"], doc["tui"]) for doc in result.documents()
              if doc["entryId"] != "a2"]
    assert others == [(e, c is None, m is None, t is None) for e, c, m, t in EVERY_REASON_ROWS if e != "a2"]


def test_compaction_and_leaf(tmp_path: Path, cli: Any) -> None:
    s = Session()
    s.add("mc", "model_change", None, provider="anthropic", modelId="claude-sonnet-4-5")
    s.message("u1", "user", content="first")
    s.assistant("a1", [{"type": "text", "text": "one"}])
    s.message("u2", "user", content="second")
    s.assistant("a2", [{"type": "text", "text": "two"}])
    s.add("cp", "compaction", summary="earlier work", firstKeptEntryId="u2", tokensBefore=100)
    s.message("u3", "user", content="third")
    s.assistant("a3", [{"type": "text", "text": "three"}])
    path = s.write(tmp_path / "compacted.jsonl")
    rows = [(row.entry["id"], row.context, row.model, row.tui) for row in visibility_rows(load_session(str(path)))]
    assert rows == [
        ("mc", "settings-entry", "settings-entry", "settings-entry"),
        ("u1", "compacted-away", "compacted-away", "compacted-away"),
        ("a1", "compacted-away", "compacted-away", "compacted-away"),
        ("u2", None, None, None),
        ("a2", None, None, None),
        ("cp", None, None, None),
        ("u3", None, None, None),
        ("a3", None, None, None),
    ]
    # From the leaf u2 the compaction and everything after it are another branch.
    result = cli("visibility", str(path), "--leaf", "u2", "--format", "json")
    assert result.code == 0, result.stderr
    verdicts = [(doc["entryId"], doc["context"], doc["reasons"].get("context")) for doc in result.documents()]
    assert verdicts == [
        ("mc", False, "settings-entry"), ("u1", True, None), ("a1", True, None), ("u2", True, None),
        ("a2", False, "other-branch"), ("cp", False, "other-branch"), ("u3", False, "other-branch"),
        ("a3", False, "other-branch"),
    ]


def test_table_names_reasons(cli: Any, every_reason: Path) -> None:
    result = cli("visibility", str(every_reason))
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:7] == ["line", "id", "type/role", "context", "model", "tui", "why"]
    row = next(line for line in lines if " b1 " in f" {line} ")
    assert row.split()[2:7] == ["message/bashExecution", "yes", "no", "yes", "excludeFromContext"]


def test_bad_usage(cli: Any, every_reason: Path, tmp_path: Path) -> None:
    assert cli("visibility", str(every_reason), "--leaf", "nope").code == 2
    assert cli("visibility", str(every_reason), "--api", "no-such-api").code == 2
    missing = cli("visibility", str(tmp_path / "missing.jsonl"))
    assert missing.code == 2 and "Traceback" not in missing.stderr


# Cases Pi itself refuses to load have no context to compare with.
LOADABLE_CASES = [name for name in case_names() if "context" in expected(name) and "llm" in expected(name)]


@pytest.mark.parametrize("name", LOADABLE_CASES)
def test_goldens_context_and_model_counts(name: str) -> None:
    """Entries marked in-context / sent project to exactly the reference's context and LLM message counts."""
    golden = expected(name)
    tree = load_session(str(CASES / f"{name}.jsonl"))
    rows = list(visibility_rows(tree))
    assert len(rows) == len(tree.entries)
    assert sum(row.context is None for row in rows) == len(golden["context"]["messages"])
    assert sum(row.model is None for row in rows) == len(golden["llm"])


def test_content_transform_messages_cannot_take_falls_back_or_fails_by_the_option(cli: Any) -> None:
    """Without --api the session's API is a default: where its transformMessages cannot run (an assistant whose
    content is not an array), the model column applies none and says so; asked for with --api, the file fails."""
    case = "fixtures/fuzz/cases/assistant_content_not_an_array.jsonl"
    failure = ("anthropic-messages's transformMessages cannot run on this session (AttributeError: 'str' object has "
               "no attribute 'get')")
    default = cli("visibility", "--format", "json", case)
    assert (default.code, default.stderr) == (
        0, f"pi-tools: {case}: {failure}; the model column applies no API's transformMessages\n")
    assert all("api" not in row for row in default.documents())
    asked = cli("visibility", "--format", "json", "--api", "anthropic-messages", case)
    assert (asked.code, asked.stdout, asked.stderr) == (2, "", f"pi-tools: {case}: {failure}\n")
