"""Benchmark fixtures: the 100 MB session and the 2,000-session corpus, generated once per machine and cached."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from processes import bench_cache, big_session, session_corpus


@pytest.fixture(scope="session")
def big_session_path() -> Path:
    try:
        return big_session(bench_cache())
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
