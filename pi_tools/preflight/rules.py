"""The rules preflight runs: every API folder's (each adapter's `rule_modules`, in table order), then this room's
rules for every API (`common`), registered and ordered by `pi_tools.providers.rulebook.rules`.

The framework sits in providers so that an API folder writes its rules without importing this room; this module
is the room's face of it.
"""

from __future__ import annotations

from pi_tools.providers.registry import builds
from pi_tools.providers.rulebook.rules import (
    SEVERITY_RANK,
    Check,
    Hit,
    PreflightRule,
    all_rules,
    iter_hits,
    load_after_apis,
    rule,
    rules_by_id,
    rules_for,
)
from pi_tools.providers.table import api_names

ALL_APIS = frozenset(api for api in api_names() if builds(api))
"""Every API of the table that preflight checks (those built for the base edition: an API only a later Pi has,
such as Pi's own message API, has no rules yet): what a rule for every API applies to."""

load_after_apis(f"{__package__}.common")

__all__ = ["ALL_APIS", "SEVERITY_RANK", "Check", "Hit", "PreflightRule", "all_rules", "iter_hits", "rule",
           "rules_by_id", "rules_for"]
