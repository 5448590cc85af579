"""What a stage sweep over 2,600 damaged sessions (scripts/fuzz_oracle.py's cases, seeds 7001 and 8123, through
every command) found, each as the smallest session that shows it:

- values nested a thousand levels (an id, a tool name, a provider) ended `tree`, `visibility`, `scrub`, `repair`
  and `audit` with a RecursionError traceback: Python's recursion limit, now raised in every process that runs
  stages (engine.depth, to 3,000); past it, audit's messages name the value's kind;
- a run whose worker could not send a result back (nested deeper than pickle recurses) or died ended with a
  traceback: the chunk now runs again in the main process (engine.run);
- `preflight` without --model on a session whose model speaks an API pi-tools does not build, or whose provider is
  not a string, said "please report it"; `payload` failed on such a provider with an internal error;
- Bedrock's preflight rules met a list toolUseId with an unhashable-type error;
- `preflight --replay`'s table failed on a list entry id (entry ids are null in its documents, as in audit's);
- `index` failed the whole run on a message timestamp past the double range (1e400: the lenient reader reads it
  as infinity); the session's `modified` is now null, as `ls` gives it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_tools.engine import Engine
from pi_tools.engine.run import map_ordered

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/x"}
USER = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": "hi", "timestamp": 1767225601000}}
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def assistant(provider: Any = "anthropic", model: str = "claude-sonnet-4-5",
              api: str = "anthropic-messages") -> str:
    return json.dumps({"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z",
                       "message": {"role": "assistant", "content": [
                           {"type": "toolCall", "id": "call_1", "name": "grep", "arguments": {}}],
                           "api": api, "provider": provider, "model": model, "usage": USAGE,
                           "stopReason": "toolUse", "timestamp": 1767225602000}})


def deep(levels: int, inner: str = '"x"') -> str:
    return "[" * levels + inner + "]" * levels


def result_line(call_id: str = '"call_1"', name: str = '"grep"') -> str:
    return ('{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":'
            f'{{"role":"toolResult","toolCallId":{call_id},"toolName":{name},'
            '"content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1767225603000}}')


def session(tmp_path: Path, *lines: str, name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join([json.dumps(HEADER), json.dumps(USER), *lines]) + "\n")
    return path


def clean(run: Any) -> None:
    assert "Traceback" not in run.stderr and "please report" not in run.stdout + run.stderr, run.stderr[-3000:]


def test_audit_of_a_result_id_nested_past_the_recursion_limit(cli: Any, tmp_path: Path) -> None:
    path = session(tmp_path, assistant(), result_line(call_id=deep(30_000)))
    run = cli("audit", "--format", "json", str(path))
    clean(run)
    assert run.code == 1
    assert [(d["rule"], d["entryId"], d["message"]) for d in run.documents()] == [
        ("orphaned-tool-call", "a1",
         "tool call call_1 (grep) never gets a result; Pi sends `No result provided` in its place"),
        ("required-fields", "r1", "toolResult message: 'toolCallId' is a list"),
        ("tool-result-unmatched", "r1",
         "tool result for call <a list nested too deep to show> (grep) matches no tool call of assistant a1 (line 3)"),
    ]


def test_audit_of_a_result_name_nested_1001_levels(cli: Any, tmp_path: Path) -> None:
    path = session(tmp_path, assistant(), result_line(name=deep(1001)))
    run = cli("audit", "--format", "json", str(path))
    clean(run)
    name = [d["message"] for d in run.documents() if d["rule"] == "tool-result-name"]
    assert name == [f"tool result for call call_1 is named {deep(1001, repr('x'))} but the call is 'grep'"]


@pytest.mark.parametrize("args", [("tree",), ("visibility",), ("scrub", "--dry-run"), ("search", "ok", "--branch", "all"),
                                  ("repair", "--dry-run"), ("export", "--format", "md", "-o", "{out}")],
                         ids=["tree", "visibility", "scrub", "search", "repair", "export"])
def test_stages_on_an_id_and_a_type_nested_a_thousand_levels(cli: Any, tmp_path: Path, args: tuple[str, ...]) -> None:
    deep_id = assistant().replace('"id": "a1"', f'"id": {deep(1001)}', 1)
    deep_type = '{"type":' + deep(1200) + ',"id":"c1","parentId":"u1","timestamp":"2026-01-01T00:00:04.000Z"}'
    path = session(tmp_path, deep_id, result_line(call_id=deep(1001)), deep_type)
    run = cli(*(str(tmp_path / "out.md") if arg == "{out}" else arg for arg in args), str(path))
    clean(run)
    # repair finds nothing it can change here: its own status 3 (nothing written)
    assert run.code in ((3,) if args[0] == "repair" else (0, 1)), run.stderr


@pytest.mark.parametrize(("pi", "model"), [("0.85", "gpt-5.4"), ("1.6", "gpt-5.6-sol")])
def test_preflight_of_a_session_on_a_codex_model_checks_its_request(cli: Any, tmp_path: Path, pi: str,
                                                                    model: str) -> None:
    """openai-codex-responses was the API whose sessions preflight could not check; it is built now (both Pis,
    each with a model of its own catalog)."""
    path = session(tmp_path, assistant("openai-codex", model, "openai-codex-responses"))
    run = cli("preflight", "--pi", pi, str(path))
    clean(run)
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == (f"{path}: openai-codex/{model} (openai-codex-responses): no finding\n"
                          "1 file(s): 0 error(s), 0 warning(s), 0 info; 1 clean; 0 not checked\n")


@pytest.mark.parametrize("provider", [["anthropic"], {"a": 1}, 5], ids=["list", "object", "number"])
def test_payload_and_preflight_when_the_session_model_is_not_named_by_strings(cli: Any, tmp_path: Path,
                                                                              provider: Any) -> None:
    path = session(tmp_path, assistant(provider))
    payload = cli("payload", "--api", "anthropic-messages", str(path))
    clean(payload)
    assert payload.code == 2
    assert payload.documents() == [{"kind": "error", "source": str(path), "pi": "0.85",
                                    "error": "the session records no model (no assistant message or model change "
                                             "on its path names one); pass --model PROVIDER/ID"}]
    preflight = cli("preflight", "--format", "json", str(path))
    clean(preflight)
    assert preflight.code == 2
    assert preflight.stderr == f"pi-tools: {path}: the session has no model; pass --model PROVIDER/ID\n"


def test_bedrock_preflight_of_a_list_tool_use_id(cli: Any, tmp_path: Path) -> None:
    path = session(tmp_path, assistant(), result_line(call_id='["call_1"]'))
    run = cli("preflight", "--format", "json", "--model",
              "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", str(path))
    clean(run)
    assert run.code == 1
    assert [(d["rule"], d["payloadPath"], d["message"]) for d in run.documents() if d["kind"] == "finding"
            and d["rule"] == "bedrock-tool-results"] == [
        # (Pi answers call_1 itself, "No result provided", beside the stored result with the list id)
        ("bedrock-tool-results", "messages[2].content[0]",
         "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of "
         "previous turn."),
    ]


def test_replay_of_a_request_whose_entry_id_is_a_list(cli: Any, tmp_path: Path) -> None:
    line = json.loads(assistant())
    line["id"] = ["a1"]
    path = session(tmp_path, json.dumps(line))
    documents = cli("preflight", "--replay", "--format", "json", str(path))
    clean(documents)
    assert [d["entryId"] for d in documents.documents() if d["kind"] == "request"] == [None]
    table = cli("preflight", "--replay", str(path))
    clean(table)
    assert table.code == 0 and f"{path}: 1 request(s)" in table.stdout


def test_index_of_a_message_time_past_the_double_range(cli: Any, tmp_path: Path) -> None:
    import polars as pl

    line = json.dumps(USER).replace("1767225601000", "1e400")
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + line + "\n")
    run = cli("index", str(path), "-o", str(tmp_path / "idx"))
    clean(run)
    assert run.code == 0
    sessions = pl.read_parquet(tmp_path / "idx" / "sessions" / "*.parquet")
    assert sessions.select(pl.col("created").dt.epoch("ms"), "modified").rows() == [(1767225600000, None)]
    listing = cli("ls", "--format", "json", str(tmp_path))
    assert [(d["created"], d["modified"]) for d in listing.documents()] == [("2026-01-01T00:00:00.000Z", None)]


# --- the engine: a chunk the pool cannot hand back runs in this process -----------------------------------------

def nested(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


def depth_of(value: Any) -> int:
    levels = 0
    while value:
        value, levels = value[0], levels + 1
    return levels


def too_deep_to_pickle(levels: int) -> tuple[int, list[Any]]:
    """Engine task: a result nested deeper than pickle recurses in any process (engine.depth)."""
    return os.getpid(), nested(levels)


def dies_in_a_worker(parent: int) -> int:
    """Engine task: ends its worker process (as the OOM killer would), returns in the main process."""
    if os.getpid() != parent:
        os._exit(9)
    return parent


def test_results_too_deep_to_pickle_come_from_this_process() -> None:
    results = list(map_ordered(too_deep_to_pickle, [100, 50_000, 200], Engine(jobs=2)))
    assert [depth_of(value) for _, value in results] == [100, 50_000, 200]
    assert results[1][0] == os.getpid()  # that one ran here; the others in the workers
    assert {pid for pid, _ in (results[0], results[2])} != {os.getpid()}


def test_chunks_of_a_dead_worker_run_in_this_process() -> None:
    parent = os.getpid()
    assert list(map_ordered(dies_in_a_worker, [parent] * 6, Engine(jobs=2))) == [parent] * 6


# --- rewrites ------------------------------------------------------------------------------------------------------

def test_slim_drop_branches_keeps_a_label_whose_parent_id_is_a_list(cli: Any, tmp_path: Path) -> None:
    label = {"type": "label", "id": "l1", "parentId": ["u1"], "timestamp": "2026-01-01T00:00:02.000Z",
             "targetId": "u1", "label": "start"}
    more = {"type": "message", "id": "u2", "parentId": "u1", "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {"role": "user", "content": "more", "timestamp": 1767225603000}}
    path = session(tmp_path, json.dumps(label), json.dumps(more))
    out = tmp_path / "out.jsonl"
    run = cli("slim", str(path), "-o", str(out), "--drop-branches")
    clean(run)
    assert run.code == 0
    assert out.read_bytes() == path.read_bytes()  # the label refers to the active path: kept, as it was


def test_slim_drop_branches_of_a_cycle_on_the_path_fails_as_pi_does(cli: Any, tmp_path: Path) -> None:
    first = {"type": "message", "id": "m1", "parentId": "m2", "timestamp": "2026-01-01T00:00:02.000Z",
             "message": {"role": "user", "content": "a", "timestamp": 1767225602000}}
    second = {**first, "id": "m2", "parentId": "m1"}
    path = session(tmp_path, json.dumps(first), json.dumps(second))
    run = cli("slim", str(path), "-o", str(tmp_path / "out.jsonl"), "--drop-branches")
    clean(run)
    assert run.code == 2
    assert run.stderr == (f"pi-tools: {path}: parentId cycle through entry m2 (line 4) on the path to the leaf; Pi "
                          "0.85 fails here too (it loops until 'Invalid array length')\n")
    assert not (tmp_path / "out.jsonl").exists()


def test_repair_close_orphans_beside_a_result_whose_call_id_is_a_list(cli: Any, tmp_path: Path) -> None:
    path = session(tmp_path, assistant(), result_line(call_id='["call_1"]'))
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(path), "-o", str(out), "--close-orphans", "--format", "json")
    clean(run)
    assert run.code == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    added = written[3]
    assert [d["change"] for d in run.documents() if d["kind"] == "change"] == [
        "added a `No result provided` tool result for call call_1 after entry a1",
        f"entry r1 now follows the added results (parentId a1 -> {added['id']})",
    ]
    assert (added["parentId"], added["message"]["toolCallId"], added["message"]["isError"]) == ("a1", "call_1", True)
    assert (written[4]["id"], written[4]["parentId"], written[4]["message"]["toolCallId"]) == \
        ("r1", added["id"], ["call_1"])


def test_the_raised_limit_stays_below_the_depths_answered_as_v8() -> None:
    """Where pi-tools answers as V8 does past V8's own depth, it does so on the path Python's RecursionError takes
    it to: the limit must make Python give up first."""
    from pi_tools.engine.depth import RECURSION_LIMIT
    from pi_tools.js.json_stringify import V8_STRINGIFY_DEPTH
    from pi_tools.js.values import V8_JOIN_DEPTH

    assert RECURSION_LIMIT < min(V8_JOIN_DEPTH, V8_STRINGIFY_DEPTH)
