"""Pi's turn loop (pi-agent-core ``runAgentLoop``): stream a response, run its tool calls, repeat.

Everything observable goes through one event sink, in Pi's order, because persistence hangs off it: the
session writer appends a message exactly when its ``message_end`` is emitted, so storage order is event order
(prompt, assistant, tool results in the assistant's source order, ...). Providers are plain functions that
push pi-ai stream events and return the settled message; the loop never looks inside a provider.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from pi_tools.loop import elapsed_ms, monotonic_ms, now_ms
from pi_tools.loop.rules import AGENT_RULES, AgentRules
from pi_tools.loop.signals import AbortSignal
from pi_tools.loop.tools import Tool, ToolError
from pi_tools.loop.validation import ArgumentsError, validate_arguments
from pi_tools.messages import convert_to_llm
from pi_tools.messages.convert import PASSED_THROUGH

Event = dict[str, Any]
EventSink = Callable[[Event], None]
#: ``(model, llm_context, options, abort, push)`` → settled AssistantMessage; ``push`` receives pi-ai events.
StreamFunction = Callable[[dict[str, Any], dict[str, Any], dict[str, Any], AbortSignal, EventSink], dict[str, Any]]

ABORTED_TOOL = "Operation aborted"
TRUNCATED_CALL = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its arguments may be '
    "truncated. Re-issue the tool call with complete arguments."
)


class StreamSetupError(Exception):
    """The provider could not even start (no key, no payload): Pi's Agent turns this into an error message."""


@dataclass
class LoopConfig:
    """What one run needs: the model and how to reach it, the tools, and Pi's per-call options."""

    model: dict[str, Any]
    stream: StreamFunction
    tools: list[Tool] = field(default_factory=list)
    system_prompt: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    max_turns: int | None = None
    transform_context: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    rules: AgentRules = AGENT_RULES
    """What the Pi version's loop does (loop/rules.py)."""
    passed_through: frozenset[str] = PASSED_THROUGH
    """The roles the version's convertToLlm passes as they are (messages/convert.py)."""

    def tool_declarations(self) -> list[dict[str, Any]]:
        """The tools as the transcript declares them (pi-ai toToolDeclaration)."""
        from pi_tools.providers.transcript import tool_declaration

        return [tool_declaration(tool.definition(constrained=self.rules.constrained_tools)) for tool in self.tools]


def user_message(text: str) -> dict[str, Any]:
    """The message a prompt becomes (Pi's coding agent sends text as one text block)."""
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": now_ms()}


def _error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "details": {}}


def _tool_result_message(call: dict[str, Any], result: dict[str, Any], is_error: bool,
                         duration_ms: int | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "toolResult",
        "toolCallId": call.get("id"),
        "toolName": call.get("name"),
        "content": result.get("content") if result.get("content") is not None else [],
    }
    if result.get("details") is not None:
        message["details"] = result["details"]
    message["isError"] = is_error
    if duration_ms is not None:
        message["durationMs"] = duration_ms
    message["timestamp"] = now_ms()
    return message


def _with_tool_changes(message: dict[str, Any], added: list[Any], removed: list[Any]) -> dict[str, Any]:
    """A system message with its tool fields replaced by a change (empty lists leave the field out)."""
    copied = {key: value for key, value in message.items() if key not in ("toolsAdded", "toolsRemoved")}
    if added:
        copied["toolsAdded"] = added
    if removed:
        copied["toolsRemoved"] = removed
    return copied


