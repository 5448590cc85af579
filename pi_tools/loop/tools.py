"""The coding tools a run offers the model (`read`, `write`, `edit`, `bash`, `ls`) and what they share.

Schemas, descriptions, output limits and notices are Pi's, because the model sees them: a transcript replayed
or continued by Pi must read the same. The one addition is the workspace guard: file tools refuse paths that
resolve (symlinks included) outside ``--cwd`` unless ``--allow-outside`` is given, since an unattended run in
CI should not touch the rest of the machine.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_tools.loop.signals import AbortSignal

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024

ToolResult = dict[str, Any]
UpdateSink = Callable[[ToolResult], None]
Execute = Callable[[str, dict[str, Any], AbortSignal, UpdateSink], ToolResult]


class ToolError(Exception):
    """A tool failed; the message becomes the text of an ``isError`` tool result, as a thrown Error does in Pi."""


@dataclass
class Workspace:
    """Where tools run and how far file tools may reach."""

    cwd: str
    allow_outside: bool = False
    #: ``PI_*`` variables Pi exposes to shell commands (session id and file, provider, model, thinking level).
    session_env: dict[str, str] = field(default_factory=dict)
    _locks: dict[str, threading.Lock] = field(default_factory=dict)
    _locks_guard: threading.Lock = field(default_factory=threading.Lock)

    def resolve(self, path: str) -> str:
        """Pi's ``resolveToCwd`` (``~`` expansion, a leading ``@`` dropped, relative to cwd), then the guard."""
        if path.startswith("@"):
            path = path[1:]
        path = path.replace("\u00a0", " ")
        if path == "~" or path.startswith("~/"):
            path = os.path.expanduser(path)
        resolved = os.path.normpath(path if os.path.isabs(path) else os.path.join(self.cwd, path))
        if not self.allow_outside:
            root = os.path.realpath(self.cwd)
            real = os.path.realpath(resolved)
            if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
                raise ToolError(
                    f"Path {path} resolves outside the working directory {self.cwd}; "
                    "pi-tools run refuses it unless --allow-outside is given"
                )
        return resolved

    def mutation_lock(self, absolute_path: str) -> threading.Lock:
        """One lock per file, so parallel edits and writes to the same file happen one after another."""
        key = os.path.realpath(absolute_path)
        with self._locks_guard:
            return self._locks.setdefault(key, threading.Lock())


@dataclass
class Tool:
    """An AgentTool: what the provider sees (name, description, parameters) plus how to run it."""

    name: str
    description: str
    parameters: dict[str, Any]
    execute: Execute
    prepare_arguments: Callable[[Any], Any] | None = None
    execution_mode: str = "parallel"
    constrained_sampling: dict[str, Any] | None = None
    """How the tool asks providers to constrain its arguments, where its Pi version declares it (agent rules'
    `constrained_tools`)."""

    def definition(self, *, constrained: bool = False) -> dict[str, Any]:
        """The tool as providers receive it in the context (with its constrained sampling when `constrained`)."""
        definition: dict[str, Any] = {"name": self.name, "description": self.description,
                                      "parameters": self.parameters}
        if constrained and self.constrained_sampling is not None:
            definition["constrainedSampling"] = self.constrained_sampling
        return definition


def utf8_length(text: str) -> int:
    """``Buffer.byteLength(text, "utf-8")``."""
    return len(text.encode("utf-8", "surrogatepass"))


