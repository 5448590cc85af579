"""Pi 0.85: @earendil-works/pi-coding-agent 0.85.0 with pi-ai / pi-agent-core 0.85.1, the version pi-tools was
written against. Every behaviour here is the code's default: this module only names it."""

from __future__ import annotations

from pi_tools.messages.convert import PASSED_THROUGH
from pi_tools.messages.roles import UNDRAWN
from pi_tools.pi import PiVersion
from pi_tools.providers.edition import BASE
from pi_tools.session.context import MESSAGELESS_TYPES, PI_085_RULES
from pi_tools.session.spending import PI_085_SPENDING

VERSION = PiVersion(
    name="0.85",
    packages="pi-coding-agent 0.85.0, pi-ai 0.85.1",
    requests=BASE,
    context=PI_085_RULES,
    passed_through=PASSED_THROUGH,
    spending=PI_085_SPENDING,
    undrawn_roles=UNDRAWN,
    read_by_every_command=True,
    messageless_types=MESSAGELESS_TYPES,
    prompt_roles=frozenset(),
    request_commands=None,
    agent="AGENT_RULES",
)
