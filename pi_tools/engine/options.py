"""What a caller says about how its work should run (the `--engine`, `--scheduler` and `--jobs` options)."""

from __future__ import annotations

from dataclasses import dataclass

from pi_tools.sources.errors import EngineError, EngineUnavailable

ENGINE_KINDS = ("local", "dask")

__all__ = ["ENGINE_KINDS", "LOCAL", "Engine", "EngineError", "EngineUnavailable"]


@dataclass(frozen=True)
class Engine:
    """How to run a batch.

    kind: "local" (this machine) or "dask". jobs: for local, the number of worker processes (None: one per
    core when the inputs are large enough to win back the start of a pool; 1: in this process). scheduler: for
    dask, the scheduler's address (None: an embedded LocalCluster). progress: the label of a progress bar
    drawn on stderr when stderr is a terminal (None: no bar).
    """

    kind: str = "local"
    jobs: int | None = None
    scheduler: str | None = None
    progress: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ENGINE_KINDS:
            raise EngineError(f"--engine: expected one of {', '.join(ENGINE_KINDS)}, got {self.kind!r}")
        if self.jobs is not None and self.jobs < 1:
            raise EngineError("--jobs: expected a positive number")
        if self.scheduler is not None and self.kind != "dask":
            raise EngineError("--scheduler: only with --engine dask")


LOCAL = Engine()
"""The default: this machine, a pool only where it pays."""
