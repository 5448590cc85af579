"""Runs the real `pi-tools` CLI for the run/decode tests (through the shim until the commands are registered)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SHIM = Path(__file__).resolve().parent / "pi_tools_shim.py"


def cli_command(*args: str) -> list[str]:
    """The argv that runs `pi-tools ARGS` (via the shim, which defers to the app's own registration)."""
    return [sys.executable, str(SHIM), *args]


def run_cli(*args: str, stdin: bytes | None = None, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 120) -> Any:
    from conftest import CliResult

    proc = subprocess.run(cli_command(*args), input=stdin if stdin is not None else b"", capture_output=True,
                          cwd=cwd or ROOT, env={**os.environ, **(env or {})}, timeout=timeout)
    return CliResult(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))
