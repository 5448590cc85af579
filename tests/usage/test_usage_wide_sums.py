"""Token sums beyond 64 bits: each stored count may reach 2^64 - 1, their sum does not fit. `--format json`
writes it as JavaScript (Pi, ccusage) would, csv and parquet refuse with a clear message; none crashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.usage.jsnumbers import dumps, js_number
from tests.usage.test_usage import assistant, user, write

BIG = 18_000_000_000_000_000_000  # under 2^64 - 1 (18,446,744,073,709,551,615): counted


def _session(tmp_path: Path) -> Path:
    return write(tmp_path / "s.jsonl", [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        user("u1", "2026-01-01T00:00:01.000Z", None),
        assistant("a1", "2026-01-01T00:00:02.000Z", tokens=(BIG, 5, 0, 0), cost=0, parent="u1"),
        assistant("a2", "2026-01-01T00:00:03.000Z", tokens=(BIG, 5, 0, 0), cost=0, parent="a1"),
    ])


def test_json_writes_sums_past_64_bits_as_javascript_does(cli: Any, tmp_path: Path) -> None:
    run = cli("usage", "--format", "json", "--cost", "stored", str(_session(tmp_path)))
    assert (run.code, run.stderr) == (0, "")
    # 2 x 18e18 + 10 as a double: JSON.stringify(36000000000000000010) is "36000000000000000000".
    assert '"input":36000000000000000000,"output":10,' in run.stdout
    assert '"totalTokens":36000000000000000000,' in run.stdout
    document = json.loads(run.stdout)
    assert document["totals"]["input"] == 36_000_000_000_000_000_000
    assert document["totals"]["messages"] == 2


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_csv_and_parquet_refuse_sums_past_64_bits(cli: Any, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"out.{fmt}"
    run = cli("usage", "--format", fmt, "-o", str(out), "--cost", "stored", str(_session(tmp_path)))
    assert (run.code, run.stdout) == (2, "")
    assert run.stderr == (
        f"pi-tools: --format {fmt}: the input sum of day 2026-01-01 is 36,000,000,000,000,000,000 tokens, over "
        "the 64-bit integers csv and parquet columns hold (9,223,372,036,854,775,807): use --format json (it "
        "writes such sums as JavaScript numbers) or the table\n")
    assert not out.exists()


def test_js_number_text() -> None:
    assert [js_number(v) for v in (2**64, 36_000_000_000_000_000_010, 10**21, 36 * 10**20, -(2**64))] == [
        "18446744073709551616", "36000000000000000000", "1e+21", "3.6e+21", "-18446744073709551616"]
    assert dumps({"b": "\u0000wide0\u0000", "a": [2**64, 1], "c": 2**64 - 1}) == (
        b'{"b":"\\u0000wide0\\u0000","a":[18446744073709551616,1],"c":18446744073709551615}')


def test_a_count_past_64_bits_is_0_in_both_scopes(cli: Any, tmp_path: Path) -> None:
    """A stored count beyond 2^64 - 1 reads as 0 (the counter's rule: JSON.parse and orjson read it as a float):
    the whole-file scan's regular expressions used to sum it as it stood, unlike the active scope's reading."""
    path = write(tmp_path / "s.jsonl", [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        user("u1", "2026-01-01T00:00:01.000Z", None),
        assistant("a1", "2026-01-01T00:00:02.000Z", tokens=(2**64, 2**64 - 1, 0, 0), cost=0.5, parent="u1"),
        assistant("a2", "2026-01-01T00:00:03.000Z", tokens=(10**19, 7, 10**20, 0), cost=0.5, parent="a1"),
    ])
    for scope in ("all", "active"):
        run = cli("usage", "--format", "json", "--scope", scope, str(path))
        assert (run.code, run.stderr) == (0, ""), scope
        totals = json.loads(run.stdout)["totals"]
        # (2^64 - 1) + 7 written as JavaScript writes it: the double 18446744073709551616.
        assert (totals["input"], totals["output"], totals["cacheRead"], totals["messages"]) == (
            10**19, 18_446_744_073_709_551_616, 0, 2), scope
        assert '"input":10000000000000000000,"output":18446744073709551616,"cacheRead":0,' in run.stdout
