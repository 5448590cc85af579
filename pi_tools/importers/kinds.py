"""The sources `pi-tools import` knows, by name, and how a file's kind is told from its content.

Each source is a module with `KIND`, `DEFAULT_FOLDER`, `detect(first_lines) -> bool` and
`convert(path, *, pi, report) -> list[SessionBuilder]`; it is imported when asked for, so `--help` and the other
sources do not pay for it.
"""

from __future__ import annotations

import os
from importlib import import_module
from types import ModuleType

from pi_tools.importers.records import ImportFailed, first_lines, read_bytes

MODULES: dict[str, str] = {
    "claude-code": "pi_tools.importers.claude_code",
    "codex": "pi_tools.importers.codex",
}
"""Source kind → its module, in the order detection tries them."""


def source_module(kind: str) -> ModuleType:
    """The module of `kind`; ImportFailed when this build has no such source."""
    try:
        return import_module(MODULES[kind])
    except (KeyError, ModuleNotFoundError):
        raise ImportFailed(f"no {kind} source in this build of pi-tools") from None


def available() -> list[str]:
    """The kinds whose modules are present."""
    kinds = []
    for kind in MODULES:
        try:
            source_module(kind)
        except ImportFailed:
            continue
        kinds.append(kind)
    return kinds


def detect_kind(path: str) -> str:
    """The kind of the session file at `path`, from its first lines; ImportFailed saying what it looks like
    when no source recognises it."""
    lines = first_lines(read_bytes(path))
    if not lines:
        raise ImportFailed("empty file")
    for kind in available():
        if source_module(kind).detect(lines):
            return kind
    if b'"type":"session"' in lines[0].replace(b" ", b""):
        raise ImportFailed("already a Pi session (nothing to import)")
    raise ImportFailed(f"not a session of a known kind ({', '.join(available())}); give --from to say which")


def default_folders() -> list[tuple[str, str]]:
    """(kind, folder) for each source's default folder (Claude Code: $CLAUDE_CONFIG_DIR/projects, else
    ~/.claude/projects; Codex: $CODEX_HOME/sessions, else ~/.codex/sessions)."""
    folders = []
    for kind in available():
        module = source_module(kind)
        folder = getattr(module, "default_folder", None)
        path = folder() if callable(folder) else os.path.expanduser(module.DEFAULT_FOLDER)
        folders.append((kind, path))
    return folders
