"""Where checks put what they find: one `finding` document per problem, filtered by the enabled rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_tools.audit.rules import RULES_BY_ID

Finding = dict[str, Any]


@dataclass
class AuditResult:
    """What auditing one input gave: findings, or an error when the input is unusable. (Here, beside the
    findings, so that the writers of audit's formats, which preflight uses too, need none of the checks.)"""

    source: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None


def make_finding(source: str, rule_id: str, entry_id: Any, line: int | None, message: str) -> Finding:
    """A finding document; the severity is always the rule's, so `--fail-on` and SARIF levels agree."""
    return {
        "kind": "finding", "source": source, "rule": rule_id, "severity": RULES_BY_ID[rule_id].severity,
        "entryId": entry_id if isinstance(entry_id, str) else None, "line": line, "message": message,
    }


class FindingSink:
    """Collects findings for one session, dropping those of rules the user did not enable."""

    def __init__(self, source: str, enabled: frozenset[str]) -> None:
        self.source = source
        self.enabled = enabled
        self.findings: list[Finding] = []

    def wants(self, rule_id: str) -> bool:
        return rule_id in self.enabled

    def add(self, rule_id: str, entry_id: Any, line: int | None, message: str) -> None:
        if rule_id in self.enabled:
            self.findings.append(make_finding(self.source, rule_id, entry_id, line, message))

    def sorted(self) -> list[Finding]:
        """File order: by line (file-level findings without a line first), stable within a line."""
        return sorted(self.findings, key=lambda f: -1 if f["line"] is None else f["line"])
