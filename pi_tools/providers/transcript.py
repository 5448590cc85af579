"""Pi 1.x's transcript: the system prompt and tools as system messages inside the message list.

Since Pi 1.0 a request is built from a transcript: pi-ai folds `systemPrompt` and `tools` into a leading system
message (normalize_context), and each API then either keeps later system messages in place (models whose compat
says `supportsMidConvoSystemMessages`) or collapses every system message into one leading prompt
(collapse_system_messages: later text appended, sections patched by name, tools replayed). Which tools go in the
request's top-level list and which are declared in place depends on what the API can express
(resolve_transcript_tools). Pi 0.85 has none of this: its requests take `systemPrompt` and `tools` as given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pi_tools.js.access import array_receiver, block_field
from pi_tools.js.values import UNDEFINED

Message = dict[str, Any]
ToolSupport = Literal["none", "additions", "changes"]
"""How an API can express tool changes after the first request (pi-ai TranscriptToolSupport): only a top-level
list (`none`), additions in place (`additions`), or every declaration in place (`changes`)."""


def _is_system(message: Any) -> bool:
    return isinstance(message, Mapping) and message.get("role") == "system"


def _join(parts: Sequence[Any], separator: str) -> str:
    """Array.prototype.join: null and undefined become empty strings."""
    from pi_tools.js.values import UNDEFINED, js_to_string

    return separator.join("" if part is None or part is UNDEFINED else js_to_string(part) for part in parts)


def content_text(content: Any, separator: str = "\n") -> str:
    """The text blocks of a content, joined (a string content is itself); V8's TypeError where pi-ai's contentText
    meets what it cannot walk: a content that is no array (`content.filter`; UNDEFINED stands for a missing one),
    a null block (`block.type`)."""
    if isinstance(content, str):
        return content
    texts = []
    for block in array_receiver(content, "content", "filter"):
        if block_field(block, "type") == "text":
            texts.append(block.get("text", UNDEFINED))
    return _join(texts, separator)


def system_message_text(message: Mapping[str, Any]) -> str:
    """A system message as a whole prompt: its content, then its sections' texts, blank-line separated."""
    parts = [content_text(message.get("content", UNDEFINED))]
    for text in (message.get("sections") or {}).values():
        if text is not None:
            parts.append(text)
    return "\n\n".join(part for part in parts if len(part) > 0)


def render_system_message_update(message: Mapping[str, Any]) -> str:
    """A later system message as an API that takes system messages mid-conversation receives it: its text, then
    each section change framed by name."""
    parts: list[str] = []
    text = content_text(message.get("content", UNDEFINED))
    if len(text) > 0:
        parts.append(text)
    for name, value in (message.get("sections") or {}).items():
        if value is None:
            parts.append(f'Removed system prompt section "{name}".')
        else:
            parts.append(f'Updated system prompt section "{name}":\n\n{value}')
    return "\n\n".join(parts)


def initial_system_message(system_prompt: Any, tools: Any) -> Message | None:
    """The leading system message for a prompt and a tool list; None when both are empty."""
    has_prompt = system_prompt is not None and len(system_prompt) > 0
    has_tools = tools is not None and len(tools) > 0
    if not has_prompt and not has_tools:
        return None
    message: Message = {"role": "system", "content": system_prompt if system_prompt is not None else ""}
    if has_tools:
        message["toolsAdded"] = tools
    message["timestamp"] = 0
    return message


def normalize_context(context: Mapping[str, Any]) -> list[Message]:
    """The transcript of a Context (pi-ai normalizeContext): its messages after a leading system message made of
    its systemPrompt and tools, if either is set."""
    messages = list(context.get("messages") or ())
    initial = initial_system_message(context.get("systemPrompt"), context.get("tools"))
    return [initial, *messages] if initial is not None else messages


def leading_system_message(messages: Sequence[Any]) -> Message | None:
    """The transcript's first message when it is a system message."""
    return messages[0] if messages and _is_system(messages[0]) else None


def without_leading_system_message(messages: Sequence[Message]) -> list[Message]:
    """The transcript without its leading system message (APIs that carry the prompt outside the list)."""
    return list(messages[1:]) if leading_system_message(messages) is not None else list(messages)


def current_tools(messages: Sequence[Any]) -> list[Any]:
    """The tools after every system message's removals and additions, in order."""
    tools: dict[Any, Any] = {}
    for message in messages:
        if not _is_system(message):
            continue
        for tool in message.get("toolsRemoved") or ():
            tools.pop(tool.get("name"), None)
        for tool in message.get("toolsAdded") or ():
            tools[tool.get("name")] = tool  # as Map.set: a name already there keeps its place
    return list(tools.values())


def declared_tools(messages: Sequence[Any]) -> list[Any]:
    """Every tool definition the transcript declares, the latest per name, in first-declaration order."""
    definitions: dict[Any, Any] = {}
    for message in messages:
        if _is_system(message):
            for tool in message.get("toolsAdded") or ():
                definitions[tool.get("name")] = tool
    return list(definitions.values())


