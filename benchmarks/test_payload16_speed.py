"""Issue 24's target, for every payload key of the Pi 1.6 conformance goldens (the 16 API and model variants):
`pi-tools payload --pi 1.6 --api API --model MODEL BIG` as a whole process, against Pi 1.6 doing the same work
(`oracle BIG --bench --apis API=MODEL`, ../shared/oracle16), measured in the same run: at most 0.4x its time and
0.75x its peak memory. pi-tools's memory is that of all its processes (a helper process builds part of a large
payload), each counted at its own peak, in a run of its own (as benchmarks/test_payload_speed.py measures 0.85).

Point PI_TOOLS_ORACLE16 at an installed copy of the 1.6 oracle (default /tmp/oracle16; `cp -r ../shared/oracle16
/tmp/oracle16 && cd /tmp/oracle16 && npm ci`). Without it the benchmark is skipped.

The 1.6 payload is built in parts, as 0.85's, for every API: anthropic-messages, openai-completions,
openai-responses, azure-openai-responses, openai-codex-responses, google-generative-ai (and google-vertex),
mistral-conversations, bedrock-converse-stream and pi-messages (tests/providers/test_payload16_parts.py checks
the parts join into the whole payload). Measured figures: see the branch's report and docs (the machine's load
says how much they mean).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from processes import PI_TOOLS, ROOT, best_of, tree_peak

_SHARED = [Path(os.environ["PI_TOOLS_SHARED"])] if os.environ.get("PI_TOOLS_SHARED") else []
_SHARED += [ROOT.parent / "shared", Path("/work/shared")]
_GOLDEN = next((path / "conformance16" / "expected" / "c000_linear.json" for path in _SHARED
                if (path / "conformance16" / "expected" / "c000_linear.json").exists()), None)


def _variants() -> list[tuple[str, str]]:
    """(API, provider/model) of every payload the 1.6 goldens hold (`API` and `API@provider/model` keys)."""
    if _GOLDEN is None:
        return []
    payloads = orjson.loads(_GOLDEN.read_bytes())["payloads"]
    return [(key.split("@")[0], entry["model"]) for key, entry in payloads.items()]


VARIANTS = _variants()


def _oracle16() -> Path:
    given = Path(os.environ.get("PI_TOOLS_ORACLE16", "/tmp/oracle16"))
    candidate = given / "oracle" if given.is_dir() else given
    if not candidate.exists() or not (candidate.parent / "node_modules").exists():
        pytest.skip(f"Pi 1.6 reference oracle not installed at {candidate.parent} (set PI_TOOLS_ORACLE16)")
    return candidate


@pytest.mark.skipif(not VARIANTS, reason="the conformance16 goldens are not found (PI_TOOLS_SHARED)")
@pytest.mark.parametrize(("api", "model"), VARIANTS, ids=[f"{api}@{model}" for api, model in VARIANTS])
def test_payload16_big_session_against_reference(benchmark: Any, big_session_path: Path, api: str,
                                                 model: str) -> None:
    oracle = _oracle16()
    reference = best_of([str(oracle), str(big_session_path), "--bench", "--apis", f"{api}={model}"])
    command = [*PI_TOOLS, "payload", "--pi", "1.6", "--api", api, "--model", model, str(big_session_path)]
    result = benchmark.pedantic(lambda: best_of(command, rounds=1), rounds=3, iterations=1)
    ours = best_of(command)
    memory_run, tree_mib = tree_peak(command)
    assert result.returncode == 0 and ours.returncode == 0 and reference.returncode == 0
    assert memory_run.returncode == 0
    time_ratio = ours.seconds / reference.seconds
    memory_ratio = tree_mib / reference.peak_mib
    benchmark.extra_info.update({
        "api": api, "model": model, "pi": "1.6",
        "reference_seconds": round(reference.seconds, 3), "payload_seconds": round(ours.seconds, 3),
        "time_ratio": round(time_ratio, 2), "target_time_ratio": 0.4,
        "reference_peak_mib": round(reference.peak_mib, 1), "payload_peak_mib": round(tree_mib, 1),
        "payload_main_process_peak_mib": round(memory_run.peak_mib, 1),
        "memory_ratio": round(memory_ratio, 2), "target_memory_ratio": 0.75,
    })
    print(f"\npayload --pi 1.6 BIG {api} {model}: {ours.seconds:.2f} s / {tree_mib:.0f} MiB (all processes; main "
          f"{memory_run.peak_mib:.0f}) vs Pi 1.6 {reference.seconds:.2f} s / {reference.peak_mib:.0f} MiB = "
          f"{time_ratio:.2f}x time (target 0.4), {memory_ratio:.2f}x memory (target 0.75)")
    assert time_ratio <= 0.4
    assert memory_ratio <= 0.75
