"""convertToLlm: AgentMessage[] -> Message[], the one place custom roles become (or stop being) model input.

Mirrors pi-coding-agent's `convertToLlm`: order is preserved, nothing is merged, LLM roles pass through as the
same objects, custom roles go through the role registry, and anything else is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pi_tools.js.values import UNDEFINED, js_to_string, js_truthy
from pi_tools.messages.roles import RoleRegistry, default_registry
from pi_tools.messages.types import LLM_ROLES, AgentMessage, Message, RawMessage

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"

PASSED_THROUGH: frozenset[str] = LLM_ROLES
"""The roles convertToLlm returns as they are, in Pi 0.85: pi-ai's Message roles."""
PASSED_THROUGH_WITH_SYSTEM: frozenset[str] = LLM_ROLES | {"system"}
"""The same in Pi 1.6, whose pi-ai Message union has SystemMessage (pi_tools/pi/v1_6.py selects it)."""


def bash_execution_to_text(message: AgentMessage) -> str:
    """The user-text form Pi gives a `!command` execution (bashExecutionToText)."""
    text = f"Ran `{js_to_string(message.get('command', UNDEFINED))}`\n"
    output = message.get("output")
    if js_truthy(output):
        text += f"```\n{js_to_string(output)}\n```"
    else:
        text += "(no output)"
    exit_code = message.get("exitCode")
    if js_truthy(message.get("cancelled")):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and not _is_js_zero(exit_code):
        text += f"\n\nCommand exited with code {js_to_string(exit_code)}"
    if js_truthy(message.get("truncated")) and js_truthy(message.get("fullOutputPath")):
        text += f"\n\n[Output truncated. Full output: {js_to_string(message['fullOutputPath'])}]"
    return text


def _is_js_zero(value: object) -> bool:
    """`value === 0` in JavaScript: numbers only, booleans excluded."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0


def summary_text(prefix: str, message: AgentMessage, suffix: str) -> str:
    """Prefix + summary + suffix with JavaScript string concatenation semantics."""
    return prefix + js_to_string(message.get("summary", UNDEFINED)) + suffix


def user_text_message(text: str, message: AgentMessage) -> Message:
    """A single-text-block user message carrying the source message's timestamp (absent stays absent)."""
    out: Message = {"role": "user", "content": [{"type": "text", "text": text}]}
    if "timestamp" in message:
        out["timestamp"] = message["timestamp"]
    return out


def convert_to_llm(messages: Iterable[AgentMessage], registry: RoleRegistry | None = None,
                   passed_through: frozenset[str] = PASSED_THROUGH) -> list[Message]:
    """Convert the runtime transcript to provider-facing messages exactly as Pi's convertToLlm does
    (`passed_through`: the roles a Pi version returns as they are; default Pi 0.85's)."""
    return list(iter_llm_messages(messages, registry, passed_through))  # type: ignore[arg-type]


def iter_llm_messages(messages: Iterable[AgentMessage | RawMessage], registry: RoleRegistry | None = None,
                      passed_through: frozenset[str] = PASSED_THROUGH) -> Iterator[Message | RawMessage]:
    """convert_to_llm one message at a time, for transcripts streamed rather than held.

    RawMessage text of an LLM role passes through unparsed (convertToLlm passes those objects through as they
    are); any other raw message is parsed and converted.
    """
    roles = registry or default_registry()
    for message in messages:
        if type(message) is RawMessage:
            if message.role in passed_through:
                yield message
                continue
            message = message.value()
        if type(message) is not dict:
            continue
        role = message.get("role")
        if type(role) is str and role in passed_through:
            yield message
            continue
        spec = roles.get(role)
        if spec is None:
            continue
        converted = spec.to_llm(message)
        if converted is not None:
            yield converted
