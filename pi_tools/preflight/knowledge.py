"""Provider knowledge: which providers a rule is known to hold for, and how a finding is graded by it.

A rule is proven for its API's reference provider (OpenAI for chat completions, Anthropic for messages: the
evidence is the rule's `source`), but dozens of providers speak those APIs and enforce less. The shipped table
(data/providers.json, documented in docs/preflight.md) says, per rule, where it holds, where recorded verdicts
show the provider accepts the shape, and which rules hold everywhere (size, context window). A finding is then:

- as severe as its rule on a provider where the rule holds;
- dropped on a provider recorded accepting the shape;
- a warning on a provider recorded both accepting and refusing it (`disputed`: the evidence disagrees, or the
  provider tells apart shapes the rule does not), naming both;
- a warning naming the reference provider on any other provider (the rule is a guess there).

Each entry's evidence says what kind it is: `documented:` (the provider's documentation or SDK), `recorded:`
(a provider's answers in sessions or issue threads one can read), `from the issue:` (verdicts reported in
issue 26 from sessions the project has not seen).

`preflight --replay --learn FILE` writes what a user's own sessions show, in the table's format (`learned`), so
that the table grows from real traffic; `--knowledge FILE` (or PI_TOOLS_PREFLIGHT_KNOWLEDGE) adds such a file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import orjson

ENV = "PI_TOOLS_PREFLIGHT_KNOWLEDGE"


@dataclass(frozen=True)
class Knowledge:
    reference: dict[str, list[str]]
    everywhere: frozenset[str]
    routers: frozenset[str]
    rules: dict[str, dict[str, dict[str, str]]]  # rule -> {"holds"|"accepts"|"disputed": {provider: evidence}}

    def verdict(self, rule: str, api: str, provider: str) -> str:
        """`holds`, `accepts` (recorded accepting: no finding), `disputed` (recorded accepting and refusing: a
        warning) or `unknown` for a rule on a provider."""
        if rule in self.everywhere:
            return "holds"
        known = self.rules.get(rule, {})
        if provider in known.get("disputed", {}):
            return "disputed"
        if provider in known.get("accepts", {}):
            return "accepts"
        if provider in self.reference.get(api, ()) or provider in known.get("holds", {}):
            return "holds"
        return "unknown"


def _read(data: bytes, where: str) -> dict[str, Any]:
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected a JSON object")
    return value


def merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`extra`'s rules added to `base`'s (a learned file adds providers; it never removes one)."""
    rules: dict[str, dict[str, dict[str, str]]] = {
        rule: {k: dict(v) for k, v in entry.items()} for rule, entry in base.get("rules", {}).items()}
    out = {"reference": dict(base.get("reference", {})), "everywhere": list(base.get("everywhere", [])),
           "routers": list(base.get("routers", [])), "rules": rules}
    for rule, entry in (extra.get("rules") or {}).items():
        target = rules.setdefault(rule, {})
        for kind in ("holds", "accepts", "disputed"):
            if isinstance(entry, dict) and isinstance(entry.get(kind), dict):
                target.setdefault(kind, {}).update({str(k): str(v) for k, v in entry[kind].items()})
    return out


@cache
def load(extra_path: str | None = None) -> Knowledge:
    """The shipped table, plus the table at `extra_path` when given (grade passes $PI_TOOLS_PREFLIGHT_KNOWLEDGE)."""
    raw = _read(resources.files("pi_tools.preflight").joinpath("data/providers.json").read_bytes(), "providers.json")
    if extra_path:
        try:
            with open(extra_path, "rb") as handle:
                raw = merged(raw, _read(handle.read(), extra_path))
        except OSError as exc:
            raise ValueError(f"{extra_path}: cannot read: {exc.strerror}") from None
    return Knowledge({k: list(v) for k, v in raw.get("reference", {}).items()}, frozenset(raw.get("everywhere", [])),
                     frozenset(raw.get("routers", [])), raw.get("rules", {}))


def grade(rule: str, severity: str, api: str, model: str | None) -> tuple[str | None, str | None]:
    """(severity, note) of a finding of `rule` for `model` (provider/id): None severity when the provider is
    recorded accepting the shape; a warning with a note naming the reference provider where the rule is unknown."""
    provider, _, model_id = (model or "").partition("/")
    knowledge = load(os.environ.get(ENV) or None)
    upstream = model_id.split("/", 1)[0] if "/" in model_id else None
    if provider in knowledge.routers and upstream and knowledge.verdict(rule, api, upstream) == "holds":
        provider = upstream  # a router passes the request to the model's own provider, which validates it
    verdict = knowledge.verdict(rule, api, provider)
    if verdict == "accepts":
        return None, None
    if verdict == "disputed" and severity == "error":
        return "warning", (f"(recorded both accepting and refusing this shape on {provider}: a warning, not an "
                           "error; see docs/preflight.md, Provider knowledge)")
    if verdict == "holds" or severity != "error":
        return severity, None
    reference = ", ".join(knowledge.reference.get(api, [])) or "its reference provider"
    return "warning", (f"(known to hold for {reference}; not known for {provider}, which speaks {api}: a warning, "
                       "not an error)")


def learned(requests: list[dict[str, Any]]) -> dict[str, Any]:
    """What replayed requests show, in the table's format: a provider `accepts` a rule's shape when it accepted a
    reproducible request the rule flags; it `holds` there when it rejected one the rule predicted; both make it
    `disputed`. Each evidence is `recorded verdict: FILE line N (outcome)`."""
    rules: dict[str, dict[str, dict[str, str]]] = {}
    for doc in requests:
        if not doc.get("reproducible", True) or doc.get("outcome") not in ("accepted", "rejected"):
            continue
        provider = str(doc.get("model") or "").split("/", 1)[0]
        for f in doc.get("findings", []):
            if f.get("rule", "").startswith("replay-") or f.get("severity") == "info":
                continue
            kind = "accepts" if doc["outcome"] == "accepted" else "holds"
            where = f"recorded verdict: {doc['source']} line {doc.get('line')} ({doc['outcome']})"
            rules.setdefault(f["rule"], {}).setdefault(kind, {}).setdefault(provider, where)
    for entry in rules.values():  # accepted one request of the shape and refused another: disputed
        both = set(entry.get("accepts", {})) & set(entry.get("holds", {}))
        for provider in sorted(both):
            entry.setdefault("disputed", {})[provider] = (f"{entry['accepts'].pop(provider)}; "
                                                          f"{entry['holds'].pop(provider)}")
        for kind in ("accepts", "holds"):
            if kind in entry and not entry[kind]:
                del entry[kind]
    return {"about": "learned by pi-tools preflight --replay --learn; add with --knowledge FILE", "rules": rules}
