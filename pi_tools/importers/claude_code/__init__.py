"""Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`) as Pi sessions.

`detect` recognises a transcript from its first lines; `convert` reads one (and the sub-agent transcripts Claude
Code keeps beside it, `<session>/subagents/agent-*.jsonl`) into Pi sessions: the main one first, then one per
sidechain, linked to it. What maps to what: docs/import.md.
"""

from __future__ import annotations

import glob
import os
from typing import TYPE_CHECKING

import orjson

from pi_tools.importers.builder import SessionBuilder
from pi_tools.importers.claude_code.convert import ClaudeCodeConverter
from pi_tools.importers.records import ImportFailed, Record, parse_records, read_bytes
from pi_tools.importers.report import ImportReport

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

KIND = "claude-code"
DEFAULT_FOLDER = os.path.join("~", ".claude", "projects")
_RECORD_TYPES = frozenset({"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation",
                           "progress", "attachment", "custom-title", "ai-title", "last-prompt"})


def default_folder() -> str:
    """Where Claude Code keeps its transcripts: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`."""
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    return os.path.join(config, "projects") if config else os.path.expanduser(DEFAULT_FOLDER)


def detect(first_lines: list[bytes]) -> bool:
    """True when the lines are Claude Code records: `type` among its record types and Claude Code's envelope
    (`sessionId`, `uuid`/`parentUuid`, `leafUuid` or `messageId`), and no Pi session header or Codex item."""
    for raw in first_lines:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(value, dict):
            continue
        if value.get("type") not in _RECORD_TYPES:
            return False
        if any(key in value for key in ("parentUuid", "leafUuid", "messageId", "sessionId")):
            return True
    return False


def subagent_files(path: str) -> list[str]:
    """The sub-agent transcripts Claude Code keeps beside a session (`<session>/subagents/**/agent-*.jsonl`)."""
    stem, _ = os.path.splitext(path)
    return sorted(glob.glob(os.path.join(glob.escape(stem), "subagents", "**", "agent-*.jsonl"), recursive=True))


def is_subagent_file(path: str) -> bool:
    """An `agent-*.jsonl` inside a `subagents` folder: imported with its session, not on its own."""
    parts = os.path.normpath(path).split(os.sep)
    return os.path.basename(path).startswith("agent-") and "subagents" in parts


def convert(path: str, *, pi: PiVersion, report: ImportReport) -> list[SessionBuilder]:
    """The Pi sessions of the transcript at `path`: the main session first, then its sidechains (inline ones
    and those of the sub-agent files beside it). ImportFailed when nothing in it can be imported."""
    records = parse_records(read_bytes(path), report)
    source_session = _session_id(records) or os.path.splitext(os.path.basename(path))[0]
    builders = ClaudeCodeConverter(pi=pi, report=report, source_session=source_session).run(records)
    if not builders:
        raise ImportFailed("no user or assistant message in the file")
    main = builders[0] if builders[0].parent is None else None
    for agent_path in subagent_files(path) if main is not None else []:
        try:
            agent_records = parse_records(read_bytes(agent_path), report)
        except ImportFailed as exc:
            report.note(None, f"{agent_path}: {exc}; not imported")
            continue
        name = os.path.splitext(os.path.basename(agent_path))[0]
        converter = ClaudeCodeConverter(pi=pi, report=report, source_session=f"{source_session}/{name}",
                                        sub_agent_file=True)
        for builder in converter.run(agent_records):
            builder.parent = main
            builders.append(builder)
            report.mapped["sidechain session"] += 1
    return builders


def _session_id(records: list[Record]) -> str | None:
    for record in records:
        session = record.value.get("sessionId")
        if isinstance(session, str) and session:
            return session
    return None
