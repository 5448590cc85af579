"""`pi-tools preflight` (and `--replay`) over many files: one task per file for the engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_tools.preflight.check import PreflightRequest, PreflightResult
    from pi_tools.preflight.replay import Options as ReplayOptions
    from pi_tools.preflight.replay import ReplayResult


def preflight_file(item: tuple[str, PreflightRequest]) -> PreflightResult:
    """`pi-tools preflight` for one file."""
    from pi_tools.preflight.session import preflight_path

    return preflight_path(*item)


def preflight_helped(name: str, request: PreflightRequest, helper: Any,
                     keep: Callable[..., None] | None = None) -> PreflightResult:
    """`pi-tools preflight` for one named file with payload's helper process (engine.helper.PayloadWorker): it
    indexes the file's second half, then builds parts of a large payload from the back, as for `payload`.
    `keep` holds the check's large objects past it (cli.common.keep_until_exit)."""
    from pi_tools.preflight.session import preflight_path
    from pi_tools.session.bulk import index_elsewhere

    index_elsewhere(helper)
    return preflight_path(name, request, build_elsewhere=helper.build_parts, keep=keep)


def replay_file(item: tuple[str, ReplayOptions]) -> ReplayResult:
    """`pi-tools preflight --replay` for one file."""
    from pi_tools.preflight.replay import replay_path

    return replay_path(*item)
