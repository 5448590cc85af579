"""`repair --for-model PROVIDER/ID`: rewrite what preflight says that model would refuse, where a rewrite can.

Preflight (pi_tools.preflight, its library functions `preflight_tree` and `PreflightRequest`) builds the
request the chosen Pi version would send next to that model and lists what the provider refuses. Two of its rules are about
the *current turn* (everything after the last user message that is not only tool results), which Pi fills with
another model's tool calls after a model switch in the middle of a tool loop:

- `google-thought-signature`: Gemini 3 wants the thought signature of the first call of every step of the
  current turn, and Pi sends signatures only to the model that made them;
- `anthropic-thinking-tool-loop`: with thinking on, Claude wants the current turn's first assistant message to
  start with thinking, and Pi drops another model's thinking (or sends it as text).

Both are cleared by starting a new turn: a custom message (an extension message, which Pi sends as a user
message) appended at the leaf, saying that the conversation goes on. Every other finding is listed as not fixed,
with the reason and what to do instead. The fix is only claimed when preflight, run again on the rewritten
lines, no longer reports the rule.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pi_tools.pi import PiVersion, resolve
from pi_tools.rewrite.conversation import v3_tree
from pi_tools.rewrite.repair import RepairError, RepairResult, load_lines
from pi_tools.rewrite.writer import Change, entry_line, fresh_id, new_entry

NEW_TURN_RULES = frozenset({"google-thought-signature", "anthropic-thinking-tool-loop"})
CUSTOM_TYPE = "pi-tools-repair"
# Why the other rules are left as they are: what a rewrite of the stored history cannot or should not do.
_NOT_FIXED: dict[str, str] = {
    "context-window": "the history itself is too long; compact it in Pi, or make it smaller with `pi-tools slim`",
    "request-size": "the history itself is too large; `pi-tools slim` removes large images and tool outputs",
    "anthropic-image-size": "`pi-tools slim --max-image-kb` replaces large images with a placeholder",
    "anthropic-image-count": "`pi-tools slim --max-image-kb` replaces images with placeholders",
    "anthropic-image-media-type": "an image of another type would have to be converted; not done by a rewrite",
    "anthropic-tool-name": "tool names come from the tools sent with the request, not from the session",
    "openai-tool-count": "the tools come with the request, not from the session",
    "anthropic-thinking-budget": "a request option (--reasoning), not something stored in the session",
}
_PAIRING = ("tool calls and results that do not pair up; `repair --relink --drop-malformed-calls --close-orphans` "
            "fixes the stored order and missing results, a result without its call stays")
_PAIRING_RULES = frozenset({
    "anthropic-tool-use-without-result", "anthropic-tool-result-without-use", "completions-tool-calls-without-results",
    "completions-tool-message-without-call", "responses-output-without-call", "responses-call-without-output",
    "google-function-response-count", "mistral-tool-results", "bedrock-tool-results"})
_ID_RULES = frozenset({"anthropic-tool-id", "completions-tool-call-id-length", "responses-call-id-length",
                       "mistral-tool-call-id"})


def _reason(rule: str) -> str:
    if rule in _NOT_FIXED:
        return _NOT_FIXED[rule]
    if rule in _PAIRING_RULES:
        return _PAIRING
    if rule in _ID_RULES:
        return ("tool call ids are the producing provider's; they are not rewritten in storage (an empty id: "
                "`repair --drop-malformed-calls`)")
    return "no rewrite of the stored history clears it"


def _preflight(result: RepairResult, source: str, model: str | None, reasoning: str | None,
               version: PiVersion) -> list[dict[str, Any]]:
    return _outcome(result, source, model, reasoning, version).findings


def _outcome(result: RepairResult, source: str, model: str | None, reasoning: str | None, version: PiVersion) -> Any:
    """preflight's check of the repaired lines' next request for `model` (None: the session's own model)."""
    from pi_tools.preflight.check import PreflightRequest
    from pi_tools.preflight.session import PreflightError, preflight_tree
    from pi_tools.session import ContextError
    from pi_tools.session.tree import PathCycleError

    try:
        outcome = preflight_tree(load_lines(result.lines, source, version), source,
                                 PreflightRequest(model=model, reasoning=reasoning, pi=version.name))
    except (ContextError, PathCycleError) as exc:
        raise RepairError(f"{source}: {_option(model)}: nothing to check: Pi {version.name} cannot build the "
                          f"context: {exc}") from None
    except PreflightError as exc:
        raise RepairError(f"{source}: {_option(model)}: {str(exc).replace('--model', '--for-model')}") from None
    if outcome.error is not None:
        error = outcome.error.removeprefix(f"{source}: ")
        raise RepairError(f"{source}: {_option(model)}: nothing to check: {error}")
    return outcome


def _option(model: str | None) -> str:
    return "--fix" if model is None else f"--for-model {model}"


def _input_line(result: RepairResult, line: Any) -> int:
    return result.origins[line - 1] if isinstance(line, int) and 0 < line <= len(result.origins) else 0


def _now() -> str:
    """new Date().toISOString(), which Pi writes as an entry's timestamp."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def new_turn_text(model: str) -> str:
    return f"(The conversation continues on {model}. The tool results above are complete; carry on from them.)"


def for_model(result: RepairResult, source: str, model: str, reasoning: str | None = None,
              version: PiVersion | None = None) -> None:
    """Clear what a rewrite can of preflight's findings for `model` as the Pi `version` builds its request (None:
    pi.resolve()'s); note the rest."""
    version = version or resolve()
    tree = v3_tree(result, source, "--for-model")
    findings = _preflight(result, source, model, reasoning, version)
    fixable = [f for f in findings if f["rule"] in NEW_TURN_RULES]
    if fixable:
        leaf = tree.entries[-1] if tree.entries else None
        leaf_id = leaf.get("id") if isinstance(leaf, dict) else None
        if not isinstance(leaf_id, str):
            raise RepairError(f"{source}: --for-model: the last entry has no id to continue from")
        entry = new_entry("custom_message", {
            "customType": CUSTOM_TYPE, "content": new_turn_text(model), "display": True, "id": fresh_id(set(tree.by_id)),
            "parentId": leaf_id, "timestamp": _now()})
        trial = RepairResult([*result.lines, entry_line(entry)], [*result.origins, 0], list(result.rejected),
                             list(result.changes), list(result.notes))
        after = _preflight(trial, source, model, reasoning, version)
        cleared = [f for f in fixable if f["rule"] not in {a["rule"] for a in after}]
        if cleared:
            result.lines, result.origins = trial.lines, trial.origins
            for found in cleared:
                result.changes.append(Change(
                    _input_line(result, found.get("line")),
                    f"{found['rule']} for {model}: {found['message']} Started a new turn after the leaf {leaf_id}: "
                    f"added custom message {entry['id']} ({CUSTOM_TYPE}, sent as a user message), so no step of the "
                    "current turn is another model's", found.get("entryId"), found["rule"]))
            findings = after
    for found in findings:
        result.notes.append(Change(_input_line(result, found.get("line")),
                                   f"not fixed for {model}: {found['rule']} ({found['severity']}): {found['message']} "
                                   f"({_reason(found['rule'])})", found.get("entryId"), found["rule"]))


def fix_findings(result: RepairResult, source: str, model: str | None = None, reasoning: str | None = None,
                 version: PiVersion | None = None) -> None:
    """`repair --fix`: apply the repairs that clear what preflight finds in the next request for `model` (None: the
    session's own model, as `preflight` checks it): the conversation fixes for calls and results that do not pair
    up (--drop-malformed-calls, --relink, --close-orphans), then --for-model's new turn; what stays is noted with
    the reason (for_model)."""
    from pi_tools.rewrite import conversation
    from pi_tools.rewrite.repair import close_orphans

    version = version or resolve()
    v3_tree(result, source, "--fix", version)
    checked = _outcome(result, source, model, reasoning, version)
    target = model or str(checked.model)
    if any(found["rule"] in _PAIRING_RULES for found in checked.findings):
        before = conversation.entry_ids(result.lines) if version.context.context_edits else None
        conversation.drop_malformed_calls(result, source, version)
        conversation.relink(result, source, version)
        if before is not None:
            conversation.follow_removed_targets(result, source, before, version)
        close_orphans(result, source, version)
    for_model(result, source, target, reasoning, version)
