"""Damaged input: each case gives the context Pi 0.85 builds plus diagnostics naming the line, or a clear
error naming the file. Expected contexts and errors come from the reference oracle (fixtures/bad/expected);
where Pi itself hangs or crashes, pi-tools' deliberate answer is asserted instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_tools.messages import convert_to_llm
from pi_tools.pipe.documents import dumps_document
from pi_tools.session import ContextError, SessionReadError, build_session_context, load_session

from support.golden import ROOT, canonical_sha

BAD = ROOT / "fixtures" / "bad"
NAMES = sorted(p.stem for p in BAD.glob("*.jsonl"))

# Diagnostics each case must raise (code, line): the user is told what Pi skipped and where.
EXPECTED_DIAGNOSTICS: dict[str, set[tuple[str, int]]] = {
    "bad_timestamps": {("bad-timestamp", 3), ("bad-timestamp", 4), ("bad-timestamp", 5)},
    "crlf": set(),
    "dangling_parent": {("dangling-parent", 3)},
    "duplicate_ids": {("duplicate-id", 6)},
    "header_only": set(),
    "huge_numbers": set(),
    "invalid_utf8": {("invalid-utf8", 3)},
    "junk_last": {("non-object", 6)},
    "lone_surrogate": set(),
    "nul_bytes": {("nul-byte", 3)},
    "torn_last_line": {("torn-final-line", 6), ("missing-final-newline", 6)},
    "two_objects_one_line": {("concatenated-objects", 3), ("dangling-parent", 4)},
    "unknown_types_and_roles": {("unknown-entry-type", 3), ("unknown-role", 4)},
    "wrong_field_types": {("bad-id", 2), ("bad-parent-id", 3), ("bad-field", 2), ("bad-field", 4), ("bad-field", 5)},
}

# Pi 0.85 itself fails on these (its array grows until "Invalid array length"); pi-tools stops at once.
CYCLES = {"parent_cycle": "c3", "self_parent": "s1"}


def expected(name: str) -> dict[str, Any]:
    return json.loads((BAD / "expected" / f"{name}.json").read_text())


def as_json(value: Any) -> Any:
    return json.loads(dumps_document(value))


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("name", NAMES)
def test_bad_input_matches_reference(name: str, lazy: bool) -> None:
    golden = expected(name)
    path = str(BAD / f"{name}.jsonl")
    if name in CYCLES:
        assert golden["error"] == "Invalid array length"
        tree = load_session(path, lazy)
        with pytest.raises(ContextError) as info:
            build_session_context(tree)
        assert f"parentId cycle through entry {CYCLES[name]}" in str(info.value)
        assert {d["code"] for d in tree.diagnostics} & {"parent-cycle", "self-parent"}
        return
    if "error" in golden:
        try:
            tree = load_session(path, lazy)
        except SessionReadError as exc:
            assert str(exc).replace(str(BAD) + "/", "") == golden["error"]
            return
        with pytest.raises(ContextError) as ctx_info:
            build_session_context(tree)
        assert str(ctx_info.value) == golden["error"]
        return
    tree = load_session(path, lazy)
    context = build_session_context(tree)
    assert as_json(tree.header) == golden["header"]
    assert (context.leaf_id if isinstance(context.leaf_id, str) else None) == golden["leafId"]
    got = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert as_json(got) == golden["context"]
    assert as_json(convert_to_llm(context.messages)) == golden["llm"]
    found = {(d["code"], d["line"]) for d in tree.diagnostics + context.diagnostics}
    assert EXPECTED_DIAGNOSTICS[name] <= found
    if not EXPECTED_DIAGNOSTICS[name]:
        assert not [d for d in found if d[0] != "missing-field"], found


def test_every_bad_case_has_an_expectation() -> None:
    handled = set(EXPECTED_DIAGNOSTICS) | set(CYCLES)
    for name in NAMES:
        assert name in handled or "error" in expected(name), name


def test_cli_reports_errors_per_file_and_processes_the_rest(cli: Any, tmp_path: Path) -> None:
    run = cli("context", "fixtures/bad/crlf.jsonl", str(tmp_path), str(tmp_path / "missing.jsonl"),
              "fixtures/bad/bom.jsonl", "fixtures/bad/header_only.jsonl")
    assert run.code == 2
    docs = run.documents()
    # A folder is read as the session files below it (issue 25's one input contract); one without any is said
    # before the stage runs, and the others are still read.
    assert [d["kind"] for d in docs] == ["context", "error", "error", "context"]
    assert docs[1]["error"] == f"{tmp_path}/missing.jsonl: no such file"
    assert docs[2]["error"] == "Session file is not a valid pi session: fixtures/bad/bom.jsonl"
    lines = run.stderr.splitlines()
    assert lines == [
        f"pi-tools: {tmp_path}: no session files (*.jsonl) under this directory",
        f"pi-tools: {tmp_path}/missing.jsonl: no such file",
        "pi-tools: Session file is not a valid pi session: fixtures/bad/bom.jsonl",
    ]
    assert "Traceback" not in run.stderr


def test_cli_context_error_names_the_file(cli: Any) -> None:
    run = cli("context", "fixtures/bad/message_entry_without_message.jsonl")
    assert run.code == 2
    assert run.documents() == [{
        "kind": "error", "source": "fixtures/bad/message_entry_without_message.jsonl", "pi": "0.85",
        "error": "Cannot read properties of undefined (reading 'role')",
    }]
    assert run.stderr == (
        "pi-tools: fixtures/bad/message_entry_without_message.jsonl: Cannot read properties of undefined (reading 'role')\n"
    )


def test_input_file_is_never_written(tmp_path: Path, cli: Any) -> None:
    source = BAD / "torn_last_line.jsonl"
    copy = tmp_path / "torn.jsonl"
    copy.write_bytes(source.read_bytes())
    before = copy.stat()
    run = cli("context", str(copy))
    assert run.code == 0
    assert copy.read_bytes() == source.read_bytes()
    assert copy.stat().st_mtime_ns == before.st_mtime_ns


@pytest.fixture(scope="module")
def big_inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("big")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_bad_inputs.py"), str(out), "--big"], check=True)
    return out


def test_forty_megabyte_line_matches_reference(big_inputs: Path) -> None:
    golden = expected("forty_mb_line")
    context = build_session_context(load_session(str(big_inputs / "forty_mb_line.jsonl")))
    got = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert len(context.messages) == golden["messages"]
    assert canonical_sha(got) == golden["contextSha"]


def test_more_than_130000_entries_after_a_compaction_works(big_inputs: Path) -> None:
    # Pi 0.85 overflows its stack here ("Maximum call stack size exceeded"); pi-tools builds the context and says so.
    assert expected("many_entries_after_compaction")["error"] == "Maximum call stack size exceeded"
    tree = load_session(str(big_inputs / "many_entries_after_compaction.jsonl"))
    context = build_session_context(tree)
    assert context.messages[0]["role"] == "compactionSummary"
    assert len(context.messages) == 1 + 2 + (140_000 - 6)
    assert [d["code"] for d in context.diagnostics] == ["pi-cannot-load"]


def test_deeply_nested_junk_line_is_kept_like_pi(big_inputs: Path) -> None:
    # 200,000 nested arrays: V8 parses them and Pi keeps the value as an entry without id.
    path = big_inputs / "deep.jsonl"
    data = (BAD / "crlf.jsonl").read_bytes().replace(b"\r\n", b"\n")
    lines = data.splitlines(keepends=True)
    path.write_bytes(b"".join(lines) + b"[" * 200_000 + b"]" * 200_000 + b"\n")
    tree = load_session(str(path))
    assert tree.leaf_id is not None and not isinstance(tree.leaf_id, str)  # undefined, as in Pi
    assert build_session_context(tree).messages == []
    assert ("non-object", len(lines) + 1) in {(d["code"], d["line"]) for d in tree.diagnostics}