def declare_tool_changes(messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                         pending: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """pi-agent-core's declareToolChanges: the pending messages with the difference between the tools the
    transcript declares and the executable `tools` (declarations) stated on a system message. The last pending
    system message gets the whole difference in place of its own tool fields; without one, a new system message
    goes before the first pending message that is not one. Unchanged tools leave `pending` as it is."""
    from pi_tools.providers.transcript import current_tools, tool_state_changes

    system_index = next((index for index in range(len(pending) - 1, -1, -1)
                         if pending[index].get("role") == "system"), -1)
    own = pending[system_index] if system_index >= 0 else None
    baseline = ([_with_tool_changes(message, [], []) if index == system_index else message
                 for index, message in enumerate(pending)] if own is not None else pending)
    added, removed = tool_state_changes(current_tools([*messages, *baseline]), tools)
    unchanged = not added and not removed
    if own is not None:
        if unchanged and not own.get("toolsAdded") and not own.get("toolsRemoved"):
            return pending
        return [_with_tool_changes(own, added, removed) if index == system_index else message
                for index, message in enumerate(baseline)]
    if unchanged:
        return pending
    update = _with_tool_changes({"role": "system", "content": "", "timestamp": now_ms()}, added, removed)
    at = next((index for index, message in enumerate(pending) if message.get("role") != "system"), len(pending))
    return [*pending[:at], update, *pending[at:]]


class AgentLoop:
    """One run over a working context; ``messages`` is the transcript the next model call sees."""

    def __init__(self, config: LoopConfig, messages: list[dict[str, Any]], emit: EventSink,
                 abort: AbortSignal) -> None:
        self.config = config
        self.messages = messages
        self._emit_sink = emit
        self._emit_lock = threading.Lock()
        self.abort = abort
        self.new_messages: list[dict[str, Any]] = []
        self.turns = 0
        self._prepared: list[dict[str, Any]] = []

    def _emit(self, event: Event) -> None:
        with self._emit_lock:
            self._emit_sink(event)

    # -- entry points ---------------------------------------------------------------------------------------

    def _declared(self, pending: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The pending messages with the tool changes declared, where the transcript records them."""
        if not self.config.rules.records_prompt:
            return pending
        return declare_tool_changes(self.messages, self.config.tool_declarations(), pending)

    def prompt(self, prompts: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``runAgentLoop``: the prompts are announced and appended, then turns run until the model stops."""
        prompts = self._declared(prompts)
        self._emit({"type": "agent_start"})
        self._emit({"type": "turn_start"})
        for message in prompts:
            self._emit({"type": "message_start", "message": message})
            self._emit({"type": "message_end", "message": message})
            self.messages.append(message)
            self.new_messages.append(message)
        return self._guarded_run()

    def resume(self, prepared: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """``runAgentLoopContinue``: answer the transcript as it stands (last message must not be assistant);
        `prepared` messages (a prompt update) go before the first request, as a next turn's prepared ones do."""
        if not self.messages:
            raise ValueError("Cannot continue: no messages in context")
        if self.messages[-1].get("role") == "assistant":
            raise ValueError("Cannot continue from message role: assistant")
        self._prepared = list(prepared or [])
        self._emit({"type": "agent_start"})
        self._emit({"type": "turn_start"})
        return self._guarded_run()

    def _guarded_run(self) -> list[dict[str, Any]]:
        try:
            self._run()
        except StreamSetupError as exc:
            self._fail_run(str(exc))
        return self.new_messages

    def _fail_run(self, error: str) -> None:
        """Pi's Agent ``handleRunFailure``: a synthetic error assistant closes the turn and the run."""
        model = self.config.model
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": ""}],
            "api": model.get("api"),
            "provider": model.get("provider"),
            "model": model.get("id"),
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "aborted" if self.abort.aborted else "error",
            "errorMessage": error,
            "timestamp": now_ms(),
        }
        self._emit({"type": "message_start", "message": message})
        self._emit({"type": "message_end", "message": message})
        self.messages.append(message)
        self.new_messages.append(message)
        self._emit({"type": "turn_end", "message": message, "toolResults": []})
        self._emit({"type": "agent_end", "messages": [message]})

    # -- the loop -------------------------------------------------------------------------------------------

    def _run(self) -> None:
        first_turn = True
        while True:
            if not first_turn:
                self._emit({"type": "turn_start"})
            first_turn = False
            if self.config.rules.records_prompt:
                pending, self._prepared = self._prepared, []
                for message in self._declared(pending):
                    self._emit({"type": "message_start", "message": message})
                    self._emit({"type": "message_end", "message": message})
                    self.messages.append(message)
                    self.new_messages.append(message)
            assistant = self._stream_response()
            self.new_messages.append(assistant)
            self.turns += 1
            if assistant.get("stopReason") in ("error", "aborted"):
                self._emit({"type": "turn_end", "message": assistant, "toolResults": []})
                self._emit({"type": "agent_end", "messages": self.new_messages})
                return
            calls = [block for block in assistant.get("content") or []
                     if isinstance(block, dict) and block.get("type") == "toolCall"]
            results: list[dict[str, Any]] = []
            if calls:
                if assistant.get("stopReason") == "length":
                    results = self._fail_truncated(calls)
                else:
                    results = self._execute(assistant, calls)
                for result in results:
                    self.messages.append(result)
                    self.new_messages.append(result)
            self._emit({"type": "turn_end", "message": assistant, "toolResults": results})
            limit = self.config.max_turns
            if not calls or (limit is not None and self.turns >= limit):
                self._emit({"type": "agent_end", "messages": self.new_messages})
                return

    def _stream_response(self) -> dict[str, Any]:
        """``streamAssistantResponse``: transform → convertToLlm → provider, events relayed as message events."""
        messages = list(self.messages)
        if self.config.transform_context is not None:
            messages = self.config.transform_context(messages)
        llm_messages = convert_to_llm(messages, passed_through=self.config.passed_through)
        rules = self.config.rules
        llm_context: dict[str, Any] = {"messages": llm_messages} if rules.records_prompt else {
            "systemPrompt": self.config.system_prompt,
            "messages": llm_messages,
            "tools": [tool.definition() for tool in self.config.tools] or None,
        }
        started = False
        final: dict[str, Any] | None = None
        started_at, started_clock = now_ms(), monotonic_ms()

        def timed(message: Any) -> None:
            # pi-ai's AssistantMessageEventStream times the response it settles (not one that began before it).
            if (rules.times_results and isinstance(message, dict) and "durationMs" not in message
                    and isinstance(message.get("timestamp"), int | float) and message["timestamp"] >= started_at):
                message["durationMs"] = elapsed_ms(started_clock)

        def push(event: Event) -> None:
            nonlocal started, final
            kind = event.get("type")
            if kind == "start":
                started = True
                self._emit({"type": "message_start", "message": dict(event["partial"])})
            elif kind in ("done", "error"):
                final = event.get("message") if kind == "done" else event.get("error")
                timed(final)
            elif started:
                self._emit({"type": "message_update", "message": dict(event.get("partial") or {}),
                            "assistantMessageEvent": event})

        options = dict(self.config.options)
        settled = self.config.stream(self.config.model, llm_context, options, self.abort, push)
        message = final if final is not None else settled
        timed(message)
        if rules.records_thinking_level:
            message["thinkingLevel"] = options.get("reasoning") or "off"
        if not started:
            self._emit({"type": "message_start", "message": message})
        self._emit({"type": "message_end", "message": message})
        self.messages.append(message)
        return message

    # -- tools ----------------------------------------------------------------------------------------------

    def _fail_truncated(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        results = []
        for call in calls:
            self._emit({"type": "tool_execution_start", "toolCallId": call.get("id"), "toolName": call.get("name"),
                        "args": call.get("arguments")})
            result = _error_result(TRUNCATED_CALL.format(name=call.get("name")))
            self._emit({"type": "tool_execution_end", "toolCallId": call.get("id"), "toolName": call.get("name"),
                        "result": result, "isError": True})
            message = _tool_result_message(call, result, True)
            self._emit({"type": "message_start", "message": message})
            self._emit({"type": "message_end", "message": message})
            results.append(message)
        return results

    def _prepare(self, call: dict[str, Any]) -> tuple[Tool, Any] | dict[str, Any]:
        """The tool and its validated arguments, or an immediate error result."""
        if self.config.rules.answers_every_call and self.abort.aborted:
            return _error_result(ABORTED_TOOL)
        tool = next((candidate for candidate in self.config.tools if candidate.name == call.get("name")), None)
        if tool is None:
            return _error_result(f"Tool {call.get('name')} not found")
        try:
            arguments = copy.deepcopy(call.get("arguments"))
            if tool.prepare_arguments is not None:
                arguments = tool.prepare_arguments(arguments)
            arguments = validate_arguments(tool.name, tool.parameters, arguments)
        except ArgumentsError as exc:
            return _error_result(str(exc))
        except Exception as exc:  # noqa: BLE001 - Pi reports any preparation failure as the result text
            return _error_result(str(exc))
        if self.abort.aborted:
            return _error_result(ABORTED_TOOL)
        return tool, arguments

    def _run_tool(self, call: dict[str, Any], tool: Tool, arguments: Any) -> tuple[dict[str, Any], bool, int | None]:
        """(result, is_error, how long it ran in ms where the version times results)."""
        if self.config.rules.answers_every_call and self.abort.aborted:
            return _error_result(ABORTED_TOOL), True, None  # never started: untimed
        started = monotonic_ms()
        result, is_error = self._run_tool_untimed(call, tool, arguments)
        return result, is_error, elapsed_ms(started) if self.config.rules.times_results else None

    def _run_tool_untimed(self, call: dict[str, Any], tool: Tool, arguments: Any) -> tuple[dict[str, Any], bool]:
        settled = threading.Event()

        def on_update(partial: dict[str, Any]) -> None:
            if not settled.is_set():
                self._emit({"type": "tool_execution_update", "toolCallId": call.get("id"),
                            "toolName": call.get("name"), "args": call.get("arguments"), "partialResult": partial})

        try:
            if self.abort.aborted:
                raise ToolError(ABORTED_TOOL)
            result = tool.execute(str(call.get("id")), arguments, self.abort, on_update)
            return result, False
        except ToolError as exc:
            return _error_result(str(exc)), True
        except Exception as exc:  # noqa: BLE001 - a crashing tool is an error result, never a traceback
            return _error_result(f"{type(exc).__name__}: {exc}"), True
        finally:
            settled.set()

    def _end_event(self, call: dict[str, Any], result: dict[str, Any], is_error: bool,
                   duration_ms: int | None = None) -> None:
        event = {"type": "tool_execution_end", "toolCallId": call.get("id"), "toolName": call.get("name"),
                 "result": result, "isError": is_error}
        if duration_ms is not None:
            event["durationMs"] = duration_ms
        self._emit(event)

    def _execute(self, assistant: dict[str, Any], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Pi's parallel mode: prepare in order, run concurrently, end events as they finish, results in order."""
        sequential = any(tool.execution_mode == "sequential" for tool in self.config.tools
                         if any(call.get("name") == tool.name for call in calls))
        if sequential:
            return self._execute_sequential(calls)
        outcomes: list[tuple[dict[str, Any], bool, int | None] | None] = [None] * len(calls)
        runnable: list[tuple[int, dict[str, Any], Tool, Any]] = []
        for index, call in enumerate(calls):
            if self.abort.aborted and not self.config.rules.answers_every_call:
                break
            self._emit({"type": "tool_execution_start", "toolCallId": call.get("id"), "toolName": call.get("name"),
                        "args": call.get("arguments")})
            prepared = self._prepare(call)
            if isinstance(prepared, dict):
                outcomes[index] = (prepared, True, None)
                self._end_event(call, prepared, True)
            else:
                runnable.append((index, call, *prepared))
        if runnable:
            with ThreadPoolExecutor(max_workers=min(8, len(runnable))) as pool:
                futures: dict[Future[tuple[dict[str, Any], bool, int | None]], tuple[int, dict[str, Any]]] = {
                    pool.submit(self._run_tool, call, tool, arguments): (index, call)
                    for index, call, tool, arguments in runnable
                }
                for future in as_completed(futures):
                    index, call = futures[future]
                    result, is_error, duration = future.result()
                    outcomes[index] = (result, is_error, duration)
                    self._end_event(call, result, is_error, duration)
        messages = []
        for call, outcome in zip(calls, outcomes, strict=True):
            if outcome is None:
                continue
            message = _tool_result_message(call, *outcome)
            self._emit({"type": "message_start", "message": message})
            self._emit({"type": "message_end", "message": message})
            messages.append(message)
        return messages

    def _execute_sequential(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        messages = []
        for call in calls:
            self._emit({"type": "tool_execution_start", "toolCallId": call.get("id"), "toolName": call.get("name"),
                        "args": call.get("arguments")})
            prepared = self._prepare(call)
            duration: int | None = None
            if isinstance(prepared, dict):
                result, is_error = prepared, True
            else:
                result, is_error, duration = self._run_tool(call, *prepared)
            self._end_event(call, result, is_error, duration)
            message = _tool_result_message(call, result, is_error, duration)
            self._emit({"type": "message_start", "message": message})
            self._emit({"type": "message_end", "message": message})
            messages.append(message)
            if self.abort.aborted and not self.config.rules.answers_every_call:
                break
        return messages
