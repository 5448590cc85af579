"""Issue 3's target, for every API and model variant of the conformance set (the eleven the reference's
`--apis extended` builds, as the goldens record them): `pi-tools payload --api API --model MODEL BIG` as a whole
process, against the reference doing the same work (`oracle BIG --bench --apis API=MODEL`), measured in the same
run: at most 0.4x its time and 0.75x its peak memory. pi-tools's memory is that of all its processes (with two
cores a helper process builds part of a large payload), each counted at its own peak, in a run of its own.

The reference oracle is a Node harness (../shared/oracle); point PI_TOOLS_ORACLE at an installed copy
(`cp -r ../shared/oracle /tmp/oracle && cd /tmp/oracle && npm ci`). Without it the benchmark is skipped.

Quiet machine, end of the fourth session (load about 1, bytecode compiled), 3 interleaved rounds of pi-tools and
the reference, median of the per-round ratios (range): anthropic 0.29 (0.27-0.34), openai-completions (groq) 0.42
(0.37-0.44), openai-responses 0.38 (0.37-0.51), google 0.30 (0.30-0.34), mistral 0.39 (0.37-0.45), bedrock 0.32
(0.31-0.35), claude-opus-4-6 0.36 (0.30-0.37), deepseek 0.38 (0.32-0.39), openrouter 0.36 (0.35-0.42),
gemini-3-flash 0.32 (0.30-0.36), magistral 0.34 (0.32-0.43). The reference took 3.9-6.1 s, pi-tools 1.3-2.5 s.

Fifth session: the helper process had built its parts with the cyclic collector on (it is forked before
cli.app.main turns it off); now off. groq openai-completions, 4 interleaved rounds under load 3: helper CPU per
part 5.6-6.6 ms (median 6.3) -> 4.6-5.8 (4.8), main process CPU 1.80-1.92 s -> 1.56-1.75 s (the helper takes
more of the parts). The wall ratios were not re-measured: the machine stayed at load 7-11 (the reference took
6-31 s a run), where they mean nothing. Peak memory, all processes, after (before): groq 254 (250) MiB,
openai-responses 279 (282), mistral 262 (265), magistral 262 (267), against the reference's 380-446 MiB.

Quiet machine, end of the fifth session (load below 1, bytecode compiled; this machine ran both sides faster than
in the fourth session: the reference 3.0-3.6 s against 3.9-6.1 s), this benchmark, all 22 runs (11 variants, with
and without the reference's system prompt and tools): 0.29x-0.36x of the reference's time (groq completions 0.33,
openai-responses 0.33-0.34, mistral 0.30-0.35, magistral 0.35-0.36, the others 0.29-0.34) and 0.53x-0.62x of its
peak memory (pi-tools 248-279 MiB for all processes, the reference 437-485 MiB). 3 interleaved rounds per variant
(median of per-round ratios, range): anthropic 0.28 (0.28-0.28), groq 0.33 (0.33-0.36), responses 0.35
(0.35-0.35), google 0.29 (0.28-0.30), mistral 0.35 (0.35-0.37), bedrock 0.30 (0.29-0.31), opus 0.31 (0.30-0.32),
deepseek 0.33 (0.32-0.33), openrouter 0.35 (0.33-0.35), gemini-3 0.30 (0.29-0.30), magistral 0.35 (0.34-0.38).

Sixth session (payload's code unchanged; a noisy machine, where the same payload took 0.79-1.35 s within
minutes): the 22 runs 0.26x-0.41x of the reference's time (the reference 2.76-3.48 s) and 0.53x-0.62x of its peak
memory (pi-tools 245-278 MiB); the two over 0.4 (groq and openrouter completions with the reference's inputs,
0.41 each) were 0.36 and 0.28 when run again right after, and groq without them 0.37 and 0.39.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from processes import PI_TOOLS, ROOT, best_of, tree_peak

_GOLDEN = ROOT / "fixtures/conformance/expected/c000_linear.json"


def _variants() -> list[tuple[str, str]]:
    """(API, provider/model) of every payload the goldens hold: each API's representative model and the
    extra variants (`API@provider/model` keys)."""
    payloads = orjson.loads(_GOLDEN.read_bytes())["payloads"]
    return [(key.split("@")[0], entry["model"]) for key, entry in payloads.items()]


VARIANTS = _variants()


def _oracle() -> Path:
    given = Path(os.environ.get("PI_TOOLS_ORACLE", "/tmp/oracle"))
    candidate = given / "oracle" if given.is_dir() else given  # the folder or its script, as the tests take it
    if not candidate.exists() or not (candidate.parent / "node_modules").exists():
        pytest.skip(f"reference oracle not installed at {candidate.parent} (set PI_TOOLS_ORACLE)")
    return candidate


def _reference_command(oracle: Path, session: Path, api: str, model: str) -> list[str]:
    return [str(oracle), str(session), "--bench", "--apis", f"{api}={model}"]


@pytest.mark.parametrize(("api", "model"), VARIANTS, ids=[f"{api}@{model}" for api, model in VARIANTS])
def test_payload_big_session_against_reference(benchmark: Any, big_session_path: Path, api: str, model: str) -> None:
    oracle = _oracle()
    reference = best_of(_reference_command(oracle, big_session_path, api, model))
    command = [*PI_TOOLS, "payload", "--api", api, "--model", model, str(big_session_path)]
    result = benchmark.pedantic(lambda: best_of(command, rounds=1), rounds=3, iterations=1)
    ours = best_of(command)
    # pi-tools builds part of a large payload in a helper process: its memory counts too (see tree_peak).
    memory_run, tree_mib = tree_peak(command)
    assert result.returncode == 0 and ours.returncode == 0 and reference.returncode == 0
    assert memory_run.returncode == 0
    time_ratio = ours.seconds / reference.seconds
    memory_ratio = tree_mib / reference.peak_mib
    benchmark.extra_info.update({
        "api": api, "model": model,
        "reference_seconds": round(reference.seconds, 3), "payload_seconds": round(ours.seconds, 3),
        "time_ratio": round(time_ratio, 2), "target_time_ratio": 0.4,
        "reference_peak_mib": round(reference.peak_mib, 1), "payload_peak_mib": round(tree_mib, 1),
        "payload_main_process_peak_mib": round(memory_run.peak_mib, 1),
        "memory_ratio": round(memory_ratio, 2), "target_memory_ratio": 0.75,
    })
    print(f"\npayload BIG {api} {model}: {ours.seconds:.2f} s / {tree_mib:.0f} MiB (all processes; main "
          f"{memory_run.peak_mib:.0f}) vs Pi {reference.seconds:.2f} s / {reference.peak_mib:.0f} MiB = "
          f"{time_ratio:.2f}x time (target 0.4), {memory_ratio:.2f}x memory (target 0.75)")
    assert time_ratio <= 0.4
    assert memory_ratio <= 0.75


@pytest.mark.parametrize(("api", "model"), VARIANTS, ids=[f"{api}@{model}" for api, model in VARIANTS])
def test_payload_big_session_with_the_references_inputs(benchmark: Any, big_session_path: Path, tmp_path: Path,
                                                        api: str, model: str) -> None:
    """The same, with what the reference's --bench also builds with: its system prompt and its two tools (as
    the conformance goldens record them), so that both sides do exactly the same work."""
    oracle = _oracle()
    golden = orjson.loads(_GOLDEN.read_bytes())["inputs"]
    tools = tmp_path / "tools.json"
    tools.write_bytes(orjson.dumps(golden["tools"]))
    reference = best_of(_reference_command(oracle, big_session_path, api, model))
    command = [*PI_TOOLS, "payload", "--api", api, "--model", model,
               "--system-prompt", golden["systemPrompt"], "--tools", str(tools), str(big_session_path)]
    result = benchmark.pedantic(lambda: best_of(command, rounds=1), rounds=3, iterations=1)
    ours = best_of(command)
    memory_run, tree_mib = tree_peak(command)
    assert result.returncode == 0 and ours.returncode == 0 and reference.returncode == 0
    assert memory_run.returncode == 0
    time_ratio = ours.seconds / reference.seconds
    memory_ratio = tree_mib / reference.peak_mib
    benchmark.extra_info.update({"api": api, "model": model, "reference_seconds": round(reference.seconds, 3),
                                 "payload_seconds": round(ours.seconds, 3), "time_ratio": round(time_ratio, 2),
                                 "reference_peak_mib": round(reference.peak_mib, 1),
                                 "payload_peak_mib": round(tree_mib, 1), "memory_ratio": round(memory_ratio, 2)})
    print(f"\npayload BIG {api} {model} with the reference's system prompt and tools: {ours.seconds:.2f} s / "
          f"{tree_mib:.0f} MiB vs Pi {reference.seconds:.2f} s / {reference.peak_mib:.0f} MiB = {time_ratio:.2f}x "
          f"time (target 0.4), {memory_ratio:.2f}x memory (target 0.75)")
    assert time_ratio <= 0.4
    assert memory_ratio <= 0.75
