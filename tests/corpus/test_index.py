"""`pi-tools index`: exact rows for a small session, every table through DuckDB and polars, queries that give
the answers other stages give, incremental runs equal to fresh ones, and no half-written table after a kill."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson
import polars as pl
import pytest

from pi_tools.corpus.index import index_corpus
from pi_tools.corpus.schema import TABLES
from pi_tools.corpus.store import Store
from pi_tools.engine import Engine
from pi_tools.usage.scan import ccusage_identity

ROOT = Path(__file__).resolve().parents[2]
SMALL = "fixtures/corpus/small.jsonl"
DAMAGED = ["fixtures/realworld", "fixtures/bad"]
NOT_SESSIONS = {
    "fixtures/bad/binary_garbage.jsonl:1: not a pi session: no line holds a JSON value Pi keeps",
    'fixtures/bad/bom.jsonl:2: not a pi session: the first JSON value is not a session header ({"type":"session",...})',
    "fixtures/bad/empty.jsonl: empty file, not a session (Pi would start a new session in it)",
    "fixtures/bad/header_numeric_id.jsonl:1: not a pi session: the session header's id is not a string",
    'fixtures/bad/missing_header.jsonl:1: not a pi session: the first JSON value is not a session header ({"type":"session",...})',
    'fixtures/conformance/cases/edge_bom_header.jsonl:2: not a pi session: the first JSON value is not a session header ({"type":"session",...})',
}


def ms(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp).replace(tzinfo=UTC)


def table(out: Path, name: str) -> list[dict[str, Any]]:
    """A table's rows through DuckDB, in file and line order."""
    order = "file" if name == "sessions" else "file, line"
    relation = duckdb.sql(f"select * from '{out}/{name}/*.parquet' order by {order}")
    return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


def one(query: str) -> tuple[Any, ...]:
    """The one row a query gives."""
    [row] = duckdb.sql(query).fetchall()
    return row


