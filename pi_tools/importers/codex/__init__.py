"""The Codex source of `pi-tools import`: rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, and the
older layouts) as Pi sessions. `detect` and `convert` are the interface every source exposes."""

from pi_tools.importers.codex.convert import convert
from pi_tools.importers.codex.records import detect

KIND = "codex"

__all__ = ["KIND", "convert", "detect"]
