"""Issue 14's index targets, on the generated corpus (`processes.session_corpus`: 2,000 sessions of 1 MB;
PI_TOOLS_BENCH_CORPUS_COUNT=200 for a smaller one):

- `pi-tools index CORPUS -o OUT` (a fresh index) at most 1.5x the time of `pi-tools audit --format json CORPUS`;
- a second `index` over the same corpus with nothing changed under 5% of the first.

Whole processes, interleaved round by round so that load from other work hits all alike; the ratio is taken per
round and the median held to the target (the range is printed, with the cost per file and the peak memory of
each command). Runnable on its own: `.venv/bin/python -m pytest benchmarks/test_index_speed.py -s`.

Figures, 2,000 x 1 MB, 2 cores, default engine (local pool on both cores):
- before the index-speed branch, quiet machine: audit 17.7 s (jobs 1: 42.5 s), index 72.9 s (4.1x; 362 MB peak
  in the main process), second index 0.32 s.
- index-speed branch (one decode of each clean file, corpus/lines.py; zstd level 1), measured only while three
  other engineers' runs loaded the 2 cores (load 7-8), 200 x 1 MB, 3 interleaved rounds of this benchmark:
  index / audit 2.57-2.99 wall (median 2.89), 2.71-3.17 CPU; 48-54 ms CPU per file against audit's 15-20;
  second run 2-3% of the first. Main's index under the same load: 3.4-4.3x audit's CPU. The 1.5x target is not
  reached; the quiet 2,000-file figure is the lead's to take with this benchmark.
- index-speed, third session (entry columns gathered from the entries frame, entry times in polars, SHA-256),
  load 4-8, 200 x 1 MB, 3 rounds each, main then the branch: main 2.67-3.25 (median 2.82), the branch
  2.96-3.09 (median 3.09), CPU ratios 2.85-3.03 and 2.85-3.83; second run 1.3-2.3% of the first. Within the
  noise; counted in instructions (callgrind) the rows fell 5% and the frames 3% (docs/index.md, Speed).
- Quiet machine, end of the fourth session, 2,000 x 1 MB, 3 rounds: index 51.1-62.1 s, audit 14.1-17.2 s,
  ratio 3.38-3.71 (median 3.61); the incremental run 0.4% of the first.
- Quiet machine, end of the fifth session (the index-speed and index-frames branches merged; this machine also ran
  every command faster than in the fourth session: audit 8.7 s against 15.1 s, unchanged code), 2,000 x 1 MB,
  5 rounds: index 21.3-21.7 s, audit 8.7-8.8 s (12.6 s in the first round, from a cold page cache), ratio
  2.44-2.47 (median 2.45; target 1.5x, not met); the incremental run 0.13 s, 0.6% of the first.
- index-frames branch (add, frames and Parquet 42.2 -> 39.9 M instructions per file; batches shrinking toward the
  end), load 6-10, 200 x 1 MB, interleaved with main: index CPU 10.2-12.4 s and 12.5-13.0 s against main's
  10.5-11.6 s and 10.3-12.5 s, audit 3.5-4.4 s: no difference this load lets show (docs/index.md, Speed).
- Seventh session (line lengths from the bulk index's offsets), noisy machine, 2,000 x 1 MB, 3 rounds: index
  31.6-40.4 s, audit 13.8-18.5 s, ratio 2.18-2.29 (median 2.23; CPU 2.27-2.41); incremental 0.6%. Counted in
  instructions per file (callgrind, 10 files, hash left out): index 146.9 -> 140.9 M against audit's 81.0 M.
- Eighth session, quiet machine (load 0.0), same code, 2,000 x 1 MB, 3 rounds: audit 6.00-7.15 s, index
  18.21-18.79 s, ratio 2.63-3.04 (median 2.68; CPU 2.71-3.02); incremental 0.5%. polars' own JSON reader as
  the row builder (docs/index.md, Speed): 24-29 ms CPU per file, slower than the whole index.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from processes import PI_TOOLS, ROOT

TARGET_VS_AUDIT = 1.5
TARGET_INCREMENTAL = 0.05
ROUNDS = int(os.environ.get("PI_TOOLS_BENCH_ROUNDS", 3))


def timed(argv: list[str]) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds of the process and the workers it waited for, exit status, peak resident MB of
    the largest of them) of one run: on a shared machine the CPU ratio says more than the wall-clock one."""
    with open(os.devnull, "wb") as sink:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.DEVNULL, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status), usage.ru_maxrss // 1024



def test_index_against_audit_and_incremental(benchmark: Any, corpus: Path, tmp_path: Path) -> None:
    audit = [*PI_TOOLS, "audit", "--format", "json", str(corpus)]
    ratios: list[float] = []
    cpu_ratios: list[float] = []
    incremental: list[float] = []
    for round_number in range(ROUNDS):
        out = tmp_path / f"idx{round_number}"
        audited = timed(audit)
        first = timed([*PI_TOOLS, "index", str(corpus), "-o", str(out)])
        second = timed([*PI_TOOLS, "index", str(corpus), "-o", str(out)])
        assert audited[2] in (0, 1)  # 1: findings
        assert first[2] == 0 and second[2] == 0
        ratios.append(first[0] / audited[0])
        cpu_ratios.append(first[1] / audited[1])
        incremental.append(second[0] / first[0])
        files = sum(1 for _ in corpus.rglob("*.jsonl"))
        print(f"\nround {round_number}: audit {audited[0]:.2f} s ({audited[1]:.2f} s CPU, "
              f"{audited[1] / files * 1000:.1f} ms CPU per file, {audited[3]} MB), index {first[0]:.2f} s "
              f"({first[1]:.2f} s CPU, {first[1] / files * 1000:.1f} ms CPU per file, {first[3]} MB), "
              f"again {second[0]:.3f} s; index / audit {ratios[-1]:.2f}")
        shutil.rmtree(out)
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    benchmark.extra_info.update(index_vs_audit=ratios, index_vs_audit_cpu=cpu_ratios,
                                incremental_vs_first=incremental)
    print(f"index / audit: median {statistics.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f}; "
          f"CPU {min(cpu_ratios):.2f}-{max(cpu_ratios):.2f}); "
          f"second run / first: median {statistics.median(incremental):.3f} "
          f"(range {min(incremental):.3f}-{max(incremental):.3f})")
    assert statistics.median(ratios) <= TARGET_VS_AUDIT
    assert statistics.median(incremental) < TARGET_INCREMENTAL
