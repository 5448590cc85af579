"""Audit stored Pi sessions against the invariants that keep a conversation replayable.

`rules` is the catalogue, `checks.audit_file` audits one file, `runner.run_audit` many (in parallel),
`formats` writes table/JSON/JUnit/SARIF. Repairs are written by `pi_tools.rewrite`.

The names below are imported on first use: importing every check costs a command that needs one of them
about 5 ms before its work began.
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
