"""Issue 4's speed target: `pi-tools usage --scope all --by day --format json` against `ccusage pi daily --json`.

Both run as whole processes on the same corpus (200 sessions of 1 MB from gen_corpus.py), interleaved so that
load from other work on the machine hits both alike; the ratio of the medians must be at most 0.67 and the
totals must agree. The corpus is generated once and cached in the temp directory.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
GEN_CORPUS = Path(os.environ.get("PI_TOOLS_GEN_CORPUS", ROOT.parent / "shared" / "oracle" / "gen_corpus.py"))
SESSIONS = 200
SESSION_MB = 1
TARGET_RATIO = 0.67
ROUNDS = 5
CCUSAGE_CANDIDATES = (
    os.environ.get("CCUSAGE", ""),
    str(ROOT / ".bench" / "ccusage" / "node_modules" / ".bin" / "ccusage"),
    shutil.which("ccusage") or "",
    "/tmp/ccusage/node_modules/.bin/ccusage",
)


def find_ccusage() -> str | None:
    """The ccusage launcher (`make bench` installs it under .bench/ccusage), or None."""
    if shutil.which("node") is None:
        return None
    for candidate in CCUSAGE_CANDIDATES:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def corpus_dir() -> Path:
    """DIR/sessions/bench/sN.jsonl for seeds 1..200, generated in parallel once and reused afterwards."""
    base = Path(tempfile.gettempdir()) / "pi-tools-bench" / f"usage-{SESSIONS}x{SESSION_MB}mb"
    sessions = base / "sessions"
    done = base / ".complete"
    if done.exists():
        return sessions
    if not GEN_CORPUS.exists():
        pytest.skip(f"gen_corpus.py not found at {GEN_CORPUS} (set PI_TOOLS_GEN_CORPUS)")
    folder = sessions / "bench"
    folder.mkdir(parents=True, exist_ok=True)

    def generate(seed: int) -> None:
        subprocess.run([sys.executable, str(GEN_CORPUS), "--big", "--target-mb", str(SESSION_MB), "--seed",
                        str(seed), "--out", str(folder / f"s{seed}.jsonl")], check=True, capture_output=True)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(generate, range(1, SESSIONS + 1)))
    done.write_text("ok\n", encoding="utf-8")
    return sessions


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, bytes]:
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, env={**os.environ, **(env or {})}, cwd=ROOT)
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    return elapsed, proc.stdout


def test_usage_speed_vs_ccusage(benchmark: Any) -> None:
    ccusage = find_ccusage()
    if ccusage is None:
        pytest.skip("ccusage 20.0.24 / node not installed (run `make bench`, or set CCUSAGE=/path/to/ccusage)")
    sessions = corpus_dir()
    pi_tools = [sys.executable, "-m", "pi_tools", "usage", str(sessions), "--scope", "all", "--by", "day",
                "--format", "json"]
    ccusage_command = [ccusage, "pi", "daily", "--json"]
    ccusage_env = {"PI_AGENT_DIR": str(sessions)}
    # Warm the page cache and both programs' own caches before measuring.
    timed(ccusage_command, ccusage_env)
    timed(pi_tools)

    ccusage_times: list[float] = []
    outputs: dict[str, bytes] = {}

    def run_ccusage_first() -> tuple[tuple[Any, ...], dict[str, Any]]:
        elapsed, outputs["ccusage"] = timed(ccusage_command, ccusage_env)
        ccusage_times.append(elapsed)
        return (), {}

    def run_pi_tools() -> None:
        outputs["pi-tools"] = subprocess.run(pi_tools, capture_output=True, check=True, cwd=ROOT).stdout

    benchmark.pedantic(run_pi_tools, setup=run_ccusage_first, rounds=ROUNDS, iterations=1)
    pi_times = list(benchmark.stats.stats.data)
    ratio = statistics.median(pi_times) / statistics.median(ccusage_times)

    ours = json.loads(outputs["pi-tools"])["totals"]
    theirs = json.loads(outputs["ccusage"])["totals"]
    benchmark.extra_info.update({
        "sessions": SESSIONS, "session_mb": SESSION_MB,
        "pi_tools_median_s": statistics.median(pi_times), "ccusage_median_s": statistics.median(ccusage_times),
        "ratio": ratio, "target_ratio": TARGET_RATIO,
    })
    print(f"\nusage speed: pi-tools {statistics.median(pi_times):.3f}s, ccusage {statistics.median(ccusage_times):.3f}s,"
          f" ratio {ratio:.2f} (target <= {TARGET_RATIO})")
    assert (ours["input"], ours["output"], ours["cacheRead"], ours["cacheWrite"], ours["totalTokens"]) == (
        theirs["inputTokens"], theirs["outputTokens"], theirs["cacheReadTokens"], theirs["cacheCreationTokens"],
        theirs["totalTokens"])
    assert ours["cost"] == pytest.approx(theirs["totalCost"], rel=1e-9)
    # Every message stored a cost other than 0, which the default --cost auto takes as ccusage does.
    assert ours["costSources"] == {"stored": ours["messages"], "catalog": 0, "priceTable": 0, "unpriced": 0}
    assert ratio <= TARGET_RATIO
