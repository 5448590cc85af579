"""Run the audit over many paths: expand directories, one task per file on the engine, keep input order.

The engine (pi_tools.engine) decides where the files are audited: in this process for a small batch (a pool
costs about a tenth of a second to start, more than auditing one small session takes), else on every core or
a Dask cluster. Results always come back in input order (CI output must not depend on scheduling).

For JSON Lines output each file's documents are encoded where the file was audited (run_audit_json): a file's
findings (about 150 small dicts in a 1 MB session) cost more to pickle, send and unpickle than the bytes they
encode to, and on Dask the client, which also runs the scheduler, would decode and encode them all itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_tools.audit.checks import AuditResult, audit_file
from pi_tools.sources.files import expand

if TYPE_CHECKING:
    from pi_tools.engine import Engine


Options = frozenset[str] | tuple[frozenset[str] | None, str] | None
"""What each file's job carries beside its path: the enabled rules, or (enabled rules, the name of the Pi version to
audit as, resolved where the job runs)."""


def _options(enabled: frozenset[str] | None, pi: str | None) -> Options:
    return enabled if pi is None else (enabled, pi)


def audit_one(job: tuple[str, Options]) -> AuditResult:
    """The audit of one file (path, options): the engine's task."""
    path, options = job
    if isinstance(options, tuple):
        from pi_tools.pi import get

        enabled, pi = options
        return audit_file(path, enabled, get(pi).context)
    return audit_file(path, options)


def run_audit(paths: list[str], enabled: frozenset[str] | None = None,
              engine: Engine | None = None, pi: str | None = None) -> Iterator[AuditResult]:
    """Audit every input; yields one AuditResult per file (or unusable input) in input order (`pi`: the name of the
    Pi version to audit as; None: the code's default rules, Pi 0.85's)."""
    from pi_tools.engine.run import map_inputs

    return map_inputs(audit_one, expand(paths), _options(enabled, pi), engine,
                      lambda path, error: AuditResult(path, error=error))


@dataclass(frozen=True)
class EncodedAudit:
    """One input's audit as the JSON Lines formats.json_lines writes for it, with what the exit status needs."""

    source: str
    error: str | None
    lines: bytes
    worst: int
    """The highest rules.SEVERITY_RANK among its findings (-1: none)."""


def encoded(result: AuditResult) -> EncodedAudit:
    from pi_tools.audit.formats import json_lines
    from pi_tools.audit.rules import SEVERITY_RANK

    worst = max((SEVERITY_RANK[finding["severity"]] for finding in result.findings), default=-1)
    return EncodedAudit(result.source, result.error, json_lines([result], fixes=True), worst)


def audit_one_json(job: tuple[str, Options]) -> EncodedAudit:
    """audit_one, encoded as JSON Lines on the worker: the engine's task for --format json."""
    return encoded(audit_one(job))


def run_audit_json(paths: list[str], enabled: frozenset[str] | None = None,
                   engine: Engine | None = None, pi: str | None = None) -> Iterator[EncodedAudit]:
    """run_audit with each input's documents already encoded (each finding with its fix); their concatenation is
    json_lines(run_audit(...), fixes=True)."""
    from pi_tools.engine.run import map_inputs

    return map_inputs(audit_one_json, expand(paths), _options(enabled, pi), engine,
                      lambda path, error: encoded(AuditResult(path, error=error)))
