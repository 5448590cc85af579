"""What the agent loop, its faux provider and its session writer do differently from one Pi version to the next.

A Pi version (pi_tools.pi.PiVersion) names its rules here by `agent` (this module's attribute): the loop never asks
which Pi it runs, it reads these fields, and each behaviour lives beside the code it changes (agent.py,
faux.py, persist.py, tools.py, runner.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentRules:
    """The loop's behaviours that changed between Pi versions."""

    records_prompt: bool
    """The transcript carries the prompt and the tools as system messages (pi-ai's transcript): the run writes a
    system message with the prompt's `sections` before its first prompt, the loop declares tool changes on it
    (pi-agent-core declareToolChanges), and a request's context is the transcript alone (normalizeContext, no
    `systemPrompt` or `tools` beside it). Otherwise both go beside the messages on every call."""
    records_thinking_level: bool
    """An assistant message records the thinking level the loop requested (`thinkingLevel`, `off` when none)."""
    times_results: bool
    """Settled assistant messages and executed tool results (and their `tool_execution_end`) carry `durationMs`."""
    answers_every_call: bool
    """After an abort every remaining tool call still gets an `Operation aborted` result (else the batch stops at
    the abort and the calls after it get none)."""
    creates_file_at_prompt: bool
    """A new session's file is created with its first user or assistant message (else with its first assistant
    message)."""
    faux_per_message_estimate: bool
    """The faux provider estimates prompt tokens message by message over the transcript, every prompt token read
    from or written to its simulated cache (else over one serialisation of prompt, messages and tools)."""
    constrained_tools: bool
    """The coding tools that declare constrained sampling (read, bash, edit, write) say so in their declaration."""


AGENT_RULES = AgentRules(records_prompt=False, records_thinking_level=False, times_results=False,
                         answers_every_call=False, creates_file_at_prompt=False, faux_per_message_estimate=False,
                         constrained_tools=False)
"""pi-agent-core, pi-ai's faux provider and the coding agent as pi-tools' `run` was first written against."""

AGENT_RULES_16 = AgentRules(records_prompt=True, records_thinking_level=True, times_results=True,
                            answers_every_call=True, creates_file_at_prompt=True, faux_per_message_estimate=True,
                            constrained_tools=True)
"""The 1.x agent: prompt and tools in the transcript, results timed and tagged with their level."""


def agent_rules(name: str) -> AgentRules:
    """The rules a Pi version names (its `agent` field)."""
    rules = globals().get(name)
    if not isinstance(rules, AgentRules):
        raise ValueError(f"pi_tools.loop.rules has no agent rules called {name!r}")
    return rules
