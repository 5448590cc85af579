"""The contract every API folder implements: `ApiAdapter`.

An API is one folder under `pi_tools.providers` (or a third party's package) whose ``adapter`` module holds
``ADAPTER``, an instance of an `ApiAdapter` subclass, and one row of the API table (`providers.table.ApiRow`)
naming that folder. Everything that knows the API is reached through the adapter: nothing outside
`pi_tools.providers` branches on API names.

One method must be written, `build_payload`, or its module named (``payload_module``; ``wire_module`` likewise for
`build_wire`); every other one has a default that means "this API does not have it", which is exactly how
pi-tools treats an API that lacks it:

- building (what Pi builds):
  ``build_payload(model, context, options)`` the params object Pi hands ``onPayload`` (required);
  ``build_wire(model, payload, options)`` the HTTP request the vendor SDK sends (default: no wire request known);
  ``stream_decoder()`` the module decoding a streamed response (``decode``, ``run``), or None;
  ``tool_call_id_normalizer()`` the cross-model tool-call id rewrite transformMessages runs, or None;
  ``request_tool_call_id_normalizer()`` the same as one request uses it (a stateful normaliser fresh per request);
  ``user_content_failure`` V8's TypeError text where the conversion first touches a user content that is
  neither text nor a list;
  ``preload()`` imports what building a first payload needs (the engine's helper calls it while it waits).
- building a large session in parts (`providers.split`; the defaults build the payload whole):
  ``build_history``, ``build_history_traced``, ``build_tail``, ``encode_part``, ``join_parts``,
  ``starts_by_continuing``.
- the payload mapping (render's preview, visibility and preflight's provenance pair messages with payload items;
  see `providers.mapping` for the vocabulary): ``item_kind``, ``result_parts``, ``units``,
  ``system_fragments``, ``system_units``, ``max_tokens_field``, ``adapter_notes``.
- preflight: ``rule_modules``, the modules defining the rules of this folder, in the order `preflight
  --list-rules` shows them (a rule names the APIs it applies to, so one module may serve several APIs); and
  ``request_limit``, the documented request-body limit the common request-size rule checks.

Adapter modules stay light: they import their payload, wire and stream modules inside the methods, so that
reading the table, `--help` or a command about one API never loads another API's code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from types import ModuleType
from typing import Any

from pi_tools.providers.junk_blocks import USER_CONTENT_DEFAULT
from pi_tools.providers.mapping import Fragment, Note, chat_item_kind

Model = dict[str, Any]
"""A pi-ai catalog entry (providers.catalog.Model, not imported here: reading an adapter stays cheap)."""

ToolCallIdNormalizer = Callable[[str, Model, Any], str]
"""pi-ai's normalizeToolCallId(id, model, source assistant message)."""