def format_size(size: int) -> str:
    """Pi's human-readable size (B, KB or MB with one decimal)."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    return f"{size / (1024 * 1024):.1f}MB"


def _count_lines(content: str) -> list[str]:
    if not content:
        return []
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    return lines


def _result(content: str, *, truncated: bool, by: str | None, total_lines: int, total_bytes: int,
            output_lines: int, last_partial: bool, first_exceeds: bool, max_lines: int,
            max_bytes: int) -> dict[str, Any]:
    return {
        "content": content, "truncated": truncated, "truncatedBy": by, "totalLines": total_lines,
        "totalBytes": total_bytes, "outputLines": output_lines, "outputBytes": utf8_length(content),
        "lastLinePartial": last_partial, "firstLineExceedsLimit": first_exceeds, "maxLines": max_lines,
        "maxBytes": max_bytes,
    }


def truncate_head(content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, Any]:
    """Keep whole lines from the start until either limit is hit (Pi's ``truncateHead``)."""
    total_bytes = utf8_length(content)
    lines = _count_lines(content)
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return _result(content, truncated=False, by=None, total_lines=len(lines), total_bytes=total_bytes,
                       output_lines=len(lines), last_partial=False, first_exceeds=False, max_lines=max_lines,
                       max_bytes=max_bytes)
    if utf8_length(lines[0]) > max_bytes:
        return _result("", truncated=True, by="bytes", total_lines=len(lines), total_bytes=total_bytes,
                       output_lines=0, last_partial=False, first_exceeds=True, max_lines=max_lines,
                       max_bytes=max_bytes)
    kept: list[str] = []
    used = 0
    by = "lines"
    for index, line in enumerate(lines[:max_lines]):
        size = utf8_length(line) + (1 if index > 0 else 0)
        if used + size > max_bytes:
            by = "bytes"
            break
        kept.append(line)
        used += size
    if len(kept) >= max_lines and used <= max_bytes:
        by = "lines"
    return _result("\n".join(kept), truncated=True, by=by, total_lines=len(lines), total_bytes=total_bytes,
                   output_lines=len(kept), last_partial=False, first_exceeds=False, max_lines=max_lines,
                   max_bytes=max_bytes)


def _tail_bytes(text: str, max_bytes: int) -> str:
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= max_bytes:
        return text
    start = len(raw) - max_bytes
    while start < len(raw) and (raw[start] & 0xC0) == 0x80:
        start += 1
    return raw[start:].decode("utf-8", "replace")


def truncate_tail(content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, Any]:
    """Keep whole lines from the end (a partial last line when it alone is too big): Pi's ``truncateTail``."""
    total_bytes = utf8_length(content)
    lines = _count_lines(content)
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return _result(content, truncated=False, by=None, total_lines=len(lines), total_bytes=total_bytes,
                       output_lines=len(lines), last_partial=False, first_exceeds=False, max_lines=max_lines,
                       max_bytes=max_bytes)
    kept: list[str] = []
    used = 0
    by = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        size = utf8_length(line) + (1 if kept else 0)
        if used + size > max_bytes:
            by = "bytes"
            if not kept:
                piece = _tail_bytes(line, max_bytes)
                kept.append(piece)
                used = utf8_length(piece)
                partial = True
            break
        kept.append(line)
        used += size
    if len(kept) >= max_lines and used <= max_bytes:
        by = "lines"
    kept.reverse()
    return _result("\n".join(kept), truncated=True, by=by, total_lines=len(lines), total_bytes=total_bytes,
                   output_lines=len(kept), last_partial=partial, first_exceeds=False, max_lines=max_lines,
                   max_bytes=max_bytes)


TOOL_NAMES = ("read", "bash", "edit", "write", "ls")
#: The tools Pi's coding agent turns on when none are chosen.
DEFAULT_TOOLS = ("read", "bash", "edit", "write")
#: The sampling constraint Pi's read, bash, edit and write tools declare (not ls).
JSON_SCHEMA_SAMPLING = {"type": "json_schema", "strict": "prefer"}
CONSTRAINED_TOOLS = frozenset({"read", "bash", "edit", "write"})


def build_tools(names: list[str], workspace: Workspace) -> list[Tool]:
    """The selected tools, in the order given (which is the order the provider sees them)."""
    from pi_tools.loop.tool_bash import bash_tool
    from pi_tools.loop.tool_files import edit_tool, ls_tool, read_tool, write_tool

    factories: dict[str, Callable[[Workspace], Tool]] = {
        "read": read_tool, "write": write_tool, "edit": edit_tool, "bash": bash_tool, "ls": ls_tool,
    }
    tools: list[Tool] = []
    for name in names:
        factory = factories.get(name)
        if factory is None:
            raise ValueError(f"unknown tool {name!r} (choose from {', '.join(TOOL_NAMES)})")
        tool = factory(workspace)
        if name in CONSTRAINED_TOOLS:
            tool.constrained_sampling = dict(JSON_SCHEMA_SAMPLING)
        tools.append(tool)
    return tools
