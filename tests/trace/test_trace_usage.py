"""The tokens and cost a trace carries add up to `pi-tools usage` over the same files: `--branches all` to
`--scope all`, `active` to `--scope active`, under both Pi versions (1.6's usage entries, cache warming, too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

from pi_tools.usage.report import COST_DECIMALS

FILES = [str(ROOT / "fixtures/realworld"), str(ROOT / "tests/data/pi16/cases"), str(ROOT / "fixtures/corpus")]
BUCKETS = {"input": "pi.usage.input", "output": "pi.usage.output", "cacheRead": "pi.usage.cache_read",
           "cacheWrite": "pi.usage.cache_write", "totalTokens": "pi.usage.total_tokens"}


def _trace_totals(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "t.json"
    result = run_cli("trace", *FILES, "-o", str(out), *args)
    assert result.code == 0, result.stderr
    totals: dict[str, Any] = {key: 0 for key in BUCKETS} | {"cost": 0.0, "messages": 0, "usageEntries": 0}
    for resource in json.loads(out.read_text())["resourceSpans"]:
        for span in resource["scopeSpans"][0]["spans"]:
            attributes = {item["key"]: next(iter(item["value"].values())) for item in span["attributes"]}
            if "pi.usage.total_tokens" not in attributes or attributes.get("pi.usage.counted") is False:
                continue
            for key, name in BUCKETS.items():
                totals[key] += int(attributes[name])
            totals["cost"] += attributes["pi.cost.usd"]
            totals["messages" if attributes["gen_ai.operation.name"] == "chat" else "usageEntries"] += 1
    return totals


@pytest.mark.parametrize(("pi", "branches"), [("0.85", "all"), ("0.85", "active"), ("1.6", "all"),
                                              ("1.6", "active")])
def test_trace_totals_are_usage_totals(tmp_path: Path, pi: str, branches: str) -> None:
    usage = run_cli("usage", *FILES, "--format", "json", "--by", "model", "--scope", branches, "--pi", pi,
                    "--timezone", "UTC")
    assert usage.code == 0, usage.stderr
    expected = json.loads(usage.stdout)["totals"]
    traced = _trace_totals(tmp_path, "--branches", branches, "--pi", pi)
    for key in (*BUCKETS, "messages"):
        assert traced[key] == expected[key], key
    assert round(traced["cost"], COST_DECIMALS) == expected["cost"]  # usage prints costs rounded so
    assert traced["usageEntries"] == expected.get("usageEntries", 0)
    assert traced["totalTokens"] > 0
    if pi == "1.6":
        assert traced["usageEntries"] > 0  # the cache-warming entries of the 1.6 cases are spans of their own
