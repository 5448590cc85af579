"""Benchmark fixtures: the 100 MB session, generated once per machine and cached."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from processes import big_session


@pytest.fixture(scope="session")
def big_session_path() -> Path:
    cache = Path(os.environ.get("PI_TOOLS_BENCH_CACHE", Path(tempfile.gettempdir()) / "pi-tools-bench"))
    cache.mkdir(parents=True, exist_ok=True)
    try:
        return big_session(cache)
    except FileNotFoundError as missing:
        pytest.skip(f"benchmark session generator not found: {missing}")
