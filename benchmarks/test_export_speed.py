"""Issue 13's target: `pi-tools export` of the largest real session takes at most 2x `pi-tools context` on it
(whole processes, same run, interleaved so that both see the same load), for each format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from processes import PI_TOOLS, ROOT, ProcessRun, run_process

REALWORLD = ROOT / "fixtures" / "realworld"


def _largest() -> Path:
    return max(REALWORLD.glob("*.jsonl"), key=lambda p: p.stat().st_size)


TARGET_RATIO = 2.0
"""Issue 13's criterion. The export was brought to about 1.6x under heavy load (same-run CPU time), for margin."""
ROUNDS = 7


def _interleaved(commands: dict[str, list[str]], rounds: int) -> tuple[dict[str, ProcessRun], list[float]]:
    """The fastest of `rounds` runs of each command, taken in turns (a burst of load hits all of them), and the
    export/context ratio of each round (the range the load leaves)."""
    best: dict[str, ProcessRun] = {}
    ratios: list[float] = []
    for _ in range(rounds):
        this_round: dict[str, ProcessRun] = {}
        for name, argv in commands.items():
            run = run_process(argv)
            assert run.returncode == 0, (name, argv)
            this_round[name] = run
            if name not in best or run.seconds < best[name].seconds:
                best[name] = run
        ratios.append(this_round["export"].seconds / this_round["context"].seconds)
    return best, ratios


@pytest.mark.parametrize("fmt", ["html", "md", "chat"])
def test_export_within_twice_context(benchmark: Any, tmp_path: Path, fmt: str) -> None:
    session = str(_largest())
    out = str(tmp_path / f"out.{fmt}")
    export = [*PI_TOOLS, "export", session, "--format", fmt, "-o", out]
    run_process(export)  # the first run compiles the template into jinja2's cache, as any first use does
    result = benchmark.pedantic(lambda: run_process(export), rounds=3, iterations=1)
    assert result.returncode == 0
    best, ratios = _interleaved({"context": [*PI_TOOLS, "context", session], "export": export}, rounds=ROUNDS)
    ratio = best["export"].seconds / best["context"].seconds
    benchmark.extra_info.update({
        "session": Path(session).name, "context_seconds": round(best["context"].seconds, 3),
        "export_seconds": round(best["export"].seconds, 3), "time_ratio": round(ratio, 2),
        "time_ratio_per_round_min": round(min(ratios), 2), "time_ratio_per_round_max": round(max(ratios), 2),
        "target_ratio": TARGET_RATIO,
        "export_peak_mib": round(best["export"].peak_mib, 1), "context_peak_mib": round(best["context"].peak_mib, 1),
    })
    print(f"\nexport --format {fmt} {Path(session).name}: {best['export'].seconds:.3f} s vs context "
          f"{best['context'].seconds:.3f} s = {ratio:.2f}x, best of {ROUNDS} each (per round "
          f"{min(ratios):.2f}-{max(ratios):.2f}x; target {TARGET_RATIO}x)")
    assert ratio <= TARGET_RATIO
