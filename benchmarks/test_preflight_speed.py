"""Issue 11's target: `pi-tools preflight` on the 100 MB session at most 1.2x the time of `pi-tools payload` for the
same model, both as whole processes measured in the same run (best of 3 each, interleaved so load drifts hit both);
and `--replay` on the largest real session against one `payload` build of it (target: at most 5x).

Measured on the shared 2-core machine under heavy, varying load (load average 9-10), same runs: preflight
6.3-8.8 s against payload 5.8-8.4 s by hand (1.05-1.36x, best of 3 1.08x); this benchmark's own run: 7.17 s
against 4.75 s (1.51x). The target is not reliably met: preflight builds the payload whole in one process, while
payload builds a large session's payload in parts on two cores (the lighter the load, the more that helps), and
preflight also needs every message for Pi's token estimate and for tracing findings. The rules share one pass
over the payload per API, a finding is traced by mapping the payload only up to its item, and the session's
bytes and index are dropped once its messages are built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from processes import PI_TOOLS, ROOT, best_of

MODEL = "anthropic/claude-sonnet-4-5"
REALWORLD_LARGEST = ROOT / "fixtures" / "realworld" / "marcpadz__dexter-v3__pi-session.jsonl"


def test_preflight_against_payload(benchmark: Any, big_session_path: Path) -> None:
    payload = [*PI_TOOLS, "payload", "--api", "anthropic-messages", "--model", MODEL, str(big_session_path)]
    preflight = [*PI_TOOLS, "preflight", "--format", "json", "--model", MODEL, str(big_session_path)]
    baseline = best_of(payload)
    result = benchmark.pedantic(lambda: best_of(preflight, rounds=1), rounds=3, iterations=1)
    ours = best_of(preflight)
    assert baseline.returncode == 0 and result.returncode in (0, 1) and ours.returncode in (0, 1)
    ratio = ours.seconds / baseline.seconds
    benchmark.extra_info.update({"payload_seconds": round(baseline.seconds, 3),
                                 "preflight_seconds": round(ours.seconds, 3), "ratio": round(ratio, 2),
                                 "target_ratio": 1.2})
    print(f"\npreflight BIG {ours.seconds:.2f} s vs payload {baseline.seconds:.2f} s = {ratio:.2f}x (target 1.2)")
    assert ratio <= 1.2


def test_replay_against_one_payload(benchmark: Any) -> None:
    payload = [*PI_TOOLS, "payload", "--api", "openai-completions", "--model", "deepseek/deepseek-v4-pro", str(REALWORLD_LARGEST)]
    replay = [*PI_TOOLS, "preflight", "--replay", "--format", "json", str(REALWORLD_LARGEST)]
    baseline = best_of(payload)
    result = benchmark.pedantic(lambda: best_of(replay, rounds=1), rounds=3, iterations=1)
    ours = best_of(replay)
    assert baseline.returncode == 0 and result.returncode in (0, 1)
    ratio = ours.seconds / baseline.seconds
    benchmark.extra_info.update({"payload_seconds": round(baseline.seconds, 3),
                                 "replay_seconds": round(ours.seconds, 3), "ratio": round(ratio, 2),
                                 "target_ratio": 5})
    print(f"\nreplay {REALWORLD_LARGEST.name} ({ours.seconds:.2f} s, 655 requests) vs one payload "
          f"{baseline.seconds:.2f} s = {ratio:.2f}x (target 5)")
    assert ratio <= 5
