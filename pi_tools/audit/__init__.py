"""Audit stored Pi sessions against the invariants that keep a conversation replayable, and repair them.

`rules` is the catalogue, `checks.audit_file` audits one file, `runner.run_audit` many (in parallel),
`formats` writes table/JSON/JUnit/SARIF, `repair.repair_file` writes a repaired copy.
"""

from pi_tools.audit.checks import AuditResult, audit_bytes, audit_file
from pi_tools.audit.rules import RULES, RULES_BY_ID, Rule, select_rules

__all__ = ["RULES", "RULES_BY_ID", "AuditResult", "Rule", "audit_bytes", "audit_file", "select_rules"]
