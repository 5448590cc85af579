"""`pi-tools usage`: totals against an independent count, grouping, scopes, formats and the chart page."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pi_tools.engine import Engine
from pi_tools.providers.catalog import calculate_cost, get_model
from pi_tools.usage.report import UsageOptions, collect_usage, flat_row, usage_document, usage_rows

from support.oracle_path import GEN_CORPUS

ROW_KEYS = ["messages", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "costStored",
            "costRecomputed", "costSources", "cacheHitRatio"]
TOTAL_KEYS = {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "messages", "costSources"}
ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2})")
HEADER = {"type": "session", "version": 3, "id": "u", "timestamp": "2026-03-01T00:00:00.000Z", "cwd": "/w"}


def independent_totals(files: list[Path], cost_mode: str = "auto") -> dict[str, Any]:
    """A plain-Python count over the files: every assistant message entry with usage and an ISO timestamp.

    De-duplicates like ccusage (per file: same entry timestamp and total tokens), which the fixtures below
    exercise with a repeated line. Costs: the stored total (auto: unless it is 0), else the catalog's price
    (every model these files name without a usable stored cost is in the catalog).
    """
    totals = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": 0.0,
              "messages": 0}
    for path in files:
        seen = set()
        for raw in path.read_bytes().split(b"\n"):
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(entry, dict) or entry.get("type", "message") not in ("message", None):
                continue
            message = entry.get("message")
            if not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            usage = message.get("usage")
            if not isinstance(usage, dict) or not isinstance(entry.get("timestamp"), str) \
                    or not ISO.fullmatch(entry["timestamp"]):
                continue
            if not all(isinstance(usage.get(k), (int, float)) for k in ("input", "output")):
                continue
            counts = {k: usage.get(k) if isinstance(usage.get(k), int) else 0
                      for k in ("input", "output", "cacheRead", "cacheWrite")}
            total = usage.get("totalTokens")
            total = total if isinstance(total, int) else sum(counts.values())
            if (entry["timestamp"], total) in seen:
                continue
            seen.add((entry["timestamp"], total))
            for key, value in counts.items():
                totals[key] += value
            totals["totalTokens"] += total
            totals["messages"] += 1
            cost = usage.get("cost")
            stored = cost.get("total") if isinstance(cost, dict) else None
            if isinstance(stored, (int, float)) and (cost_mode == "stored" or stored != 0):
                totals["cost"] += stored
            elif cost_mode != "stored":
                fresh = dict(counts)
                totals["cost"] += calculate_cost(get_model(message["provider"], message["model"]), fresh)["total"]
    return totals


def assert_totals(actual: dict[str, Any], want: dict[str, Any]) -> None:
    assert set(actual) == TOTAL_KEYS
    assert sum(actual["costSources"].values()) == actual["messages"]
    assert {k: v for k, v in actual.items() if k not in ("cost", "costSources")} == \
        {k: v for k, v in want.items() if k != "cost"}
    assert actual["cost"] == pytest.approx(want["cost"], abs=5e-7)  # outputs round costs to 6 decimals


def assistant(entry_id: str, stamp: str, *, model: str = "claude-sonnet-4-5", provider: str = "anthropic",
              api: str = "anthropic-messages", tokens: tuple[int, int, int, int] = (100, 10, 5, 7),
              cost: float | None = 0.5, stop: str = "stop", parent: str | None = None, **extra: Any) -> dict[str, Any]:
    usage: dict[str, Any] = dict(zip(("input", "output", "cacheRead", "cacheWrite"), tokens, strict=True))
    usage["totalTokens"] = sum(tokens)
    if cost is not None:
        usage["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "api": api,
                        "provider": provider, "model": model, "usage": usage, "stopReason": stop,
                        "timestamp": 0, **extra}}


def user(entry_id: str, stamp: str, parent: str | None) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
            "message": {"role": "user", "content": [{"type": "text", "text": "q"}], "timestamp": 0}}


def write(path: Path, lines: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line, separators=(",", ":"))) + "\n"
                            for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two projects, a branch, a fork, every kind of line that must not count, and one unpriced message."""
    root = tmp_path / "sessions"
    main = [
        HEADER,
        user("u1", "2026-03-01T10:00:00.000Z", None),
        assistant("a1", "2026-03-01T10:00:01.000Z", parent="u1"),
        assistant("a2", "2026-03-01T23:30:00.000Z", parent="a1", model="gpt-5", provider="openai",
                  api="openai-responses", tokens=(200, 20, 0, 0), cost=None),
        # a branch off u1: counted by --scope all, not by --scope active
        assistant("b1", "2026-03-02T09:00:00.000Z", parent="u1", tokens=(1000, 1, 0, 0), cost=2.0),
        # back on the main line (the leaf's path): errored turn, still billed
        assistant("a3", "2026-03-02T10:00:00+02:00", parent="a2", stop="error", errorMessage="boom",
                  tokens=(3, 1, 0, 0), cost=0.25),
        # the same call written twice: ccusage counts it once
        assistant("a4", "2026-03-03T00:00:00Z", parent="a3", tokens=(7, 7, 0, 0), cost=1.0),
        assistant("a4", "2026-03-03T00:00:00Z", parent="a3", tokens=(7, 7, 0, 0), cost=1.0),
        # lines that must not count
        {**assistant("x1", "2026-03-03T01:00:00.000Z", parent="a4"), "type": "custom_message"},
        {**assistant("x2", "not a time", parent="a4")},
        {**assistant("x3", "2026-03-03T01:00:00.123456Z", parent="a4")},
        {"type": "message", "id": "x4", "parentId": "a4", "timestamp": "2026-03-03T01:00:00.000Z",
         "message": {"role": "toolResult", "usage": {"input": 5, "output": 5}}},
        '{"type":"message","id":"torn","message":{"role":"assistant","usage":{"input":1',
        # a line in another key order (not Pi's usual shape): still counted, through the careful path
        {"timestamp": "2026-03-03T02:00:00.000Z", "id": "a5", "parentId": "a4", "type": "message",
         "message": {"usage": {"output": 2, "input": 9, "totalTokens": 11, "cost": {"total": 0.125}},
                     "model": "claude-sonnet-4-5", "provider": "anthropic", "role": "assistant",
                     "api": "anthropic-messages", "content": []}},
    ]
    write(root / "proj-a" / "2026-03-01T10-00-00-000Z_main.jsonl", main)
    # A fork copies the path verbatim into a new file and continues.
    fork_header = {**HEADER, "id": "fork", "parentSession": "proj-a/2026-03-01T10-00-00-000Z_main.jsonl"}
    write(root / "proj-a" / "2026-03-04T08-00-00-000Z_fork.jsonl", [
        fork_header, main[1], main[2],
        assistant("f1", "2026-03-04T08:00:00.000Z", parent="a1", tokens=(50, 5, 0, 0), cost=0.75),
    ])
    write(root / "proj-b" / "2026-03-05T08-00-00-000Z_other.jsonl", [
        HEADER,
        assistant("o1", "2026-03-05T08:00:00.000Z", model="<script>alert('x')</script>", provider="acme",
                  api="acme-api", tokens=(1, 1, 0, 0), cost=None),
    ])
    return root


