"""Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, and the older layouts) as Pi sessions.

`detect` recognises a rollout of any layout from its first lines; `convert` reads one into one Pi session. What
maps to what: docs/import.md (Codex rollouts).
"""

from __future__ import annotations

import os

from pi_tools.importers.codex.convert import convert
from pi_tools.importers.codex.records import detect

KIND = "codex"
DEFAULT_FOLDER = os.path.join("~", ".codex", "sessions")


def default_folder() -> str:
    """Where Codex keeps its rollouts: `$CODEX_HOME/sessions`, else `~/.codex/sessions`."""
    home = os.environ.get("CODEX_HOME")
    return os.path.join(home, "sessions") if home else os.path.expanduser(DEFAULT_FOLDER)


__all__ = ["DEFAULT_FOLDER", "KIND", "convert", "default_folder", "detect"]
