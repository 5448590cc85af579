"""Pi's session line format, as the fast readers decode it: every msgspec struct of a session line, in one place.

A session file is a `session` header line and then one entry per line (`ENTRY_TYPES`); nearly every entry is a
`message`, whose `message` object is one of five roles. Below are the fields Pi 0.85 writes on each, with the JSON
types it writes them with (the `*Base` structs, shared), and the projections the fast readers decode a line into.

Why several projections of one format: msgspec decodes only the fields a struct declares and skips the others in
C, and a line that does not fit a struct fails to decode. Each reader therefore declares exactly what it must
check or keep, and no more (every extra field costs time on every line of every file):

- `Head*`: the bulk index (session/bulk.py) and the line-by-line reader (session/heads.py). They check that a
  message line has the types Pi writes, with content blocks left raw (checked to be JSON, never built), and keep
  ids, role, provider and model. `IdsMessageLine` keeps the ids and role only, unchecked, for stages that report
  no diagnostics.
- `Audit*`: the audit of a clean file (audit/clean.py): blocks decoded with every field the per-entry checks look
  at, signature fields typed so that a misplaced one makes the line misfit (it then takes the full checks).
- `Row*`: the index's tables (corpus/lines.py, corpus/rows.py): text, thinking, tool calls and usage kept, and
  the assistant line closed (`forbid_unknown_fields`) so that a field no struct holds sends the line to orjson,
  whose reading of numbers the tables keep.
- `LooseIds`: search's active path (corpus/heads.py): the ids of any line, of any JSON type.

A line that fits no projection of its reader is always read another way (parsed in full, or the whole file line
by line), so which struct fits decides only how fast a line is read, never what comes out.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Union

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

DECODE_ERRORS = (msgspec.ValidationError, msgspec.DecodeError, RecursionError)
"""What a line that does not fit raises (a value nested deeper than msgspec recurses, which V8 parses, included)."""

ENTRY_TYPES = frozenset({
    "message", "thinking_level_change", "model_change", "compaction", "branch_summary", "custom",
    "custom_message", "label", "session_info",
})
"""The entry types Pi 0.85 writes (a line of another type stays in Pi's tree, ignored)."""
LATER_ENTRY_TYPES = frozenset({"usage", "context_edit"})
"""The entry types later Pis added (1.6: `usage`, `context_edit`): the bulk index decodes them as it decodes the
other entries (ids only, parsed in full later), and the version's vocabulary says whether they are known."""

Number = int | float


# --- The fields every projection shares: a message entry and each role, as Pi writes them ----------------------
class MessageLineBase(Struct, tag_field="type", tag="message", gc=False):
    """A `message` entry line: its ids (the entry `timestamp` and the `message` are per projection)."""

    id: str
    parentId: str | None


class UserBase(Struct, tag_field="role", tag="user", gc=False):
    """A user message (`content`: text or blocks, per projection)."""

    timestamp: Number


class AssistantBase(Struct, tag_field="role", tag="assistant", gc=False):
    """An assistant message (`content`: blocks, per projection)."""

    api: str
    provider: str
    model: str
    stopReason: str
    timestamp: Number


class ToolResultBase(Struct, tag_field="role", tag="toolResult", gc=False):
    """A tool result (`content`: blocks, per projection)."""

    toolCallId: str
    toolName: str
    isError: bool
    timestamp: Number


class Bash(Struct, tag_field="role", tag="bashExecution", gc=False):
    """A `!` command's execution (the heads and the rows read it whole)."""

    command: str
    output: str
    timestamp: Number


class CustomBase(Struct, tag_field="role", tag="custom", gc=False):
    """An extension's message (`content`: text or blocks, per projection)."""

    customType: str
    timestamp: Number


class TextBase(Struct, tag_field="type", tag="text", gc=False):
    text: str


class ThinkingBase(Struct, tag_field="type", tag="thinking", gc=False):
    thinking: str


class Image(Struct, tag_field="type", tag="image", gc=False):
    """An image block, its fields skipped (no table holds its data; the audit checks them: `AuditImage`)."""


class ToolCallBase(Struct, tag_field="type", tag="toolCall", gc=False):
    id: str
    name: str


# --- Heads: the bulk index and the line-by-line reader ----------------------------------------------------------
# Content must be text or blocks (user, custom) or blocks (assistant, tool result). Blocks stay raw: checked to
# be JSON, never built.
TextOrRawBlocks = str | list[Raw]
RawBlocks = list[Raw]


class HeadUser(UserBase):
    content: TextOrRawBlocks


class HeadAssistant(AssistantBase):
    content: RawBlocks


class HeadToolResult(ToolResultBase):
    content: RawBlocks


class HeadCustom(CustomBase):
    content: TextOrRawBlocks


class HeadMessageLine(MessageLineBase):
    """A message line as Pi writes it; any other shape fails to decode (and takes the ordinary path)."""

    timestamp: datetime
    message: HeadUser | HeadAssistant | HeadToolResult | Bash | HeadCustom


class AnySystem(Struct, tag_field="role", tag="system", gc=False):
    """A system message (a later Pi's role; 1.6 writes it), its fields skipped: the bulk index parses such lines in
    full, as the line-by-line reader does, and checks them with the version's vocabulary."""


class BulkMessageLine(MessageLineBase):
    """A message line as the bulk index takes it: HeadMessageLine, or a system message of any shape (the
    line-by-line reader's heads never take one: heads.py decodes HeadMessageLine)."""

    timestamp: datetime
    message: HeadUser | HeadAssistant | HeadToolResult | Bash | HeadCustom | AnySystem


class AnyRole(Struct, gc=False):
    role: Any = None


class IdsMessageLine(MessageLineBase):
    """A message line as far as its context needs: ids, and a message object (whose role is kept), unchecked."""

    message: AnyRole


class NotAMessage:
    def __reduce__(self) -> str:
        return "NOT_A_MESSAGE"  # pickled as this module's one instance, so identity survives another process


NOT_A_MESSAGE: Any = NotAMessage()
"""The role the bulk index records for lines that are not messages."""
_NO_MESSAGE = AnyRole(role=NOT_A_MESSAGE)


class HeaderLine(Struct, tag_field="type", tag="session", gc=False):
    """The first line; parsed in full separately. (A second header line sends the file to the other reader.)"""

    id: str | None = None
    parentId: str | None = None
    message: ClassVar[Any] = _NO_MESSAGE


def _other_entry(entry_type: str) -> type[Struct]:
    """A non-message entry: only its ids are decoded; the rare such lines are parsed in full."""
    return msgspec.defstruct(f"_{entry_type}", [("id", str), ("parentId", Union[str, None])],  # noqa: UP007
                             tag_field="type", tag=entry_type, gc=False, namespace={"message": _NO_MESSAGE})


_OTHER_ENTRY_LINES = {name: _other_entry(name) for name in sorted((ENTRY_TYPES | LATER_ENTRY_TYPES) - {"message"})}
OTHER_ENTRY_LINES = tuple(line for name, line in _OTHER_ENTRY_LINES.items() if name in ENTRY_TYPES)
"""The other entry lines of Pi 0.85's types."""


def entry_union_decoder(message_line: type, entry_types: frozenset[str] = ENTRY_TYPES) -> msgspec.json.Decoder[Any]:
    """A decoder for one line of any of `entry_types` (default 0.85's), with `message_line` for message lines
    (headers and other entries as the bulk index decodes them)."""
    others = [line for name, line in _OTHER_ENTRY_LINES.items() if name in entry_types]
    return msgspec.json.Decoder(Union[(message_line, HeaderLine, *others)])  # type: ignore[valid-type]  # noqa: UP007


class NoEntry(Struct, tag_field="type", tag="\x00", gc=False):
    """Never in a file; in a union with HeadMessageLine it makes msgspec require the `type` tag (a lone tagged
    struct accepts a line without one, which Pi's getSessionContextSettings does not take for a message)."""


class MessageOnly(Struct, gc=False):
    """A line's `message` value as its exact JSON text."""

    message: Raw


# --- Audit: the checks of a clean file ---------------------------------------------------------------------------
class AnyObject(Struct, gc=False):
    """Any JSON object, its members skipped (a tool call's arguments: only their type is checked)."""


Absent = Annotated[str, Meta(pattern="(?!)")] | UnsetType
"""A field that fits only when absent: a signature field on a block of another type (the audit counts it wherever
it is truthy) sends its line to the full checks."""


class AuditText(TextBase):
    textSignature: str | UnsetType = UNSET
    thinkingSignature: Absent = UNSET
    thoughtSignature: Absent = UNSET


class AuditThinking(ThinkingBase):
    thinkingSignature: str | UnsetType = UNSET
    redacted: bool | UnsetType = UNSET
    textSignature: Absent = UNSET
    thoughtSignature: Absent = UNSET


class AuditImage(Image):  # never in assistant content: signatures unread
    data: str
    mimeType: str


class AuditToolCall(ToolCallBase):
    arguments: AnyObject
    thoughtSignature: str | UnsetType = UNSET
    namespace: str | UnsetType = UNSET
    thinkingSignature: Absent = UNSET
    textSignature: Absent = UNSET


AuditUserBlocks = list[AuditText | AuditImage]


class AuditUser(UserBase):
    content: str | AuditUserBlocks


class AuditAssistant(AssistantBase):
    content: list[AuditText | AuditThinking | AuditToolCall]


class AuditToolResult(ToolResultBase):
    content: AuditUserBlocks


class AuditBash(Bash):
    excludeFromContext: Any = UNSET


class AuditCustom(CustomBase):
    content: str | AuditUserBlocks
    display: Any = UNSET


class AuditMessageLine(MessageLineBase):
    """A message line whose per-entry checks find nothing, but for its timestamp (checked apart: a pattern here
    would cost a regular expression call per line) and the fields that are findings by their values (stop
    reasons, excludeFromContext, display)."""

    timestamp: str
    message: AuditUser | AuditAssistant | AuditToolResult | AuditBash | AuditCustom


# --- Rows: the index's tables ------------------------------------------------------------------------------------
class RowText(TextBase, forbid_unknown_fields=True):
    textSignature: Any = None


class RowThinking(ThinkingBase, forbid_unknown_fields=True):
    thinkingSignature: Any = None
    redacted: Any = None


class RowToolCall(ToolCallBase, forbid_unknown_fields=True):
    arguments: Raw  # its numbers are checked by orjson (corpus/lines.arguments_value)
    thoughtSignature: Any = None
    namespace: Any = None
    intent: Any = None
    partialJson: Any = None


RowUserBlocks = list[RowText | Image]

Count = Annotated[int, Meta(ge=0, le=(1 << 63) - 1)]
"""A token count `usage` counts as it is (msgspec bounds only to 64-bit signed): any other value (negative, a
float, beyond the bound) makes the line parse in full, and the usage rows read it there as always (a count
beyond 64 bits, a float to orjson, as 0)."""


class RowCost(Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    total: Any = None
    input: Any = None
    output: Any = None
    cacheRead: Any = None
    cacheWrite: Any = None


class RowUsage(Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """An assistant message's usage with the counts `usage` reads checked as it reads them (see `Count`); a
    missing count where `usage` takes 0, or a null total where it adds the counts up, are the defaults."""

    input: Count
    output: Count
    cacheRead: Count = 0
    cacheWrite: Count = 0
    totalTokens: Count | None = None
    cost: RowCost | None = None
    cacheWrite1h: Any = None
    reasoning: Any = None


class RowUser(UserBase):
    content: str | RowUserBlocks


class RowAssistant(AssistantBase, forbid_unknown_fields=True):
    content: list[RowText | RowThinking | RowToolCall]
    usage: RowUsage | None = None
    responseId: Any = None  # the other fields Pi 0.85 writes (AssistantMessage), and two seen in sessions
    responseModel: Any = None
    providerThinkingLevel: Any = None
    diagnostics: Any = None
    deferred: Any = None
    errorMessage: Any = None
    rawStopReason: Any = None
    endTurn: Any = None
    duration: Any = None
    ttft: Any = None


class RowToolResult(ToolResultBase):
    content: RowUserBlocks


class RowCustom(CustomBase):
    content: str | RowUserBlocks


class RowMessageLine(MessageLineBase, forbid_unknown_fields=True):
    """A Pi-written message line (its timestamp checked apart, see corpus/lines.LineDecoder)."""

    timestamp: str
    message: RowUser | RowAssistant | RowToolResult | Bash | RowCustom
    evictedContent: Any = None


# --- Search ------------------------------------------------------------------------------------------------------
class LooseIds(Struct, gc=False):
    """Any line's type, ids and version, whatever their JSON types (search checks them itself)."""

    type: Any = None
    id: Any = None
    parentId: Any = None
    version: Any = None


ROLE_OF_TYPE: dict[type, str] = {
    role_type: str(role_type.__struct_config__.tag) for role_type in (
        HeadUser, HeadAssistant, HeadToolResult, Bash, HeadCustom,
        AuditUser, AuditAssistant, AuditToolResult, AuditBash, AuditCustom,
        RowUser, RowAssistant, RowToolResult, RowCustom, AnySystem,
    )
}
"""The role of every message struct of every projection."""
