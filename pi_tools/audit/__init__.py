"""Audit stored Pi sessions against the invariants that keep a conversation replayable, and repair them.

`rules` is the catalogue, `checks.audit_file` audits one file, `runner.run_audit` many (in parallel),
`formats` writes table/JSON/JUnit/SARIF, `repair.repair_file` writes a repaired copy.

The names below are imported on first use: `preflight` (a subpackage) needs none of the checks, and importing
them all cost every `pi-tools preflight` run about 5 ms before its work began.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_tools.audit.checks import audit_bytes, audit_file
    from pi_tools.audit.findings import AuditResult
    from pi_tools.audit.rules import RULES, RULES_BY_ID, Rule, select_rules

__all__ = ["RULES", "RULES_BY_ID", "AuditResult", "Rule", "audit_bytes", "audit_file", "select_rules"]

_HOMES = {"audit_bytes": "checks", "audit_file": "checks", "AuditResult": "findings", "RULES": "rules",
          "RULES_BY_ID": "rules", "Rule": "rules", "select_rules": "rules"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