class ApiAdapter:
    """Everything pi-tools knows of one API (see the module docstring); subclass it and override what the API
    has. The defaults are what pi-tools does for an API without the feature."""

    payload_module: str | None = None
    """The module whose ``build_payload(model, context, options)`` builds this API's payload (dotted name, imported
    on first use), for an adapter that does not override ``build_payload``; ``preload`` imports it."""

    wire_module: str | None = None
    """The module whose ``build_wire(model, payload, options)`` builds the HTTP request, likewise."""

    rule_modules: tuple[str, ...] = ()
    """Modules (dotted names) whose import registers this folder's preflight rules
    (`providers.rulebook.rules.rule`), in the order they are listed; loaded only when preflight asks."""

    request_limit: int | None = None
    """The request-body size the provider documents (bytes), or None when it documents none."""

    sends_messages_as_stored: bool = False
    """True for an API whose request carries the messages exactly as given, reading none of their contents (Pi's
    own pi-messages): malformed stored content is then sent as it is, never replaced nor reported as the
    TypeError an encoder would throw (providers.junk_blocks)."""

    user_content_failure: str = USER_CONTENT_DEFAULT
    """The TypeError V8 throws where this API's user-message conversion first touches a user content that is a
    number or an object (providers.junk_blocks)."""
    user_text_by_length: bool = False
    """Whether this API's user-message conversion keeps only the text parts whose `text.length > 0` before it
    sanitizes them (providers.junk_blocks.js_failure)."""

    # --- building ---------------------------------------------------------------------------------------------

    def build_payload(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """The params object Pi hands ``onPayload``: the exact request body before the SDK serialises it.
        Raise `providers.errors.PayloadError` with Pi's words where Pi fails (the registry also reports the
        JavaScript TypeErrors of malformed stored data for you). By default, ``payload_module``'s function."""
        if self.payload_module is None:
            raise NotImplementedError
        built: dict[str, Any] = import_module(self.payload_module).build_payload(model, context, options)
        return built

    def build_wire(self, model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """The HTTP request (method, url, headers with credentials redacted, body) the SDK would send. By default,
        ``wire_module``'s function."""
        if self.wire_module is not None:
            wire: dict[str, Any] = import_module(self.wire_module).build_wire(model, payload, options)
            return wire
        from pi_tools.providers.errors import PayloadError

        raise PayloadError("no HTTP request is known for this API")

    def stream_decoder(self) -> ModuleType | None:
        """The module turning a streamed response into pi-ai events and a settled message, or None."""
        return None

    def tool_call_id_normalizer(self) -> ToolCallIdNormalizer | None:
        """The tool-call id rewrite transformMessages applies to another model's calls, or None (ids kept)."""
        return None

    def request_tool_call_id_normalizer(self) -> ToolCallIdNormalizer | None:
        """The normaliser as one request runs it: an API whose normaliser remembers the ids it gave (to avoid
        collisions) returns a fresh one here."""
        return self.tool_call_id_normalizer()

    def preload(self) -> None:
        """Import what building a payload will need (called ahead of time by the engine's helper process): by
        default ``payload_module``."""
        if self.payload_module is not None:
            import_module(self.payload_module)

    # --- parts (providers.split): the defaults mean "build this API's payload whole" ---------------------------

    def build_history(self, model: Model, context: dict[str, Any], options: dict[str, Any]) -> Any:
        """The payload items of a conversation's first part, or None where this API or model cannot build them
        apart from the rest of the conversation (then the whole payload is built)."""
        return None

    def build_history_traced(self, model: Model, context: dict[str, Any], options: dict[str, Any],
                             trace: Any) -> Any:
        """build_history, recording where each message went in `trace` (a split.ContentTrace) where the API
        can; by default untraced (the trace stays empty and the part is mapped afterwards)."""
        return self.build_history(model, context, options)

    def build_tail(self, model: Model, context: dict[str, Any],
                   options: dict[str, Any]) -> tuple[dict[str, Any], Any, int] | None:
        """(payload, carry, opening items that belong to no part) of a conversation's last part, or None: the
        last part is then the whole payload of its messages, with no carry and no opening items."""
        return None

    def encode_part(self, converted: list[Any], carry: Any) -> tuple[Any, Any]:
        """A part's items as EncodedItems and its carry (an API notes there where its text must change once the
        parts before it are known)."""
        from pi_tools.pipe.documents import EncodedItems, dump_items

        return EncodedItems(dump_items(converted), len(converted)), carry

    def join_parts(self, parts: list[Any], tail: Any) -> list[Any] | None:
        """The joined item list of the parts and the tail (the API checks their carries), or None where the
        whole conversation would convert differently."""
        return [*(part.messages for part in parts), tail.messages]

    def starts_by_continuing(self, converted: list[Any]) -> bool:
        """Whether a part's first items may belong with the previous part's last one (then it cannot be cut
        there)."""
        return False

    # --- payload mapping ---------------------------------------------------------------------------------------

    def item_kind(self, item: dict[str, Any], index: int, has_system: bool, previous: str) -> str:
        """The kind (providers.mapping USER, ASSISTANT, RESULT, SYSTEM, EXTRA) of the message payload item
        `index` comes from, given the previous item's kind; by default a chat-style list (role system, user,
        assistant, tool)."""
        return chat_item_kind(item, index, has_system, previous)

    def result_parts(self, item: dict[str, Any], label: str) -> list[Fragment] | None:
        """For an API that sends several tool results in one item: that item's parts, one per result; None
        (the default) where each result is an item of its own."""
        return None

    def units(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> int:
        """How many items the adapter makes of one (transformed) user or assistant message: 0 where it leaves
        the message out (the adapter's skip rules); by default one."""
        return 1

    def system_fragments(self, payload: Mapping[str, Any]) -> list[Fragment]:
        """Where the payload holds the system prompt outside its item list (None of them by default)."""
        return []

    def system_units(self, messages: Sequence[Any], model: Mapping[str, Any]) -> list[int | None]:
        """For each system message of the transformed transcript (Pi 1.x sessions record their own), in order:
        how many items of the list the adapter makes of it, or None where it becomes (part of) the request's
        system prompt rather than items of its own. Items made of the leading system message (the transcript's
        first message) open the list and are the prompt's; a later message's items stand where it does, or where
        the API holds them, before the next assistant turn. By default every system message is the prompt: the
        leading one carried as the API carries a prompt, the later ones folded into it (`system_fragments` and the
        system items opening the list)."""
        return [None for message in messages if isinstance(message, dict) and message.get("role") == "system"]

    def max_tokens_field(self, payload: Mapping[str, Any]) -> tuple[str, Any] | None:
        """(field path, value) of the output-token limit the payload carries, or None."""
        return None

    def adapter_notes(self, message: Mapping[str, Any], model: Mapping[str, Any]) -> list[Note]:
        """Changes the adapter itself makes to a message it sends, for every model of the API."""
        return []


__all__ = ["ApiAdapter", "Fragment", "Model", "Note", "ToolCallIdNormalizer"]