def files_in(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


def run_json(cli: Any, *args: str) -> dict[str, Any]:
    result = cli("usage", *args, "--format", "json")
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    assert isinstance(document, dict)
    return document


def test_all_scope_matches_independent_count(cli: Any, folder: Path) -> None:
    document = run_json(cli, str(folder), "--scope", "all", "--by", "day")
    assert set(document) == {"rows", "totals"}
    # The independent count cannot price the unknown model; usage reports it as $0 and says so.
    priced = [p for p in files_in(folder) if "other" not in p.name]
    want = independent_totals(priced)
    unpriced = {"input": 1, "output": 1, "totalTokens": 2, "messages": 1}  # o1, counted at $0
    want = {key: value + unpriced.get(key, 0) for key, value in want.items()}
    assert_totals(document["totals"], want)
    assert [list(row) for row in document["rows"]] == [["day", *ROW_KEYS]] * len(document["rows"])
    days = [row["day"] for row in document["rows"]]
    assert days == ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05"]


def test_recomputed_and_unpriced_rows(cli: Any, folder: Path) -> None:
    rows = {row["model"]: row for row in run_json(cli, str(folder), "--by", "model")["rows"]}
    gpt = rows["gpt-5"]
    expected_cost = calculate_cost(get_model("openai", "gpt-5"),
                                   {"input": 200, "output": 20, "cacheRead": 0, "cacheWrite": 0})["total"]
    assert gpt["costSources"] == {"stored": 0, "catalog": 1, "priceTable": 0, "unpriced": 0}
    assert gpt["costStored"] == 0
    assert gpt["costRecomputed"] == pytest.approx(expected_cost) and gpt["cost"] == pytest.approx(expected_cost)
    unknown = rows["<script>alert('x')</script>"]
    assert unknown["costSources"] == {"stored": 0, "catalog": 0, "priceTable": 0, "unpriced": 1}
    assert unknown["cost"] == 0
    sonnet = rows["claude-sonnet-4-5"]
    # a1 (main and fork copy), b1, a3, a4 once, a5, f1
    assert sonnet["messages"] == 7
    assert sonnet["cost"] == pytest.approx(0.5 * 2 + 2.0 + 0.25 + 1.0 + 0.125 + 0.75)
    assert sonnet["cacheHitRatio"] == pytest.approx(sonnet["cacheRead"] / (
        sonnet["input"] + sonnet["cacheRead"] + sonnet["cacheWrite"]))


def test_active_scope_and_dedupe_copies(cli: Any, folder: Path) -> None:
    active = run_json(cli, str(folder), "--scope", "active", "--by", "session")
    by_file = {Path(row["session"]).name: row for row in active["rows"]}
    # main leaf is a5: path u1 a1 a2 a3 a4(second copy, the later duplicate id wins) a5; b1 is another branch
    assert by_file["2026-03-01T10-00-00-000Z_main.jsonl"]["messages"] == 5
    assert by_file["2026-03-01T10-00-00-000Z_main.jsonl"]["input"] == 100 + 200 + 3 + 7 + 9
    assert by_file["2026-03-04T08-00-00-000Z_fork.jsonl"]["messages"] == 2  # copied a1 + f1
    plain = run_json(cli, str(folder), "--by", "provider")["totals"]
    deduped = run_json(cli, str(folder), "--by", "provider", "--dedupe-copies")["totals"]
    assert plain["messages"] - deduped["messages"] == 1  # the fork's copy of a1
    assert plain["input"] - deduped["input"] == 100


def test_groupings_periods_and_filters(cli: Any, folder: Path) -> None:
    months = run_json(cli, str(folder), "--by", "month")["rows"]
    assert [row["month"] for row in months] == ["2026-03"]
    weeks = run_json(cli, str(folder), "--by", "week")["rows"]
    assert [row["week"] for row in weeks] == ["2026-W09", "2026-W10"]
    apis = [row["api"] for row in run_json(cli, str(folder), "--by", "api")["rows"]]
    assert apis == ["acme-api", "anthropic-messages", "openai-responses"]
    window = run_json(cli, str(folder), "--since", "20260302", "--until", "2026-03-03")["rows"]
    assert [row["day"] for row in window] == ["2026-03-02", "2026-03-03"]
    # New York is UTC-5 here: 03-01T23:30Z stays on the 1st; 03-03T00:00Z and 03-03T02:00Z move to the 2nd.
    york = {row["day"]: row["messages"]
            for row in run_json(cli, str(folder), "--timezone", "America/New_York")["rows"]}
    assert york == {"2026-03-01": 3, "2026-03-02": 4, "2026-03-04": 1, "2026-03-05": 1}
    assert cli("usage", str(folder), "--since", "March").code == 2
    assert cli("usage", str(folder), "--timezone", "Mars/Base").code == 2
    assert cli("usage", str(folder), "--format", "parquet").code == 2


def test_csv_and_parquet_round_trip(cli: Any, folder: Path, tmp_path: Path) -> None:
    rows = run_json(cli, str(folder), "--by", "model")["rows"]
    csv_path, parquet_path = tmp_path / "u.csv", tmp_path / "u.parquet"
    assert cli("usage", str(folder), "--by", "model", "--format", "csv", "-o", str(csv_path)).code == 0
    assert cli("usage", str(folder), "--by", "model", "--format", "parquet", "-o", str(parquet_path)).code == 0
    from_parquet = pl.read_parquet(parquet_path).to_dicts()
    assert from_parquet == [flat_row(row) for row in rows]
    assert list(from_parquet[0])[10:14] == ["costSources.stored", "costSources.catalog", "costSources.priceTable",
                                           "costSources.unpriced"]
    from_csv = pl.read_csv(csv_path).to_dicts()
    assert [row["model"] for row in from_csv] == [row["model"] for row in rows]
    for got, want in zip(from_csv, [flat_row(row) for row in rows], strict=True):
        assert {k: v for k, v in got.items() if not isinstance(v, float)} == \
            {k: v for k, v in want.items() if not isinstance(v, float)}
        assert [got[k] for k in got if isinstance(got[k], float)] == pytest.approx(
            [want[k] for k in got if isinstance(got[k], float)])
    stdout_csv = cli("usage", str(folder), "--by", "model", "--format", "csv")
    assert stdout_csv.stdout == csv_path.read_text(encoding="utf-8")


def test_chart_is_self_contained_and_escaped(cli: Any, folder: Path, tmp_path: Path) -> None:
    chart = tmp_path / "chart.html"
    result = cli("usage", str(folder), "--by", "week", "--chart", str(chart))
    assert result.code == 0, result.stderr
    html = chart.read_text(encoding="utf-8")
    assert "<script src" not in html and "<link" not in html  # the JavaScript is inlined: nothing to fetch
    assert "<title>Pi usage per week by model</title>" in html
    # the model name from the file reaches the page only escaped, inside the spec's JSON
    assert "<script>alert" not in html and "\\u003cscript\\u003ealert('x')\\u003c/script\\u003e" in html
    assert '"text":"Cost per week by model"' in html or '"title":"Cost per week by model"' in html


def test_table_output(cli: Any, folder: Path) -> None:
    result = cli("usage", str(folder), "--by", "model")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["model", "msgs", "input"]
    assert any(line.startswith("total") for line in lines)
    assert "* costs priced by usage (stored cost 0 or none, or --cost recomputed): 1 from the pi-ai catalog." \
        in result.stdout
    assert "! 1 message(s) have no price" in result.stdout
    rows = {line.split()[0]: line for line in lines}
    assert rows["gpt-5"].split()[7].endswith("*") and rows["<script>alert('x')</script>"].split()[7] == "0.0000!"


def test_unreadable_file_is_reported(cli: Any, folder: Path, tmp_path: Path) -> None:
    result = cli("usage", str(folder), str(tmp_path / "missing.jsonl"), "--format", "json")
    assert result.code == 2
    assert "missing.jsonl" in result.stderr and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["totals"]["messages"] == 9


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded gen_corpus corpus (legacy files, malformed lines, branches) plus two small big-mode sessions."""
    if not GEN_CORPUS.exists():
        pytest.skip(f"{GEN_CORPUS} is not available")
    root = tmp_path_factory.mktemp("generated") / "sessions"
    subprocess.run([sys.executable, str(GEN_CORPUS), "--seed", "11", "--count", "26", "--out", str(root / "p")],
                   check=True, capture_output=True)
    (root / "q").mkdir(parents=True)
    for seed in (3, 4):
        subprocess.run([sys.executable, str(GEN_CORPUS), "--big", "--target-mb", "0.3", "--seed", str(seed),
                        "--out", str(root / "q" / f"s{seed}.jsonl")], check=True, capture_output=True)
    return root


def test_generated_corpus_matches_independent_count(cli: Any, generated: Path) -> None:
    document = run_json(cli, str(generated), "--by", "session")
    assert_totals(document["totals"], independent_totals(files_in(generated)))
    # openai-codex sessions store 0 (a subscription): auto prices them, stored keeps the 0.
    assert document["totals"]["costSources"]["catalog"] > 0
    stored = run_json(cli, str(generated), "--by", "session", "--cost", "stored")
    assert_totals(stored["totals"], independent_totals(files_in(generated), "stored"))
    assert stored["totals"]["cost"] < document["totals"]["cost"]
    assert len(document["rows"]) == len([p for p in files_in(generated) if independent_totals([p])["messages"]])


def test_worker_pool_gives_the_same_rows(generated: Path) -> None:
    """The multi-process scan and the in-process scan agree row for row (--jobs 2 starts a pool however small)."""
    options = UsageOptions(by="day", engine=Engine(jobs=1))
    single = usage_document(usage_rows(collect_usage([str(generated)], options), "day"))
    pooled = usage_document(usage_rows(collect_usage([str(generated)], UsageOptions(by="day", engine=Engine(jobs=2))),
                                       "day"))
    assert pooled == single
