"""Issue 11's targets, as same-run ratios of whole processes (spawned, timed and measured the same way):

- `pi-tools preflight` on the 100 MB benchmark session at most 1.2x the time of `pi-tools payload` for the same
  model, and its peak memory not far above payload's (both counted with their helper process, see
  processes.tree_peak); preflight without the helper (PI_TOOLS_SPLIT_BYTES=off) is measured in the same rounds,
  for the record;
- `--replay` on the largest real session (dexter-v3: 1,354 lines, 655 requests) at most 5x one `payload` build of
  it (replay is incremental: one payload per run of requests, not one per request).

The two commands run in alternation, at least three rounds each, and the best of each is compared (a load drift
hits both); each round's ratio (and their median) goes into extra_info, so a report shows the spread as well as
the best.

Measured on the shared 2-core machine under load (load average 4-10), see docs/preflight.md "Speed".
"""

from __future__ import annotations

import os
from pathlib import Path
from statistics import median
from typing import Any

import pytest

from processes import PI_TOOLS, ROOT, ProcessRun, run_process, tree_peak

ROUNDS = max(3, int(os.environ.get("PI_TOOLS_BENCH_ROUNDS", "3")))
REALWORLD_LARGEST = ROOT / "fixtures" / "realworld" / "marcpadz__dexter-v3__pi-session.jsonl"
MODELS = [("anthropic-messages", "anthropic/claude-sonnet-4-5"), ("openai-responses", "openai/gpt-5.1"),
          ("google-generative-ai", "google/gemini-3-flash-preview")]


NO_HELPER = {"PI_TOOLS_SPLIT_BYTES": "off"}
"""preflight without payload's helper process (its parts path does not depend on this variable; payload's does)."""


def _alternate(first: list[str], second: list[str]) -> tuple[list[ProcessRun], list[ProcessRun]]:
    runs: tuple[list[ProcessRun], list[ProcessRun]] = ([], [])
    for _ in range(ROUNDS):
        runs[0].append(run_process(first))
        runs[1].append(run_process(second))
    return runs


def _alternate3(first: list[str], second: list[str],
                third_env: dict[str, str]) -> tuple[list[ProcessRun], list[ProcessRun], list[ProcessRun]]:
    """Rounds of `first`, `second`, then `second` again with `third_env`."""
    runs: tuple[list[ProcessRun], list[ProcessRun], list[ProcessRun]] = ([], [], [])
    for _ in range(ROUNDS):
        runs[0].append(run_process(first))
        runs[1].append(run_process(second))
        runs[2].append(run_process(second, env=third_env))
    return runs


def _best(runs: list[ProcessRun]) -> ProcessRun:
    return min(runs, key=lambda run: run.seconds)


@pytest.mark.parametrize(("api", "model"), MODELS, ids=[api for api, _ in MODELS])
def test_preflight_against_payload(benchmark: Any, big_session_path: Path, api: str, model: str) -> None:
    payload = [*PI_TOOLS, "payload", "--api", api, "--model", model, str(big_session_path)]
    preflight = [*PI_TOOLS, "preflight", "--format", "json", "--model", model, str(big_session_path)]
    baselines, ours, alone = benchmark.pedantic(lambda: _alternate3(payload, preflight, NO_HELPER), rounds=1,
                                                iterations=1)
    assert all(run.returncode == 0 for run in baselines) and all(run.returncode in (0, 1) for run in ours + alone)
    _, payload_tree_mib = tree_peak(payload)  # payload's helper process holds memory too, and so does preflight's
    _, preflight_tree_mib = tree_peak(preflight)
    base, best, best_alone = _best(baselines), _best(ours), _best(alone)
    ratio = best.seconds / base.seconds
    memory_ratio = preflight_tree_mib / payload_tree_mib
    benchmark.extra_info.update({
        "payload_seconds": [round(run.seconds, 2) for run in baselines],
        "preflight_seconds": [round(run.seconds, 2) for run in ours],
        "preflight_without_helper_seconds": [round(run.seconds, 2) for run in alone],
        "round_ratios": [round(o.seconds / b.seconds, 2) for b, o in zip(baselines, ours, strict=True)],
        "round_ratios_without_helper": [round(o.seconds / b.seconds, 2) for b, o in zip(baselines, alone, strict=True)],
        "median_round_ratio": round(median(o.seconds / b.seconds for b, o in zip(baselines, ours, strict=True)), 2),
        "ratio": round(ratio, 2), "ratio_without_helper": round(best_alone.seconds / base.seconds, 2),
        "target_ratio": 1.2, "payload_peak_mib_with_helper": round(payload_tree_mib),
        "preflight_peak_mib_with_helper": round(preflight_tree_mib),
        "preflight_main_peak_mib": round(max(run.peak_mib for run in ours)),
        "preflight_without_helper_peak_mib": round(max(run.peak_mib for run in alone)),
        "memory_ratio": round(memory_ratio, 2)})
    print(f"\npreflight BIG {api}: best {best.seconds:.2f} s vs payload {base.seconds:.2f} s = {ratio:.2f}x "
          f"(rounds {benchmark.extra_info['round_ratios']}, median {benchmark.extra_info['median_round_ratio']}, "
          f"target 1.2); without the helper "
          f"{best_alone.seconds:.2f} s = {benchmark.extra_info['ratio_without_helper']}x "
          f"(rounds {benchmark.extra_info['round_ratios_without_helper']}); peak {preflight_tree_mib:.0f} MiB "
          f"with its helper vs payload {payload_tree_mib:.0f} MiB with its helper ({memory_ratio:.2f}x), "
          f"{max(r.peak_mib for r in alone):.0f} MiB without")
    assert ratio <= 1.2
    assert memory_ratio <= 1.5


def test_replay_against_one_payload(benchmark: Any) -> None:
    payload = [*PI_TOOLS, "payload", "--api", "openai-completions", "--model", "deepseek/deepseek-v4-pro",
               str(REALWORLD_LARGEST)]
    replay = [*PI_TOOLS, "preflight", "--replay", "--format", "json", str(REALWORLD_LARGEST)]
    baselines, ours = benchmark.pedantic(lambda: _alternate(payload, replay), rounds=1, iterations=1)
    assert all(run.returncode == 0 for run in baselines) and all(run.returncode in (0, 1) for run in ours)
    base, best = _best(baselines), _best(ours)
    ratio = best.seconds / base.seconds
    benchmark.extra_info.update({
        "payload_seconds": [round(run.seconds, 2) for run in baselines],
        "replay_seconds": [round(run.seconds, 2) for run in ours],
        "round_ratios": [round(o.seconds / b.seconds, 2) for b, o in zip(baselines, ours, strict=True)],
        "ratio": round(ratio, 2), "target_ratio": 5})
    print(f"\nreplay {REALWORLD_LARGEST.name} (655 requests): best {best.seconds:.2f} s vs one payload "
          f"{base.seconds:.2f} s = {ratio:.2f}x (rounds {benchmark.extra_info['round_ratios']}, target 5)")
    assert ratio <= 5
