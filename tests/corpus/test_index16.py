"""`pi-tools index --pi 1.6`: sessions read by Pi 1.6's rules, and the tables of what 1.6 stores (usage_entries,
context_edits, system_sections, system_tools), exact for the edge cases of tests/data/pi16 and a session Pi 1.6
wrote (../shared/conformance16's gen16_edits); the same files under 0.85 give the base tables as before; what
the rows say agrees with `usage --pi 1.6`, `context --pi 1.6` and `visibility --pi 1.6`; an index written for
one version is rebuilt for the other."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pi_tools.corpus.index import index_corpus
from pi_tools.corpus.rows import (
    IndexInputError,
    bulk_read,
    line_lengths,
    reference_usage_rows,
    session_rows,
    tree_read,
)
from pi_tools.corpus.schema import TABLES, Shape, shape_of
from pi_tools.corpus.task import RowsBatch
from pi_tools.engine import Engine
from pi_tools.pi import resolve
from pi_tools.usage.counter import MESSAGE_KIND, message_usages
from pi_tools.usage.report import UsageOptions, collect_usage, usage_document, usage_rows

from support.oracle_path import CONFORMANCE16

ROOT = Path(__file__).resolve().parents[2]
PI16, PI085 = resolve("1.6"), resolve("0.85")
EDGE = "tests/data/pi16/cases"
E01, E03, E06, E15 = (f"{EDGE}/{name}.jsonl" for name in ("e01_edit_kinds", "e03_multi", "e06_comp_sys", "e15_fields"))
GEN16_EDITS = CONFORMANCE16 / "cases" / "gen16_edits.jsonl"
GEN = str(GEN16_EDITS)
NEW_TABLES = ("usage_entries", "context_edits", "system_sections", "system_tools")
needs_gen16 = pytest.mark.skipif(not GEN16_EDITS.is_file(), reason=f"{GEN16_EDITS} is not there (../shared)")


def build(out: Path, files: list[str], version: Any) -> Path:
    report = index_corpus(files, str(out), Engine(jobs=1), version)
    assert report.errors == []
    return out


def frame(out: Path, table: str, *columns: str) -> pl.DataFrame:
    """A table's rows in file and line order (then position), `file` shortened to the file's name."""
    data = pl.read_parquet(f"{out}/{table}/*.parquet")
    order = [name for name in ("file", "line", "change", "position") if name in data.columns]
    data = data.sort(order).with_columns(pl.col("file").str.split("/").list.last())
    return data.select(columns) if columns else data


def expected(rows: list[tuple[Any, ...]], schema: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=schema, orient="row")


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """e01, e03, e06, e15 (and gen16_edits where ../shared has it) indexed under each version."""
    files = [E01, E03, E06, E15, *([GEN] if GEN16_EDITS.is_file() else [])]
    root = tmp_path_factory.mktemp("index16")
    return {"1.6": build(root / "v16", files, PI16), "0.85": build(root / "v085", files, PI085)}


def test_the_tables_of_each_version(both: dict[str, Path]) -> None:
    assert sorted(name for name in os.listdir(both["0.85"]) if not name.startswith(".")) == \
        sorted([*TABLES, "manifest.json"])
    assert sorted(name for name in os.listdir(both["1.6"]) if not name.startswith(".")) == \
        sorted([*TABLES, *NEW_TABLES, "manifest.json"])
    assert json.loads((both["0.85"] / "manifest.json").read_text())["pi"] == "0.85"
    assert json.loads((both["1.6"] / "manifest.json").read_text())["pi"] == "1.6"
    assert frame(both["0.85"], "sessions").columns == [name for name, _ in TABLES["sessions"]]
    columns = frame(both["1.6"], "sessions").columns
    assert columns[columns.index("compactionSummaryMessages"):columns.index("models")] == [
        "compactionSummaryMessages", "systemMessages", "otherMessages", "contextMessages", "toolCalls",
        "usageEntries", "contextEdits"]
    for table in TABLES:  # every base table keeps its columns under 1.6
        assert frame(both["1.6"], table).columns == [name for name, _ in shape_of(PI16).tables[table]]
        if table != "sessions":
            assert frame(both["1.6"], table).columns == [name for name, _ in TABLES[table]]


def test_context_edits(both: dict[str, Path]) -> None:
    got = frame(both["1.6"], "context_edits").filter(pl.col("file") != GEN16_EDITS.name)
    schema = {"file": pl.String, "line": pl.Int64, "entryId": pl.String, "targetId": pl.String,
              "targetLine": pl.Int64, "action": pl.String, "text": pl.String, "onActivePath": pl.Boolean,
              "applied": pl.Boolean}
    assert_frame_equal(got.select(list(schema)), expected([
        # e01: an edit of each kind of target; a bash execution and a system message are not editable
        ("e01_edit_kinds.jsonl", 9, "x1", "u1", 3, "replaces", "Q1 edited", True, True),
        ("e01_edit_kinds.jsonl", 10, "x2", "a1", 4, "replaces", "A1 edited", True, True),
        ("e01_edit_kinds.jsonl", 11, "x3", "r2", 6, "replaces", "R edited", True, True),
        ("e01_edit_kinds.jsonl", 12, "x4", "c1", 7, "replaces", "CM edited", True, True),
        ("e01_edit_kinds.jsonl", 13, "x5", "b1", 8, "replaces", "B edited", True, False),
        ("e01_edit_kinds.jsonl", 14, "x6", "s1", 2, "replaces", "S edited", True, False),
        # e03: the latest edit of a target wins; an edit before its target applies too
        ("e03_multi.jsonl", 4, "x1", "a1", 3, "replaces", "first", True, False),
        ("e03_multi.jsonl", 5, "x2", "a1", 3, "removes", None, True, True),
        ("e03_multi.jsonl", 6, "x3", "u1", 2, "removes", None, True, False),
        ("e03_multi.jsonl", 7, "x4", "u1", 2, "replaces", "restored", True, True),
        ("e03_multi.jsonl", 8, "x5", "u9", 9, "replaces", "early", True, True),
    ], schema))
    assert got["timestamp"][0] == datetime(2026, 12, 1, 0, 0, 8, tzinfo=UTC)


@needs_gen16
def test_a_session_pi_16_wrote(both: dict[str, Path]) -> None:
    """gen16_edits: a system message, a cache-warming usage entry, an edit and an omission before a compaction
    whose `systemMessage` restarts the prompt (so the edits apply to nothing the context keeps)."""
    out = both["1.6"]
    name = GEN16_EDITS.name
    assert frame(out, "context_edits", "file", "line", "entryId", "targetId", "targetLine", "action", "text", "applied") \
        .filter(pl.col("file") == name).drop("file").rows() == [
        (7, "1fab5247", "366d559d", 5, "replaces", "edited answer", False),
        (9, "2a4a5a75", "5df64d7b", 8, "removes", None, False),
    ]
    assert frame(out, "usage_entries").filter(pl.col("file") == name).drop("file", "timestamp").rows() == [
        (6, "a3c27fed", "cache_warm", "anthropic", "claude-sonnet-4-5", None, 10, 5, 0, 0, 15, 0.000105, "catalog",
         True, True)]
    assert frame(out, "system_sections").filter(pl.col("file") == name).drop("file").rows() == [
        (3, "3cdf9db3", 0, "preamble", "You are pi.", True, False),
        (3, "3cdf9db3", 1, "cwd", "<cwd>/tmp/x</cwd>", True, False),
        (10, "cdca5e6b", 0, "cwd", "<cwd>/tmp/y</cwd>", True, False),
        (13, "372bfe18", 0, "preamble", "You are pi.", True, True),  # the compaction's systemMessage
        (13, "372bfe18", 1, "cwd", "<cwd>/tmp/y</cwd>", True, True),
    ]
    assert frame(out, "system_tools").filter(pl.col("file") == name).drop("file").rows() == [
        (3, "3cdf9db3", "added", 0, "bash", "Run bash",
         '{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}', True, False),
        (10, "cdca5e6b", "removed", 0, "bash", None, None, True, False),
    ]
    in_context = {version: frame(both[version], "entries", "file", "line", "inContext")
                  .filter(pl.col("file") == name)["inContext"].to_list() for version in both}
    assert in_context["1.6"] == [False] * 9 + [True] * 5
    assert in_context["0.85"] == in_context["1.6"]  # the compaction keeps neither, by either version's rules
    sessions = {version: frame(both[version], "sessions").filter(pl.col("file") == name).row(0, named=True)
                for version in both}
    pick = ("messages", "systemMessages", "otherMessages", "contextMessages", "usageEntries", "contextEdits",
            "diagnostics", "input", "output", "totalTokens", "cost")
    assert [sessions["1.6"][column] for column in pick] == [10, 2, 0, 6, 1, 2, 0, 30, 15, 45, pytest.approx(0.000315)]
    # 0.85: system messages are a role it does not know, usage and context_edit entries unknown types (diagnosed),
    # the compaction's systemMessage no message, the warming's tokens no spending
    assert [sessions["0.85"].get(column) for column in pick] == [10, None, 2, 5, None, None, 5, 20, 10, 30,
                                                                 pytest.approx(0.00021)]


def test_usage_entries_and_what_sessions_sum(both: dict[str, Path]) -> None:
    got = frame(both["1.6"], "usage_entries").filter(pl.col("file") != GEN16_EDITS.name).drop("timestamp")
    assert got.rows() == [
        ("e03_multi.jsonl", 10, "g1", "cache_warm", "anthropic", "claude-sonnet-4-5", None, 1, 1, 0, 0, 2, 1.8e-05,
         "catalog", True, True),
        ("e15_fields.jsonl", 8, "g1", "cache_warm", "anthropic", "claude-sonnet-4-5", None, 1, 1, 0, 0, 2, 1.8e-05,
         "catalog", True, True),
    ]
    # e15's first answer is billed by its provider (cost.totalFromProvider): taken as stored, 0 included
    usage = frame(both["1.6"], "usage", "file", "line", "cost", "costSource").filter(pl.col("file") == "e15_fields.jsonl")
    assert usage.rows() == [("e15_fields.jsonl", 3, 0.0, "provider"), ("e15_fields.jsonl", 4, 1.8e-05, "catalog")]
    assert frame(both["0.85"], "usage", "costSource").filter(pl.col("costSource") == "provider").height == 0
    sums = {row["file"]: row for row in frame(both["1.6"], "sessions").iter_rows(named=True)}
    assert (sums["e03_multi.jsonl"]["usageEntries"], sums["e03_multi.jsonl"]["totalTokens"]) == (1, 4)
    assert frame(both["0.85"], "sessions").filter(pl.col("file") == "e03_multi.jsonl")["totalTokens"].item() == 2


@pytest.mark.parametrize("name", sorted(path.name for path in (ROOT / EDGE).glob("*.jsonl")))
def test_session_sums_are_what_usage_counts(tmp_path: Path, name: str) -> None:
    """Each file's sessions row sums what `usage --pi 1.6` reports for it (messages and usage entries)."""
    path = f"{EDGE}/{name}"
    out = build(tmp_path / "idx", [path], PI16)
    row = frame(out, "sessions").row(0, named=True)
    data = collect_usage([path], UsageOptions(timezone="UTC", pi=PI16))
    totals = usage_document(usage_rows(data, "day"), data.shape)["totals"]
    assert [row[column] for column in ("input", "output", "cacheRead", "cacheWrite", "totalTokens")] == \
        [totals[column] for column in ("input", "output", "cacheRead", "cacheWrite", "totalTokens")]
    assert row["cost"] == pytest.approx(totals["cost"], abs=1e-12)
    usage = frame(out, "usage").filter("counted").height
    entries = frame(out, "usage_entries").filter("counted").height
    assert (usage, entries) == (totals["messages"], totals.get("usageEntries", 0))


