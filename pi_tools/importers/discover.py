"""The session files a `pi-tools import PATH...` names: files as given, folders as the *.jsonl under them.

A Claude Code sub-agent transcript (`<session>/subagents/agent-*.jsonl`) is imported with its session (it
becomes a session linked to it), so a folder walk leaves it out; named on its own, it is imported on its own.
"""

from __future__ import annotations

import os

from pi_tools.importers.claude_code import is_subagent_file


def import_files(paths: list[str]) -> tuple[list[str], list[str]]:
    """(files to import, problems): each folder's *.jsonl files (recursively, sorted), each file as named; a path
    that does not exist or a folder without any session file is a problem naming it."""
    files: list[str] = []
    problems: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(
                os.path.join(root, name)
                for root, _, names in os.walk(path)
                for name in names
                if (name.endswith(".jsonl") or _is_typescript_codex_rollout(name))
                and not is_subagent_file(os.path.join(root, name))
            )
            if not found:
                problems.append(f"{path}: no session files (*.jsonl) under this directory")
            files.extend(found)
        elif os.path.exists(path):
            files.append(path)
        else:
            problems.append(f"{path}: no such file")
    return files, problems


def _is_typescript_codex_rollout(name: str) -> bool:
    """`rollout-<date>-<id>.json`: the one-document rollouts the TypeScript Codex CLI wrote (spring 2025)."""
    return name.startswith("rollout-") and name.endswith(".json")
