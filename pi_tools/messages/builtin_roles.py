"""Pi's four coding-agent roles, registered through the ``pi_tools.roles`` entry-point group like any plugin."""

from __future__ import annotations

from pi_tools.js.values import js_to_string, js_truthy
from pi_tools.messages.convert import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    bash_execution_to_text,
    summary_text,
    user_text_message,
)
from pi_tools.messages.roles import RoleSpec
from pi_tools.messages.types import AgentMessage, Message


def _bash_to_llm(message: AgentMessage) -> Message | None:
    if js_truthy(message.get("excludeFromContext")):
        return None
    return user_text_message(bash_execution_to_text(message), message)


def _custom_to_llm(message: AgentMessage) -> Message | None:
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    out: Message = {"role": "user"}
    if "content" in message:
        out["content"] = content
    if "timestamp" in message:
        out["timestamp"] = message["timestamp"]
    return out


def content_preview(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text":
                    parts.append(js_to_string(block.get("text")))
                elif block.get("type") == "image":
                    parts.append("[image]")
        return " ".join(parts)
    return ""


BASH_EXECUTION = RoleSpec(
    role="bashExecution",
    to_llm=_bash_to_llm,
    preview=lambda m: f"$ {js_to_string(m.get('command'))}",
    model_hidden=lambda m: "excludeFromContext" if js_truthy(m.get("excludeFromContext")) else None,
)

CUSTOM = RoleSpec(
    role="custom",
    to_llm=_custom_to_llm,
    preview=lambda m: f"[{js_to_string(m.get('customType'))}] {content_preview(m.get('content'))}",
    tui_hidden=lambda m: None if js_truthy(m.get("display")) else "display:false",
)

BRANCH_SUMMARY = RoleSpec(
    role="branchSummary",
    to_llm=lambda m: user_text_message(summary_text(BRANCH_SUMMARY_PREFIX, m, BRANCH_SUMMARY_SUFFIX), m),
    preview=lambda m: f"[branch summary] {js_to_string(m.get('summary'))}",
)

COMPACTION_SUMMARY = RoleSpec(
    role="compactionSummary",
    to_llm=lambda m: user_text_message(summary_text(COMPACTION_SUMMARY_PREFIX, m, COMPACTION_SUMMARY_SUFFIX), m),
    preview=lambda m: f"[compaction summary] {js_to_string(m.get('summary'))}",
)

BUILTIN_ROLES: tuple[RoleSpec, ...] = (BASH_EXECUTION, CUSTOM, BRANCH_SUMMARY, COMPACTION_SUMMARY)