def test_system_messages(both: dict[str, Path]) -> None:
    out = both["1.6"]
    sections = frame(out, "system_sections").filter(pl.col("file") != GEN16_EDITS.name)
    assert sections.rows() == [
        ("e01_edit_kinds.jsonl", 2, "s1", 0, "a", "A", True, True),
        ("e06_comp_sys.jsonl", 2, "s1", 0, "a", "A", True, False),
        ("e06_comp_sys.jsonl", 5, "s2", 0, "a", "A2", True, False),  # in the kept range: 1.6 drops it
        ("e06_comp_sys.jsonl", 8, "k1", 0, "preamble", "P", True, True),  # the compaction's systemMessage
        ("e06_comp_sys.jsonl", 9, "s3", 0, "b", "B", True, True),
    ]
    assert frame(out, "system_tools").filter(pl.col("file") == "e15_fields.jsonl").drop("file").rows() == [
        (5, "s9", "removed", 0, "bash", None, None, True, True)]
    e06 = {version: frame(both[version], "entries", "file", "line", "inContext")
           .filter(pl.col("file") == "e06_comp_sys.jsonl")["inContext"].to_list() for version in both}
    assert e06 == {"1.6": [False, True, True, False, True, True, True, True, True],
                   "0.85": [False, True, True, True, True, True, True, True, True]}
    messages = frame(out, "messages", "file", "line", "role", "text").filter(pl.col("role") == "system")
    assert messages.filter(pl.col("file") == "e06_comp_sys.jsonl")["text"].to_list() == ["", "", ""]
    rows = {version: frame(both[version], "sessions").filter(pl.col("file") == "e06_comp_sys.jsonl").row(0, named=True)
            for version in both}
    # 1.6: the compaction gives [systemMessage, summary]; the kept range's system message is dropped
    assert (rows["1.6"]["systemMessages"], rows["1.6"]["otherMessages"], rows["1.6"]["contextMessages"]) == (3, 0, 8)
    assert (rows["0.85"]["otherMessages"], rows["0.85"]["contextMessages"]) == (3, 8)


