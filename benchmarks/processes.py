"""Whole-process measurements for the benchmarks: wall time and peak RSS of one child process.

Targets in the issues are ratios between whole processes run in the same session (pi-tools vs a baseline),
so both sides are measured the same way: spawn, wait4 for the child's own rusage, compare.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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


def _children_of(pid: int) -> list[int]:
    """Processes whose parent is `pid` (a scan of /proc: cheap in a container, and only done every 20 ms)."""
    children = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2:].split()
        if int(fields[1]) == pid:
            children.append(int(name))
    return children


def _high_water_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def tree_peak(argv: list[str], env: dict[str, str] | None = None) -> tuple[ProcessRun, float]:
    """One run whose memory counts the helper processes too: (the run, the sum of every process's own peak).

    The main process's peak comes from wait4 (which is the largest of it and its children, so never less than
    its own); each child's is its high-water mark, read from /proc every 2 ms while it lives. Adding them up
    counts each process at its worst, as if all peaks came at once: an upper bound of the memory the command
    held at any moment. (Polling slows the command a little, so times are taken from other runs.)
    """
    import threading

    peaks: dict[int, float] = {}
    done = threading.Event()
    started: list[int] = []

    def poll() -> None:
        children: list[int] = []
        scanned = 0.0
        while not done.is_set():
            now = time.perf_counter()
            if started and now - scanned > 0.02:
                children = _children_of(started[0])
                scanned = now
            for child in children:
                high = _high_water_mib(child)
                if high is not None:
                    peaks[child] = max(peaks.get(child, 0.0), high)
            time.sleep(0.002)

    with open(os.devnull, "wb") as out:
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT,
                                env={**os.environ, **(env or {})})
        started.append(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        done.set()
        poller.join()
    run = ProcessRun(elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status))
    return run, run.peak_mib + sum(peaks.values())


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


def big_session16(directory: Path, megabytes: int = 100, seed: int = 7) -> Path:
    """big_session as Pi 1.6 would have written it (pi16_session.py: a leading system message, usage and
    context_edit entries, compactions' system messages), cached on disk beside it. Made in another process: a
    child forked from this one would report this process's peak memory as its own (Linux keeps it across exec)."""
    target = directory / f"big-{megabytes}mb-seed{seed}-pi16.jsonl"
    if target.exists():
        return target
    partial = target.with_suffix(".partial")
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pi16_session.py"),
                    str(big_session(directory, megabytes, seed)), str(partial)], check=True)
    partial.rename(target)
    return target


def bench_cache() -> Path:
    """Where generated benchmark inputs are kept between runs (PI_TOOLS_BENCH_CACHE, else the temp folder)."""
    cache = Path(os.environ.get("PI_TOOLS_BENCH_CACHE", Path(tempfile.gettempdir()) / "pi-tools-bench"))
    cache.mkdir(parents=True, exist_ok=True)
    return cache


def session_corpus(directory: Path, count: int = 2000, megabytes: int = 1, seed: int = 100) -> Path:
    """A folder of `count` generated sessions of about `megabytes` each (gen_corpus.py --big, seeds seed..),
    spread over 20 project folders as Pi lays them out; cached on disk, built two at a time.

    Set PI_TOOLS_BENCH_CORPUS_COUNT to benchmark a smaller corpus (the figures in docs/scale.md use 2,000).
    """
    count = int(os.environ.get("PI_TOOLS_BENCH_CORPUS_COUNT", count))
    root = directory / f"corpus-{count}x{megabytes}mb-seed{seed}"
    done = root / ".complete"
    if done.exists():
        return root
    generator = ROOT.parent / "shared" / "oracle" / "gen_corpus.py"
    if not generator.exists():
        raise FileNotFoundError(generator)
    pending: list[subprocess.Popen[bytes]] = []
    for number in range(count):
        folder = root / "sessions" / f"--home-user-project{number % 20:02d}--"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"2026-01-01T00-00-00-000Z_{number:08d}-0000-4000-8000-000000000000.jsonl"
        if target.exists():
            continue
        pending.append(subprocess.Popen([sys.executable, str(generator), "--big", "--seed", str(seed + number),
                                         "--out", str(target), "--target-mb", str(megabytes)],
                                        stdout=subprocess.DEVNULL))
        while len(pending) >= 2:
            pending.pop(0).wait(timeout=600)
    for process in pending:
        process.wait(timeout=600)
    done.touch()
    return root
