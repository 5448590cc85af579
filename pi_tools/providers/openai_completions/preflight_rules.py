"""Rules of OpenAI's Chat Completions API, which the OpenAI-compatible providers (Groq, DeepSeek, OpenRouter,
z.ai, Moonshot, ...) follow for message order; the id-length limit is OpenAI's own and is applied only to
OpenAI-operated endpoints. Messages quoted from recorded 400s in public issue threads (`source`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from pi_tools.providers.rulebook.rules import Hit, rule
from pi_tools.providers.rulebook.view import RequestView

API = ("openai-completions",)
OPENAI_HOSTED = frozenset({"openai", "azure-openai", "github-copilot"})
MAX_ID = 40
MAX_TOOLS = 128


def _calls(item: Any) -> list[tuple[int, Any]]:
    calls = item.get("tool_calls") if isinstance(item, dict) and item.get("role") == "assistant" else None
    return [(j, c.get("id") if isinstance(c, dict) else None) for j, c in enumerate(calls)] \
        if isinstance(calls, list) else []


def _id_key(value: Any) -> Any:
    """A tool-call id as the provider compares it: a string as itself, any other JSON value (a damaged session's
    list or object, which the API refuses anyway) by its JSON text, so that it can be looked up at all and `true`
    is not `1`."""
    if type(value) is str:
        return value
    try:
        return ("json", orjson.dumps(value, option=orjson.OPT_SORT_KEYS))
    except (TypeError, orjson.JSONEncodeError):
        return ("repr", repr(value))


@rule("completions-tool-calls-without-results", "error",
      "An assistant message with tool_calls not followed by a tool message for each id", API, "items",
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "
      "The following tool_call_ids did not have response messages: ID",
      "aliasrobotics/cai#111, minoism/freecc#2 (OpenAI); langgenius/dify#32222 (DeepSeek: '(insufficient tool "
      "messages following tool_calls message)')",
      "Store the missing results right after the call (`pi-tools repair --close-orphans`), or branch from before "
      "the call with --leaf.",
      """The tool messages answering an assistant message's tool_calls must come right after it, one per id,
      before any other message.""")
def calls_without_results(view: RequestView) -> Iterator[Hit]:
    items = view.items
    for i, item in enumerate(items):
        calls = _calls(item)
        if not calls:
            continue
        answered: set[Any] = set()
        k = i + 1
        while k < len(items) and isinstance(items[k], dict) and items[k].get("role") == "tool":
            answered.add(_id_key(items[k].get("tool_call_id")))
            k += 1
        missing = [(j, cid) for j, cid in calls if _id_key(cid) not in answered]
        if missing:
            yield Hit("completions-tool-calls-without-results", view.path(i, "tool_calls", missing[0][0]),
                      "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                      "'tool_call_id'. The following tool_call_ids did not have response messages: "
                      + ", ".join(str(cid) for _, cid in missing), needs=min(k, len(items) - 1))


@rule("completions-tool-message-without-call", "error",
      "A tool message that answers no tool_call of the assistant message before it", API, "items",
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      "OpenAI Chat Completions validation (openai/openai-python issue threads quote it)",
      "Drop the stray result or move it after its call (`pi-tools repair`; `pi-tools audit` names it as "
      "tool-result-unmatched).",
      """Each tool message must answer an id of the nearest preceding assistant message's tool_calls, with only
      tool messages in between.""")
def tool_without_call(view: RequestView) -> Iterator[Hit]:
    items = view.items
    issued: set[Any] = set()
    in_run = False
    for i, item in enumerate(items):
        role = item.get("role") if isinstance(item, dict) else None
        if role == "assistant":
            issued = {_id_key(cid) for _, cid in _calls(item)}
            in_run = bool(issued)
            continue
        if role == "tool":
            if not in_run or _id_key(item.get("tool_call_id")) not in issued:
                yield Hit("completions-tool-message-without-call", view.path(i),
                          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                          f"with 'tool_calls' (tool_call_id {item.get('tool_call_id')!r}).")
            continue
        in_run = False


@rule("completions-tool-call-id-length", "error", "A tool call id over 40 characters (OpenAI)", API, "items",
      "Invalid 'messages[N].tool_calls[M].id': string too long. Expected a string with maximum length 40, but got a "
      "string with length X instead.",
      "vercel/ai#8132, anomalyco/opencode#12653, microsoft/autogen#6377 (recorded 400s)",
      "Pi shortens other providers' ids itself; an id still too long was stored by this provider's own turns: "
      "rewrite the call and result ids in the entries.",
      """OpenAI caps tool call ids at 40 characters (assistant tool_calls and tool messages).""",
      applies=lambda model: model.get("provider") in OPENAI_HOSTED)
def call_id_length(view: RequestView) -> Iterator[Hit]:
    for i, item in enumerate(view.items):
        for j, cid in _calls(item):
            if isinstance(cid, str) and len(cid) > MAX_ID:
                yield Hit("completions-tool-call-id-length", view.path(i, "tool_calls", j, "id"),
                          f"Invalid 'messages[{i}].tool_calls[{j}].id': string too long. Expected a string with "
                          f"maximum length {MAX_ID}, but got a string with length {len(cid)} instead.")
        if isinstance(item, dict) and item.get("role") == "tool":
            cid = item.get("tool_call_id")
            if isinstance(cid, str) and len(cid) > MAX_ID:
                yield Hit("completions-tool-call-id-length", view.path(i, "tool_call_id"),
                          f"Invalid 'messages[{i}].tool_call_id': string too long. Expected a string with maximum "
                          f"length {MAX_ID}, but got a string with length {len(cid)} instead.")


@rule("openai-tool-count", "error", "More than 128 tools", ("openai-completions", "openai-responses",
                                                             "azure-openai-responses"), "request",
      "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length X "
      "instead.",
      "zed-industries/zed#32946, julep-ai/julep#330 (recorded 400s, code array_above_max_length)",
      "Send fewer tools (--tools), e.g. disable MCP servers you do not need for this session.",
      """OpenAI accepts at most 128 tool definitions per request.""",
      applies=lambda model: model.get("provider") in OPENAI_HOSTED or model.get("api") == "openai-responses")
def tool_count(view: RequestView) -> Iterator[Hit]:
    tools = view.tools
    if len(tools) > MAX_TOOLS:
        yield Hit("openai-tool-count", f"tools[{MAX_TOOLS}]",
                  "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array "
                  f"with length {len(tools)} instead.")
