"""The fix each finding names: the exact `pi-tools repair ...` command that clears it, or why there is none.

A rule's `fix` text explains the remedy in general; a finding names it for its own file and model, so that the
user can paste it. Only commands that clear the finding are named (those `repair --for-model` verifies by
checking again, and the stored-order repairs); for the rest the reason no rewrite of the stored history helps.
"""

from __future__ import annotations

import shlex

from pi_tools.audit.fixes import repaired_name

NEW_TURN_RULES = frozenset({"google-thought-signature", "anthropic-thinking-tool-loop", "bedrock-thinking-tool-loop"})
"""Cleared by `repair --for-model`: a new turn appended at the leaf (see pi_tools.rewrite.for_model)."""

PAIRING_RULES = frozenset({
    "anthropic-tool-use-without-result", "completions-tool-calls-without-results", "responses-call-without-output",
    "google-function-response-count", "mistral-tool-results", "bedrock-tool-results"})
"""Calls without results or results stored out of place: `repair --relink --close-orphans` stores them as Pi
sends them."""

_NO_REPAIR: dict[str, str] = {
    "anthropic-tool-result-without-use": "no repair: a result whose call is gone cannot be paired again; remove the "
                                         "result entry by hand, or branch from before it (--leaf)",
    "completions-tool-message-without-call": "no repair: a result whose call is gone cannot be paired again; remove "
                                             "the result entry by hand, or branch from before it (--leaf)",
    "responses-output-without-call": "no repair: an output whose call is gone cannot be paired again; remove the "
                                     "result entry by hand, or branch from before it (--leaf)",
    "context-window": "no repair: the history itself is too long; compact it in Pi (/compact), or make it smaller "
                      "with `pi-tools slim`",
    "request-size": "no repair: the history itself is too large; `pi-tools slim` removes large images and tool "
                    "outputs",
    "anthropic-thinking-budget": "no repair: a request option, not something stored in the session; use a lower "
                                 "thinking level (--reasoning) or a model with a larger output limit",
}


def fix_for(rule: str, source: str, model: str | None, general: str) -> str:
    """The fix of one finding of `rule` in `source` for `model` (provider/id); `general`: the rule's own fix.
    A command writes a new file beside the session (audit.fixes.repaired_name: the same name audit suggests)."""
    command = f"pi-tools repair {shlex.quote(source)} -o {shlex.quote(repaired_name(source))}"
    if rule in NEW_TURN_RULES and model:
        return f"{command} --for-model {shlex.quote(model)}"
    if rule in PAIRING_RULES:
        return f"{command} --relink --close-orphans"
    if rule in _NO_REPAIR:
        return _NO_REPAIR[rule]
    return f"no repair: {general}"
