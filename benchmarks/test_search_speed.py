"""`search`'s byte prefilter, measured against parsing every line, on the 100 MB session (same run, interleaved).

The baseline is the very same search with the prefilter switched off (every line parsed and matched), so the
ratio is what skipping the JSON parsing of lines that cannot match buys. Three literal patterns: one absent
from the file (the common case across a corpus), one on about 1% of the lines, one on 6%. Targets (ratios of
medians): absent at most 0.2, the others at most 0.6. A regular expression parses every line and is recorded
beside them (no target: it is the baseline's own cost). Each search must find the same hits either way.

Run alone: .venv/bin/python -m pytest benchmarks/test_search_speed.py -s
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from pi_tools.corpus.match import Matcher
from pi_tools.corpus.search import SearchSpec, search_file

ROUNDS = 5
PATTERNS = {"absent": ("zq-absent-qz", 0.2), "rare": ("E0308", 0.6), "common": ("SIGTERM", 0.6)}


def _without_prefilter(pattern: str) -> SearchSpec:
    matcher = Matcher(pattern)
    object.__setattr__(matcher, "prefilter", None)
    return SearchSpec(matcher)


def test_prefilter_against_full_parse(benchmark: Any, big_session_path: Path) -> None:
    path = str(big_session_path)
    specs = {name: SearchSpec(Matcher(pattern)) for name, (pattern, _) in PATTERNS.items()}
    baselines = {name: _without_prefilter(pattern) for name, (pattern, _) in PATTERNS.items()}
    regex = SearchSpec(Matcher("SIG(TERM|KILL)", regex=True))
    times: dict[str, list[float]] = {key: [] for key in [*specs, *(f"{n} full" for n in specs), "regex"]}
    hits: dict[str, int] = {}

    def run(key: str, spec: SearchSpec) -> None:
        started = time.perf_counter()
        result = search_file((path, spec))
        times[key].append(time.perf_counter() - started)
        assert result.error is None
        hits.setdefault(key, len(result.hits))
        assert hits[key] == len(result.hits)

    for _ in range(ROUNDS):  # interleaved, so that load from other work hits every variant alike
        for name, spec in specs.items():
            run(name, spec)
            run(f"{name} full", baselines[name])
        run("regex", regex)
    for name in specs:
        assert hits[name] == hits[f"{name} full"]
    assert hits["absent"] == 0 and hits["rare"] > 0 and hits["common"] > hits["rare"]
    report = []
    for name, (_, target) in PATTERNS.items():
        ratios = [a / b for a, b in zip(times[name], times[f"{name} full"], strict=True)]
        ratio = statistics.median(times[name]) / statistics.median(times[f"{name} full"])
        report.append(f"{name}: {statistics.median(times[name]):.2f}s vs {statistics.median(times[f'{name} full']):.2f}s "
                      f"full parse, ratio {ratio:.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f}, target <= {target}, "
                      f"{hits[name]} hits)")
        assert ratio <= target, report[-1]
    report.append(f"regex: {statistics.median(times['regex']):.2f}s ({hits['regex']} hits)")
    print("\n" + "\n".join(report))
    benchmark.extra_info.update({name: statistics.median(values) for name, values in times.items()})
    benchmark.pedantic(search_file, args=((path, specs["absent"]),), rounds=1, iterations=1)
