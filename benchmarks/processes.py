"""Whole-process measurements for the benchmarks: wall time and peak RSS of one child process.

Targets in the issues are ratios between whole processes run in the same session (pi-tools vs a baseline),
so both sides are measured the same way: spawn, wait4 for the child's own rusage, compare.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PI_TOOLS = [sys.executable, "-m", "pi_tools"]


@dataclass
class ProcessRun:
    seconds: float
    peak_mib: float
    returncode: int


def run_process(argv: list[str], stdout_path: str = os.devnull, env: dict[str, str] | None = None) -> ProcessRun:
    """Run argv to completion (stdout to a file), returning its wall time and its own peak RSS."""
    with open(stdout_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT,
                                env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ProcessRun(elapsed, usage.ru_maxrss / 1024, proc.returncode)


def best_of(argv: list[str], rounds: int = 3, **kwargs: object) -> ProcessRun:
    """The fastest of several runs (the least disturbed by other load), with the largest peak memory seen."""
    runs = [run_process(argv, **kwargs) for _ in range(rounds)]  # type: ignore[arg-type]
    fastest = min(runs, key=lambda r: r.seconds)
    return ProcessRun(fastest.seconds, max(r.peak_mib for r in runs), fastest.returncode)


def big_session(directory: Path, megabytes: int = 100, seed: int = 7) -> Path:
    """The benchmark session from the reference's generator (`gen_corpus.py --big`), cached on disk.

    The generator ships with the shared reference material; when it is not there, the bundled copy of its
    output is not available either, so the benchmark is skipped by the caller.
    """
    target = directory / f"big-{megabytes}mb-seed{seed}.jsonl"
    if target.exists():
        return target
    generator = ROOT.parent / "shared" / "oracle" / "gen_corpus.py"
    if not generator.exists():
        raise FileNotFoundError(generator)
    subprocess.run([sys.executable, str(generator), "--big", "--seed", str(seed), "--out", str(target),
                    "--target-mb", str(megabytes)], check=True, stdout=subprocess.DEVNULL)
    return target
