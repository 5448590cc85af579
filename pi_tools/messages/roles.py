"""The role registry: one place that says how each custom AgentMessage role behaves.

Pi's coding agent extends AgentMessage with four roles and decides their fate in `convertToLlm`, the TUI and
storage separately. pi-tools keeps those three decisions together per role so that a plugin adding a role
(entry-point group ``pi_tools.roles``) is handled by every stage at once instead of by scattered
``if role == ...`` chains. The built-in roles are registered through that same entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pi_tools.messages.types import AgentMessage, Message

ENTRY_POINT_GROUP = "pi_tools.roles"

UNDRAWN: frozenset[str] = frozenset()
"""Message roles pi-ai itself defines that Pi's TUI draws nothing for, in Pi 0.85: none (the LLM roles are drawn;
a tool result beside its call)."""
UNDRAWN_WITH_SYSTEM: frozenset[str] = frozenset({"system"})
"""The same in Pi 1.6: a SystemMessage is sent, never drawn (addMessageToChat's `case "system": break`;
pi_tools/pi/v1_6.py selects it)."""

ToLlm = Callable[[AgentMessage], "Message | None"]
HiddenReason = Callable[[AgentMessage], "str | None"]


def _always_visible(message: AgentMessage) -> str | None:
    return None


@dataclass(frozen=True)
class RoleSpec:
    """How one custom role converts for the model, shows in Pi's TUI, and summarises in reports.

    `to_llm` returns the provider-facing Message or None to drop it. `model_hidden` / `tui_hidden` return the
    reason a message is not sent / not shown, or None when it is. `preview` gives a one-line text for trees and
    previews.
    """

    role: str
    to_llm: ToLlm
    preview: Callable[[AgentMessage], str]
    model_hidden: HiddenReason = _always_visible
    tui_hidden: HiddenReason = _always_visible


class RoleRegistry:
    """A mapping role name -> RoleSpec; later registrations replace earlier ones (plugins may override)."""

    def __init__(self, specs: Iterable[RoleSpec] = ()) -> None:
        self._specs: dict[str, RoleSpec] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: RoleSpec) -> None:
        self._specs[spec.role] = spec

    def get(self, role: Any) -> RoleSpec | None:
        return self._specs.get(role) if isinstance(role, str) else None

    def roles(self) -> list[str]:
        return sorted(self._specs)

    def __contains__(self, role: object) -> bool:
        return isinstance(role, str) and role in self._specs


def _coerce_spec(obj: Any, origin: str) -> RoleSpec:
    spec = obj() if callable(obj) and not isinstance(obj, RoleSpec) else obj
    if not isinstance(spec, RoleSpec):
        raise TypeError(f"entry point {origin} did not provide a RoleSpec (got {type(spec).__name__})")
    return spec


_DEFAULT: RoleRegistry | None = None


def default_registry() -> RoleRegistry:
    """Registry built from every installed ``pi_tools.roles`` entry point (built-ins included), cached.

    If the package metadata is missing (running from a bare source tree), the built-in roles are still
    registered so that pi-tools never silently stops converting Pi's own roles.
    """
    global _DEFAULT
    if _DEFAULT is None:
        from importlib.metadata import entry_points  # about 20 ms: only for the stages that read roles

        registry = RoleRegistry()
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            registry.register(_coerce_spec(ep.load(), f"{ENTRY_POINT_GROUP}:{ep.name}"))
        from pi_tools.messages import builtin_roles

        for spec in builtin_roles.BUILTIN_ROLES:
            if spec.role not in registry:
                registry.register(spec)
        _DEFAULT = registry
    return _DEFAULT
