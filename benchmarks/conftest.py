"""Benchmark fixtures: the 100 MB session and the 2,000-session corpus, generated once per machine and cached."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

import pytest

from processes import ROOT, bench_cache, big_session, big_session16, session_corpus

# The benchmarks measure Pi 0.85's work against Pi 0.85 (../shared/oracle) unless one names a version itself
# (`--pi 1.6` against ../shared/oracle16); a run with PI_TOOLS_PI set keeps it.
os.environ.setdefault("PI_TOOLS_PI", "0.85")


@pytest.fixture(scope="session", autouse=True)
def _compiled_bytecode() -> None:
    """An installed pi-tools runs from compiled bytecode (pip compiles it at install time). A checkout whose
    __pycache__ is older than its sources (after a merge or a reset) compiles the changed modules again in
    every run when PYTHONDONTWRITEBYTECODE is set (it is on these machines), in every process: about 0.5 G
    instructions each on a 12 MB session, a tenth of a 100 MB payload's main process. So the bytecode is
    brought up to date once, before any benchmark, and the runs measure pi-tools rather than Python's compiler."""
    compileall.compile_dir(str(ROOT / "pi_tools"), quiet=1)


@pytest.fixture(scope="session")
def big_session_path() -> Path:
    try:
        return big_session(bench_cache())
    except FileNotFoundError as missing:
        pytest.skip(f"benchmark session generator not found: {missing}")


@pytest.fixture(scope="session")
def big_session16_path() -> Path:
    """The 100 MB session as Pi 1.6 writes sessions (processes.big_session16)."""
    try:
        return big_session16(bench_cache())
    except FileNotFoundError as missing:
        pytest.skip(f"benchmark session generator not found: {missing}")


@pytest.fixture(scope="session")
def corpus() -> Path:
    """processes.session_corpus, or PI_TOOLS_BENCH_CORPUS_DIR: any folder of sessions (e.g. part of the corpus)."""
    chosen = os.environ.get("PI_TOOLS_BENCH_CORPUS_DIR")
    if chosen:
        return Path(chosen)
    try:
        return session_corpus(bench_cache())
    except FileNotFoundError as missing:
        pytest.skip(f"benchmark corpus generator not found: {missing}")