def test_in_context_and_applied_agree_with_visibility_and_context(tmp_path: Path, cli: Any) -> None:
    files = sorted(str(path.relative_to(ROOT)) for path in (ROOT / EDGE).glob("*.jsonl"))
    files += [GEN] if GEN16_EDITS.is_file() else []
    out = build(tmp_path / "idx", files, PI16)
    run = cli("visibility", "--pi", "1.6", "--format", "json", *files)
    seen = {(row["source"], row["line"]): row for row in run.documents() if row["kind"] == "visibility"}
    failed = pl.read_parquet(f"{out}/sessions/*.parquet").filter(pl.col("contextError").is_not_null())["file"]
    assert failed.to_list() == [f"{EDGE}/e12_repl_missing.jsonl"]  # Pi throws: neither says anything of it
    entries = pl.read_parquet(f"{out}/entries/*.parquet").filter(~pl.col("file").is_in(failed.to_list()))
    for row in entries.iter_rows(named=True):
        assert seen[(row["file"], row["line"])]["context"] is row["inContext"], (row["file"], row["line"])
    edits = pl.read_parquet(f"{out}/context_edits/*.parquet").filter(~pl.col("file").is_in(failed.to_list()))
    assert edits.height > 20
    for row in edits.iter_rows(named=True):
        edit = seen[(row["file"], row["line"])]["edit"]
        assert (edit["target"], edit["action"], edit["applied"]) == (row["targetId"], row["action"], row["applied"])
    # contextMessages: what `context --pi 1.6` sends (a file whose context Pi cannot build: none)
    for row in pl.read_parquet(f"{out}/sessions/*.parquet").iter_rows(named=True):
        (document,) = cli("context", "--pi", "1.6", row["file"]).documents() if row["contextError"] is None \
            else [{"messages": []}]
        assert row["contextMessages"] == len(document["messages"]), row["file"]


