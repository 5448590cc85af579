"""Kept so that `from pi_tools.audit.repair import ...` goes on working: repair lives in pi_tools.rewrite."""

from pi_tools.rewrite.repair import (  # noqa: F401
    FIXED_RULES,
    NO_RESULT_TEXT,
    ORPHAN_RULE,
    RepairError,
    RepairResult,
    close_orphans,
    repair_bytes,
    repair_file,
    repair_lines,
)
from pi_tools.rewrite.writer import write_atomic  # noqa: F401
