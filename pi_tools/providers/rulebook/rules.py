"""The preflight rule registry: every rule once, with the APIs it applies to, a severity, the provider's own words
and a fix.

Rule ids are part of the interface (CI configurations and SARIF viewers name them) and are never renamed. Each
rule's `provider_message` is the text the provider answers with (from its documentation, its SDK or a recorded
response: `source` says which), so that a user who has seen the 400 can find the rule by grepping for it.

A rule's check sees a `RequestView` (the payload and what was known when it was built) and yields `Hit`s naming a
payload path. Rules come in three scopes, which is what lets `--replay` check every prefix of a conversation
without building each request again (see pi_tools.preflight.replay):

- `items`: a finding at payload item i depends only on items up to `Hit.needs`; run once over the longest
  request of a run of requests and kept for every request that contains items up to `needs`;
- `tail`: depends on where the request ends (the current turn, the final assistant message); run per request
  with `view.end`, in O(1) or O(turn) from the view's cached indexes;
- `request`: depends on request-wide values (tools, max_tokens, thinking, the size and token estimate).

Rules are written in the API folders (each adapter names its `rule_modules`) and, for rules of every API, by the
room that runs them (`load_after_apis`); the modules are imported on first use of the registry.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}

_INDEX = re.compile(r"^[A-Za-z_.]+\[(\d+)\]")


@dataclass(frozen=True)
class Hit:
    """One offending part of a payload: its path (``messages[4].content[0]``) and what is wrong with it.

    `needs` is the last payload item the finding depends on (an `items`-scope finding holds for every request
    that contains that item); it defaults to the item the path names.
    """

    rule: str
    path: str
    message: str
    needs: int | None = None

    @property
    def item(self) -> int | None:
        """The index of the payload item the path starts in (None for top-level fields such as ``tools[3]``)."""
        match = _INDEX.match(self.path)
        return int(match.group(1)) if match and not self.path.startswith(("tools", "config.tools")) else None


Check = Callable[[Any], Iterable[Hit]]


@dataclass(frozen=True)
class PreflightRule:
    """A provider-side validation rule (see the module docstring)."""

    id: str
    severity: str
    title: str
    apis: frozenset[str]
    scope: str  # items | tail | request
    provider_message: str
    source: str
    fix: str
    description: str
    check: Check = field(compare=False, repr=False)
    applies: Callable[[dict[str, Any]], bool] | None = field(default=None, compare=False, repr=False)
    invariant: int | None = None  # audit's Rule shape, so audit's writers take preflight rules too

    def applies_to(self, api: str, model: dict[str, Any]) -> bool:
        return api in self.apis and (self.applies is None or self.applies(model))


_RULES: dict[str, PreflightRule] = {}
_ordered: list[PreflightRule] | None = None
_loaded = False


def rule(rule_id: str, severity: str, title: str, apis: Iterable[str], scope: str, provider_message: str,
         source: str, fix: str, description: str,
         applies: Callable[[dict[str, Any]], bool] | None = None) -> Callable[[Check], Check]:
    """Register the decorated check as a rule (ids are unique; a second registration is a programming error)."""
    if severity not in SEVERITY_RANK or scope not in ("items", "tail", "request"):
        raise ValueError(f"rule {rule_id}: bad severity {severity!r} or scope {scope!r}")

    def register(check: Check) -> Check:
        if rule_id in _RULES:
            raise ValueError(f"preflight rule {rule_id} registered twice")
        _RULES[rule_id] = PreflightRule(
            rule_id, severity, title, frozenset(apis), scope, " ".join(provider_message.split()), source,
            " ".join(fix.split()), " ".join(description.split()), check, applies)
        return check

    return register


_after_apis: list[str] = []
"""Rule modules loaded after every API's (preflight's rules for every API), in the order they were added."""
_order: list[str] = []


def load_after_apis(module: str) -> None:
    """Have the registry load `module` (a dotted name) after every API folder's rule modules: the rules of the
    room that runs them, which hold for every API."""
    global _loaded
    if module not in _after_apis:
        _after_apis.append(module)
        _loaded = False


def rule_modules() -> list[str]:
    """Every module that defines rules, in the order their rules are listed: each API's `rule_modules` in table
    order (a module several APIs share, once), then those added with load_after_apis."""
    from pi_tools.providers.registry import adapter, builds
    from pi_tools.providers.table import api_rows

    order: list[str] = []
    for row in api_rows():
        if not builds(row.name):  # an API of a later Pi only (no base adapter): none of its rules run yet
            continue
        for module in adapter(row.name).rule_modules:
            if module not in order:
                order.append(module)
    order.extend(module for module in _after_apis if module not in order)
    return order


def _load() -> None:
    global _loaded, _order
    if not _loaded:
        _loaded = True
        _order = rule_modules()
        for name in _order:
            importlib.import_module(name)


def all_rules() -> list[PreflightRule]:
    """Every registered rule, API by API: in the order of rule_modules(), each module's rules in the order it
    defines them. (Registration order alone would depend on which rule module something imported first.)"""
    global _ordered
    _load()
    if _ordered is None or len(_ordered) != len(_RULES):
        _ordered = sorted(_RULES.values(), key=_module_rank)
    return list(_ordered)


def _module_rank(item: PreflightRule) -> int:
    module = getattr(item.check, "__module__", "")
    return _order.index(module) if module in _order else len(_order)


def rules_by_id() -> dict[str, PreflightRule]:
    _load()
    return dict(_RULES)


def rules_for(api: str, model: dict[str, Any], scopes: Iterable[str] = ("items", "tail", "request"),
              enabled: frozenset[str] | None = None) -> list[PreflightRule]:
    """The rules that apply to a request for this API and model, in the given scopes."""
    wanted = set(scopes)
    return [r for r in all_rules() if r.scope in wanted and r.applies_to(api, model)
            and (enabled is None or r.id in enabled)]


def iter_hits(rules: Iterable[PreflightRule], view: Any) -> Iterator[Hit]:
    for item in rules:
        yield from item.check(view)
