"""`run --preflight`: the loop's check of each request before it is sent.

The loop hands over the model, the llm messages and the payload it built; an error-level finding becomes the text
the loop records instead of sending (the request would only cost a call and come back as a 400). Entries are
found by message identity: convertToLlm passes user, assistant and tool-result messages through as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pi_tools.preflight.check import LazyOrigins, check_payload, findings_for
from pi_tools.preflight.provenance import NO_ORIGIN, Origin
from pi_tools.preflight.rules import SEVERITY_RANK, rules_by_id

RequestCheck = Callable[[dict[str, Any], Sequence[Any], dict[str, Any], Any, Any], "str | None"]


def loop_preflight(origin_of: Callable[[Any], Origin]) -> RequestCheck:
    """A check for the loop: (model, llm messages, payload, system prompt, tools) -> why not to send, or None."""

    def check(model: dict[str, Any], messages: Sequence[Any], payload: dict[str, Any], system_prompt: Any,
              tools: Any) -> str | None:
        from pi_tools.providers.options import estimate_context_tokens

        api = str(model.get("api"))
        context: dict[str, Any] = {"systemPrompt": system_prompt, "messages": list(messages)}
        if tools:
            context["tools"] = tools
        try:
            estimate: int | None = estimate_context_tokens(context)
        except Exception:  # noqa: BLE001 - damaged content: no estimate, the other rules still run
            estimate = None
        lazy = LazyOrigins(api, model, messages, payload, bool(system_prompt))
        rules = rules_by_id()
        hits = [hit for hit in check_payload(api, model, payload, estimate, None, lazy.source)
                if SEVERITY_RANK[rules[hit.rule].severity] >= SEVERITY_RANK["error"]]
        if not hits:
            return None
        origins = [origin_of(message) for message in messages]
        found = findings_for("<run>", api, model, payload, hits, messages, origins, bool(system_prompt), lazy)
        first = found[0]
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        return (f"preflight: not sent, {model.get('provider')}/{model.get('id')} would refuse it: rule {first['rule']} "
                f"at {first['payloadPath'] or 'the request'}, entry {first['entryId'] or '-'}{more}: "
                f"{first['message']} Fix: {rules[first['rule']].fix} (--no-preflight sends it anyway)")

    return check


def no_origin(_message: Any) -> Origin:
    return NO_ORIGIN
