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
- views: `visibility` (without --api), `export` (md, html, chat) and `search` (without --index) say what 1.6's
  projection does to each entry (session/projection.py: `Projection16.projected`), that a system message is sent
  but never drawn (messages/roles.py: `UNDRAWN_WITH_SYSTEM`);
- rewrites: repair, slim, scrub and transform --to-session through the context rules and `messageless_types` /
  `prompt_roles`, which session/context.py and session/projection.py declare (`MESSAGELESS_TYPES_16`,
  `PROMPT_ROLES_16`);
- commands: context, convert, transform (and `--to-session`), tree, ls, audit, usage, visibility, export, search
  (and `--index`), index, repair, slim and scrub read sessions as 1.6 does (`read_by_every_command`); the index
  writes the tables of what 1.6 stores (corpus/schema.py: `shape_of`, from the rules above: `usage_entries`,
  `context_edits`, `system_sections`, `system_tools`) and records the version in its manifest;
- requests: the 1.6 catalog (providers/data/models-1.6.json), and per API folder an `adapter16` module building
  1.6's request from the transcript (system messages kept in place or collapsed, per model), with 1.6's
  transformMessages (providers/transform_messages.py: `TRANSFORM_16`), output budget (providers/options16.py) and
  transcript rules (providers/transcript.py). Every request command builds them (`payload`, `preflight` and
  --replay, `render`, `visibility --api`, `run`, `repair --for-model`), each with the edition's catalog, adapters,
  transformMessages rules (`transform`), size estimate (`estimate`) and output budget (`output_room`);
- `run`: pi-agent-core 1.6's loop and the coding agent's 1.6 session writer (loop/rules.py: `AGENT_RULES_16`,
  named by `agent`): prompt and tools recorded as system messages, results carrying `thinkingLevel` and
  `durationMs`, the file created at the first prompt, the faux provider's per-message estimate.
"""

from __future__ import annotations

from pi_tools.messages.convert import PASSED_THROUGH_WITH_SYSTEM
from pi_tools.messages.roles import UNDRAWN_WITH_SYSTEM
from pi_tools.pi import PiVersion
from pi_tools.providers.edition import Edition
from pi_tools.providers.options16 import estimate_request_tokens, output_room
from pi_tools.providers.transform_messages import TRANSFORM_16
from pi_tools.session.projection import MESSAGELESS_TYPES_16, PI_16_RULES, PROMPT_ROLES_16
from pi_tools.session.spending import SPENDING_16

VERSION = PiVersion(
    name="1.6",
    packages="pi-coding-agent 1.6.0, pi-ai 1.6.0",
    requests=Edition(catalog="models-1.6.json", adapter_module="adapter16", records_prompt=True,
                     prompt="pi-prompt-1.6.json",
                     transform=TRANSFORM_16, estimate=estimate_request_tokens,
                     output_room=output_room, estimates_stored_messages=True),
    context=PI_16_RULES,
    passed_through=PASSED_THROUGH_WITH_SYSTEM,
    spending=SPENDING_16,
    undrawn_roles=UNDRAWN_WITH_SYSTEM,
    read_by_every_command=True,
    messageless_types=MESSAGELESS_TYPES_16,
    prompt_roles=PROMPT_ROLES_16,
    request_commands=None,
    agent="AGENT_RULES_16",
)
