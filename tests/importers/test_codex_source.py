"""The Codex source of `pi-tools import`: every layout, what each record becomes, and the checks every imported
file must pass (both oracles load it, the rebuilt context holds every turn, usage equals the source's totals).

Fixtures (tests/importers/data/codex, README there): two real rollouts (Apache-2.0) and synthetic ones written by
make_synthetic.py in the shapes of the Codex versions they name.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from pi_tools.importers.builder import SessionBuilder
from pi_tools.importers.codex import convert, detect
from pi_tools.importers.records import ImportFailed, first_lines
from pi_tools.importers.report import ImportReport
from pi_tools.pi import resolve

from support.oracle_path import MISSING, MISSING16, ORACLE, ORACLE16

DATA = Path(__file__).resolve().parent / "data" / "codex"
REAL = sorted((DATA / "real").glob("rollout-*.jsonl"))
SYNTHETIC = ["rollout-chatgpt-tree.jsonl", "rollout-tokens-first.jsonl", "rollout-remote-compaction.jsonl",
             "rollout-damaged.jsonl", "rollout-bare.jsonl", "rollout-typescript.json"]
ALL = [*REAL, *(DATA / name for name in SYNTHETIC)]
VERSIONS = ["0.85", "1.6"]


def imported(path: Path, pi: str = "0.85") -> tuple[SessionBuilder, ImportReport]:
    report = ImportReport(str(path), "codex")
    builders = convert(str(path), pi=resolve(pi), report=report)
    assert len(builders) == 1
    return builders[0], report


def entries(builder: SessionBuilder) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in builder.lines()[1:]]


def messages(builder: SessionBuilder) -> list[dict[str, Any]]:
    return [entry["message"] for entry in entries(builder) if entry["type"] == "message"]


# --- detection ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_layout_is_detected(path: Path) -> None:
    assert detect(first_lines(path.read_bytes())) is True


@pytest.mark.parametrize("first", [
    b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}',
    b'{"parentUuid":null,"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}',
    b'{"timestamp":"2026-01-01T00:00:00Z","level":"info","message":"a log line"}',
    b"not json",
])
def test_other_files_are_not_detected(first: bytes) -> None:
    assert detect([first]) is False


# --- what each record becomes: the reports ------------------------------------------------------------------------

EXPECTED_REPORTS: dict[str, dict[str, Any]] = {
    "rollout-chatgpt-tree.jsonl": {
        "imported": {"assistant": 7, "thinking": 4, "toolCall": 3, "toolResult": 3, "user": 4},
        "mapped": {"branch": 1, "compaction": 1, "model_change": 1, "session_info": 1, "thinking_level_change": 2,
                   "token_count": 7},
        "custom": {"codex-context": 2, "codex-developer-message": 1, "codex-patch_apply_end": 1,
                   "codex-session-meta": 1, "codex-task_complete": 1, "codex-task_started": 1,
                   "codex-turn-context": 2, "codex-web_search_call": 1},
        "dropped": {"event agent_message (repeats a response item)": 1,
                    "event agent_reasoning (repeats a response item)": 1,
                    "event context_compacted (repeats a response item)": 1,
                    "event user_message (repeats a response item)": 2, "repeated token_count": 1,
                    "repeated turn_context": 3, "token_count without usage (rate limits only)": 1},
        "notes": [
            "layout: rollout (Codex's JSON Lines of {timestamp, type, payload})",
            "stored as openai-codex (openai-codex-responses): its token counts record ChatGPT rate-limit windows "
            "(signed in with ChatGPT)",
            "line 24: a web_search_call item: Pi has no place for it; kept as a custom entry",
            "line 27: reasoning without encrypted content: kept as thinking Pi does not send back",
            "line 38: Codex undid the last turn: it stays on a branch of its own, and the conversation goes on from "
            "before it",
        ],
    },
    "rollout-tokens-first.jsonl": {
        "imported": {"assistant": 2, "thinking": 1, "toolCall": 1, "toolResult": 1, "user": 1},
        "mapped": {"model_change": 1, "thinking_level_change": 1, "token_count": 2},
        "custom": {"codex-session-meta": 1, "codex-turn-context": 1},
        "dropped": {"event user_message (repeats a response item)": 1, "repeated token_count": 1,
                    "repeated turn_context": 1, "token_count without usage (rate limits only)": 1},
        "notes": [
            "layout: rollout (Codex's JSON Lines of {timestamp, type, payload})",
            "stored as openai (openai-responses): its token counts record no ChatGPT rate limits (an API key)",
        ],
    },
    "rollout-remote-compaction.jsonl": {
        "imported": {"assistant": 2, "user": 2},
        "mapped": {"compaction": 1, "message kept by a compaction": 2, "model_change": 1, "thinking_level_change": 1,
                   "token_count": 2},
        "custom": {"codex-compacted": 1, "codex-session-meta": 1, "codex-turn-context": 1},
        "dropped": {"event context_compacted (repeats a response item)": 1, "repeated turn_context": 1},
        "notes": [
            "layout: rollout (Codex's JSON Lines of {timestamp, type, payload})",
            "stored as openai-codex (openai-codex-responses): its token counts record ChatGPT rate-limit windows "
            "(signed in with ChatGPT)",
            "line 6: a compaction made on OpenAI's servers (its summary is encrypted): Pi's summary says so, and the "
            "2 message(s) Codex kept follow it",
        ],
    },
    "rollout-damaged.jsonl": {
        "imported": {"assistant": 2, "toolCall": 1, "toolResult": 1, "user": 1},
        "mapped": {"model_change": 1, "thinking_level_change": 1, "token_count": 1},
        "custom": {"codex-session-meta": 1, "codex-tool_search_call": 1, "codex-turn-context": 1,
                   "codex-world_state": 1},
        "dropped": {"tool output without its call": 1, "unreadable line": 2},
        "notes": [
            "line 4: not JSON (unexpected end of data); dropped",
            "line 12: the last line is cut off (the file was copied while it was written); dropped",
            "layout: rollout (Codex's JSON Lines of {timestamp, type, payload})",
            "stored as openai (openai-responses): its token counts record no ChatGPT rate limits (an API key)",
            "line 5: the arguments of call call_bad are not a JSON object ('{\"cmd\": \"make'); stored {}",
            "line 6: a tool_search_call item: Pi has no place for it; kept as a custom entry",
            "line 9: a tool output for call 'call_ghost', which no call in the rollout made; left out",
            "line 10: unknown rollout item type 'world_state'; kept as a custom entry",
        ],
    },
    "rollout-bare.jsonl": {
        "imported": {"assistant": 2, "thinking": 1, "toolCall": 1, "toolResult": 1, "user": 1},
        "mapped": {"model_change": 1},
        "custom": {"codex-context": 2, "codex-session-meta": 1},
        "dropped": {"state marker": 3},
        "notes": [
            "layout: rollout-bare (the first Rust Codex CLI's bare items, summer 2025)",
            "stored as openai (openai-responses): nothing in it says how Codex signed in (no token counts); taken "
            "as an API key",
            "line 1: the session's metadata records no working directory; used '/home/dev/gotool' (from the first "
            "turn context or environment context)",
            "the rollout records no model; used gpt-5 (Codex CLIs of that layout record none; gpt-5 was their "
            "default from August 2025)",
            "the rollout records no token counts; usage is 0",
            "records without a time are dated with the session's start",
            "line 7: reasoning without encrypted content: kept as thinking Pi does not send back",
        ],
    },
    "rollout-typescript.json": {
        "imported": {"assistant": 1, "thinking": 1, "user": 1},
        "mapped": {"model_change": 1},
        "custom": {"codex-session-meta": 1},
        "dropped": {},
        "notes": [
            "layout: rollout-json (the TypeScript Codex CLI's one JSON document, spring 2025)",
            "stored as openai (openai-responses): nothing in it says how Codex signed in (no token counts); taken "
            "as an API key",
            "line 1: the session's metadata records no working directory; used ''",
            "the rollout records no model; used o4-mini (the TypeScript Codex CLI records none; o4-mini was its "
            "default)",
            "the rollout records no token counts; usage is 0",
            "records without a time are dated with the session's start",
            "line 3: reasoning without encrypted content: kept as thinking Pi does not send back",
        ],
    },
}


@pytest.mark.parametrize("name", SYNTHETIC)
def test_report_counts_and_notes(name: str) -> None:
    _builder, report = imported(DATA / name)
    document = report.document()
    assert {key: document[key] for key in ("imported", "mapped", "custom", "dropped", "notes")} == \
        EXPECTED_REPORTS[name]


def test_real_rollout_report() -> None:
    _builder, report = imported(REAL[0])
    assert report.imported == {"assistant": 66, "thinking": 25, "toolCall": 102, "toolResult": 102, "user": 2}
    assert report.mapped == {"model_change": 1, "thinking_level_change": 1, "token_count": 66}
    assert report.notes == [
        "layout: rollout (Codex's JSON Lines of {timestamp, type, payload})",
        "stored as openai (openai-responses): its token counts record no ChatGPT rate limits (an API key)",
        "line 197: a web_search_call item: Pi has no place for it; kept as a custom entry (3 times)",
    ]


def test_user_messages_only_as_events_are_imported_from_them() -> None:
    builder, report = imported(REAL[1])
    users = [m for m in messages(builder) if m["role"] == "user"]
    assert [m["content"][0]["text"][:48] for m in users] == [
        "\n# Files mentioned by the user:\n\n## Sample Proje",
        "there is a need for nikita to draft demo scenari",
        "use app tools to go to Analytics and Project man",
    ]
    assert "the rollout records the user's messages only as events; they are imported from them" in report.notes


# --- the session's shape ------------------------------------------------------------------------------------------

def test_chatgpt_session_assistant_messages_as_pi_stores_them() -> None:
    builder, _report = imported(DATA / "rollout-chatgpt-tree.jsonl")
    assistants = [m for m in messages(builder) if m["role"] == "assistant"]
    first = assistants[0]
    assert list(first) == ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"]
    assert (first["api"], first["provider"], first["model"], first["stopReason"]) == \
        ("openai-codex-responses", "openai-codex", "gpt-5.6-sol", "toolUse")
    assert first["timestamp"] == 1771846838269  # 2026-02-23T11:40:38.269Z, the response's first item
    # The reasoning item as Codex recorded it is the signature Pi sends back (openai-responses-shared.ts).
    assert first["content"][0] == {
        "type": "thinking", "thinking": "**Running the tests**",
        "thinkingSignature": '{"type":"reasoning","summary":[{"type":"summary_text","text":"**Running the tests**"}],'
                             '"content":null,"encrypted_content":"gAAAAABsyntheticEncryptedReasoningOne=="}'}
    assert first["content"][1] == {"type": "toolCall", "id": "call_exec1", "name": "exec_command",
                                   "arguments": {"cmd": "pytest tests/test_cart.py -q", "workdir": "/home/dev/shop"}}
    usage = first["usage"]
    assert {key: usage[key] for key in ("input", "output", "cacheRead", "cacheWrite", "reasoning", "totalTokens")} == \
        {"input": 9000, "output": 120, "cacheRead": 0, "cacheWrite": 0, "reasoning": 64, "totalTokens": 9120}
    assert usage["cost"]["total"] > 0
    patch, shell = assistants[1]["content"][2], assistants[2]["content"][0]
    assert patch["name"] == "apply_patch" and patch["arguments"]["input"].startswith("*** Begin Patch\n")
    assert shell == {"type": "toolCall", "id": "call_shell1", "name": "local_shell",
                     "arguments": {"type": "exec", "command": ["pytest", "-q"], "timeout_ms": 60000,
                                   "working_directory": None, "env": None, "user": None}}
    results = [m for m in messages(builder) if m["role"] == "toolResult"]
    assert [(r["toolCallId"], r["toolName"], r["isError"]) for r in results] == [
        ("call_exec1", "exec_command", False), ("call_patch1", "apply_patch", False),
        ("call_shell1", "local_shell", False)]
    user = next(m for m in messages(builder) if m["role"] == "user")
    assert [block["type"] for block in user["content"]] == ["text", "image"]
    assert user["content"][1]["mimeType"] == "image/png"


def test_rollback_is_a_branch_and_compaction_keeps_the_last_user_turn() -> None:
    builder, _report = imported(DATA / "rollout-chatgpt-tree.jsonl")
    by_text = {}
    for entry in entries(builder):
        if entry["type"] == "message" and entry["message"]["role"] == "user":
            by_text[entry["message"]["content"][0]["text"]] = entry
    undone = by_text["Also rename total to grand_total everywhere."]
    instead = by_text["Summarise the change for the changelog instead."]
    assert undone["parentId"] == instead["parentId"]
    compaction = next(entry for entry in entries(builder) if entry["type"] == "compaction")
    assert compaction["firstKeptEntryId"] == instead["id"]
    assert compaction["summary"] == "The user fixed cart rounding (cart.py) and wrote a changelog entry."
    assert compaction["tokensBefore"] == 3050
    names = [entry["name"] for entry in entries(builder) if entry["type"] == "session_info"]
    assert names == ["Cart rounding fix"]


@pytest.mark.parametrize("pi", VERSIONS)
def test_a_compaction_on_openais_servers_keeps_codexs_context(cli: Any, tmp_path: Path, pi: str) -> None:
    result = cli("import", str(DATA / "rollout-remote-compaction.jsonl"), "-o", str(tmp_path), "--pi", pi,
                 "--format", "json")
    written = result.documents()[0]["written"][0]
    context = cli("context", written, "--pi", pi).documents()[0]["messages"]
    assert [(m["role"], m.get("summary") or m["content"][0]["text"]) for m in context] == [
        ("compactionSummary", "Codex compacted the conversation before this point on OpenAI's servers, which keep "
                              "the summary encrypted: it could not be imported. The messages Codex kept follow."),
        ("user", "Port the parser to Rust."), ("assistant", "Ported `parse.rs`; all 41 tests pass."),
        ("user", "Now add a benchmark."), ("assistant", "Added `benches/parse.rs`.")]
    assert cli("audit", written, "--pi", pi).code == 0


def test_token_counts_before_their_response_go_to_it() -> None:
    builder, _report = imported(DATA / "rollout-tokens-first.jsonl")
    usages = [(m["usage"]["input"], m["usage"]["cacheRead"], m["usage"]["output"])
              for m in messages(builder) if m["role"] == "assistant"]
    assert usages == [(487, 3072, 31), (576, 3072, 33)]


def test_importing_twice_gives_the_same_bytes() -> None:
    first, _ = imported(DATA / "rollout-chatgpt-tree.jsonl")
    second, _ = imported(DATA / "rollout-chatgpt-tree.jsonl")
    assert first.data() == second.data()
    assert first.file_name() == "2026-02-23T11-40-23-298Z_" + first.id + ".jsonl"


def test_a_file_that_is_no_rollout_fails_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"level":"info","msg":"started"}\n')
    with pytest.raises(ImportFailed) as caught:
        imported(path)
    assert str(caught.value) == ("line 1: not a Codex rollout (neither a rollout line {timestamp, type, payload} "
                                 "nor a session's metadata {id, timestamp, ...})")


# --- the checks every imported file must pass ---------------------------------------------------------------------

def _source_turns(path: Path) -> list[tuple[str, str]]:
    """The user texts and tool output call ids of a rollout, in order (read without the importer)."""
    turns = []
    for raw in path.read_bytes().splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        item = line.get("payload")
        if line.get("type") != "response_item" or not isinstance(item, dict):
            continue
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            turns.append(("toolResult", item["call_id"]))
    return turns


@pytest.mark.parametrize("pi", VERSIONS)
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[:30])
def test_context_holds_every_turn_and_usage_equals_the_source(cli: Any, tmp_path: Path, path: Path, pi: str) -> None:
    out = tmp_path / "out"
    result = cli("import", str(path), "-o", str(out), "--pi", pi, "--format", "json")
    assert result.code == 0, result.stderr
    written = result.documents()[0]["written"]
    context = cli("context", written[0], "--pi", pi)
    assert context.code == 0, context.stderr
    got = [("toolResult", m["toolCallId"]) for m in context.documents()[0]["messages"] if m["role"] == "toolResult"]
    assert got == _source_turns(path)
    totals = [json.loads(raw)["payload"]["info"]["total_token_usage"] for raw in path.read_bytes().splitlines()
              if b'"token_count"' in raw and json.loads(raw)["payload"].get("info")]
    usage = cli("usage", written[0], "--pi", pi, "--format", "json")
    assert usage.code == 0, usage.stderr
    summed = usage.documents()[0]["totals"]
    if totals:
        assert summed["totalTokens"] == totals[-1]["total_tokens"]
        assert summed["input"] + summed["cacheRead"] == totals[-1]["input_tokens"]
        assert summed["output"] == totals[-1]["output_tokens"]
    else:
        assert summed["totalTokens"] == 0


@pytest.mark.parametrize("pi", VERSIONS)
@pytest.mark.parametrize("name", ["rollout-chatgpt-tree.jsonl", "rollout-tokens-first.jsonl"])
def test_preflight_against_the_sessions_own_model_finds_nothing(cli: Any, tmp_path: Path, name: str, pi: str) -> None:
    out = tmp_path / "out"
    result = cli("import", str(DATA / name), "-o", str(out), "--pi", pi, "--format", "json")
    written = result.documents()[0]["written"][0]
    checked = cli("preflight", written, "--pi", pi)
    assert checked.code == 0, checked.stdout + checked.stderr
    assert checked.stdout.endswith("1 file(s): 0 error(s), 0 warning(s), 0 info; 1 clean; 0 not checked\n")
    audited = cli("audit", written, "--pi", pi)
    assert audited.code == 0, audited.stdout


def _oracle(oracle: Path, session: str, api: str) -> dict[str, Any]:
    done = subprocess.run([str(oracle), session, "--apis", api], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize(("pi", "oracle", "missing"), [("0.85", ORACLE, MISSING), ("1.6", ORACLE16, MISSING16)])
def test_both_oracles_load_every_imported_file(cli: Any, tmp_path: Path, pi: str, oracle: Path, missing: str) -> None:
    if not oracle.exists():
        pytest.skip(missing)
    out = tmp_path / "out"
    result = cli("import", str(DATA), "-o", str(out), "--pi", pi, "--format", "json")
    assert result.code == 0, result.stderr
    documents = result.documents()
    assert len(documents) == len(ALL)
    for document in documents:
        session = document["written"][0]
        ours = cli("context", session, "--pi", pi).documents()[0]["messages"]
        theirs = _oracle(oracle, session, "openai-responses=openai/gpt-5.5")["context"]["messages"]
        assert [m["role"] for m in theirs] == [m["role"] for m in ours], session


@pytest.mark.parametrize(("pi", "oracle", "missing"), [("0.85", ORACLE, MISSING), ("1.6", ORACLE16, MISSING16)])
def test_pi_sends_the_reasoning_back_as_codex_recorded_it(cli: Any, tmp_path: Path, pi: str, oracle: Path,
                                                         missing: str) -> None:
    if not oracle.exists():
        pytest.skip(missing)
    result = cli("import", str(DATA / "rollout-tokens-first.jsonl"), "-o", str(tmp_path), "--pi", pi,
                 "--format", "json")
    session = result.documents()[0]["written"][0]
    payloads = _oracle(oracle, session, "openai-responses=openai/gpt-5.5")["payloads"]
    sent = next(iter(payloads.values()))["payload"]["input"]
    assert [item for item in sent if item.get("type") == "reasoning"] == [
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Listing**"}], "content": None,
         "encrypted_content": "gAAAAABsyntheticFirst=="}]
    assert [item.get("type") or item.get("role") for item in sent][1:] == \
        ["user", "reasoning", "function_call", "function_call_output", "message"]
