"""Shared fixtures: how tests run the real CLI (a subprocess, exactly as users and CI run it).

Also puts tests/ on sys.path, so that every test, whatever room folder it sits in, imports the shared helpers
as `support.<module>` (tests/support/) under any pytest import mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# The suite reproduces Pi 0.85 unless a test says otherwise: most goldens (fixtures/conformance, the real-world
# digests, the stream recordings) are Pi 0.85's. Tests of Pi 1.6 pass `--pi 1.6` (or set PI_TOOLS_PI), and the
# tests of the default itself remove the variable (tests/cli/test_pi_option.py). A run with PI_TOOLS_PI set keeps it.
os.environ.setdefault("PI_TOOLS_PI", "0.85")


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def documents(self) -> list[Any]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


def run_cli(*args: str, stdin: bytes | None = None, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 120) -> CliResult:
    """Run `python -m pi_tools ARGS` and capture everything (stdin closed unless given)."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "pi_tools", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        cwd=cwd or ROOT,
        env=full_env,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


@pytest.fixture
def cli() -> Any:
    return run_cli
