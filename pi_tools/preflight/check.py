"""Preflight of one request: build the payload the chosen Pi version would send, run the rules, trace each hit to its
entry."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_tools.preflight.provenance import NO_ORIGIN, Origin, PayloadOrigins, map_origins
from pi_tools.preflight.rules import Hit, iter_hits, rules_by_id, rules_for
from pi_tools.providers.rulebook.view import RequestView
from pi_tools.providers.table import payload_items

if TYPE_CHECKING:
    from pi_tools.providers.edition import Edition
    from pi_tools.session.context import ContextRules

Finding = dict[str, Any]


@dataclass
class PreflightRequest:
    """What to check the session's next request for: the target model and the Context/options inputs."""

    model: str | None = None  # provider/id; default: the session's current model
    system_prompt: str | None = None
    tools: list[dict[str, Any]] | None = None
    reasoning: str | None = None
    leaf: str | None = None
    session_id: str | None = None
    enabled: frozenset[str] | None = None
    pi: str | None = None
    """The Pi version's name (None: PI_TOOLS_PI, else the default), resolved where the check runs."""
    pi_prompt: Any = None
    """--system-prompt pi: providers.pi_prompt.PiPromptOptions, resolved per session (session.with_pi_prompt)."""
    given_tools: list[dict[str, Any]] | None = None
    """With pi_prompt resolved: the tools given (--tools-file), which a Pi 1.x transcript keeping its own prompt
    keeps too."""
    pi_prompt_applied: bool = False
    """Whether system_prompt and tools are Pi's own (a Pi 1.x transcript with system messages then keeps its)."""


@dataclass
class PreflightResult:
    source: str
    api: str | None = None
    model: str | None = None
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None


def finding(source: str, hit: Hit, api: str, model: str, origin: Origin,
            in_order: frozenset[Any] = frozenset(), interleaved: frozenset[Any] = frozenset()) -> Finding | None:
    """A `finding` document as audit writes them, plus the request's API, model, the payload path and the fix;
    graded by what is known of the model's provider (knowledge.grade): None where the provider is recorded
    accepting the shape."""
    from pi_tools.preflight.fixes import fix_for
    from pi_tools.preflight.knowledge import grade

    rule = rules_by_id()[hit.rule]
    severity, note = grade(hit.rule, rule.severity, api, model)
    if severity is None:
        return None
    entry_id, line = origin
    return {
        "kind": "finding", "source": source, "rule": hit.rule, "severity": severity,
        "entryId": entry_id if isinstance(entry_id, str) else None, "line": line,
        "message": hit.message if note is None else f"{hit.message} {note}",
        "api": api, "model": model, "payloadPath": hit.path,
        "fix": fix_for(hit.rule, source, model, rule.fix, entry_id in in_order, entry_id in interleaved),
    }


def locate(hit: Hit, origins: PayloadOrigins | None, llm_origins: Sequence[Origin]) -> Origin:
    """The entry behind a hit's payload path (request-wide hits and unmapped parts have none)."""
    if origins is None or hit.item is None:
        return NO_ORIGIN
    index = origins.llm_index(hit.path)
    if index is None and hit.item < len(origins.item_origin):
        index = origins.item_origin[hit.item]
    return llm_origins[index] if index is not None and index < len(llm_origins) else NO_ORIGIN


def check_payload(api: str, model: dict[str, Any], payload: dict[str, Any], estimate: int | None,
                  enabled: frozenset[str] | None = None, source: Callable[[int], Any] | None = None) -> list[Hit]:
    """Every rule that applies, on a whole payload (the request it is); `source` gives the llm message behind a
    payload item, for the rules that look at what was stored."""
    view = RequestView(api, model, payload, estimate=estimate, source=source)
    return list(iter_hits(rules_for(api, model, enabled=enabled), view))


class LazyOrigins:
    """The payload mapping, made on first use and only as far into the payload as asked: most requests have no
    finding and never need it, and a finding early in a large session needs only the mapping up to it."""

    def __init__(self, api: str, model: dict[str, Any], llm: Sequence[Any], payload: dict[str, Any],
                 has_system_prompt: bool, edition: Edition | None = None) -> None:
        self._args = (api, model, llm, payload, has_system_prompt)
        self._edition = edition
        self._origins: PayloadOrigins | None = None
        self._upto = -1  # the last item the cached mapping covers exactly (a whole mapping covers all)

    def get(self, upto_item: int | None = None) -> PayloadOrigins:
        if self._origins is not None and (self._upto == _WHOLE or (upto_item is not None and upto_item <= self._upto)):
            return self._origins
        origins = map_origins(*self._args, upto_item=upto_item, edition=self._edition)
        partial = upto_item is not None and len(origins.item_origin) < len(view_items(self._args[0], self._args[3]))
        self._origins, self._upto = origins, (upto_item if partial and upto_item is not None else _WHOLE)
        return origins

    def source(self, index: int) -> Any:
        llm = self._args[2]
        origin = self.get(index).item_origin
        return llm[origin[index]] if index < len(origin) and origin[index] < len(llm) else None


_WHOLE = 1 << 62


def results_relink_moves(source: str, hits: Sequence[Hit], context_rules: ContextRules | None) -> frozenset[Any]:
    """fixes.interleaved_results of `source`, read only where a hit is a result sent without its call."""
    from pi_tools.preflight.fixes import RESULT_WITHOUT_CALL_RULES, interleaved_results

    if context_rules is None or not any(hit.rule in RESULT_WITHOUT_CALL_RULES for hit in hits):
        return frozenset()
    return interleaved_results(source, context_rules)


def view_items(api: str, payload: dict[str, Any]) -> list[Any]:
    items = payload_items(api, payload)
    return items if isinstance(items, list) else []


def findings_for(source: str, api: str, model: dict[str, Any], payload: dict[str, Any], hits: Sequence[Hit],
                 llm: Sequence[Any], llm_origins: Sequence[Origin], has_system_prompt: bool,
                 lazy: LazyOrigins | None = None, context_rules: ContextRules | None = None) -> list[Finding]:
    """Hits as finding documents, each traced to its entry (the payload is mapped only when something was hit);
    `context_rules`: the version's, to read `source` again where a result without its call may be one that
    `repair --relink` moves back (fixes.interleaved_results)."""
    if not hits:
        return []
    needs_map = any(hit.item is not None for hit in hits)
    if lazy is None:
        lazy = LazyOrigins(api, model, llm, payload, has_system_prompt)
    last = max((hit.item for hit in hits if hit.item is not None), default=None)
    origins = lazy.get(last) if needs_map else None
    reference = f"{model.get('provider')}/{model.get('id')}"
    from pi_tools.preflight.fixes import PAIRING_RULES, stored_in_order

    in_order = stored_in_order(llm, llm_origins) if any(hit.rule in PAIRING_RULES for hit in hits) else frozenset()
    interleaved = results_relink_moves(source, hits, context_rules)
    found = (finding(source, hit, api, reference, locate(hit, origins, llm_origins), in_order, interleaved)
             for hit in hits)
    return [f for f in found if f is not None]
