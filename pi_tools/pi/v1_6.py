"""Pi 1.6: @earendil-works/pi-coding-agent, pi-ai and pi-agent-core 1.6.0.

What changed from 0.85, and where its implementation lives:

- reading sessions: `usage` and `context_edit` entries, `system` messages, compactions with a `systemMessage`,
  context edits, older compactions silenced (session/projection.py: `PI_16_RULES`);
- convertToLlm passes `system` messages through (messages/convert.py: `PASSED_THROUGH_WITH_SYSTEM`);
- audit: what 1.6 files hold is checked by the same rules (session/projection.py: `Projection16`'s
  `held_roles`, `own_id_keeps_nothing`, `context_edits`, `declares_tools`), which also add audit's 1.x rules
  (audit/rules.py: a rule's `needs`);
- spending: `usage` entries (any kind; 1.6 writes `cache_warm`) are counted by `usage` beside assistant
  messages, and a provider-billed cost (`cost.totalFromProvider`) is never re-priced (session/spending.py:
  `SPENDING_16`);
- commands: context, convert, transform (and `--to-session`), tree, audit, usage, repair, slim and scrub read
  sessions as 1.6 does (the rewrites through the context rules and `messageless_types` / `prompt_roles`, which
  session/context.py and session/projection.py declare: `MESSAGELESS_TYPES_16`, `PROMPT_ROLES_16`); the other
  commands that read sessions are not ported yet (`read_by_every_command=False`: they refuse 1.6);
- requests (transformMessages, payloads, the 1.6 catalog): not built yet (`builds_requests=False`). Until the
  1.6 catalog lands with them, `catalog` names the 0.85 catalog's file (pi_tools/providers/data/models.json).
"""

from __future__ import annotations

from pi_tools.messages.convert import PASSED_THROUGH_WITH_SYSTEM
from pi_tools.pi import PiVersion
from pi_tools.session.projection import MESSAGELESS_TYPES_16, PI_16_RULES, PROMPT_ROLES_16
from pi_tools.session.spending import SPENDING_16

VERSION = PiVersion(
    name="1.6",
    packages="pi-coding-agent 1.6.0, pi-ai 1.6.0",
    catalog="models.json",
    context=PI_16_RULES,
    passed_through=PASSED_THROUGH_WITH_SYSTEM,
    spending=SPENDING_16,
    read_by_every_command=False,
    messageless_types=MESSAGELESS_TYPES_16,
    prompt_roles=PROMPT_ROLES_16,
    builds_requests=False,
)