def current_system_message(messages: Sequence[Any]) -> Message | None:
    """Every system message replayed into one: contents joined by blank lines, sections patched by name (null
    removes), the current tools; None when there is no system message and no tool."""
    content: list[str] = []
    sections: dict[str, Any] = {}
    timestamp: Any = UNDEFINED
    for message in messages:
        if not _is_system(message):
            continue
        if timestamp is None or timestamp is UNDEFINED:  # ??=
            timestamp = message.get("timestamp", UNDEFINED)
        text = content_text(message.get("content", UNDEFINED))
        if len(text) > 0:
            content.append(text)
        for name, value in (message.get("sections") or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    tools = current_tools(messages)
    if timestamp is UNDEFINED and not tools:
        return None
    replayed: Message = {"role": "system", "content": "\n\n".join(content)}
    if sections:
        replayed["sections"] = dict(sections)
    if tools:
        replayed["toolsAdded"] = tools
    replayed["timestamp"] = 0 if timestamp is None or timestamp is UNDEFINED else timestamp
    return replayed


def current_system_prompt(messages: Sequence[Any]) -> str:
    """The system prompt after replaying every system message."""
    message = current_system_message(messages)
    return system_message_text(message) if message is not None else ""


def collapse_system_messages(messages: Sequence[Message]) -> list[Message]:
    """The transcript for APIs without mid-conversation system messages: the replayed system message first,
    every other system message dropped."""
    head = current_system_message(messages)
    rest = [message for message in messages if not _is_system(message)]
    return [head, *rest] if head is not None else rest


def resolve_transcript(messages: Sequence[Message], keeps_system_messages: Any) -> list[Message]:
    """Later system messages kept in place where the model takes them, else collapsed into the first."""
    from pi_tools.js.values import js_truthy

    return list(messages) if js_truthy(keeps_system_messages) else collapse_system_messages(messages)


def _last_non_additive_change(system_messages: Sequence[Message]) -> int:
    """Index of the last system message that removes a tool or declares a name declared before, or -1."""
    declared: set[Any] = set()
    last = -1
    for index, message in enumerate(system_messages):
        if len(message.get("toolsRemoved") or ()) > 0:
            last = index
        for tool in message.get("toolsAdded") or ():
            if tool.get("name") in declared:
                last = index
            declared.add(tool.get("name"))
    return last


def resolve_transcript_tools(messages: Sequence[Message], support: ToolSupport) -> tuple[list[Any], int]:
    """(the tools of the request's top-level list, how many leading system messages they already hold): every
    later system message declares its own tool changes in place."""
    system_messages = [message for message in messages if _is_system(message)]
    if support == "none":
        return current_tools(system_messages), len(system_messages)
    if support == "changes":
        return [], 0
    folded = max(1 if leading_system_message(messages) is not None else 0,
                 _last_non_additive_change(system_messages) + 1)
    return current_tools(system_messages[:folded]), folded



def tool_declaration(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A tool as the transcript declares it (toToolDeclaration): name, description, a JSON copy of its
    parameters and, where set, its constrained sampling."""
    import orjson

    declared = {"name": tool.get("name"), "description": tool.get("description"),
                "parameters": orjson.loads(orjson.dumps(tool.get("parameters")))}
    if "constrainedSampling" in tool:
        declared["constrainedSampling"] = tool["constrainedSampling"]
    return declared


def tool_state_changes(previous: Sequence[Mapping[str, Any]],
                       current: Sequence[Mapping[str, Any]]) -> tuple[list[Any], list[Any]]:
    """(toolsAdded, toolsRemoved) from one complete tool set to another; a changed definition is removed and added
    again (getToolStateChanges)."""
    from pi_tools.js.json_stringify import js_stringify

    def same(left: Mapping[str, Any], right: Mapping[str, Any]) -> bool:
        return js_stringify(tool_declaration(left)) == js_stringify(tool_declaration(right))

    before = {tool.get("name"): tool for tool in previous}
    after = {tool.get("name"): tool for tool in current}
    added = [tool_declaration(tool) for tool in current
             if tool.get("name") not in before or not same(before[tool.get("name")], tool)]
    removed = [{"name": tool.get("name")} for tool in previous
               if tool.get("name") not in after or not same(tool, after[tool.get("name")])]
    return added, removed


def has_system_messages(messages: Sequence[Any]) -> bool:
    """Whether the transcript records its own prompt and tools (a session Pi 1.x wrote)."""
    return any(_is_system(message) for message in messages)


def resumed_prompt_update(messages: Sequence[Any], system_prompt: str | None, tools: Sequence[Any] | None,
                          now_ms: int) -> Message | None:
    """The system message Pi 1.6 adds before its next request when it resumes a recorded transcript with another
    prompt or tool set (None when both match what the transcript records).

    A prompt given as text is Pi's custom prompt, the `preamble` section (system-prompt.ts): it is patched when the
    transcript's current preamble differs (diffSystemPromptSections; pi-tools knows no other section the
    resuming agent would build). Tools are the executable set: the difference from the transcript's current tools
    becomes `toolsAdded`/`toolsRemoved` (the agent loop's declareToolChanges)."""
    sections = None
    if system_prompt is not None:
        current = (current_system_message(messages) or {}).get("sections") or {}
        if current.get("preamble") != system_prompt:
            sections = {"preamble": system_prompt}
    added: list[Any] = []
    removed: list[Any] = []
    if tools is not None:
        added, removed = tool_state_changes(current_tools(messages), list(tools))
    if sections is None and not added and not removed:
        return None
    update: Message = {"role": "system", "content": ""}
    if sections is not None:
        update["sections"] = sections
    update["timestamp"] = now_ms
    if added:
        update["toolsAdded"] = added
    if removed:
        update["toolsRemoved"] = removed
    return update
