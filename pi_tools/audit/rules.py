"""The audit rule catalogue: stable ids, a severity and one paragraph each.

Ids are part of the interface (CI configurations name them in `--rules`, SARIF viewers group by them), so a
rule is never renamed; a retired rule keeps its id reserved. Severities follow one principle: `error` when Pi
fails, silently loses or rewrites conversation content, or a provider would reject the replay; `warning` when Pi
copes but the session is suspect; `info` when the file is fine but a reader should know (it never fails a run).
"""

from __future__ import annotations

from dataclasses import dataclass

SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    title: str
    invariant: int | None
    description: str
    default: bool = True
    """Run unless `--rules` says otherwise; a rule that reads every byte of every entry is opt-in."""
    needs: str | None = None
    """The behaviour of the Pi version's context rules (session/context.py: ContextRules) the rule is about (a
    true attribute): a version without it has no such rule in its catalogue."""


def _rule(rule_id: str, severity: str, title: str, invariant: int | None, description: str,
          default: bool = True, needs: str | None = None) -> Rule:
    return Rule(rule_id, severity, title, invariant, " ".join(description.split()), default, needs)


RULES: tuple[Rule, ...] = (
    # --- the file and its lines -------------------------------------------------------------------------
    _rule("invalid-header", "error", "Pi cannot open the file as a session", None, """
        The first JSON value Pi can parse must be a `session` header whose `id` is a string; otherwise Pi
        refuses the whole file ("Session file is not a valid pi session"). An empty file is reported too: Pi
        would silently start a new session in it. A byte-order mark before the header counts as a broken
        header because JSON.parse rejects it."""),
    _rule("extra-header", "warning", "A second session header inside the file", None, """
        A later line with `type: "session"` is kept in the file but is not an entry, so anything that pointed
        at it as a parent dangles. It usually means two session files were concatenated."""),
    _rule("malformed-line", "error", "A line Pi cannot parse", None, """
        Pi skips every line JSON.parse rejects (invalid JSON, NUL bytes, a byte-order mark) without a word,
        so the entry on it, and the branch below it, disappear from the conversation. `pi-tools repair` moves
        such lines to `OUT.rejected` with their line numbers."""),
    _rule("torn-line", "error", "The last line was cut off mid-write", None, """
        The file ends in a partial JSON value without a newline: a write was interrupted. Pi skips the partial
        line and appends a newline to the file the next time it opens it. `pi-tools repair` drops the torn
        tail (keeping it in `OUT.rejected`)."""),
    _rule("concatenated-objects", "error", "Two JSON objects on one line", None, """
        Two appends ran together without a newline between them. JSON.parse rejects the whole line, so Pi
        loses both entries and every entry below them whose parent was one of them. `pi-tools repair` puts
        each object on its own line."""),
    _rule("invalid-utf8", "warning", "Bytes that are not UTF-8", None, """
        Pi decodes the file as UTF-8 and replaces invalid bytes with U+FFFD, so the text it sends differs from
        the bytes on disk. `pi-tools repair` writes the replacement characters Pi reads."""),
    _rule("junk-value", "warning", "A line that holds a JSON value but not an entry", None, """
        Pi keeps truthy non-object values (`42`, `[]`, `"text"`) as entries without an id; when such a value is
        the last line, Pi's leaf is undefined and the resumed context is empty. Falsy values (`null`, `0`)
        are dropped. `pi-tools repair` moves these lines to `OUT.rejected`."""),
    _rule("missing-final-newline", "info", "The file does not end with a newline", None, """
        Pi appends the missing newline (a write to the user's file) the next time it opens the session.
        Harmless when the last line is complete; see `torn-line` when it is not."""),
    _rule("legacy-version", "warning", "A version 1 or 2 session file", 6, """
        Pi migrates v1/v2 files in memory (v1 entries get fresh random ids and a linear parent chain,
        `hookMessage` roles become `custom`) and rewrites the file on open, so ids change between runs and the
        stored bytes are not what Pi uses. Invariant 6: persisted data has a version and a migration path;
        this rule says the migration is still pending."""),
    # --- the entry tree ---------------------------------------------------------------------------------
    _rule("invalid-id", "error", "An entry id or parentId that is not a string", None, """
        Entry ids must be strings and `parentId` a string or null. Pi indexes entries by whatever value it
        finds, so a numeric or missing id breaks parent links and the leaf."""),
    _rule("duplicate-id", "error", "Two entries share an id", None, """
        Ids must be unique within a file. Pi's index keeps the later entry, so children of the earlier one
        silently move to the later one's branch."""),
    _rule("dangling-parent", "error", "A parentId that names no entry", None, """
        Pi walks parent links from the leaf to the root and stops silently at a parent it cannot find, so
        everything above that point is missing from the context."""),
    _rule("parent-cycle", "error", "Parent links that loop", None, """
        An entry that is its own parent or ancestor makes Pi's path walk loop until it runs out of memory
        ("Invalid array length"); any leaf below the cycle cannot be resumed."""),
    _rule("bad-timestamp", "warning", "An entry timestamp that is not ISO-8601", None, """
        Entry timestamps are ISO-8601 strings. Summary and custom messages take their timestamp from
        `new Date(entry.timestamp)`, which gives null for unparseable values and JavaScript's own rules for
        odd ones; ordering and usage reports then go wrong."""),
    _rule("unknown-entry-type", "warning", "An entry type Pi does not know", None, """
        Pi keeps the entry in the tree (it can be a parent and the leaf) but ignores it when building the
        context. Usually a newer or forked Pi wrote it."""),
    # --- invariant 1: discriminants and required fields ----------------------------------------------------
    _rule("unknown-role", "error", "A message role outside the AgentMessage union", 1, """
        Invariant 1: every message uses an exact role discriminant (`user`, `assistant`, `toolResult`, or one
        of the coding agent's `bashExecution` and `custom`). convertToLlm drops anything else, so the model
        never sees the message (invariant 3: conversion yields only Message[])."""),
    _rule("block-type", "error", "A content block with a wrong discriminant or in a wrong place", 1, """
        Invariant 1: content blocks are exactly `text`, `thinking`, `image` or `toolCall`; user messages,
        tool results and custom messages hold text and image blocks, assistant messages text, thinking and
        tool calls. Look-alikes such as `tool_use`, `reasoning` or `tool_call` are dropped or mis-sent by the
        provider encoders."""),
    _rule("required-fields", "error", "A required field is missing or has the wrong type", 1, """
        Invariant 1: every role, block and entry carries its required fields with the right JSON types (for
        example `toolCallId`, `toolName`, `isError` on tool results; `id`, `name`, `arguments` on tool calls;
        `stopReason` from the StopReason set; signatures as strings). Pi reads them without checking, so a gap
        becomes the text "undefined" or a provider error."""),
    # --- invariant 2 and 4: tool calls and their results ---------------------------------------------------
    _rule("tool-result-unmatched", "error", "A tool result without a matching call", 2, """
        Invariant 2: every tool result keeps its call id and comes after the assistant message that issued the
        call. A result whose id matches no call of the nearest preceding assistant message (or answers a call
        a second time, or follows an errored turn that is never replayed) is sent without its call; Anthropic,
        Bedrock and OpenAI reject such requests."""),
    _rule("tool-result-name", "warning", "A tool result whose toolName differs from its call", 2, """
        The result's `toolName` must equal the name of the call it answers. Google's encoder sends the name as
        the function response name, so a mismatch pairs the output with the wrong function."""),
    _rule("tool-result-order", "warning", "Tool results out of call order", 2, """
        Pi executes a batch of tool calls in parallel but always stores the results in the assistant's
        call order. Results stored in another order were not written by Pi's agent loop."""),
    _rule("tool-result-interleaved", "error", "Another message between a tool call and its result", 4, """
        Invariants 2 and 4: all results of a batch come before any other message. Pi defers bash and custom
        messages until the run ends; a user, bash, custom, summary or assistant message stored between a call
        and its result makes Pi send `No result provided` for the call and then the real result out of
        place."""),
    _rule("orphaned-tool-call", "warning", "A tool call that never gets a result", 2, """
        On some branch the call has no result before the next message or the end of the branch. Pi answers it
        with a synthetic `No result provided` error result in every request, never in storage.
        `pi-tools repair --close-orphans` stores those results."""),
    _rule("errored-turn", "info", "An assistant turn that ended in error or was aborted", 4, """
        Assistant messages with `stopReason` `error` or `aborted` are stored (and shown) but never replayed:
        transformMessages drops them, including their text and tool calls, before every request. Worth knowing
        when a session seems to forget something."""),
    _rule("partial-message", "error", "A streaming partial stored as a message", 7, """
        Invariant 7: partial assistant state is transient and only the settled message is persisted. An
        assistant message with `stopReason: "pending"` is a streaming snapshot that should never reach
        storage."""),
    _rule("foreign-signature", "warning", "Signatures the session's current model will not get", 6, """
        Invariant 6: opaque provider fields survive unchanged in storage, but they are only replayed to the
        model that produced them. Assistant messages in the resumed context from another provider, API or
        model carry `thinkingSignature`, `textSignature` or `thoughtSignature` values (or redacted thinking)
        that transformMessages drops: thinking becomes plain text and redacted thinking disappears."""),
    _rule("visibility-split", "info", "Shown and sent differ", 5, """
        Invariant 5: UI visibility, model visibility and storage are decided separately. A `custom_message`
        with `display: false` is hidden in Pi's terminal UI but still sent to the model; a bash execution with
        `excludeFromContext` is shown but never sent. Neither is a secret: both stay on disk."""),
    _rule("secret-in-session", "warning", "A credential stored in the session", None, """
        A string of some entry (on any branch, in a summary, a custom entry, tool arguments, an output or
        `details`) holds a credential of a documented shape: a cloud or provider API key, a token, a private
        key, a password in a URL, a JWT. Sessions are copied, shared and exported, and the credential with
        them. `pi-tools scrub` replaces each with `[REDACTED:<kind>]`; provider signatures and ids are not
        looked at. Opt-in (`--rules +secret-in-session`, or `--rules all`): it reads every string of every entry,
        about 4 s per 100 MB, where the other rules together take about 2 s.""", default=False),
    # --- compaction, summaries, the context --------------------------------------------------------------
    _rule("compaction-first-kept", "error", "A compaction whose firstKeptEntryId does not resolve", None, """
        Pi keeps the entries from `firstKeptEntryId` up to the compaction. When that id names no entry before
        the compaction on its path, Pi keeps nothing from before the compaction and the summary alone
        replaces the history."""),
    _rule("branch-summary-from", "warning", "A branch summary whose fromId does not resolve", None, """
        `fromId` names the entry the abandoned branch ended at (or `root`). When it names no entry, the summary
        cannot be traced back to the branch it summarises."""),
    _rule("context-error", "error", "Pi fails while building the context", 3, """
        Invariant 3: context reconstruction yields a valid AgentMessage[]. Here Pi throws instead (for example
        a `message` entry without a message, or a parent cycle on the active path), so `pi --session` fails to
        open the file."""),
    _rule("compaction-keeps-nothing", "info", "A compaction that keeps nothing from before it", None, """
        The compaction's `firstKeptEntryId` is its own id: the form Pi writes for a compaction that keeps no
        entry (an extension's draft with `firstKeptEntryId: null`). The summary (and the compaction's
        `systemMessage`) alone replace everything before it. Legitimate, but worth knowing when a resumed
        session seems to have forgotten its last turns.""", needs="own_id_keeps_nothing"),
    _rule("context-edit-no-effect", "warning", "A context edit that changes nothing", 3, """
        A `context_edit` entry replaces or omits its target's messages only when the target gives messages of
        an editable role (user, assistant, toolResult, custom; a null edit also omits a summary, bash or system
        message) and both stand on the path, the edit itself inside the context Pi builds (after the latest
        compaction or in its kept range). An edit whose `targetId` names no entry or an entry on another
        branch, a replacement aimed at a compaction, summary, bash or system message or an entry that gives no
        message, and an edit left before the latest compaction's kept range while its target is still sent,
        do nothing, silently: the content it was meant to hide or change is sent as stored.""",
          needs="context_edits"),
    _rule("removed-tool-called", "warning", "A tool call to a tool a system message removed", 2, """
        System messages declare the tools the model may call (`toolsAdded`) and take them away
        (`toolsRemoved`). An assistant message later on the same path that calls a tool the latest system
        message naming it removed calls a tool the request no longer declares: the agent answers with a
        tool-not-found error, and providers that check calls against the declared tools may refuse the
        replay.""", needs="declares_tools"),
    _rule("pi-cannot-load", "error", "Too many entries after a compaction for Pi 0.85", None, """
        Pi 0.85 copies the entries after the latest compaction with one spread call, which overflows V8's
        stack beyond roughly 120,000 entries ("Maximum call stack size exceeded"): the session cannot be
        resumed until it is compacted again by another tool."""),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def catalogue(context_rules: object = None) -> tuple[Rule, ...]:
    """The rules of a Pi version whose context rules are `context_rules` (None: the rules every version has)."""
    return tuple(rule for rule in RULES
                 if rule.needs is None or (context_rules is not None and getattr(context_rules, rule.needs)))


BASE_RULES = catalogue()
"""The rules every Pi version has (a version's context rules add those about what it alone stores)."""
DEFAULT_RULES: frozenset[str] = frozenset(rule.id for rule in BASE_RULES if rule.default)
"""What audit checks when `--rules` is not given (and the version adds no rule)."""

# Reader and context diagnostics (pi_tools.session) -> the rule that covers them; line damage is detected once,
# by the reader, and only classified here.
DIAGNOSTIC_RULES: dict[str, str] = {
    "invalid-json": "malformed-line",
    "nul-byte": "malformed-line",
    "bom": "malformed-line",
    "torn-final-line": "torn-line",
    "concatenated-objects": "concatenated-objects",
    "invalid-utf8": "invalid-utf8",
    "non-object": "junk-value",
    "falsy-value": "junk-value",
    "missing-final-newline": "missing-final-newline",
    "legacy-version": "legacy-version",
    "extra-header": "extra-header",
    "duplicate-id": "duplicate-id",
    "bad-id": "invalid-id",
    "bad-parent-id": "invalid-id",
    "bad-timestamp": "bad-timestamp",
    "bad-message": "required-fields",
    "missing-field": "required-fields",
    "bad-field": "required-fields",
    "unknown-entry-type": "unknown-entry-type",
    "unknown-role": "unknown-role",
    "dangling-parent": "dangling-parent",
    "self-parent": "parent-cycle",
    "parent-cycle": "parent-cycle",
    "pi-cannot-load": "pi-cannot-load",
}


class UnknownRuleError(ValueError):
    """`--rules` named an id that is not in the catalogue."""


def select_rules(spec: str | None, rules: tuple[Rule, ...] = BASE_RULES) -> frozenset[str]:
    """Rule ids enabled by a comma-separated `--rules` value among `rules` (the version's catalogue): the default
    rules when empty, every rule for `all`; ids given as `+id` are added to the default rules, plain ids replace
    them."""
    defaults = DEFAULT_RULES if rules is BASE_RULES else frozenset(rule.id for rule in rules if rule.default)
    if not spec or not spec.strip():
        return defaults
    known = {rule.id for rule in rules}
    wanted = [part.strip() for part in spec.split(",") if part.strip()]
    if wanted == ["all"]:
        return frozenset(known)
    unknown = [rule_id for rule_id in wanted if rule_id.removeprefix("+") not in known]
    if unknown:
        raise UnknownRuleError(f"unknown rule id(s): {', '.join(unknown)} (see --list-rules)")
    added = {rule_id[1:] for rule_id in wanted if rule_id.startswith("+")}
    named = {rule_id for rule_id in wanted if not rule_id.startswith("+")}
    return frozenset(named | added | (defaults if added and not named else set()))