def test_the_bulk_index_and_the_tree_agree_under_16() -> None:
    """Under 1.6 a clean file whose plan 0.85's bulk index gives (`bulk_fits`) is read in bulk, the others by
    the tree: on every fixture the bulk rows equal the tree's, and the usage rows the reference count's."""
    shape = shape_of(PI16)
    compared = 0
    paths = [*sorted((ROOT / "fixtures").rglob("*.jsonl")), *sorted((ROOT / EDGE).glob("*.jsonl"))]
    for path in paths:
        data = path.read_bytes()
        name = str(path.relative_to(ROOT))
        lengths = line_lengths(data)
        bulk = bulk_read(name, data, structs=True, rules=PI16.context)
        try:
            tree = tree_read(name, data, PI16.context)
        except IndexInputError:  # not a session: the index reports it
            assert bulk is None
            continue
        try:
            rows = session_rows(name, tree, lengths, len(data), shape=shape, spending=PI16.spending)
        except RecursionError:  # (reported as "nesting too deep")
            continue
        built = frames_of(name, rows, shape)
        reference = session_rows(name, tree, lengths, len(data), reference_usage_rows, shape, PI16.spending)
        for table, expected_frame in frames_of(name, reference, shape).items():
            assert_frame_equal(built[table], expected_frame, check_exact=True)
        if bulk is not None:
            compared += 1
            from_bulk = frames_of(name, session_rows(name, bulk, lengths, len(data), shape=shape,
                                                     spending=PI16.spending), shape)
            for table, expected_frame in built.items():
                assert_frame_equal(from_bulk[table], expected_frame, check_exact=True)
        # the usage entries are the counter's own (`usage`'s)
        counted = [found for found in message_usages(tree.entries, spending=PI16.spending)
                   if found is not None and found.kind != MESSAGE_KIND]
        assert [(found.kind, found.totalTokens, found.cost, found.counted) for found in counted] == list(zip(
            rows["usage_entries"]["kind"], rows["usage_entries"]["totalTokens"], rows["usage_entries"]["cost"],
            rows["usage_entries"]["counted"], strict=True)), name
    assert compared > 50
    for case in ("e08_keepnothing.jsonl", "e10_old_comp.jsonl"):  # clean, but 1.6 plans them otherwise
        data = (ROOT / EDGE / case).read_bytes()
        assert bulk_read(case, data, structs=True) is not None
        assert bulk_read(case, data, structs=True, rules=PI16.context) is None


