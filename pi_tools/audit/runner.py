"""Run the audit over many paths: expand directories, one task per file on the engine, keep input order.

The engine (pi_tools.engine) decides where the files are audited: in this process for a small batch (a pool
costs about a tenth of a second to start, more than auditing one small session takes), else on every core or
a Dask cluster. Results always come back in input order (CI output must not depend on scheduling).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pi_tools.audit.checks import AuditResult, audit_file
from pi_tools.engine.inputs import expand

if TYPE_CHECKING:
    from pi_tools.engine import Engine


def audit_one(job: tuple[str, frozenset[str] | None]) -> AuditResult:
    """The audit of one file (path, enabled rules): the engine's task."""
    path, enabled = job
    return audit_file(path, enabled)


def run_audit(paths: list[str], enabled: frozenset[str] | None = None,
              engine: Engine | None = None) -> Iterator[AuditResult]:
    """Audit every input; yields one AuditResult per file (or unusable input) in input order."""
    from pi_tools.engine.run import map_inputs

    return map_inputs(audit_one, expand(paths), enabled, engine, lambda path, error: AuditResult(path, error=error))