def pick(rows: list[dict[str, Any]], *columns: str) -> list[tuple[Any, ...]]:
    return [tuple(row[column] for column in columns) for row in rows]


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("small") / "idx"
    run = subprocess.run([sys.executable, "-m", "pi_tools", "index", SMALL, "-o", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""
    assert run.stderr == (f"pi-tools: {out}: 1 session (1 indexed, 0 unchanged, 0 removed); rows: sessions 1, "
                          "entries 8, messages 6, tool_calls 3, usage 3\n")
    return out


def test_small_session_entries(small_index: Path) -> None:
    rows = table(small_index, "entries")
    assert pick(rows, "file", "line", "id", "parentId", "type", "role", "onActivePath", "inContext", "bytes") == [
        (SMALL, 2, "i1", None, "session_info", None, True, False, 106),
        (SMALL, 3, "u1", "i1", "message", "user", True, True, 178),
        (SMALL, 4, "a1", "u1", "message", "assistant", True, True, 581),
        (SMALL, 5, "r1", "a1", "message", "toolResult", True, True, 246),
        (SMALL, 6, "a2", "u1", "message", "assistant", False, False, 472),
        (SMALL, 7, "r2", "a2", "message", "toolResult", False, False, 241),
        (SMALL, 8, "a3", "r1", "message", "assistant", True, True, 535),
        (SMALL, 9, "l1", "a3", "label", None, True, False, 115),
    ]
    assert rows[0]["timestamp"] == ms("2026-03-01T09:00:00.500")
    assert rows[3]["timestamp"] == ms("2026-03-01T09:00:04.250")
    lengths = [len(line) for line in (ROOT / SMALL).read_bytes().split(b"\n")[1:-1]]
    assert [row["bytes"] for row in rows] == lengths


def test_small_session_messages(small_index: Path) -> None:
    rows = table(small_index, "messages")
    assert pick(rows, "line", "entryId", "role", "provider", "model", "text", "thinking", "toolNames", "isError",
                "onActivePath", "inContext") == [
        (3, "u1", "user", None, None, "Please clean the build folder.", None, [], None, True, True),
        (4, "a1", "assistant", "anthropic", "claude-sonnet-4-5", "Removing build/.", "Remove it.", ["bash"], None,
         True, True),
        (5, "r1", "toolResult", None, None, "(no output)", None, ["bash"], False, True, True),
        (6, "a2", "assistant", "openai", "gpt-5", None, None, ["bash"], None, False, False),
        (7, "r2", "toolResult", None, None, "refused", None, ["bash"], True, False, False),
        (8, "a3", "assistant", "anthropic", "claude-sonnet-4-5", "Done: build/ is gone.", None, ["read"], None,
         True, True),
    ]
    assert rows[2]["timestamp"] == ms("2026-03-01T09:00:04.250")


def test_small_session_tool_calls(small_index: Path) -> None:
    rows = table(small_index, "tool_calls")
    assert pick(rows, "line", "entryId", "toolCallId", "name", "arguments", "result", "resultLine", "resultEntryId",
                "isError", "onActivePath", "msToResult") == [
        (4, "a1", "call-1", "bash", '{"command":"rm -rf build"}', "(no output)", 5, "r1", False, True, 1250),
        (6, "a2", "call-2", "bash", '{"command":"rm -rf /"}', "refused", 7, "r2", True, False, 1000),
        (8, "a3", "call-3", "read", '{"path":"README.md"}', None, None, None, None, True, None),
    ]


def test_small_session_usage_and_session_row(small_index: Path) -> None:
    usage = table(small_index, "usage")
    assert pick(usage, "line", "entryId", "provider", "model", "api", "input", "output", "cacheRead", "cacheWrite",
                "totalTokens", "cost", "costSource", "counted", "onActivePath") == [
        (4, "a1", "anthropic", "claude-sonnet-4-5", "anthropic-messages", 100, 20, 0, 0, 120, 0.0006, "stored",
         True, True),
        (6, "a2", "openai", "gpt-5", "openai-responses", 50, 10, 30, 0, 90, 0.002, "stored", True, False),
        (8, "a3", "anthropic", "claude-sonnet-4-5", "anthropic-messages", 200, 30, 100, 10, 340, 0.001, "stored",
         True, True),
    ]
    [session] = table(small_index, "sessions")
    assert session == {
        "file": SMALL, "id": "sess-0001", "cwd": "/home/dev/app", "name": "Clean up", "parentSession": None,
        "created": ms("2026-03-01T09:00:00"), "modified": ms("2026-03-01T09:00:07"), "bytes": 2591,
        "entries": 8, "messages": 6, "userMessages": 1, "assistantMessages": 3, "toolResultMessages": 2,
        "bashExecutionMessages": 0, "customMessages": 0, "branchSummaryMessages": 0, "compactionSummaryMessages": 0,
        "otherMessages": 0, "contextMessages": 4, "toolCalls": 3,
        "models": ["anthropic/claude-sonnet-4-5", "openai/gpt-5"], "leaf": "l1", "branches": 2, "diagnostics": 0,
        "contextError": None, "input": 350, "output": 60, "cacheRead": 130, "cacheWrite": 10, "totalTokens": 550,
        "cost": pytest.approx(0.0036),
    }


def test_polars_reads_the_tables(small_index: Path) -> None:
    calls = pl.scan_parquet(f"{small_index}/tool_calls/*.parquet")
    abandoned = calls.filter(~pl.col("onActivePath")).select("arguments", "result").collect()
    assert abandoned.rows() == [('{"command":"rm -rf /"}', "refused")]
    schema = pl.read_parquet(f"{small_index}/messages/*.parquet").schema
    assert schema["toolNames"] == pl.List(pl.String)
    assert schema["timestamp"] == pl.Datetime("ms", "UTC")


@pytest.fixture(scope="module")
def damaged_index(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("damaged") / "idx"
    run = subprocess.run([sys.executable, "-m", "pi_tools", "index", *DAMAGED, "fixtures/conformance/cases",
                          "-o", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    return out, run


def test_damaged_files_load_and_unreadable_ones_are_named(
        damaged_index: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, run = damaged_index
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    assert {line.removeprefix("pi-tools: ") for line in lines[:-1]} == NOT_SESSIONS
    files = sorted(str(path.relative_to(ROOT)) for folder in [*DAMAGED, "fixtures/conformance/cases"]
                   for path in (ROOT / folder).rglob("*.jsonl"))
    indexed = [name for name in files if not any(error.startswith(name) for error in NOT_SESSIONS)]
    assert [row["file"] for row in table(out, "sessions")] == indexed
    errors = {row["file"]: row["contextError"] for row in table(out, "sessions") if row["contextError"]}
    assert errors == {
        "fixtures/bad/message_entry_without_message.jsonl": "Cannot read properties of undefined (reading 'role')",
        "fixtures/bad/parent_cycle.jsonl": "parentId cycle through entry c3 (line 4) on the path to the leaf; "
                                           "Pi 0.85 fails here too (it loops until 'Invalid array length')",
        "fixtures/bad/self_parent.jsonl": "parentId cycle through entry s1 (line 3) on the path to the leaf; "
                                          "Pi 0.85 fails here too (it loops until 'Invalid array length')",
    }


def test_duckdb_reads_every_table(damaged_index: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, _ = damaged_index
    manifest = json.loads((out / "manifest.json").read_text())
    for name, columns in TABLES.items():
        relation = duckdb.sql(f"select * from '{out}/{name}/*.parquet'")
        assert relation.columns == [column for column, _ in columns]
        expected = sum(record["rows"][name] for record in manifest["files"].values())
        assert one(f"select count(*) from '{out}/{name}/*.parquet'") == (expected,)
        assert pl.scan_parquet(f"{out}/{name}/*.parquet").select(pl.len()).collect().item() == expected


def _bash_rm_rf(files: list[str]) -> tuple[int, int]:
    """(on the active path, everywhere): bash tool calls whose arguments hold `rm -rf`, counted from the JSON
    of the files themselves (tool calls of assistant messages, whatever branch they are on)."""
    everywhere = 0
    for name in files:
        for line in (ROOT / name).read_bytes().split(b"\n"):
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            message = entry.get("message") if isinstance(entry, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, list) or message.get("role") != "assistant":
                continue
            everywhere += sum(1 for block in content if isinstance(block, dict) and block.get("type") == "toolCall"
                              and block.get("name") == "bash"
                              and "rm -rf" in json.dumps(block.get("arguments"), ensure_ascii=False))
    return everywhere, 0


def test_query_bash_calls_with_rm_rf(damaged_index: tuple[Path, subprocess.CompletedProcess[str]],
                                     small_index: Path) -> None:
    out, _ = damaged_index
    query = "select count(*) from '{}/tool_calls/*.parquet' where name = 'bash' and arguments like '%rm -rf%'"
    assert one(query.format(small_index)) == (2,)
    assert one(query.format(small_index) + " and onActivePath") == (1,)
    files = [row["file"] for row in table(out, "sessions")]
    expected, _ = _bash_rm_rf(files)
    assert expected > 0
    assert one(query.format(out)) == (expected,)


def test_tokens_per_model_equal_usage_by_model(damaged_index: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, _ = damaged_index
    # `usage` writes costs to the micro-dollar (report.COST_DECIMALS), so the index's sum is rounded the same way.
    # `usage` counts a message once per ccusage identity (the name after `_`): files that share one (c002_branching,
    # c008_branching, ...) are left out, so that both sides count per file.
    identities: dict[Any, list[str]] = {}
    for row in table(out, "sessions"):
        identities.setdefault(ccusage_identity(row["file"]), []).append(row["file"])
    files = [names[0] for names in identities.values() if len(names) == 1]
    run = subprocess.run([sys.executable, "-m", "pi_tools", "usage", *files, "--by", "model", "--format", "json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "TZ": "UTC"})
    assert run.returncode == 0, run.stderr
    expected = {row["model"]: (row["messages"], row["input"], row["output"], row["cacheRead"], row["cacheWrite"],
                               row["totalTokens"], row["cost"])
                for row in json.loads(run.stdout)["rows"]}
    got = duckdb.sql(f"""
        select model, count(*), sum(input), sum(output), sum(cacheRead), sum(cacheWrite), sum(totalTokens),
               round(sum(cost), 6)
        from '{out}/usage/*.parquet' where counted and file in (select unnest($files)) group by model""",
                     params={"files": files}).fetchall()
    assert {row[0]: tuple(row[1:]) for row in got} == expected
    assert len(expected) > 3


# --- incremental runs -------------------------------------------------------------------------------------------

def _corpus(folder: Path) -> list[Path]:
    folder.mkdir()
    names = sorted((ROOT / "fixtures/realworld").glob("*.jsonl"))[:6] + [ROOT / SMALL]
    copies = []
    for source in names:
        copy = folder / source.name
        shutil.copyfile(source, copy)
        os.utime(copy, ns=(time.time_ns() - 3600 * 10**9,) * 2)  # written an hour ago: trusted by size and mtime
        copies.append(copy)
    return copies


def _tables(out: Path) -> dict[str, list[tuple[Any, ...]]]:
    result = {}
    for name in TABLES:
        order = "file" if name == "sessions" else "file, line"
        result[name] = duckdb.sql(f"select * from '{out}/{name}/*.parquet' order by {order}, 2").fetchall()
    return result


def test_incremental_run_equals_a_fresh_index(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    files = _corpus(corpus)
    out = tmp_path / "idx"
    first = index_corpus([str(corpus)], str(out), Engine(jobs=1))
    assert (first.files, first.parsed, first.errors) == (7, 7, [])
    # Change one file (a user line appended), add one, remove one, and touch one without changing it.
    changed = files[0]
    with changed.open("ab") as handle:
        handle.write(b'{"type":"message","id":"zz1","parentId":null,"timestamp":"2026-03-02T10:00:00.000Z",'
                     b'"message":{"role":"user","content":"appended later","timestamp":1772445600000}}\n')
    os.utime(changed, ns=(time.time_ns() - 1800 * 10**9,) * 2)
    shutil.copyfile(ROOT / "fixtures/conformance/cases/c002_branching.jsonl", corpus / "added.jsonl")
    os.utime(corpus / "added.jsonl", ns=(time.time_ns() - 1800 * 10**9,) * 2)
    files[1].unlink()
    os.utime(files[2], ns=(time.time_ns() - 1700 * 10**9,) * 2)
    second = index_corpus([str(corpus)], str(out), Engine(jobs=1))
    assert (second.files, second.parsed, second.hashed, second.removed) == (7, 2, 3, 1)
    fresh = index_corpus([str(corpus)], str(tmp_path / "fresh"), Engine(jobs=1))
    assert fresh.rows == second.rows
    assert _tables(out) == _tables(tmp_path / "fresh")
    rows = duckdb.sql(f"select text from '{out}/messages/*.parquet' where text = 'appended later'").fetchall()
    assert rows == [("appended later",)]
    # Nothing changed: no file is read, no generation written.
    manifest = (out / "manifest.json").read_bytes()
    third = index_corpus([str(corpus)], str(out), Engine(jobs=1))
    assert (third.parsed, third.hashed) == (0, 0)
    assert (out / "manifest.json").read_bytes() == manifest
    assert sorted(name for name in os.listdir(out) if name.startswith(".gen-")) == [".gen-000002"]


def test_pool_and_one_process_write_the_same_tables(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    _corpus(corpus)
    index_corpus([str(corpus)], str(tmp_path / "one"), Engine(jobs=1))
    index_corpus([str(corpus)], str(tmp_path / "two"), Engine(jobs=2))
    assert _tables(tmp_path / "one") == _tables(tmp_path / "two")


def test_killed_between_manifest_and_links_leaves_whole_tables(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus"
    files = _corpus(corpus)
    out = tmp_path / "idx"
    index_corpus([str(corpus)], str(out), Engine(jobs=1))
    before = _tables(out)
    files[0].unlink()

    point = Store._point

    def killed(self: Store, table: str, generation_name: str) -> None:
        if generation_name == ".gen-000002":
            raise KeyboardInterrupt  # the run dies after its manifest, before any table's link moved
        point(self, table, generation_name)

    monkeypatch.setattr(Store, "_point", killed)
    with pytest.raises(KeyboardInterrupt):
        index_corpus([str(corpus)], str(out), Engine(jobs=1))
    monkeypatch.undo()
    assert json.loads((out / "manifest.json").read_text())["generation"] == 2
    assert _tables(out) == before  # every table is still the old one, whole
    again = index_corpus([str(corpus)], str(out), Engine(jobs=1))
    assert again.files == 6
    assert _tables(out) == _tables_fresh(corpus, tmp_path / "fresh")
    assert sorted(name for name in os.listdir(out) if name.startswith(".gen-")) == [".gen-000002"]


def _tables_fresh(corpus: Path, out: Path) -> dict[str, list[tuple[Any, ...]]]:
    index_corpus([str(corpus)], str(out), Engine(jobs=1))
    return _tables(out)


def test_sigkill_at_any_moment_never_leaves_a_half_written_table(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    files = _corpus(corpus)
    out = tmp_path / "idx"
    index_corpus([str(corpus)], str(out), Engine(jobs=1))
    states = [_tables(out)]
    files[3].unlink()
    states.append(_tables_fresh(corpus, tmp_path / "fresh"))
    for delay in (0.15, 0.3, 0.45, 0.6, 0.8):
        run = subprocess.Popen([sys.executable, "-m", "pi_tools", "index", str(corpus), "-o", str(out)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        run.send_signal(signal.SIGKILL)
        run.wait()
        assert _tables(out) in states
    final = subprocess.run([sys.executable, "-m", "pi_tools", "index", str(corpus), "-o", str(out)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    assert _tables(out) == states[1]


def test_refuses_a_folder_that_is_not_an_index(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    run = subprocess.run([sys.executable, "-m", "pi_tools", "index", SMALL, "-o", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr == (f"pi-tools: {out}: the folder holds files and is not a pi-tools index (no manifest.json); "
                          "name a new or empty folder\n")
    assert os.listdir(out) == ["notes.txt"]


def test_missing_output_option_and_missing_input(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "pi_tools", "index", SMALL], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert (run.returncode, run.stderr) == (2, "pi-tools: -o OUT: name the index folder\n")
    run = subprocess.run([sys.executable, "-m", "pi_tools", "index", SMALL, str(tmp_path / "nope.jsonl"), "-o",
                          str(tmp_path / "idx")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.splitlines()[0] == f"pi-tools: {tmp_path / 'nope.jsonl'}: no such file"
    assert one(f"select count(*) from '{tmp_path}/idx/sessions/*.parquet'") == (1,)


def test_bulk_and_line_by_line_readers_give_the_same_rows() -> None:
    from pi_tools.corpus.rows import bulk_read, line_lengths, session_rows, tree_read
    from pi_tools.corpus.text import message_text, thinking_text

    compared = 0
    for path in sorted((ROOT / "fixtures").rglob("*.jsonl")):
        data = path.read_bytes()
        name = str(path.relative_to(ROOT))
        bulk = bulk_read(name, data)
        if bulk is None:
            continue
        compared += 1
        rows = session_rows(name, bulk, line_lengths(data), len(data))
        assert rows == session_rows(name, tree_read(name, data), line_lengths(data), len(data)), name
        # The text column is text.message_text's (what search matches when it reads files without the index).
        messages = rows["messages"]
        projected = [messages_of(entry) for entry in bulk.entries]
        expected = [(message_text(m), thinking_text(m) if m.get("role") == "assistant" else None)
                    for found in projected for m in found]
        assert list(zip(messages["text"], messages["thinking"], strict=True)) == expected, name
    assert compared > 50


def messages_of(entry: Any) -> list[dict[str, Any]]:
    from pi_tools.session.context import entry_to_messages

    if not isinstance(entry, dict) or entry.get("type") not in ("message", "custom_message", "branch_summary",
                                                                  "compaction"):
        return []
    return [message for message in entry_to_messages(entry) if isinstance(message, dict)]


def test_the_command_loads_nothing_heavy_until_it_runs() -> None:
    code = "import sys, pi_tools.cli.app; print(sorted(m for m in ('polars', 'duckdb', 'msgspec') if m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.stdout == "[]\n", run.stderr


def test_tables_removed_by_hand_are_written_again(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    _corpus(corpus)
    out = tmp_path / "idx"
    index_corpus([str(corpus)], str(out), Engine(jobs=1))
    before = _tables(out)
    shutil.rmtree(out / ".gen-000001")
    again = index_corpus([str(corpus)], str(out), Engine(jobs=1))
    assert (again.parsed, again.errors) == (7, [])
    assert _tables(out) == before


@pytest.mark.parametrize("stamp", ["98765432109876543210987", "1e17", "8640000000000001"])
def test_a_message_time_javascript_cannot_hold_is_null(tmp_path: Path, stamp: str) -> None:
    """A message timestamp past JavaScript's Date range (Pi's `new Date` of it is Invalid Date), even past
    Int64: the session's `modified` is null, as JSON.stringify writes such a Date, and the run goes on."""
    text = (ROOT / SMALL).read_text(encoding="utf-8").replace('"timestamp":1772355601000', f'"timestamp":{stamp}')
    session = tmp_path / "huge.jsonl"
    session.write_text(text, encoding="utf-8")
    out = tmp_path / "idx"
    run = subprocess.run([sys.executable, "-m", "pi_tools", "index", str(session), "-o", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stdout) == (0, ""), run.stderr
    assert one(f"select created, modified from '{out}/sessions/*.parquet'") == (ms("2026-03-01T09:00:00"), None)


def test_files_hashed_by_an_earlier_index_stay_unchanged(tmp_path: Path) -> None:
    """An index written when hashes were blake2b's (32 hex digits): a touched file whose content is the same
    is found unchanged (its hash computed the recorded way), a changed one is parsed and gets a SHA-256."""
    import hashlib

    corpus = tmp_path / "corpus"
    files = _corpus(corpus)
    out = tmp_path / "idx"
    index_corpus([str(corpus)], str(out), Engine(jobs=1))
    manifest = orjson.loads((out / "manifest.json").read_bytes())
    for name, record in manifest["files"].items():
        assert record["hash"] == hashlib.sha256(Path(name).read_bytes()).hexdigest()
        record["hash"] = hashlib.blake2b(Path(name).read_bytes(), digest_size=16).hexdigest()
    (out / "manifest.json").write_bytes(orjson.dumps(manifest))
    with files[0].open("ab") as handle:
        handle.write(b'{"type":"message","id":"zz1","parentId":null,"timestamp":"2026-03-02T10:00:00.000Z",'
                     b'"message":{"role":"user","content":"appended later","timestamp":1772445600000}}\n')
    for path in files[:2]:
        os.utime(path, ns=(time.time_ns() - 1700 * 10**9,) * 2)
    second = index_corpus([str(corpus)], str(out), Engine(jobs=1))
    assert (second.files, second.parsed, second.hashed, second.unchanged) == (len(files), 1, 2, len(files) - 1)
    records = orjson.loads((out / "manifest.json").read_bytes())["files"]
    assert records[str(files[0])]["hash"] == hashlib.sha256(files[0].read_bytes()).hexdigest()
    assert len(records[str(files[1])]["hash"]) == 32
    fresh = index_corpus([str(corpus)], str(tmp_path / "fresh"), Engine(jobs=1))
    assert fresh.rows == second.rows and _tables(out) == _tables(tmp_path / "fresh")


def test_a_file_changed_alone_leaves_no_old_rows(tmp_path: Path) -> None:
    """One file of a partition changed and nothing else: its old rows go (the partition is rewritten without
    them) and the tables equal a fresh index's (they used to keep both its old and its new rows)."""
    corpus = tmp_path / "corpus"
    files = _corpus(corpus)
    out = tmp_path / "idx"
    index_corpus([str(corpus)], str(out), Engine(jobs=1))
    with files[3].open("ab") as handle:
        handle.write(b'{"type":"message","id":"zz1","parentId":null,"timestamp":"2026-03-02T10:00:00.000Z",'
                     b'"message":{"role":"user","content":"appended later","timestamp":1772445600000}}\n')
    os.utime(files[3], ns=(time.time_ns() - 1800 * 10**9,) * 2)
    second = index_corpus([str(corpus)], str(out), Engine(jobs=1))
    assert (second.files, second.parsed) == (len(files), 1)
    fresh = index_corpus([str(corpus)], str(tmp_path / "fresh"), Engine(jobs=1))
    assert second.rows == fresh.rows
    assert _tables(out) == _tables(tmp_path / "fresh")
    assert one(f"select count(*) from '{out}/sessions/*.parquet'") == (len(files),)