def frames_of(name: str, rows: dict[str, Any], shape: Shape) -> dict[str, pl.DataFrame]:
    batch = RowsBatch(shape)
    batch.add(name, rows)
    return batch.frames()


def _tables(out: Path) -> dict[str, list[tuple[Any, ...]]]:
    return {name: pl.read_parquet(f"{out}/{name}/*.parquet").sort("file").rows()
            for name in sorted(os.listdir(out)) if not name.startswith(".") and name != "manifest.json"}


def test_an_index_of_another_version_is_rebuilt(tmp_path: Path) -> None:
    files = [E03, E06]
    out = build(tmp_path / "idx", files, PI085)
    again = index_corpus(files, str(out), Engine(jobs=1), PI16)
    assert (again.parsed, again.unchanged) == (2, 0)
    assert _tables(out) == _tables(build(tmp_path / "fresh16", files, PI16))
    back = index_corpus(files, str(out), Engine(jobs=1), PI085)
    assert (back.parsed, back.unchanged) == (2, 0)
    assert sorted(os.listdir(out)) == sorted([".gen-000003", ".lock", "manifest.json", *TABLES])
    assert _tables(out) == _tables(build(tmp_path / "fresh085", files, PI085))
    unchanged = index_corpus(files, str(out), Engine(jobs=1), PI085)
    assert (unchanged.parsed, unchanged.hashed) == (0, 0)


def test_the_version_comes_from_the_environment_when_not_given(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TOOLS_PI", "1.6")
    report = index_corpus([E03], str(tmp_path / "idx"), Engine(jobs=1))
    assert report.rows["usage_entries"] == 1 and report.rows["context_edits"] == 5


def test_the_command(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "idx"
    run = cli("index", "--pi", "1.6", E03, E15, "-o", str(out))
    assert (run.code, run.stdout) == (0, "")
    assert run.stderr == (f"pi-tools: {out}: 2 sessions (2 indexed, 0 unchanged, 0 removed); rows: sessions 2, "
                          "entries 16, messages 8, tool_calls 1, usage 3, usage_entries 2, context_edits 5, "
                          "system_sections 0, system_tools 1\n")
    by_environment = cli("index", E03, E15, "-o", str(tmp_path / "env"), env={"PI_TOOLS_PI": "1.6"})
    assert by_environment.code == 0 and "usage_entries 2" in by_environment.stderr
