"""Issue 12's slim target: a session of inline images (200 MB by default; PI_TOOLS_SLIM_MB to change) slims to
under 10% of its size in under 2x the time of `pi-tools context` on it, with peak memory under 2x context's
(whole processes, same run, best of 3)."""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path
from typing import Any

from processes import PI_TOOLS, bench_cache, best_of


def image_session(megabytes: int) -> Path:
    """User turns with a 250 KB screenshot each and assistant text between them; cached on disk."""
    path = bench_cache() / f"slim-images-{megabytes}mb.jsonl"
    if path.exists():
        return path
    rng = random.Random(12)
    stamp = "2025-01-01T00:00:00.000Z"
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    temp = path.with_suffix(".tmp")
    with temp.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"type": "session", "version": 3, "id": "slim-bench", "timestamp": stamp, "cwd": "/"}) + "\n")
        parent = None
        number = 0
        while out.tell() < megabytes * 1024 * 1024:
            image = base64.b64encode(rng.randbytes(250_000)).decode()
            user = {"role": "user", "content": [{"type": "text", "text": f"screen {number}"},
                                                {"type": "image", "data": image, "mimeType": "image/png"}],
                    "timestamp": number}
            reply = {"role": "assistant", "content": [{"type": "text", "text": "I see it. " * 40}],
                     "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                     "usage": usage, "stopReason": "stop", "timestamp": number}
            for message in (user, reply):
                entry_id = f"{number:08x}"
                out.write(json.dumps({"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
                                      "message": message}) + "\n")
                parent = entry_id
                number += 1
    temp.rename(path)
    return path


def test_slim_images_against_context(benchmark: Any, tmp_path: Path) -> None:
    source = image_session(int(os.environ.get("PI_TOOLS_SLIM_MB", "200")))
    out = tmp_path / "slim.jsonl"
    slim = [*PI_TOOLS, "slim", str(source), "-o", str(out), "--force", "--max-image-kb", "100"]
    context = best_of([*PI_TOOLS, "context", str(source)])
    result = benchmark.pedantic(lambda: best_of(slim, rounds=1), rounds=3, iterations=1)
    ours = best_of(slim)
    assert result.returncode == 0 and ours.returncode == 0 and context.returncode == 0
    size_ratio = out.stat().st_size / source.stat().st_size
    time_ratio = ours.seconds / context.seconds
    memory_ratio = ours.peak_mib / context.peak_mib
    benchmark.extra_info.update({
        "context_seconds": round(context.seconds, 3), "slim_seconds": round(ours.seconds, 3),
        "time_ratio": round(time_ratio, 2), "memory_ratio": round(memory_ratio, 2), "size_ratio": round(size_ratio, 4),
        "context_peak_mib": round(context.peak_mib, 1), "slim_peak_mib": round(ours.peak_mib, 1),
    })
    print(f"\nslim {source.stat().st_size >> 20} MB: {ours.seconds:.2f} s vs context {context.seconds:.2f} s = "
          f"{time_ratio:.2f}x (target 2.0x); peak {ours.peak_mib:.0f} vs {context.peak_mib:.0f} MiB = "
          f"{memory_ratio:.2f}x (target 2.0x); output {100 * size_ratio:.2f}% of the input (target 10%)")
    assert size_ratio < 0.10 and time_ratio < 2.0 and memory_ratio < 2.0
