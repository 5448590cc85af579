"""`usage --pi 1.6`: usage entries (any kind) are spending, never messages; provider-billed costs are never
re-priced; the report shows them apart (`usageEntries`, `costUsageEntries`, `costFromProvider`, `--by kind`).

Totals are checked against a count made here from the raw JSON lines of the Pi-1.6-written sessions
(../shared/conformance16, gen16_*) and the 1.6 edge cases (tests/data/pi16), the regular-expression path against
the parsed-dict path, and `--pi 0.85` against the report it always gave (usage entries ignored).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers.catalog import calculate_cost, get_model
from pi_tools.usage.counter import message_usages
from pi_tools.usage.report import UsageOptions, collect_usage, usage_document, usage_rows
from pi_tools.usage.scan import _PI_TAIL, _PI_USAGE_ENTRY

from support.oracle_path import CONFORMANCE16

PI16 = resolve("1.6")
PI085 = resolve("0.85")
EDGE = Path(__file__).resolve().parents[1] / "data" / "pi16" / "cases"
GEN16 = sorted((CONFORMANCE16 / "cases").glob("gen16_*.jsonl"))
FILES = [*GEN16, *sorted(EDGE.glob("*.jsonl"))]
ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2})")
TOKENS = ("input", "output", "cacheRead", "cacheWrite")

needs_gen16 = pytest.mark.skipif(not GEN16, reason=f"Pi 1.6's sessions are not at {CONFORMANCE16}/cases")


def independent(files: list[Path], cost_mode: str) -> dict[str, Any]:
    """Every assistant message's and every usage entry's tokens and cost, summed from the raw lines.

    Assistant messages count as `usage` has always counted them (ccusage's rules: an ISO entry timestamp, numeric
    input and output, once per file per entry timestamp and total tokens: gen16_edits repeats one, with the
    same millisecond and tokens as its first answer). Usage entries count by the same rules among themselves,
    apart from messages. Cost: a provider-billed one (`totalFromProvider: true`) as stored in every mode; else
    the stored total (`auto`: unless it is 0, then the catalog's price)."""
    totals: dict[str, Any] = {name: 0 for name in (*TOKENS, "totalTokens", "messages", "usageEntries")}
    totals.update(cost=0.0, costUsageEntries=0.0, costFromProvider=0.0, billed=0)
    for path in files:
        seen_messages: set[Any] = set()
        seen_entries: set[Any] = set()
        for entry in parsed(path):
            message = entry.get("message") if entry.get("type") == "message" else None
            if isinstance(message, dict) and message.get("role") == "assistant":
                usage, provider, model, seen, kind = message.get("usage"), message["provider"], message["model"], \
                    seen_messages, None
            elif entry.get("type") == "usage":
                usage, provider, model, seen, kind = entry.get("usage"), entry["provider"], entry["model"], \
                    seen_entries, entry["kind"]
            else:
                continue
            if not isinstance(usage, dict) or not ISO.fullmatch(entry["timestamp"]):
                continue
            key = (kind, entry["timestamp"], usage["totalTokens"])
            if key in seen:
                continue
            seen.add(key)
            for name in (*TOKENS, "totalTokens"):
                totals[name] += usage[name]
            stored = usage["cost"]["total"]
            if usage["cost"].get("totalFromProvider") is True:
                cost = stored
                totals["costFromProvider"] += stored
                totals["billed"] += 1
            elif cost_mode == "stored" or stored != 0:
                cost = stored
            else:
                cost = calculate_cost(get_model(provider, model), {name: usage[name] for name in TOKENS})["total"]
            totals["cost"] += cost
            if kind is None:
                totals["messages"] += 1
            else:
                totals["usageEntries"] += 1
                totals["costUsageEntries"] += cost
    return totals


def parsed(path: Path) -> list[Any]:
    """The file's JSON lines (split at \\n only, as Pi splits: a line may hold U+2028), as parsed; lines that are
    no JSON (gen16_resumed085 has torn ones) count nowhere."""
    entries = []
    for line in path.read_bytes().split(b"\n"):
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    return entries


def report(files: list[Path], version: Any = PI16, **options: Any) -> dict[str, Any]:
    data = collect_usage([str(path) for path in files], UsageOptions(timezone="UTC", pi=version, **options))
    assert not data.errors
    return usage_document(usage_rows(data, options.get("by", "day")), data.shape)


@needs_gen16
@pytest.mark.parametrize("cost", ["stored", "auto"])
@pytest.mark.parametrize("scope", ["all"])
def test_totals_are_every_message_and_usage_entry(cost: str, scope: str) -> None:
    want = independent(FILES, cost)
    assert want["usageEntries"] == 4 and want["billed"] == 1  # gen16_edits, e03, e11, e15; e15's billed message
    totals = report(FILES, cost=cost, scope=scope)["totals"]
    assert {name: totals[name] for name in (*TOKENS, "totalTokens", "messages", "usageEntries")} == \
        {name: want[name] for name in (*TOKENS, "totalTokens", "messages", "usageEntries")}
    for name in ("cost", "costUsageEntries", "costFromProvider"):
        assert totals[name] == pytest.approx(want[name], rel=1e-12, abs=1e-15)
    assert totals["costSources"]["provider"] == want["billed"]
    assert sum(totals["costSources"].values()) == want["messages"] + want["usageEntries"]


@needs_gen16
def test_usage_entries_are_not_messages_and_pi_085_ignores_them() -> None:
    as_085 = report(FILES, PI085, cost="stored")
    as_16 = report(FILES, cost="stored")
    assert set(as_085["totals"]) == {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "messages",
                                     "costSources"}
    assert set(as_085["totals"]["costSources"]) == {"stored", "catalog", "priceTable", "unpriced"}
    assert as_16["totals"]["messages"] == as_085["totals"]["messages"] == 33
    assert as_16["totals"]["totalTokens"] == as_085["totals"]["totalTokens"] + 21  # the four warms: 15 + 2 + 2 + 2


def test_provider_billed_cost_is_never_repriced(tmp_path: Path) -> None:
    """A provider-billed cost is the bill: kept under --cost recomputed (0.85, which does not know the flag,
    re-prices it), and a billed 0 is kept under auto (0.85 prices it)."""
    lines = parsed(EDGE / "e15_fields.jsonl")
    billed = next(entry for entry in lines if entry.get("id") == "a1")
    billed["message"]["usage"]["cost"]["total"] = 0.5
    path = tmp_path / "billed.jsonl"
    path.write_text("".join(json.dumps(entry, separators=(",", ":")) + "\n" for entry in lines), encoding="utf-8")
    for mode in ("auto", "stored", "recomputed"):
        totals = report([path], cost=mode)["totals"]
        assert totals["costFromProvider"] == 0.5 and totals["costSources"]["provider"] == 1, mode
    recomputed_085 = report([path], PI085, cost="recomputed")["totals"]
    assert recomputed_085["costSources"]["catalog"] == 2  # both messages re-priced


@needs_gen16
def test_table_shows_cache_warming_apart() -> None:
    edits = CONFORMANCE16 / "cases" / "gen16_edits.jsonl"
    from support.clihelp import run_cli

    table = run_cli("usage", "--pi", "1.6", str(edits), str(EDGE / "e15_fields.jsonl"), "--by", "kind",
                    "--cost", "stored", "--timezone", "UTC")
    assert table.code == 0, table.stderr
    assert table.stdout == (
        "kind        msgs  usage entries  input  output  cache read  cache write  total tokens  cost $"
        "  usage entries $  provider-billed $  cache hit\n"
        "----------  ----  -------------  -----  ------  ----------  -----------  ------------  ------"
        "  ---------------  -----------------  ---------\n"
        "cache_warm     0              2     11       6           0            0            17  0.0000"
        "           0.0000             0.0000       0.0%\n"
        "message        4              0     22      12           0            0            34  0.0000"
        "           0.0000             0.0000       0.0%\n"
        "----------  ----  -------------  -----  ------  ----------  -----------  ------------  ------"
        "  ---------------  -----------------  ---------\n"
        "total          4              2     33      18           0            0            51  0.0000"
        "           0.0000             0.0000           \n"
        "  1 cost(s) are what the provider billed (cost.totalFromProvider): taken as stored, never re-priced, in "
        "every --cost mode.\n"
        "  2 usage entries (spending outside messages; kind cache_warm: Pi's cache warming) counted in the tokens "
        "and cost, not in msgs; --by kind shows each kind.\n")
    auto = run_cli("usage", "--pi", "1.6", str(edits), str(EDGE / "e15_fields.jsonl"), "--by", "kind",
                   "--timezone", "UTC")
    assert auto.stdout.splitlines()[-3:] == [
        "* costs priced by usage (stored cost 0 or none, or --cost recomputed): 5 from the pi-ai catalog.",
        "  1 cost(s) are what the provider billed (cost.totalFromProvider): taken as stored, never re-priced, in "
        "every --cost mode.",
        "  2 usage entries (spending outside messages; kind cache_warm: Pi's cache warming) counted in the tokens "
        "and cost, not in msgs; --by kind shows each kind."]
    assert auto.stdout.splitlines()[2].startswith("cache_warm     0              2     11       6           0 "
                                                  "           0            17  0.0001*           0.0001 ")
    document = json.loads(run_cli("usage", "--pi", "1.6", str(edits), "--by", "model", "--cost", "stored",
                                  "--format", "json").stdout)
    assert document == {"rows": [{
        "model": "claude-sonnet-4-5", "messages": 2, "usageEntries": 1, "input": 30, "output": 15, "cacheRead": 0,
        "cacheWrite": 0, "totalTokens": 45, "cost": 0.0, "costStored": 0.0, "costRecomputed": 0.0,
        "costUsageEntries": 0.0, "costFromProvider": 0.0,
        "costSources": {"stored": 3, "catalog": 0, "priceTable": 0, "unpriced": 0, "provider": 0},
        "cacheHitRatio": 0.0}], "totals": {
        "input": 30, "output": 15, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 45, "cost": 0.0, "messages": 2,
        "usageEntries": 1, "costUsageEntries": 0.0, "costFromProvider": 0.0,
        "costSources": {"stored": 3, "catalog": 0, "priceTable": 0, "unpriced": 0, "provider": 0}}}
    csv = run_cli("usage", "--pi", "1.6", str(edits), "--by", "kind", "--cost", "stored", "--format", "csv").stdout
    assert csv.splitlines() == [
        "kind,messages,usageEntries,input,output,cacheRead,cacheWrite,totalTokens,cost,costStored,costRecomputed,"
        "costUsageEntries,costFromProvider,costSources.stored,costSources.catalog,costSources.priceTable,"
        "costSources.unpriced,costSources.provider,cacheHitRatio",
        "cache_warm,0,1,10,5,0,0,15,0.0,0.0,0.0,0.0,0.0,1,0,0,0,0,0.0",
        "message,2,0,20,10,0,0,30,0.0,0.0,0.0,0.0,0.0,2,0,0,0,0,0.0",
    ]


def spaced(files: list[Path], folder: Path) -> list[Path]:
    """The files with every line re-serialized with spaces: no line in Pi's compact shape, so the scan parses
    every candidate line with orjson (the dict path)."""
    out = []
    for path in files:
        target = folder / path.name
        target.write_text("".join(json.dumps(entry) + "\n" for entry in parsed(path)), encoding="utf-8")
        out.append(target)
    return out


@needs_gen16
@pytest.mark.parametrize("cost", ["auto", "stored", "recomputed"])
def test_fast_path_and_dict_path_agree(tmp_path: Path, cost: str) -> None:
    # Pi 1.6's own lines are read by the regular expressions (not diverted to orjson)
    new = (CONFORMANCE16 / "cases" / "gen16_new.jsonl").read_bytes().splitlines()
    assistant = [line for line in new if b'"role":"assistant"' in line]
    assert assistant and all(_PI_TAIL.fullmatch(line, line.rfind(b',"api":"')) for line in assistant)
    warm = [line for line in (CONFORMANCE16 / "cases" / "gen16_edits.jsonl").read_bytes().splitlines()
            if line.startswith(b'{"type":"usage"')]
    assert len(warm) == 1 and _PI_USAGE_ENTRY.fullmatch(warm[0])
    fast = report(FILES, cost=cost, by="kind")
    assert fast == report(spaced(FILES, tmp_path), cost=cost, by="kind")
    # the counter over every parsed entry (what the index and --scope active apply) adds up to the same
    sums: dict[str, Any] = {"messages": 0, "usageEntries": 0, "totalTokens": 0, "cost": 0.0}
    for path in FILES:
        for found in message_usages(parsed(path), cost, PI16.spending):
            if found is not None and found.counted:
                sums["messages" if found.kind == "message" else "usageEntries"] += 1
                sums["totalTokens"] += found.totalTokens
                sums["cost"] += found.cost
    assert {name: fast["totals"][name] for name in sums if name != "cost"} == \
        {name: value for name, value in sums.items() if name != "cost"}
    assert fast["totals"]["cost"] == pytest.approx(sums["cost"], rel=1e-12, abs=1e-15)


def test_active_scope_counts_the_usage_entries_on_the_path() -> None:
    """e03's and e11's warms are their sessions' leaves; --scope active reads the files as Pi 1.6 does."""
    files = [EDGE / "e03_multi.jsonl", EDGE / "e11_sys_null.jsonl"]
    active = report(files, scope="active", cost="stored", by="kind")
    assert {row["kind"]: (row["messages"], row["usageEntries"]) for row in active["rows"]} == \
        {"cache_warm": (0, 2), "message": (1, 0)}


def warm(entry_id: str, stamp: str, *, kind: Any = "cache_warm", tokens: tuple[int, int] = (10, 5),
         cost: float = 0.25, billed: bool | None = None, **extra: Any) -> dict[str, Any]:
    usage: dict[str, Any] = {"input": tokens[0], "output": tokens[1], "cacheRead": 0, "cacheWrite": 0,
                             "totalTokens": sum(tokens),
                             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}}
    if billed is not None:
        usage["cost"]["totalFromProvider"] = billed
    entry = {"type": "usage", "id": entry_id, "parentId": None, "timestamp": stamp, "kind": kind,
             "provider": "anthropic", "model": "claude-sonnet-4-5-20250929", "usage": usage, **extra}
    if kind is None:
        del entry["kind"]
    return entry


def test_odd_usage_entries_count_alike_on_both_paths(tmp_path: Path) -> None:
    """Usage entries in every shape the scan meets, compact (the regular expressions) and spaced (orjson)."""
    edits = [entry for entry in parsed(EDGE / "e15_fields.jsonl") if entry.get("type") != "usage"]
    late = warm("w2", "2026-12-01T00:01:00.000Z", billed=True, note="extension override")
    late["usage"]["cacheWrite1h"] = 3  # after the cost, as 1.6 writes it on messages
    lines = [
        *edits,
        warm("w1", "2026-12-01T00:00:01.000Z"),  # the same millisecond and tokens as message a1: both count
        warm("w1", "2026-12-01T00:00:01.000Z"),  # the same line again: once
        late,
        warm("w3", "2026-12-01T00:02:00.000Z", kind="assistant"),  # read by the first jump, not twice
        warm("w4", "2026-12-01T00:03:00.000Z", kind=None),  # no kind: "usage"
        warm("w5", "2026-12-01 00:04:00"),  # no ISO timestamp: not counted
        {**warm("w6", "2026-12-01T00:05:00.000Z"), "usage": {"input": "10", "output": 5}},  # not counted
    ]
    compact = tmp_path / "compact" / "s.jsonl"
    compact.parent.mkdir()
    compact.write_bytes(b"".join(json.dumps(entry, separators=(",", ":")).encode() + b"\r\n" for entry in lines))
    assert sum(bool(_PI_USAGE_ENTRY.fullmatch(line)) for line in compact.read_bytes().split(b"\n")) == 4  # w1 w1 w2 w3
    (roomy,) = spaced([compact], tmp_path)
    for cost in ("auto", "stored", "recomputed"):
        fast = report([compact], cost=cost, by="kind")
        assert fast == report([roomy], cost=cost, by="kind"), cost
        kinds = {row["kind"]: row["usageEntries"] for row in fast["rows"]}
        assert kinds == {"assistant": 1, "cache_warm": 2, "message": 0, "usage": 1}, cost
        assert fast["totals"]["messages"] == 2 and fast["totals"]["costFromProvider"] == 0.25
        assert fast["totals"]["costSources"]["provider"] == 2  # the billed warm and e15's billed message
    rows = [found for found in message_usages(parsed(compact), "stored", PI16.spending) if found and found.counted]
    assert sorted(found.kind for found in rows) == ["assistant", "cache_warm", "cache_warm", "message", "message",
                                                    "usage"]
    assert report([compact], cost="stored")["totals"]["costUsageEntries"] == 1.0


@needs_gen16
def test_chart_counts_warming_in_cost_and_tokens_not_messages() -> None:
    from pi_tools.usage.chart import chart_data

    data = collect_usage([str(CONFORMANCE16 / "cases" / "gen16_edits.jsonl")],
                         UsageOptions(timezone="UTC", pi=PI16, cost="stored"))
    summary = chart_data(data.frame(), "day")
    assert (summary["messages"], summary["total_tokens"]) == (2, 45)
